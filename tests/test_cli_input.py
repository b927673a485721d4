"""Typo-proof input (issue 13 item 1): every slip gets a located, helpful message
and a non-zero exit; free variables are errors unless declared."""
import pytest

import pullback_calc as pc
from pullback_calc import parse, typecheck
from pullback_calc.cli import main
from pullback_calc.errors import ParseError, PullbackTypeError
from pullback_calc.syntax.parser import parse_program
from pullback_calc.syntax.subst import alpha_eq
from pullback_calc.syntax.types import Arrow, R


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


@pytest.mark.parametrize("cmd", [["reduce"], ["trace"], ["jacobian", "--at", "1"],
                                 ["check", "--at", "1"], ["graph"]])
@pytest.mark.parametrize("text, where, words", [
    ("sni(1)", "1:1", ["unbound variable `sni`", "did you mean `sin`?"]),
    ("λx. x + y", "1:9", ["unbound variable `y`", "free y : ℝ", "--free 'y : R'"]),
    ("λx. abs(x)", "1:5", ["unbound variable `abs`", "not a function symbol",
                           "free abs : ℝ → ℝ"]),
])
def test_unbound_variables_are_located_errors(capsys, cmd, text, where, words):
    code, out, err = run(capsys, *cmd[:1], "-e", text, *cmd[1:])
    assert code == 1 and out == ""
    assert err.startswith(f"pullback-calc: error: <-e>:{where}: "), err
    for w in words:
        assert w in err
    assert "reduce()" not in err  # no Python names in a command-line message


@pytest.mark.parametrize("text, where, hint", [
    ("λ(a, b). a × b", "1:2", "λ⟨a, b⟩"),
    ("\\(a, b). a", "1:2", "\\<a, b>"),
    ("λx. x**2", "1:7", "x ^ 2"),
    ("λx. 2x", "1:5", "write `2 × x`"),
    ("λx. 2 sin(x)", "1:5", "write `2 × sin(x)`"),
    ("λx. 3(x + 1)", "1:5", "write `3 × (x + 1)`"),
    ("let neg = 1 in neg", "1:5", "'neg' is a reserved word"),
    ("λpow. pow", "1:2", "add sub mul div neg pow"),
    ("let free = 1 in free", "1:5", "reserved word"),
    ("let f = sin in f 1", "1:13",
     "sin must be applied, sin(x); as a function value write λx. sin(x)"),
    ("(λk. k 1 2) pow", "1:16", "write λx. λy. pow(x, y)"),
    # typed by one binding and reduced by the other, it used to give 1 silently
    ("(λ⟨x, x⟩. x) ⟨1, 2⟩", "1:7", "binds x twice"),
    ("let ⟨a, ⟨b, a⟩⟩ = ⟨1, ⟨2, 3⟩⟩ in a", "1:13", "binds a twice"),
])
def test_beginner_slips_get_hints(capsys, text, where, hint):
    code, out, err = run(capsys, "reduce", "-e", text)
    assert code == 1 and out == ""
    assert err.startswith(f"pullback-calc: error: <-e>:{where}: "), err
    assert hint in err
    assert "^" in err.splitlines()[-1]  # the caret under the column


def test_a_pattern_built_in_python_binds_each_name_once():
    from pullback_calc.syntax.terms import App, Lam, Num, Tuple, Var
    twice = App(Lam(Tuple((Var("x"), Var("x"))), Var("x")), Tuple((Num(1.0), Num(2.0))))
    with pytest.raises(PullbackTypeError, match="binds x twice"):
        typecheck(twice)
    assert str(typecheck(parse("λx ⟨y, x⟩. y"))) == "α → β × γ → β"  # shadowing is fine


def test_run_time_errors_carry_a_source_position(capsys):
    # sqrt's derivative 0.5 / sqrt(x) at 0: the message points at the sqrt
    code, _, err = run(capsys, "jacobian", "-e", "λx.\n  1 + sqrt(x)", "--at", "0")
    assert code == 1 and err.startswith("pullback-calc: error: <-e>:2:7: "), err
    assert "division by zero" in err
    code, _, err = run(capsys, "reduce", "-e", "let a = 2 in\n  a + 10 ^ 400")
    assert code == 1 and err.startswith("pullback-calc: error: <-e>:2:7: "), err
    assert "too large for a float" in err and "34" not in err


def test_declared_free_variables(capsys, tmp_path):
    p = tmp_path / "open.pb"
    p.write_text("free h : ℝ → ℝ\nfree a, b : R\nΩ(λx. h (a × x + b)) (λz. λw. w) 2\n",
                 encoding="utf-8")
    # the inert point a × 2 + b is computed once, shared by lets (open call-by-value),
    # as the chain its stages left (papers/calculus.md §5.1); the covector is in
    # linear normal form: a Jacobian is read through its direction
    want = pc.parse("let m = a × 2 in let r = m + b in λdx. a × J(λz. h z)·dx r")
    code, out, err = run(capsys, "reduce", str(p), "--no-trace")
    assert code == 0, err
    assert alpha_eq(pc.parse(out.split("\n")[0].removeprefix("normal form: ")), want), out
    # the same free variables on the command line
    code, out, _ = run(capsys, "reduce", "-e", "Ω(λx. h (a × x + b)) (λz. λw. w) 2",
                       "--free", "h : R -> R", "--free", "a, b : R", "--no-trace")
    assert code == 0
    assert alpha_eq(pc.parse(out.split("\n")[0].removeprefix("normal form: ")), want), out
    # a declaration with the wrong type is checked like any other
    code, _, err = run(capsys, "reduce", "-e", "h 1", "--free", "h : R")
    assert code == 1 and "cannot be applied" in err
    code, _, err = run(capsys, "reduce", "-e", "h 1", "--free", "h R")
    assert code == 2 and "expected NAME : TYPE" in err
    # jacobian: a declared constant passes the check; its row is symbolic, so no matrix
    code, _, err = run(capsys, "jacobian", "-e", "λx. x × c", "--free", "c : R", "--at", "1")
    assert code == 1 and "depends on the value of c" in err  # (results/unknown.py)


def test_no_check_lets_open_terms_through(capsys):
    code, out, _ = run(capsys, "reduce", "-e", "sni(1)", "--no-check", "--no-trace")
    assert code == 0 and out.startswith("normal form: sni 1")


def test_free_declarations_in_the_api():
    prog = parse_program("free h : ℝ → ℝ\n h 2")
    assert prog.free == {"h": Arrow(R, R)} and prog.free_pos["h"].line == 1
    assert typecheck(prog.term, prog.free, closed=True) == R
    with pytest.raises(PullbackTypeError, match="unbound variable `h`"):
        typecheck(prog.term, closed=True)
    assert str(parse("free h : R\nh")) == "h"  # parse() keeps only the term
    with pytest.raises(ParseError, match="declared twice"):
        parse("free h : R\nfree h : R\nh")


@pytest.mark.parametrize("argv, hint", [
    (["grad", "-e", "λx. x", "1"], "a point after --at (--at 1,2)"),
    (["reduce", "-e", "1", "prog.pb"], "either as FILE or with -e (see"),
    (["grad", "prog.pb", "--at", "1", "2"], "coordinates joined by commas (--at 1,2)"),
])
def test_a_point_or_program_in_the_wrong_place_gets_a_hint(capsys, argv, hint):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and hint in err, err


@pytest.mark.parametrize("text, at, symbol, failing", [
    ("λx. sqrt(x)", "0", "sqrt", "div is undefined at 0.5, 0.0"),
    ("λx. x ^ 0.5", "0", "pow", "pow is undefined at 0.0, -0.5"),
    ("λx. 2 × sqrt(x × x)", "0", "sqrt", "div is undefined"),
])
def test_an_undefined_derivative_is_named_as_one(capsys, text, at, symbol, failing):
    """∂sqrt at 0 divides by 0: the message says it is sqrt's derivative that is undefined
    (the division is no operation the user wrote), and points at sqrt."""
    code, out, err = run(capsys, "grad", "-e", text, "--at", at)
    assert code == 1 and failing in err and f"part of the derivative of {symbol}" in err, err
    caret = err.splitlines()[-1].index("^")
    assert err.splitlines()[-2][caret:].lstrip("(").startswith(symbol.replace("pow", "x"))


def test_an_operation_the_user_wrote_is_not_called_a_derivative(capsys):
    for text, at in (("λx. sqrt(x)", "-1"), ("λx. x / 0", "1"), ("λx. log(x)", "0")):
        code, _, err = run(capsys, "grad", "-e", text, "--at", at)
        assert code == 1 and "derivative" not in err, err
