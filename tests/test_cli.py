"""The command line, run in-process (main(argv)) and once as a subprocess."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pullback_calc import parse, reduce
from pullback_calc.cli import main, parse_point
from pullback_calc.rendering import abbreviate, format_step, format_trace, trace_lines

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
RUNNING = str(EXAMPLES / "running_example.pb")
CHURCH_FILE = (EXAMPLES / "church_sum.pb").read_text(encoding="utf-8")
F = "λ⟨x, y⟩. ((x + 1) × (2 × x + y ^ 2)) ^ 2"
CHURCH = ("Ω(λl. l (λx. λacc. x + acc) 0) (λz. λw. w) (λc. λn. c 1 (c 2 (c 3 n))) "
          "(λc. λn. c 10 (c 20 (c 30 n)))")
#: a fold whose folding function depends on the differentiated a: its
#: covector needs rules 18 and 19b, with premises (nested ones too).  (The
#: folding function of CHURCH is a closed abstraction, a constant: its trace
#: has no premises.)
# a weighted fold over a Church list that is an input (paired with a, its tangent the
# empty list): the folding function and the list's application to it are differentiated
# by premises (rules 18, 19b).  (With the list written in place, 8c copies the folding
# function to its calls and the fold is a first-order let series.)
WEIGHTED = ("Ω(λ⟨a, l⟩. l (λx. λacc. a × x + acc) 0) (λz. λw. w) "
            "⟨2, λc. λn. c 1 (c 2 (c 3 n))⟩ ⟨1, λc. λn. n⟩")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def error_line(err: str) -> str:
    assert err.startswith("pullback-calc: error: "), err
    return err.splitlines()[0]


# ---- reduce ---------------------------------------------------------------------------

def test_reduce_prints_trace_normal_form_and_steps(capsys):
    code, out, err = run(capsys, "reduce", "-e", "(λx. x × x) (1 + 2)")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert "[4]" in lines[0] and "1 + 2" in lines[0] and "⟶" in lines[0]
    assert "[1]" in lines[1]
    assert lines[-2] == "normal form: 9"
    assert lines[-1] == "steps: 3"


def test_reduce_file_and_no_trace(capsys, tmp_path):
    p = tmp_path / "t.pb"
    p.write_text("# a comment\nlet x = 2 in x ^ 3  # cube\n", encoding="utf-8")
    code, out, _ = run(capsys, "reduce", str(p), "--no-trace")
    assert code == 0
    assert out.splitlines() == ["normal form: 8", "steps: 2"]


def test_reduce_church_sum(capsys):
    code, out, _ = run(capsys, "reduce", str(EXAMPLES / "church_sum.pb"), "--no-trace")
    assert code == 0 and "normal form: 60" in out
    code, out, _ = run(capsys, "reduce", str(EXAMPLES / "church_sum.pb"))
    assert out.splitlines()[-1] == f"steps: {reduce(CHURCH_FILE).steps}"  # no premises
    code, out, _ = run(capsys, "reduce", "-e", WEIGHTED)
    m = re.fullmatch(r"steps: (\d+) \((\d+) in the main derivation, (\d+) in premises\)",
                     out.splitlines()[-1])
    assert m and int(m[1]) == int(m[2]) + int(m[3]) == reduce(WEIGHTED).steps


def test_reduce_json_shape(capsys):
    code, out, _ = run(capsys, "reduce", "-e", WEIGHTED, "--json")
    assert code == 0
    doc = json.loads(out)
    # one schema for every command's traces (issue 13 item 6)
    import jsonschema
    from pullback_calc.rendering.json_trace import TRACE_SCHEMA
    jsonschema.validate(doc, TRACE_SCHEMA)
    assert doc["format"] == "pullback-calc-trace" and doc["max_term"] == 400
    assert doc["value"] == "6" and doc["term"].startswith("Ω(")
    assert doc["steps"] == reduce(WEIGHTED).steps

    def count(steps):  # the step count includes the premises' steps
        return sum(1 + sum(count(d["steps"]) for d in s["premises"]) for s in steps)
    assert count(doc["trace"]) == doc["steps"]
    keys = {"index", "rule", "phase", "depth", "redex", "contractum", "premises"}
    assert all(set(s) - {"abbreviated"} == keys for s in doc["trace"])  # (cut to max_term)
    assert [s["index"] for s in doc["trace"]] == list(range(len(doc["trace"])))
    assert {s["phase"] for s in doc["trace"]} <= {"A", "decompose", "forward", "reverse"}
    with_premises = [s for s in doc["trace"] if s["premises"]]
    assert with_premises, "the weighted Church fold has rules with premises (18, 19b)"
    d = with_premises[0]["premises"][0]
    assert set(d) == {"rule", "start", "result", "steps"} and d["steps"]
    assert set(d["steps"][0]) == keys


def test_reduce_json_is_trace_json(capsys):
    """`reduce --json` and `trace -f json` write one schema, and the same document (but
    for the paths, which only `trace` writes by default)."""
    import jsonschema
    from pullback_calc.rendering.json_trace import TRACE_SCHEMA
    code, out, _ = run(capsys, "reduce", "-e", WEIGHTED, "--json")
    a = json.loads(out)
    code2, out, _ = run(capsys, "trace", "-e", WEIGHTED, "-f", "json", "--paths", "none")
    b = json.loads(out)
    assert code == code2 == 0
    jsonschema.validate(a, TRACE_SCHEMA)
    jsonschema.validate(b, TRACE_SCHEMA)
    assert a == b
    code, out, _ = run(capsys, "reduce", "-e", WEIGHTED, "--json", "--max-term", "0")
    full = json.loads(out)
    jsonschema.validate(full, TRACE_SCHEMA)
    assert full["max_term"] is None and "abbreviated" not in out
    assert '"abbreviated": true' in json.dumps(a)  # some terms of the fold are long


def test_reduce_json_grows_linearly(capsys):
    """Terms are abbreviated (to 400 characters), so the output grows with the steps, not
    steps × term size: printed in full, a gradient's redexes each hold the whole let
    series and its environment tuples, and the output grew about 8× per doubling."""
    sizes = []
    for n in (60, 120):
        term = "Ω(λx. " + "sin(" * n + "x" + ")" * n + ") (λz. λw. w) 0.7"
        code, out, _ = run(capsys, "reduce", "-e", term, "--json")
        doc = json.loads(out)
        assert code == 0 and doc["max_term"] == 400
        sizes.append(len(out) / doc["steps"])
    assert sizes[1] < 1.3 * sizes[0], sizes  # bytes per step: bounded


def test_reduce_ascii_is_ascii(capsys):
    code, out, _ = run(capsys, "reduce", "-e", CHURCH, "--ascii")
    assert code == 0 and out.isascii()
    code, out, _ = run(capsys, "reduce", "-e", CHURCH, "--ascii", "--json")
    assert code == 0 and out.isascii()
    assert json.loads(out)["trace"][0]["redex"].isascii()


def test_reduce_width(capsys):
    code, out, _ = run(capsys, "reduce", "-e", CHURCH, "--width", "80")
    assert code == 0
    trace = out.splitlines()[:-2]
    assert max(map(len, trace)) <= 80
    assert any("…" in l for l in trace)
    code, out, _ = run(capsys, "reduce", "-e", CHURCH, "--width", "0")
    assert code == 0 and "…" not in out


def test_reduce_premises_are_indented(capsys):
    code, out, _ = run(capsys, "reduce", "-e", WEIGHTED)
    lines = out.splitlines()
    i = next(i for i, l in enumerate(lines) if "premise [18]" in l)
    assert lines[i].startswith("    ⊢ premise [18]: ")
    assert lines[i + 1].startswith("        ") and "[A-name]" in lines[i + 1]


# ---- errors ----------------------------------------------------------------------------

def test_parse_error_has_line_and_column(capsys, tmp_path):
    p = tmp_path / "bad.pb"
    p.write_text("# comment\nlet f = λx. x × x\nin f (1 + ) 2\n", encoding="utf-8")
    code, out, err = run(capsys, "reduce", str(p))
    assert code == 1 and out == ""
    first = error_line(err)
    assert f"{p}:3:11:" in first and "unexpected" in first
    assert err.splitlines()[1:] == ["    in f (1 + ) 2", "              ^"]


def test_parse_error_inline(capsys):
    code, _, err = run(capsys, "reduce", "-e", "λx. x +")
    assert code == 1 and "<-e>:1:8:" in error_line(err)


def test_type_error(capsys):
    code, _, err = run(capsys, "reduce", "-e", "(λx. x × 2) ⟨1, 2⟩")
    assert code == 1 and "<-e>:1:" in error_line(err) and "type" in error_line(err)


def test_missing_file(capsys, tmp_path):
    code, _, err = run(capsys, "jacobian", str(tmp_path / "nope.pb"), "--at", "1")
    assert code == 1 and "nope.pb" in error_line(err) and "No such file" in err


def test_reduction_error(capsys):
    code, _, err = run(capsys, "reduce", "-e", "log(0 − 1)")
    assert code == 1 and "log" in error_line(err)


@pytest.mark.parametrize("cmd", [["reduce", "-e", f"({F}) ⟨1, 2⟩"],
                                 ["jacobian", RUNNING, "--at", "1.5,2"],
                                 ["check", RUNNING, "--at", "1.5,2"]])
def test_step_budget(capsys, cmd):
    code, out, err = run(capsys, *cmd, "--max-steps", "5")
    assert code == 1
    assert "budget of 5 steps" in error_line(err) and "--max-steps" in err


@pytest.mark.parametrize("argv", [
    ["jacobian", "-e", F],                          # no --at
    ["jacobian", "-e", F, "--at", "1,x"],           # not a number
    ["jacobian", "-e", F, "--at", ""],              # empty
    ["jacobian", "-e", F, "--at", "nan,1"],
    ["reduce"],                                     # no term
    ["reduce", RUNNING, "-e", "1"],                 # two terms
    ["reduce", "-e", "1", "--max-steps", "0"],
    ["reduce", "-e", "1", "--width", "3"],
    ["frobnicate"],
    [],
])
def test_usage_errors_exit_2(capsys, argv):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    error_line(err)


def test_jacobian_input_errors_exit_1(capsys):
    code, _, err = run(capsys, "jacobian", RUNNING, "--at", "1.5,2", "--row", "1")
    assert code == 1 and "row 1 does not exist" in error_line(err)
    code, _, err = run(capsys, "jacobian", RUNNING, "--at", "1,2,3")
    assert code == 1 and "3 coordinate" in error_line(err)
    code, _, err = run(capsys, "jacobian", "-e", "1 + 1", "--at", "1")
    assert code == 1 and "function" in error_line(err)


def test_help_exits_0(capsys):
    assert main(["--help"]) == 0
    assert "jacobian" in capsys.readouterr().out


# ---- jacobian ---------------------------------------------------------------------------

def test_jacobian_running_example(capsys):
    code, out, _ = run(capsys, "jacobian", RUNNING, "--at", "1.5,2")
    assert code == 0
    assert "row 0: [420, 350]" in out and "steps" in out


def test_jacobian_json(capsys):
    code, out, _ = run(capsys, "jacobian", str(EXAMPLES / "polar.pb"), "--at", "[2, 0.5]",
                       "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["point"] == [2, 0.5]
    assert len(doc["rows"]) == 2 and all(len(r) == 2 for r in doc["rows"])
    assert len(doc["steps"]) == 2 and all(isinstance(n, int) and n > 0 for n in doc["steps"])


def test_jacobian_one_row_with_trace(capsys):
    code, out, _ = run(capsys, "jacobian", str(EXAMPLES / "polar.pb"), "--at", "2 0.5",
                       "--row", "1", "--trace")
    assert code == 0
    assert "row 0:" not in out and "row 1: [" in out
    assert "[pb]" in out and "[15]" in out and "covector:" in out


@pytest.mark.parametrize("argv", [["--at", "-1,2"], ["--at=-1,2"], ["--at", "-1, 2"],
                                  ["--at", "[-1, 2]"], ["--at", "(-1 2)"]])
def test_negative_point(capsys, argv):
    code, out, _ = run(capsys, "jacobian", "-e", "λ⟨x, y⟩. x × y ^ 2", *argv, "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["point"] == [-1, 2] and doc["rows"] == [[4, -4]]


def test_expression_starting_with_minus(capsys):
    code, out, _ = run(capsys, "reduce", "-e", "-3 + 1", "--no-trace")
    assert code == 0 and "normal form: -2" in out


def test_parse_point():
    assert parse_point("1.5,2") == [1.5, 2.0]
    assert parse_point(" [1.5, -2e1] ") == [1.5, -20.0]
    assert parse_point("3") == [3.0]


# ---- check and demo ---------------------------------------------------------------------

def test_check_running_example(capsys):
    code, out, _ = run(capsys, "check", RUNNING, "--at", "1.5,2")
    assert code == 0
    assert "reduction [420, 350]" in out and "sympy     [420, 350]" in out and "OK" in out
    assert "MISMATCH" not in out


def test_check_reports_mismatch(capsys, monkeypatch):
    import pullback_calc.results.sympy_bridge as bridge
    monkeypatch.setattr(bridge, "sympy_jacobian", lambda f, pt: [[420.0, 351.0]])
    code, out, _ = run(capsys, "check", RUNNING, "--at", "1.5,2")
    assert code == 1 and "MISMATCH" in out


def test_demo(capsys):
    code, out, _ = run(capsys, "demo")
    assert code == 0
    for heading in ("== A-reduction", "== decompose", "== forward", "== reverse"):
        assert heading in out
    assert out.index("== A-reduction") < out.index("== decompose") < out.index("== forward") \
        < out.index("== reverse")
    assert "[A-name]" in out and "[8]" in out and "[pb]" in out and "[15]" in out
    assert "[420, 350]" in out and "OK" in out


def test_demo_ascii(capsys):
    code, out, _ = run(capsys, "demo", "--ascii")
    assert code == 0 and out.isascii()


def test_python_dash_m_subprocess(tmp_path):
    p = subprocess.run([sys.executable, "-m", "pullback_calc", "jacobian", RUNNING,
                        "--at", "-1,2", "--json"], capture_output=True, text=True,
                       encoding="utf-8", timeout=120)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["point"] == [-1, 2] and doc["rows"] == [[0, 0]]  # x + 1 = 0 there
    p = subprocess.run([sys.executable, "-m", "pullback_calc", "reduce", "-e", "λx. (x"],
                       capture_output=True, text=True, encoding="utf-8", timeout=120)
    assert p.returncode == 1 and p.stdout == ""
    assert p.stderr.startswith("pullback-calc: error: <-e>:1:") and "Traceback" not in p.stderr


# ---- the text renderer ---------------------------------------------------------------------

def test_format_step_and_trace():
    r = reduce(WEIGHTED)
    line = format_step(r.trace[0])
    assert line.split()[0] == "0" and "[A-name]" in line and " A " in line
    assert len(line) <= 100
    assert format_step(r.trace[0], unicode=False).isascii()
    full = format_trace(r.trace, width=None)
    lines = trace_lines(r.trace)
    assert len(full.splitlines()) == len(lines) > r.steps  # premises add lines
    assert all(len(l) <= 100 for l in lines)


def test_abbreviate_middle_ellipsis():
    t = parse("λ⟨a, b⟩. " + " + ".join(f"a × {i}" for i in range(2000)) + " + b")
    s = abbreviate(t, limit=40)
    assert len(s) == 40 and s.startswith("λ⟨a, b⟩. a × 0") and s.endswith("a × 1999 + b")
    assert "…" in s
    assert abbreviate(t, limit=None).count("+") == 2000
    assert abbreviate(parse("x + 1"), limit=40) == "x + 1"
    assert abbreviate(t, unicode=False, limit=40).isascii()
