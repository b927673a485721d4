"""The four AD engines (pullback_calc.engines) and the compare command.

The agreement *properties* are in tests/properties/test_prop_engines.py; here:
the rule tables, a primitive registered at run time, every example through
``compare``, the P–S transformed term, the tape, the cost counters (and their
linear growth), grad/vjp, clear "not supported" messages, the command line,
and the engine mutants installed through PULLBACK_CALC_MUTANT.
"""
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import pullback_calc as pc
from pullback_calc import engines
from pullback_calc.cli import main
from pullback_calc.engines import compare, ps, tape
from pullback_calc.engines.evaluator import ZERO, Env
from pullback_calc.syntax import prims
from pullback_calc.syntax.terms import Lam, Prim, Var
from pullback_calc.testing import oracle
from pullback_calc.testing.engine_mutants import ENGINE_MUTANTS
from pullback_calc.testing.mutants import mutant

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
RUNNING = "λ⟨x, y⟩. ((x + 1) × (2 × x + y ^ 2)) ^ 2"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


# ---- rules as data ------------------------------------------------------------------------

@pytest.mark.parametrize("table",
                         [tape.RULES, ps.BACKPROPAGATORS, oracle.DERIVATIVES, oracle.FLOATS],
                         ids=["tape.RULES", "ps.BACKPROPAGATORS", "forward DERIVATIVES",
                              "forward FLOATS"])
def test_every_primitive_has_an_entry_in_every_engine_table(table):
    assert set(table) == set(prims.PRIMS)


def test_the_ps_reverse_rules_cover_every_kind_of_binding():
    assert set(ps.REVERSE) == {"Var", "Prim", "Fn", "App", "Tuple", "Proj", "Sum", "Num", "Zero"}


@pytest.fixture
def cube(monkeypatch):
    """A function symbol registered at run time, in prims only: cube(a) = a³."""
    from pullback_calc.syntax.terms import Num
    for table, entry in [(prims.ARITY, 1), (prims.SPELLING, ("cube", "cube", None)),
                         (prims.EVAL, lambda a: a ** 3),
                         (prims.PARTIALS, lambda a: (prims.P("mul", Num(3.0),
                                                             prims.P("mul", a, a)),)),
                         (prims.LINEARITY, None)]:
        monkeypatch.setitem(table, "cube", entry)
    return "cube"


@pytest.mark.parametrize("method", engines.METHODS)
def test_a_primitive_registered_in_prims_works_in_every_engine(cube, method):
    """The tables are derived from prims (not copies): d/dx cube(sin x) at 0.5."""
    x = Var("x")
    f = Lam(x, Prim("mul", (Prim(cube, (Prim("sin", (x,)),)), x)))
    s, c = math.sin(0.5), math.cos(0.5)
    want = 3 * s * s * c * 0.5 + s ** 3
    assert engines.jacobian(f, [0.5], method).rows[0][0] == pytest.approx(want, rel=1e-12)
    assert cube in tape.RULES and cube in ps.BACKPROPAGATORS


# ---- every example through compare --------------------------------------------------------

def _point(path: Path):
    m = re.search(r"--at (\S+)", path.read_text(encoding="utf-8"))
    return [float(v) for v in m.group(1).split(",")] if m else None


#: examples the reverse engines (ps, tape) must express; every other one they may decline
BY_EVERY_ENGINE = {"elementary", "polar", "running_example", "shared", "sum_of_products",
                   "tanh_layer", "ho_hessian_row", "ho_list_foldl", "ho_list_foldr",
                   "ho_perturbation_confusion", "ho_second_derivative_cos",
                   "ho_third_derivative_sin"}


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.pb")), ids=lambda p: p.stem)
def test_compare_on_every_example_agrees_or_says_not_supported(path):
    term = pc.parse(path.read_text(encoding="utf-8"))
    point = _point(path)
    outcomes = (compare.compare_jacobian(term, point) if point is not None
                else compare.compare_value(term))
    ok, message = compare.verdict(outcomes)
    assert ok, message
    by = {o.engine: o for o in outcomes}
    assert all(o.agrees is not False for o in outcomes)
    assert by["pullback"].kind != "unsupported"
    for o in outcomes:
        if o.kind == "unsupported":
            assert o.message  # says which construct, and why
            assert path.stem not in BY_EVERY_ENGINE, f"{o.engine}: {o.message}"
    if path.stem in BY_EVERY_ENGINE:
        assert sum(o.agrees is True for o in outcomes) >= 3, message


# ---- each engine's construction -----------------------------------------------------------

def test_the_ps_transform_pairs_each_primitive_and_lambda_with_a_backpropagator():
    program = ps.transform("λx. x × sin(x)")
    text = pc.pretty(program)
    # mul and sin each get a backpropagator x̃ (a λ of a sensitivity x̀)
    tilde, grave = "\u0303", "\u0300"  # x̃: a backpropagator, x̀: a sensitivity
    assert f"mul{tilde}" in text and f"sin{tilde}" in text
    assert f"λmul{grave}" in text and f"λsin{grave}" in text
    from pullback_calc.engines.ps import _evaluator
    from pullback_calc.engines.common import Measure
    ev = _evaluator(Measure())
    F = ev.eval(program, Env({}))
    value, backprop = ev.apply(F, 2.0)
    assert value == pytest.approx(2 * math.sin(2))
    closure_sens, x_sens = ev.apply(backprop, 1.0)
    assert closure_sens is ZERO  # a closed λ: no free variable to send sensitivity to
    assert x_sens == pytest.approx(math.sin(2) + 2 * math.cos(2))


def test_a_closure_carries_the_sensitivity_of_its_free_variable():
    """In λx. (λg. g 1) (λz. z × x) the only way back to x is the closure's sensitivity."""
    r = engines.jacobian("λx. (λg. g 2) (λz. z × x)", [3], "ps")
    assert r.rows == [[2.0]]
    with mutant("ps-app-drop-closure"):
        assert engines.jacobian("λx. (λg. g 2) (λz. z × x)", [3], "ps").rows == [[0.0]]
    assert engines.jacobian("λx. (λg. g 2) (λz. z × x)", [3], "ps").rows == [[2.0]]


def test_the_tape_of_the_running_example():
    r = engines.jacobian(RUNNING, [1.5, 2], "tape")
    assert r.rows == [[420.0, 350.0]]
    listing = r.artefact.listing()
    assert listing.splitlines()[:3] == ["  inp %0  = 1.5", "  inp %1  = 2",
                                        "  %2 = add(%0, 1) = 2.5    ∂ = (1)"]
    assert "%7 = pow(%6, 2) = 306.25    ∂ = (35)" in listing
    # two input cells and one per operation of the program
    assert r.costs.allocations == 8 and r.costs.allocation_kind == "tape cells"


def test_nested_tapes_keep_their_perturbations_apart():
    """d/dx x × (d/dy (x + y) at 3) at 2 is 1, not 2 (Siskind & Pearlmutter)."""
    src = (EXAMPLES / "ho_perturbation_confusion.pb").read_text(encoding="utf-8")
    for m in engines.METHODS:
        v = engines.evaluate(src, m)
        assert (v.kind, v.reals) == ("reals", [1.0]), m


@pytest.mark.parametrize("method", engines.METHODS)
def test_the_running_example_costs(method):
    r = engines.jacobian(RUNNING, [1.5, 2], method)
    c = r.costs
    assert r.rows == [[420.0, 350.0]]
    if method in ("ps", "tape"):
        assert c.primal_ops == 6  # one forward pass: the six operations, once each
    if method == "forward":
        assert c.primal_ops > 6   # one pass per input, and tangents computed beside
    if method == "pullback":
        assert c.steps == 57 and c.primal_ops == 6 and c.allocation_kind == "dual maps"
    else:
        assert c.steps is None
    assert c.derivative_mul > 0 and c.allocations > 0


def _sop(n: int) -> str:
    xs = [f"x{i}" for i in range(1, n + 1)]
    return f"λ⟨{', '.join(xs)}⟩. " + " + ".join(f"{a} × {b}" for a, b in zip(xs, xs[1:]))


def _sin_chain(n: int) -> str:
    return "λx. " + "sin(" * n + "x" + ")" * n


@pytest.mark.parametrize("method", engines.METHODS)
@pytest.mark.parametrize("family", [_sop, _sin_chain], ids=["sop", "sin"])
def test_costs_grow_linearly(method, family):
    """Doubling the program doubles every counter (forward mode: per input pass)."""
    def costs(n):
        src = family(n)
        inputs = n if family is _sop else 1
        c = engines.jacobian(src, [0.1 * (i + 1) for i in range(inputs)], method).costs
        per = inputs if method == "forward" else 1
        return [(c.primal_ops + c.derivative_ops) / per, c.allocations / per,
                (c.steps or 0) / per]
    small, big = costs(16), costs(32)
    assert 1.7 <= big[0] / small[0] <= 2.3, (small, big)  # operations double
    for a, b in zip(small[1:], big[1:]):
        assert b <= 2.3 * a, (small, big)  # allocations and steps at most double


# ---- grad, vjp ------------------------------------------------------------------------------

@pytest.mark.parametrize("method", ["pullback", "ps", "tape"])
def test_vjp_is_one_reverse_pass(method):
    f = "λ⟨x, y⟩. ⟨x × y, sin(x)⟩"
    r = engines.vjp(f, [1, 2], [1, 2], method)
    assert r.rows[0] == pytest.approx([2 + 2 * math.cos(1), 1.0])


def test_forward_mode_has_no_vjp_and_grad_needs_a_real_valued_function():
    with pytest.raises(engines.NotSupported, match="no vector-Jacobian product"):
        engines.vjp("λ⟨x, y⟩. x × y", [1, 2], [1], "forward")
    with pytest.raises(pc.JacobianError, match="real-valued"):
        engines.grad("λx. ⟨x, x⟩", [1], "tape")
    assert engines.grad("λ⟨x, y⟩. x × y", [2, 3], "ps").rows == [[3.0, 2.0]]
    with pytest.raises(pc.JacobianError, match="cotangent has 2"):
        engines.vjp("λx. x", [1], [1, 2], "ps")


def test_pc_jacobian_method_keyword_keeps_the_default():
    assert pc.jacobian(RUNNING, [1.5, 2]) == [[420.0, 350.0]]
    for m in engines.METHODS:
        assert pc.jacobian(RUNNING, [1.5, 2], method=m).rows == [[420.0, 350.0]]
    with pytest.raises(pc.JacobianError, match="unknown method 'nope'"):
        pc.jacobian(RUNNING, [1.5, 2], method="nope")


def test_pc_jacobian_has_one_return_type_with_or_without_method():
    """Issue 29: rows, with .engine/.costs/.artefact, whatever computed them."""
    plain = pc.jacobian(RUNNING, [1.5, 2])
    assert type(plain) is pc.Matrix and plain == [[420.0, 350.0]] and plain.rows == plain
    assert plain.engine == "pullback" and plain.costs is None  # no trace to itemise
    assert [r.steps for r in plain.artefact] == [57] and plain.artefact[0].trace == []
    for m in engines.METHODS:
        r = pc.jacobian(RUNNING, [1.5, 2], method=m)
        assert type(r) is pc.Matrix and r == [[420.0, 350.0]] and r.engine == m
        assert r.costs.primal_ops > 0 and r.costs.derivative_ops > 0
    assert pc.jacobian(RUNNING, [1.5, 2], method="pullback").costs.steps == 57
    recorded = pc.jacobian(RUNNING, [1.5, 2], record=True)
    assert recorded == plain and len(recorded.artefact[0].trace) == 52
    hessian = pc.hessian("λ⟨x, y⟩. x × x × y", [2, 3])
    assert type(hessian) is pc.Matrix and hessian == [[6.0, 4.0], [4.0, 0.0]]


def test_pc_jacobian_refuses_options_an_engine_would_ignore():
    with pytest.raises(pc.JacobianError, match="method='tape' does not take workers"):
        pc.jacobian(RUNNING, [1.5, 2], method="tape", workers=2)
    with pytest.raises(pc.JacobianError, match="record, on_unknown"):
        pc.jacobian(RUNNING, [1.5, 2], method="ps", record=True, on_unknown="zero")


# ---- what an engine cannot express ------------------------------------------------------------

def test_not_supported_names_the_construct_and_its_position():
    church = (EXAMPLES / "church_sum.pb").read_text(encoding="utf-8")
    with pytest.raises(engines.NotSupported, match=r"Ω\(S\) P \(at line 17, column 1\).*ℝⁿ → ℝᵐ"):
        engines.evaluate(church, "ps")
    with pytest.raises(engines.NotSupported, match="tapes hold reals"):
        engines.evaluate(church, "tape")
    with pytest.raises(engines.NotSupported, match=r"J\(λq.S\)·P .*forward"):
        engines.evaluate("(J(λx. x × x)·1) 2", "ps")
    with pytest.raises(engines.NotSupported, match=r"J\(λq.S\)·P"):
        engines.evaluate("(J(λx. x × x)·1) 2", "tape")
    assert engines.evaluate("(J(λx. x × x)·1) 2", "forward").reals == [4.0]


def test_a_run_time_error_is_a_reduction_error():
    with pytest.raises(pc.ReductionError, match="log"):
        engines.jacobian("λx. log(x)", [-1], "tape")


# ---- the command line ---------------------------------------------------------------------------

def test_compare_table(capsys):
    code, out, err = run(capsys, "compare", "-e", RUNNING, "--at", "1.5,2")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "Jacobian at (1.5, 2), by every engine:"
    assert lines[1].split()[:3] == ["engine", "result", "agrees"]
    body = {ln.split()[0]: ln for ln in lines[2:7]}
    assert set(body) == {"pullback", "ps", "forward", "tape", "sympy"}
    assert "reference" in body["pullback"] and "57" in body["pullback"]
    for e in ("ps", "forward", "tape", "sympy"):
        assert "[420, 350]  yes" in body[e]
    assert lines[-1] == "all 5 agree"


def test_compare_json_and_show(capsys):
    code, out, _ = run(capsys, "compare", str(EXAMPLES / "church_sum.pb"), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["mode"] == "value" and doc["agree"] is True
    by = {e["engine"]: e for e in doc["engines"]}
    assert by["pullback"]["rows"] == [[60.0]] and by["forward"]["agrees"] is True
    assert by["ps"]["kind"] == "unsupported" and "ℝⁿ → ℝᵐ" in by["ps"]["message"]
    # sum's folding function is a constant: no premise
    assert by["pullback"]["costs"]["steps"] == 36
    code, out, _ = run(capsys, "compare", "-e", "λx. x × sin(x)", "--at", "2", "--show")
    assert code == 0
    assert "P–S transformed program:" in out and "let mul̃" in out
    assert "tape (Wengert list) of the forward pass:" in out and "%2 = mul(%0, %1)" in out


def test_compare_disagreement_exits_1(capsys):
    with mutant("forward-sin-sign"):
        code, out, _ = run(capsys, "compare", "-e", "λx. sin(x)", "--at", "0.3")
    assert code == 1
    assert out.splitlines()[-1].startswith("MISMATCH: forward disagree")


def test_compare_errors_are_clear(capsys):
    code, _, err = run(capsys, "compare", str(EXAMPLES / "polar.pb"))
    assert code == 1 and "the term is a function ℝ × ℝ → ℝ × ℝ: give the point" in err
    code, _, err = run(capsys, "compare", "-e", "λ⟨x, y⟩. x × y", "--at", "1")
    assert code == 1 and "takes 2 real input(s) but the point has 1" in err
    code, _, err = run(capsys, "compare", "-e", "(λx. x", "--at", "1")
    assert code == 1 and err.startswith("pullback-calc: error: <-e>:1:")
    code, _, err = run(capsys, "compare", "-e", "λx. x", "--at", "one")
    assert code == 2
    # typed by default: a typo is an error, a declared free variable is not
    code, _, err = run(capsys, "compare", "-e", "sni(1)")
    assert code == 1 and "unbound variable `sni`; did you mean `sin`?" in err
    code, _, err = run(capsys, "compare", "-e", "λx. x × c", "--at", "1", "--free", "c : R")
    assert code == 1 and "depends on the value of c" in err  # declared, but it has no value


# ---- mutants in the engines, through the environment variable ------------------------------------

def test_engine_mutants_break_their_engine_inside_the_block_only():
    f = "λ⟨x, y⟩. (λh. sin(h y)) (λz. z × x)"
    right = engines.jacobian(f, [1.5, 2.5], "pullback").rows
    engine_of = {"tape-mul-swap-partials": "tape", "ps-app-drop-closure": "ps",
                 "forward-sin-sign": "forward"}
    assert set(engine_of) == set(ENGINE_MUTANTS)
    for name, m in engine_of.items():
        with mutant(name):
            assert engines.jacobian(f, [1.5, 2.5], m).rows[0] != pytest.approx(right[0])
        assert engines.jacobian(f, [1.5, 2.5], m).rows[0] == pytest.approx(right[0])


#: each engine's mutant and the agreement property that catches it (one property a run:
#: the subprocess is a whole Hypothesis search)
KILLED_BY = {"tape-mul-swap-partials": "test_higher_order_rows_agree_across_engines",
             "ps-app-drop-closure": "test_higher_order_rows_agree_across_engines",
             "forward-sin-sign": "test_first_order_rows_agree_across_engines_and_with_sympy",
             "15-swap-partials": "test_first_order_rows_agree_across_engines_and_with_sympy"}


def test_every_engine_mutant_has_a_killer():
    assert set(ENGINE_MUTANTS) <= set(KILLED_BY)


@pytest.mark.parametrize("name", sorted(KILLED_BY))
def test_the_agreement_property_catches_an_engine_mutant_named_in_the_environment(name):
    """One mutant per engine (15-swap-partials: the reduction engine's rule 15),
    installed through PULLBACK_CALC_MUTANT as a user would."""
    env = {k: v for k, v in os.environ.items() if k != "PULLBACK_CALC_MUTANT"}
    env["PULLBACK_CALC_MUTANT"] = name
    # fail at the first counterexample: no shrinking
    env.setdefault("PULLBACK_CALC_PROFILE", "kill")
    target = f"tests/properties/test_prop_engines.py::{KILLED_BY[name]}"
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                        target], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 1, r.stdout[-2000:]
    assert f"FAILED {target}" in r.stdout


@pytest.mark.parametrize("method", ["pullback", "ps", "forward", "tape"])
def test_a_nested_power_at_a_negative_point(method):
    """Found by the thorough profile: the derivative of x ^ 2 holds x ^ (2 − 1), whose
    exponent is arithmetic of numerals; P–S took it for a variable and built its partial
    log x × …, undefined at x < 0.  A constant expression is a constant."""
    d = pc.grad1("λx. 1 + x ^ 2")
    assert pc.jacobian(d, [-0.1], method=method) == [[2.0]]


def test_tape_engine_shapes_a_zero_point_by_its_annotation():
    """Found by the thorough profile: the pullback of λx : ℝ × ℝ. π1 x at the zero
    vector 𝟎 -- the tape engine gave 𝟎 the shape of the pattern (one real), and
    π1 of a real failed; the annotation says two."""
    import pullback_calc as pc
    f = "λx. (λx. ⟨x, x⟩)⋆ (Ω(λx : ℝ × ℝ. π1 x) (λx. λw. w) (let v : ℝ × ℝ = 𝟎 in v)) x"
    assert pc.jacobian(f, [0.0], method="tape") == pc.jacobian(f, [0.0]) == [[1.0]]
    # … and without the annotation: the tangent the covector is applied to has the shape
    g = "λx. (λx. ⟨x, x⟩)⋆ (Ω(λx. π1 x + π2 x) (λx. λw. w) (let v : ℝ × ℝ = 𝟎 in v)) x"
    assert pc.jacobian(g, [0.0], method="tape") == pc.jacobian(g, [0.0]) == [[2.0]]
