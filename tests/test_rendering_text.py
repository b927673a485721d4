"""Text traces: plain and coloured, filters (phase, rule, every k-th), premises indented,
the evaluation context around a redex, and `pullback-calc trace` (text format)."""
import re

import pytest

import pullback_calc as pc
from pullback_calc.cli import main
from pullback_calc.rendering.text import (context_around, format_step, format_trace,
                                          parse_phases, parse_rules, rule_doc, select_steps,
                                          trace_lines, walk)

F = "λ⟨x, y⟩. ((x + 1) × (2 × x + y ^ 2)) ^ 2"
PREMISE = "(J(λx. λy. x × y)·1) 2"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture(scope="module")
def running():
    return pc.jacobian_row(F, [1.5, 2], 0)


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_plain_lines_are_unchanged_by_the_new_options(running):
    plain = trace_lines(running.trace)
    # 52 steps, and rule 5's 4 arithmetic premises (a header line each) with their
    # 5 rule-4 steps
    assert len(running.trace) == 52 and running.steps == 57
    assert len(plain) == 52 + 4 + 5
    assert trace_lines(running.trace, color=False, every=1) == plain
    assert all("\x1b" not in line for line in plain)
    assert plain[0].split()[:3] == ["0", "[A-name]", "A"]


def test_colour_marks_redex_and_contractum_and_keeps_the_text(running):
    colored = trace_lines(running.trace, color=True)
    plain = trace_lines(running.trace)
    assert [ANSI.sub("", c) for c in colored] == plain
    step = running.trace[17]  # 1.5 + 1 ⟶ 2.5
    line = format_step(step, color=True)
    assert "\x1b[31m1.5 + 1\x1b[0m" in line and "\x1b[32m2.5\x1b[0m" in line


def test_filters_by_phase_rule_and_every(running):
    rev = trace_lines(running.trace, phases={"reverse"})
    assert len(rev) == 23 + 4 + 5 and all(" reverse " in line for line in rev
                                          if "premise" not in line)
    five15 = trace_lines(running.trace, rules="5,15")
    five15_steps = [line for line in five15 if re.match(r"\s{0,5}\d+ \[", line)]
    assert five15_steps and all(re.search(r"\[(5|15)\]", line) for line in five15_steps)
    assert len(five15_steps) == sum(s.rule in ("5", "15") for s in running.trace)
    every10 = [s.index for s in select_steps(running.trace, every=10)]
    assert every10 == [0, 10, 20, 30, 40, 50]
    rev5 = [s.index for s in select_steps(running.trace, phases="reverse", every=5)]
    revs = [s.index for s in running.trace if s.phase == "reverse"]
    assert rev5 == revs[::5]


def test_rule_and_phase_specs():
    assert parse_rules("5, 15") == {"5", "15"}
    assert parse_rules("16") == {"16a", "16b", "16c"}
    assert parse_rules("A") == {"A-name", "A-lift", "A-tail"}
    assert parse_rules("(16b),pb") == {"16b", "pb"}
    assert parse_rules(["7J"]) == {"7J"}
    with pytest.raises(ValueError, match="unknown rule"):
        parse_rules("99")
    assert parse_phases("reverse,Forward") == {"reverse", "forward"}
    with pytest.raises(ValueError, match="unknown phase"):
        parse_phases("backward")


def test_premises_are_indented_under_their_step():
    r = pc.reduce(PREMISE)
    lines = trace_lines(r.trace)
    assert lines[0].lstrip().startswith("0 [18]")
    assert lines[1].startswith("    ⊢ premise [18]: ") and "⇓" in lines[1]
    assert all(ln.startswith("        ") for ln in lines[2:5])
    assert ["[pb]" in lines[2], "[15]" in lines[3], "[dual-app]" in lines[4]] == [True] * 3
    assert trace_lines(r.trace, premises=False) == lines[:1]
    assert [d for d, _ in walk(r.trace)] == [0, 1, 2, 2, 2]
    ascii_lines = trace_lines(r.trace, unicode=False)
    assert all(line.isascii() for line in ascii_lines) and "|- premise [18]" in ascii_lines[1]


def test_width_bounds_every_line(running):
    for line in trace_lines(running.trace, width=80):
        assert len(line) <= 80 + 10  # the room is shared; never the whole environment
    full = format_trace(running.trace, width=None)
    assert "λ⟨dx, dy⟩. 350 × dy ⊕ 420 × dx" in full


def test_context_around_the_redex(running):
    s = running.trace[17]  # 1.5 + 1 inside the environment tuple ⟨⟨1.5, 2⟩, 1.5 + 1⟩
    left, right, more = context_around(s)
    assert left.endswith("⟨⟨1.5, 2⟩, ") and right.startswith("⟩")
    left0, right0, more0 = context_around(running.trace[0], frames=3)
    assert left0 == "Ω(λ⟨x, y⟩. " and right0.startswith(") (λz. λw. w)") and not more0
    # the context is what plugging the redex back gives, abbreviated
    small = pc.reduce("⟨1, (λx. x) (2 + 3)⟩")
    l, r, more = context_around(small.trace[0], frames=10)
    assert (l, r, more) == ("⟨1, let x = ", " in x⟩", False)
    assert pc.pretty(small.trace[0].term_before()) == l + "2 + 3" + r


def test_rule_docs():
    assert rule_doc("1").startswith("(1) β_v")
    assert "premise" in rule_doc("18")
    assert rule_doc("A-name").startswith("A-name")
    assert rule_doc("no-such-rule") == ""


# ---- the CLI ---------------------------------------------------------------------------

def test_cli_trace_text(capsys):
    code, out, err = run(capsys, "trace", "-e", "(λx. x × x) (1 + 2)")
    assert code == 0 and err == ""
    assert out.splitlines()[0].split()[:2] == ["0", "[4]"] and "\x1b" not in out
    code, out, _ = run(capsys, "trace", "-e", "(λx. x × x) (1 + 2)", "--color")
    assert "\x1b[31m" in out
    code, out, _ = run(capsys, "trace", "-e", "(λx. x × x) (1 + 2)", "--color", "never")
    assert "\x1b" not in out


def test_cli_trace_jacobian_filters(capsys):
    code, out, _ = run(capsys, "trace", "-e", F, "--jacobian", "--at", "1.5,2",
                       "--phase", "reverse", "--rule", "5,15", "--ascii")
    lines = out.splitlines()
    assert code == 0 and lines and out.isascii()
    steps = [line for line in lines if re.match(r"\s{0,5}\d+ \[", line)]
    assert steps and all(re.search(r"\[(5|15)\]\s+reverse", line) for line in steps)
    # the rest is the arithmetic premises of rule 5, rule-4 steps in the reverse phase
    assert all(re.search(r"premise \[5\]|\[4\]\s+reverse", line)
               for line in lines if line not in steps)
    code, out, _ = run(capsys, "trace", "-e", F, "--at", "1.5,2", "--every", "10")
    assert [int(line.split()[0]) for line in out.splitlines()] == [0, 10, 20, 30, 40, 50]


@pytest.mark.parametrize("argv, status, message", [
    (["--rule", "99"], 2, "unknown rule '99'"),
    (["--phase", "sideways"], 2, "unknown phase"),
    (["--every", "0"], 2, "positive integer"),
    (["--jacobian"], 2, "--jacobian needs the point"),
    (["--row", "1"], 2, "--row needs --jacobian"),
    (["--format", "pdf"], 2, "invalid choice"),
    (["--at", "1", "--row", "5"], 1, "row 5 does not exist"),
])
def test_cli_trace_errors(capsys, argv, status, message):
    code, out, err = run(capsys, "trace", "-e", "λx. sin(x)", *argv)
    assert code == status and out == ""
    assert err.startswith("pullback-calc: error: ") and message in err


def test_cli_trace_errors_in_the_term(capsys, tmp_path):
    code, _, err = run(capsys, "trace", "-e", "(λx. x")
    assert code == 1 and "<-e>:1:" in err
    code, _, err = run(capsys, "trace", str(tmp_path / "missing.pb"))
    assert code == 1 and "missing.pb" in err
    code, _, err = run(capsys, "trace", "-e", "1", "-o", str(tmp_path / "no" / "dir.txt"))
    assert code == 1 and "No such file or directory" in err


def test_cli_trace_output_file(capsys, tmp_path):
    out_file = tmp_path / "t.txt"
    code, out, _ = run(capsys, "trace", "-e", PREMISE, "-o", str(out_file), "--color", "auto")
    assert code == 0 and out == ""
    text = out_file.read_text(encoding="utf-8")
    assert "⊢ premise [18]" in text and "\x1b" not in text


def test_memo_keys_of_every_precedence_are_distinct():
    # text.bounded keys its memo by need + 128 × (spelling, folding, end) for a
    # node's text and -1 - need - 128 × (spelling, folding) for its pieces:
    # distinct only while every precedence a node is printed at is below 127
    # (127 stands for "no parentheses needed")
    from pullback_calc.syntax import printer, prims
    needs = {p for *_, p in prims.SPELLING.values() if p is not None}
    needs |= {printer.LAM, printer.SUM, printer.NEG, printer.APP, printer.PREFIX,
              printer.ATOM}
    needs = {p + d for p in needs for d in (0, 1)}  # (operands ask one above)
    assert max(needs) < 127
    codes = needs | {127}
    keys = [(2 * (2 * u + f) + e) * 128 + c for u in (0, 1) for f in (0, 1) for e in (0, 1)
            for c in codes]
    keys += [-1 - (2 * u + f) * 128 - c for u in (0, 1) for f in (0, 1) for c in codes]
    assert len(keys) == len(set(keys))
