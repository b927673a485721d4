"""The AD front door (pullback_calc/api.py): grad, grad1, vjp / D, jvp, call.

The peers' own documentation examples (rackpropagator, shared/seeds) run
through the new API; properties check grad, vjp, jvp and nested grad1 against
sympy and central differences on generated programs."""
import math

import pytest
import sympy
from hypothesis import given, note, settings
from hypothesis import strategies as st

import pullback_calc as pc
from pullback_calc.results.sympy_bridge import default_symbols, sympy_jacobian, to_sympy
from pullback_calc.syntax.terms import Num, Pullback
from pullback_calc.syntax.types import Prod, R
from pullback_calc.testing import strategies as S
from pullback_calc.testing.oracle import central_difference, evaluate

FOLD = ("λ⟨i, a, b, c⟩. let l = λf. λd. f a (f b (f c d)) in "
        "l (λx. λacc. x × acc) i")          # foldr (×) i [a, b, c] on a Church list
RUNNING = "λ⟨x, y⟩. ((x + 1) × (2 × x + y ^ 2)) ^ 2"


# ---- the peers' documentation examples ----------------------------------------------

def test_rackpropagator_grad_example():
    """((grad (lambda (x y) (+ (* x x) y))) 2.0 3.0) → '(4.0 1.0)"""
    g = pc.grad("λ⟨x, y⟩. x × x + y", 2.0, 3.0)
    assert g == [4.0, 1.0]
    assert list(g) == [4.0, 1.0] and len(g) == 2
    assert g.steps > 0 and g.trace and g.trace[0].rule == "A-name"
    assert pc.pretty(g.covector) == "λ⟨dx, dy⟩. dy ⊕ 4 × dx"


def test_rackpropagator_fold_example():
    """((grad foldl) (lift/D+ *) 1 '(2 3 4)) → '(() 24.0 (12.0 8.0 6.0)): the product
    of (2 3 4) by a fold is 24; its gradient is 24 in the initial value and
    (12 8 6) in the list."""
    g = pc.grad(FOLD, 1, 2, 3, 4)
    assert g == [24.0, 12.0, 8.0, 6.0]
    primal, backprop = pc.vjp(FOLD, [1, 2, 3, 4])
    assert primal == 24.0
    assert backprop(1.0) == [24.0, 12.0, 8.0, 6.0]


def test_rackpropagator_grad1_grad1_cos():
    """((grad1 (grad1 cos)) 0.0) → -1.0, nesting by reduction (rule 17 and friends)."""
    d2 = pc.grad1(pc.grad1("cos"))
    assert isinstance(d2.body.fun.fun, Pullback)
    assert isinstance(d2.body.fun.fun.fun.body.fun.fun, Pullback)  # a pullback inside
    v = pc.call(d2, 0.0)
    assert v.value == pytest.approx(-1.0)
    assert v.steps > 0 and any(s.rule == "17" or s.premises for s in v.trace)
    # the term is usable again: the third derivative of cos is sin
    assert pc.call(pc.grad1(d2), 0.7).value == pytest.approx(math.sin(0.7))
    assert pc.grad(d2, 0.7) == [pytest.approx(math.sin(0.7))]


def test_rackpropagator_D_example():
    """(((D f) 2.0 3.0) #(1.0 0.0)) → '(4.0 0.0) for f(x, y) = (x·x, y)."""
    f = "λ⟨x, y⟩. ⟨x × x, y⟩"
    assert pc.D(f)(2.0, 3.0)([1.0, 0.0]) == [4.0, 0.0]
    r = pc.D(f)(2.0, 3.0)
    assert pc.primal(r) == (4.0, 3.0)
    assert pc.backprop(r)([0.0, 1.0]) == [0.0, 1.0]
    assert pc.backprop(r)([2.0, 5.0]) == [8.0, 5.0]


def test_rackpropagator_D_nonconforming_sensitivity_is_a_clear_error():
    """rackpropagator's "TODO Fix unhelpful error message": ours names the shapes."""
    _, backprop = pc.vjp("λ⟨x, y⟩. ⟨x × x, y⟩", [2.0, 3.0])
    with pytest.raises(pc.JacobianError, match="has 3 component.*output has 2"):
        backprop([1.0, 0.0, 3.0])
    with pytest.raises(pc.JacobianError, match="a real number or a list of them"):
        backprop("one")
    with pytest.raises(pc.JacobianError, match="a real number or a list of them"):
        backprop({1.0: 0.0, 2.0: 1.0})  # (a mapping has no order: was read as its keys)


def test_a_point_is_numbers_of_any_kind_and_never_text():
    """Text is refused, not read (``"12"`` was the point (1, 2)); so are a mapping and a
    set (no order); NumPy scalars, a Fraction and a Decimal are real numbers."""
    import decimal
    import fractions

    import numpy as np
    for text in ("12", b"12", {1.0: 2.0}, {1.0, 2.0}, ["1", "2"]):
        with pytest.raises(pc.JacobianError, match="real number"):
            pc.grad("λ⟨x, y⟩. x × y", text)
    with pytest.raises(pc.JacobianError, match="real number"):
        pc.grad("λx. x", 1j)
    for x in (np.float32(0.5), np.float64(0.5), np.array(0.5), fractions.Fraction(1, 2),
              decimal.Decimal("0.5")):
        assert pc.grad("λx. x × x", x) == [1.0]
    assert pc.grad("λ⟨x, y⟩. x × y", np.array([2.0, 3.0])) == [3.0, 2.0]
    # beyond the floats, or no float: the error names it (was OverflowError, ValueError)
    for bad in (10 ** 400, fractions.Fraction(10 ** 400), decimal.Decimal("sNaN"),
                [1.0, 10 ** 400], [np.array(1j)]):
        with pytest.raises(pc.JacobianError, match="beyond the floats|is no float"):
            pc.grad("λx. x" if not isinstance(bad, list) else "λ⟨x, y⟩. x × y", bad)


@pytest.mark.parametrize("call,message", [
    (lambda: pc.reduce("1 + 1", max_steps=-1), "max_steps must be a whole number of at least 0"),
    (lambda: pc.reduce("1 + 1", max_steps=2.5), "max_steps must be a whole number"),
    (lambda: pc.reduce("1 + 1", timeout=0), "timeout must be a positive number"),
    (lambda: pc.reduce("1 + 1", timeout=10 ** 400), "timeout must be at most"),
    (lambda: pc.grad("λx. x", 1.0, max_steps="9"), "max_steps must be a whole number"),
    (lambda: pc.reduce(b"1 + 2"), "got bytes .decode it first"),
    (lambda: pc.reduce(3), "expected a term, as text or a Term, got int"),
    (lambda: pc.reduce("1", stop_after=-2), "stop_after must be a whole number"),
])
def test_a_bad_argument_is_an_argument_error(call, message):
    """The project's own error (also a ValueError), naming the argument -- before: a
    budget of -1 steps "exhausted", a bare ValueError, an internal AttributeError."""
    with pytest.raises(pc.ArgumentError, match=message) as e:
        call()
    assert isinstance(e.value, ValueError) and isinstance(e.value, pc.PullbackCalcError)


def test_vjp_is_one_reduction_with_a_free_one_form():
    r = pc.vjp(RUNNING, [1.5, 2])
    assert r.primal == 306.25
    assert pc.pretty(r.term).startswith("Ω(λ⟨x, y⟩.")
    assert pc.pretty(r.normal_form).endswith(f"({r.term.fun.form.name} 306.25)")
    g = r.backprop(1.0)
    assert g == [420.0, 350.0]
    assert [s.rule for s in g.trace] == ["5"]          # rule 5 pulls the sensitivity back
    assert pc.pretty(g.covector) == "λ⟨dx, dy⟩. 350 × dy ⊕ 420 × dx"
    assert r.backprop(2.0) == [840.0, 700.0]
    assert pc.pretty(r.backprop.functional(2.0)) == "λw. 2 × w"
    assert r(0.5) == [210.0, 175.0]


def test_vjp_of_a_constant_function_is_one_numbered_trace():
    # rule 3 drops S̄ with the dual map; the primal comes from a second
    # reduction of f V, whose steps continue the first one's numbering
    r = pc.vjp("λx. 3 + 4", [1.0])
    assert r.primal == 7.0 and r.backprop(1.0) == [0.0]
    assert [s.index for s in r.trace] == list(range(len(r.trace))) and r.steps == len(r.trace)
    assert [s.rule for s in r.trace][-2:] == ["1", "4"]


def test_jvp_is_forward_mode_by_the_jacobian_rules():
    r = pc.jvp(RUNNING, [1.5, 2], [1, 0])
    primal, tangent = r
    assert (primal, tangent) == (306.25, 420.0)
    assert pc.pretty(r.term) == ("⟨let ⟨x, y⟩ = ⟨1.5, 2⟩ in ((x + 1) × (2 × x + y ^ 2)) ^ 2, "
                                 "J(λ⟨x, y⟩. ((x + 1) × (2 × x + y ^ 2)) ^ 2)·⟨1, 0⟩ ⟨1.5, 2⟩⟩")
    rules = {s.rule for s in r.trace}
    assert "15" in rules and "pb" not in rules and "5" not in rules  # no reverse phase
    assert pc.jvp(RUNNING, [1.5, 2], [0, 1]).tangent == 350.0
    assert pc.jvp("λ⟨x, y⟩. ⟨x × x, y⟩", [2, 3], [1, 1]) .tangent == (4.0, 1.0)
    assert pc.jvp("λx. sin(x)", 0.5, 2).tangent == pytest.approx(2 * math.cos(0.5))


def test_record_false_keeps_no_trace_but_counts_steps():
    g = pc.grad(RUNNING, 1.5, 2, record=False)
    assert g.trace == [] and g.steps == pc.grad(RUNNING, 1.5, 2).steps


def test_function_symbol_names_and_point_spellings():
    assert pc.grad("exp", 0.0) == [1.0]
    assert pc.grad("λx. x ^ 3", [2.0]) == [12.0]
    assert pc.grad(pc.parse("λx. x ^ 3"), 2) == [12.0]


def test_api_errors_are_clear():
    with pytest.raises(pc.JacobianError, match="real-valued"):
        pc.grad("λ⟨x, y⟩. ⟨x, y⟩", 1, 2)
    with pytest.raises(pc.JacobianError, match="2 real input"):
        pc.grad("λ⟨x, y⟩. x × y", 1)
    with pytest.raises(pc.JacobianError, match="ℝ → ℝ"):
        pc.grad1("λ⟨x, y⟩. x × y")
    with pytest.raises(pc.JacobianError, match="tangent has 1"):
        pc.jvp(RUNNING, [1, 2], [1])
    with pytest.raises(pc.ParseError):
        pc.grad("λx. x +", 1)
    with pytest.raises(pc.JacobianError, match="on_unknown"):
        pc.grad("λx. x", 1, on_unknown="ignore")


# ---- properties: generated programs against sympy and finite differences ----------------

def programs(n_max=3, m=1):
    return st.integers(1, n_max).flatmap(
        lambda n: st.tuples(S.first_order_functions(n, m, sympy=True, budget=12),
                            S.points(R if n == 1 else Prod((R,) * n))))


def flat(point) -> list:
    if isinstance(point, Num):
        return [point.value]
    return [x for i in point.items for x in flat(i)]


def close_lists(xs, ys, rel=1e-7, abs_=1e-7):
    return len(xs) == len(ys) and all(math.isclose(a, b, rel_tol=rel, abs_tol=abs_)
                                      for a, b in zip(xs, ys))


@settings(max_examples=25, deadline=None)
@given(programs())
def test_grad_equals_sympy(fp):
    f, point = fp
    pt = flat(point)
    note(f"f = {pc.pretty(f)} at {pt}")
    assert close_lists(list(pc.grad(f, pt)), sympy_jacobian(f, pt)[0])


@settings(max_examples=20, deadline=None)
@given(programs(3, 2), st.lists(st.sampled_from([1.0, -2.0, 0.5, 0.0]), min_size=2,
                                max_size=2))
def test_vjp_equals_sympy_transpose_product(fp, s):
    """backprop(s) = sᵀ J, and the primal is f's value (the oracle's)."""
    f, point = fp
    pt = flat(point)
    note(f"f = {pc.pretty(f)} at {pt}, s = {s}")
    J = sympy_jacobian(f, pt)
    r = pc.vjp(f, pt)
    want = [sum(s[i] * J[i][j] for i in range(2)) for j in range(len(pt))]
    assert close_lists(list(r.backprop(s)), want)
    value = evaluate(f)(pt[0] if len(pt) == 1 else tuple(pt))
    assert close_lists(list(r.primal), list(value))


@settings(max_examples=20, deadline=None)
@given(programs(3, 2), st.lists(st.sampled_from([1.0, -1.0, 0.5, 2.0]), min_size=3,
                                max_size=3))
def test_jvp_equals_sympy_product_and_finite_differences(fp, t):
    f, point = fp
    pt = flat(point)
    t = t[:len(pt)]
    note(f"f = {pc.pretty(f)} at {pt} along {t}")
    J = sympy_jacobian(f, pt)
    r = pc.jvp(f, pt, t)
    want = [sum(J[i][j] * t[j] for j in range(len(pt))) for i in range(2)]
    assert close_lists(list(r.tangent), want)
    x = pt[0] if len(pt) == 1 else tuple(pt)
    v = t[0] if len(pt) == 1 else tuple(t)
    fd = central_difference(evaluate(f), x, v)
    assert close_lists(list(r.tangent), list(fd), rel=1e-4, abs_=1e-5)


@settings(max_examples=15, deadline=None)
@given(S.first_order_functions(1, 1, sympy=True, budget=8),
       st.sampled_from([-0.7, 0.3, 1.1]))
def test_grad1_nested_equals_sympy_second_derivative(f, x0):
    """grad1(grad1(f)) x = f''(x), by reduction of nested pullbacks."""
    note(f"f = {pc.pretty(f)} at {x0}")
    x = default_symbols(1)[0]
    expr = to_sympy(f, [x])[0]
    want = float(sympy.diff(expr, x, 2).evalf(subs={x: x0}))
    once = pc.call(pc.grad1(f), x0).value
    assert math.isclose(once, float(sympy.diff(expr, x).evalf(subs={x: x0})),
                        rel_tol=1e-7, abs_tol=1e-7)
    twice = pc.call(pc.grad1(pc.grad1(f)), x0).value
    assert math.isclose(twice, want, rel_tol=1e-7, abs_tol=1e-7)


# ---- the process's recursion limit (issue 29) ---------------------------------------------

def test_the_recursion_limit_is_raised_only_inside_a_call():
    """A deep call raises the process-wide limit while it runs and restores it: a
    user's own code (their Hypothesis tests) does not inherit 400,000."""
    import sys
    from pullback_calc import deep
    before = sys.getrecursionlimit()
    seen = deep.deep(sys.getrecursionlimit)()
    assert seen >= deep.RECURSION_LIMIT > before
    pc.reduce("1 + 2")
    pc.jacobian(RUNNING, [1.5, 2], workers=2)
    assert sys.getrecursionlimit() == before


def test_the_recursion_limit_is_restored_through_the_documented_route():
    import subprocess
    import sys
    probe = ("import sys, pullback_calc as pc; before = sys.getrecursionlimit(); "
             "pc.reduce('1'); pc.grad('λx. x × x', 3); "
             "print(before, sys.getrecursionlimit())")
    r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                       timeout=120)
    before, after = r.stdout.split()
    assert r.returncode == 0 and before == after, r.stdout + r.stderr


def test_a_limit_changed_during_a_call_is_kept():
    import sys
    from pullback_calc import deep
    before = sys.getrecursionlimit()
    try:
        deep.deep(lambda: sys.setrecursionlimit(5000))()
        assert sys.getrecursionlimit() == 5000
    finally:
        sys.setrecursionlimit(before)
