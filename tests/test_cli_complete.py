"""A complete and consistent command line (issue 29): vjp and hessian, check --json, the
format of trace -o, one step count, -q/--quiet, and messages that quote the user's
β-redexes as written."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

import pullback_calc as pc
from pullback_calc.cli import main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
RUNNING = str(EXAMPLES / "running_example.pb")
PAIR = "λ⟨x, y⟩. ⟨x × y, sin(x)⟩"
CUBIC = "λ⟨x, y⟩. x × x × y"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


# ---- vjp and hessian ---------------------------------------------------------------------------

def test_vjp(capsys):
    v = pc.vjp(PAIR, [1, 2])
    g = v([1, 0])
    code, out, err = run(capsys, "vjp", "-e", PAIR, "--at", "1,2", "--cotangent", "1,0")
    assert code == 0 and err == ""
    assert out.splitlines() == [
        "primal at (1, 2): (2, 0.8414709848078965)",
        f"vjp of the cotangent (1, 0), by reduction: [2, 1]    ({v.steps + g.steps} steps: "
        f"{v.steps} for the pullback, {g.steps} for the cotangent)"]
    code, out, _ = run(capsys, "vjp", "-e", PAIR, "--at", "1,2", "--cotangent", "0,1",
                       "--json")
    doc = json.loads(out)
    assert doc["vjp"] == pytest.approx([0.5403023058681398, 0]) and doc["primal"][0] == 2
    assert doc["steps"] == sum(r["steps"] for r in doc["reductions"])
    assert [r["of"] for r in doc["reductions"]] == ["pullback", "cotangent"]


def test_vjp_of_a_real_valued_function_is_its_gradient(capsys):
    code, out, _ = run(capsys, "vjp", RUNNING, "--at", "1.5,2", "--json", "--trace")
    doc = json.loads(out)
    assert doc["vjp"] == [420, 350] and doc["cotangent"] == [1] and doc["primal"] == 306.25
    for r in doc["reductions"]:  # the one trace schema, with the step count of each
        assert r["trace"]["format"] == "pullback-calc-trace" and r["trace"]["steps"] == r["steps"]
    code, out, _ = run(capsys, "vjp", RUNNING, "--at", "1.5,2", "--trace", "--ascii")
    assert out.startswith("-- the pullback: pullback(") and "-- the cotangent: (" in out
    assert out.isascii()


def test_vjp_errors(capsys):
    code, _, err = run(capsys, "vjp", "-e", PAIR, "--at", "1,2")
    assert code == 2 and "f has 2 outputs: give the cotangent, --cotangent C1,…,C2" in err
    code, _, err = run(capsys, "vjp", "-e", PAIR, "--at", "1,2", "--cotangent", "1,2,3")
    assert code == 1 and "cotangent (output sensitivity) has 3 component(s)" in err
    code, _, err = run(capsys, "vjp", "-e", PAIR, "--at", "1", "--cotangent", "1,0")
    assert code == 1 and "the point has 1 coordinate(s)" in err
    code, _, err = run(capsys, "vjp", "-e", PAIR, "--at", "1,2", "--max-steps", "3",
                       "--cotangent", "1,0")
    assert code == 1 and "step budget of 3 steps exhausted" in err


def test_hessian(capsys):
    rows = pc.hessian(CUBIC, [2, 3])
    code, out, err = run(capsys, "hessian", "-e", CUBIC, "--at", "2,3")
    assert code == 0 and err == ""
    steps = [r.steps for r in rows.artefact]
    assert out.splitlines() == ["Hessian at (2, 3), by nested pullbacks:",
                                f"row 0: [6, 4]    ({steps[0]} steps)",
                                f"row 1: [4, 0]    ({steps[1]} steps)"]
    code, out, _ = run(capsys, "hessian", "-e", CUBIC, "--at", "2,3", "--json", "--jobs", "2")
    assert json.loads(out) == {"point": [2, 3], "rows": [[6, 4], [4, 0]], "steps": steps}
    code, out, _ = run(capsys, "hessian", "-e", CUBIC, "--at", "2,3", "--row", "1", "--json",
                       "--trace", "--terms", "table")
    doc = json.loads(out)
    assert doc["rows"] == [[4, 0]] and doc["row_index"] == 1
    assert doc["traces"][0]["steps"] == steps[1] and "terms" in doc["traces"][0]
    code, out, _ = run(capsys, "hessian", "-e", CUBIC, "--at", "2,3", "--trace", "--row", "0")
    assert "-- row 0: Ω(λx : ℝ × ℝ. Ω(λ⟨x, y⟩. x × x × y)" in out and "[19b]" in out
    assert out.endswith(f"row 0: [6, 4]    ({steps[0]} steps)\n")


def test_hessian_errors(capsys):
    code, _, err = run(capsys, "hessian", "-e", PAIR, "--at", "1,2")
    assert code == 1 and "the Hessian needs a real-valued function" in err
    code, _, err = run(capsys, "hessian", "-e", CUBIC, "--at", "2,3", "--row", "2")
    assert code == 1 and "row 2 does not exist: the Hessian has 2 rows" in err
    code, _, err = run(capsys, "hessian", "-e", CUBIC, "--at", "2,3", "--max-steps", "10")
    assert code == 1 and "step budget of 10 steps exhausted" in err
    code, _, err = run(capsys, "hessian", "-e", CUBIC, "--at", "2,3", "--terms", "table")
    assert code == 2 and "--terms table shapes a JSON trace: add --json --trace" in err


def test_vjp_and_hessian_verify_every_step(capsys):
    """--verify, as grad and jacobian have it: a broken rule is caught at its step."""
    from pullback_calc.testing.mutants import mutant
    with mutant("15-swap-partials"):
        code, out, _ = run(capsys, "vjp", "-e", "λ⟨x, y⟩. x × y + x", "--at", "2,5")
        assert code == 0 and "[3, 5]" in out  # wrong ([6, 2]), and nothing says so
        code, _, err = run(capsys, "vjp", "-e", "λ⟨x, y⟩. x × y + x", "--at", "2,5",
                           "--verify")
        assert code == 1 and "--verify: step 10, rule 15, changed the meaning" in err
        code, _, err = run(capsys, "hessian", "-e", CUBIC, "--at", "2,3", "--verify")
        assert code == 1 and "rule 15, changed the meaning" in err
    code, out, _ = run(capsys, "hessian", "-e", CUBIC, "--at", "2,3", "--verify")
    assert code == 0 and "row 1: [4, 0]" in out


def test_the_new_commands_through_the_console_script():
    """The documented route: ``pullback-calc hessian -e 'λ⟨x, y⟩. x × x × y' --at 2,3``."""
    for argv, want in ((["hessian", "-e", CUBIC, "--at", "2,3"], "row 1: [4, 0]"),
                       (["vjp", "-e", PAIR, "--at", "1,2", "--cotangent", "1,0"], "[2, 1]")):
        r = subprocess.run([sys.executable, "-m", "pullback_calc", *argv], capture_output=True,
                           text=True, timeout=120)
        assert r.returncode == 0 and want in r.stdout, r.stdout + r.stderr


# ---- check --json ------------------------------------------------------------------------------

def test_check_json_with_sympy(capsys):
    code, out, err = run(capsys, "check", RUNNING, "--at", "1.5,2", "--json")
    assert code == 0 and err == ""
    assert json.loads(out) == {
        "point": [1.5, 2], "tolerance": 1e-9, "reference": "sympy", "why_not_sympy": None,
        "rows": [{"row": 0, "reduction": [420, 350], "steps": 57, "sympy": [420, 350],
                  "agree": True}],
        "agree": True, "free": {}}


def test_check_json_with_the_oracle_and_free_variables(capsys):
    code, out, _ = run(capsys, "check", "-e", "λx. Ω(λy. cos(y)) (λz. λw. w) x 1", "--at",
                       "0.5", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["reference"] == "oracle" and doc["why_not_sympy"]
    (row,) = doc["rows"]
    assert row["reduction"] == pytest.approx([-0.8775825618903728]) and row["agree"]
    assert row["oracle_agrees"] and row["differences_agree"]
    code, out, _ = run(capsys, "check", "-e", "λx. h x × x", "--free", "h : R -> R", "--at",
                       "2", "--json")
    assert code == 0 and list(json.loads(out)["free"]) == ["h"]


def test_check_json_of_a_value_and_a_mismatch_status(capsys, monkeypatch):
    code, out, _ = run(capsys, "check", "-e", "Ω(λx. x × x) (λz. λw. w) 3", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["reference"] == "oracle" and "point" not in doc
    assert [p["reduction"] == p["oracle"] for p in doc["probes"]] == [True, True]
    assert doc["probes"][0]["applied_to"] == ["-0.75"]
    from pullback_calc.cli import check as C
    monkeypatch.setattr(C, "_agree", lambda a, b, tol: False)  # a reference that disagrees
    code, out, _ = run(capsys, "check", RUNNING, "--at", "1.5,2", "--json")
    assert code == 1 and json.loads(out)["agree"] is False


# ---- trace -o: the format from the suffix ------------------------------------------------------

@pytest.mark.parametrize("name, start", [("t.html", "<!DOCTYPE html>"), ("t.tex", "\\document"),
                                         ("t.json", '{"format":'), ("t.txt", "    0 [A-name]"),
                                         ("t.out", "    0 [A-name]")])
def test_trace_output_format_from_the_suffix(capsys, tmp_path, name, start):
    code, _, err = run(capsys, "trace", RUNNING, "--at", "1.5,2", "-o", str(tmp_path / name))
    assert code == 0 and err == ""
    assert (tmp_path / name).read_text(encoding="utf-8").startswith(start)


def test_trace_refuses_a_suffix_that_contradicts_the_format(capsys, tmp_path):
    out = tmp_path / "t.html"
    code, _, err = run(capsys, "trace", RUNNING, "--at", "1.5,2", "-f", "latex", "-o", str(out))
    assert code == 2 and not out.exists()
    assert "--format latex and -o" in err and "names html by its suffix" in err and ".tex" in err
    code, _, _ = run(capsys, "trace", RUNNING, "--at", "1.5,2", "-f", "json", "-o",
                     str(tmp_path / "t.data"))
    assert code == 0 and (tmp_path / "t.data").read_text(encoding="utf-8").startswith("{")


# ---- one step count ----------------------------------------------------------------------------

def test_step_says_what_it_counts_as_jacobian_does(capsys, monkeypatch):
    import io
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    code, out, _ = run(capsys, "step", RUNNING, "--at", "1.5,2")
    assert code == 0
    assert out.startswith("57 steps (52 in the main derivation, walked here; 5 in premises).")
    code, out, _ = run(capsys, "jacobian", RUNNING, "--at", "1.5,2")
    assert out.endswith("(57 steps)\n")
    code, out, _ = run(capsys, "reduce", "-e", "(J(λx. λy. x × y)·1) 2")
    r = pc.reduce("(J(λx. λy. x × y)·1) 2")
    assert out.endswith(f"steps: {r.steps} ({len(r.trace)} in the main derivation, "
                        f"{r.steps - len(r.trace)} in premises)\n")


# ---- -q/--quiet --------------------------------------------------------------------------------

@pytest.mark.parametrize("where", ["before", "after"])
def test_quiet_silences_notes_not_errors(capsys, where):
    church = str(EXAMPLES / "church_sum.pb")
    code, out, err = run(capsys, "reduce", church, "--no-trace")
    assert code == 0 and "note: Ω differentiates here along an input of type" in err
    argv = ["reduce", church, "--no-trace"]
    argv = ["-q", *argv] if where == "before" else [*argv, "--quiet"]
    code, quiet_out, err = run(capsys, *argv)
    assert code == 0 and err == "" and quiet_out == out
    code, _, err = run(capsys, "-q", "reduce", "-e", "1 +")
    assert code == 1 and "error: <-e>:1:4: unexpected end of input" in err


def test_quiet_through_the_console_script():
    church = str(EXAMPLES / "church_sum.pb")
    r = subprocess.run([sys.executable, "-m", "pullback_calc", "reduce", church, "--no-trace",
                        "-q"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stderr == "" and r.stdout.startswith("normal form: 60")


# ---- say what the user wrote -------------------------------------------------------------------

def test_messages_quote_a_beta_redex_as_written(capsys):
    code, _, err = run(capsys, "reduce", "-e", "(λx. x) 1 2")
    assert code == 1
    assert "`(λx. x) 1` is a real number and cannot be applied to `2`" in err
    assert "write `(λx. x) 1 × 2`" in err and "let" not in err
    code, _, err = run(capsys, "reduce", "-e", "let x = 1 in (λy. y) x 2")
    assert "`(λy. y) x` is a real number" in err
    code, _, err = run(capsys, "reduce", "-e", "(let x = 1 in x) 2")
    assert "`let x = 1 in x` is a real number" in err  # a let stays a let


def test_traces_keep_printing_beta_redexes_as_lets():
    """Only messages quote as written: a trace's terms are rebuilt by the reduction,
    and would change spelling from one step to the next."""
    t = pc.parse("(λx. x × x) (1 + 2)")
    assert pc.pretty(t) == "let x = 1 + 2 in x × x"
    from pullback_calc.syntax.printer import as_written
    assert as_written(t) == "(λx. x × x) (1 + 2)" and pc.parse(as_written(t)) == t
