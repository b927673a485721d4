"""The engines agree: pullback (reduction), ps (Pearlmutter–Siskind), forward
(tagged dual numbers) and tape (Wengert list) give the same Jacobian rows on
generated programs -- first-order ones (and sympy's rows), programs whose bodies
use higher-order functions and Church lists, and nested derivatives (Hessian
rows: a pullback inside the differentiated term).

A mutant in any one engine (``testing.engine_mutants``) makes these fail
(tests/test_engines.py runs them under each, through PULLBACK_CALC_MUTANT).
"""
import math

from hypothesis import event, example, given, note, settings
from hypothesis import strategies as st

import pullback_calc as pc
from pullback_calc.syntax.terms import Num
from pullback_calc import engines
from pullback_calc.results.higher import partial_term
from pullback_calc.results.sympy_bridge import sympy_jacobian
from pullback_calc.syntax.types import Prod, R
from pullback_calc.testing import strategies as S

from common import MAX_STEPS, assert_close_lists

REVERSE = ("ps", "tape")


def flat(point) -> list:
    from pullback_calc.syntax.terms import Num
    if isinstance(point, Num):
        return [point.value]
    return [x for i in point.items for x in flat(i)]


def rows_by_every_engine(f, pt) -> dict:
    """method ↦ rows; an engine that cannot express f is left out (noted)."""
    out = {}
    for m in engines.METHODS:
        opts = {"max_steps": MAX_STEPS} if m == "pullback" else {}
        try:
            out[m] = engines.jacobian(f, pt, m, **opts).rows
        except engines.NotSupported as e:
            event(f"{m}: not supported")
            note(f"{m}: {e.message}")
    return out


def assert_all_agree(rows: dict, want=None, rel=1e-9, abs_=1e-9) -> None:
    reference = want if want is not None else rows["pullback"]
    for m, got in rows.items():
        assert len(got) == len(reference), f"{m}: {len(got)} rows, not {len(reference)}"
        for a, b in zip(got, reference):
            assert_close_lists(a, b, f"{m} vs {'sympy' if want is not None else 'pullback'}",
                               rel, abs_)


FIRST_ORDER = st.tuples(st.integers(1, 3), st.integers(1, 2)).flatmap(
    lambda nm: st.tuples(S.first_order_functions(*nm, sympy=True, budget=15),
                         S.points(R if nm[0] == 1 else Prod((R,) * nm[0]))))


@given(FIRST_ORDER)
# binary symbols with two different partials, at a point where they differ (the
# derandomized draws rarely multiply two active operands)
@example((pc.parse("λ⟨x, y⟩. ⟨x × y, x / y − y ^ x⟩"), pc.parse("⟨2, 3⟩")))
# (the thorough profile: rule 8h moved `let u = neg(1)` out of λu with its name, and λu
# captured its occurrences -- "atoms that are not input coordinates: du")
@example((pc.parse("λu. let u = neg(1) in ⟨u, u⟩"), pc.parse("⟨0.1, 0.1, 0.1⟩")))
def test_first_order_rows_agree_across_engines_and_with_sympy(fp):
    """Every engine's Jacobian of a first-order program ℝⁿ → ℝᵐ equals sympy's;
    every engine can express every first-order program."""
    f, point = fp
    pt = flat(point)
    note(f"f = {pc.pretty(f)} at {pt}")
    rows = rows_by_every_engine(f, pt)
    assert set(rows) == set(engines.METHODS), f"unsupported: {set(engines.METHODS) - set(rows)}"
    assert_all_agree(rows, sympy_jacobian(f, pt))


HIGHER_ORDER = st.integers(1, 2).flatmap(lambda n: st.tuples(
    S.higher_order_functions(n, budget=15),
    st.lists(st.integers(-15, 15).map(lambda k: k / 10), min_size=n, max_size=n)))


@given(HIGHER_ORDER)
def test_higher_order_rows_agree_across_engines(x):
    """Programs ℝⁿ → ℝ whose bodies pass functions around and fold Church lists:
    closures carry their sensitivities (ps), tape cells flow through closures
    (tape), tagged duals through both (forward) -- all equal the reduction's rows."""
    (f, desc), pt = x
    note(f"{desc}: f = {pc.pretty(f)} at {pt}")
    rows = rows_by_every_engine(f, pt)
    assert {"pullback", "forward"} <= set(rows)
    assert_all_agree(rows, None, 1e-7, 1e-9)


SCALAR = st.integers(1, 2).flatmap(
    lambda n: st.tuples(S.first_order_functions(n, 1, sympy=True, budget=10),
                        S.points(R if n == 1 else Prod((R,) * n))))


@settings(max_examples=max(10, settings.default.max_examples // 2))
@given(SCALAR, st.integers(0, 1))
# found by the thorough profile: a power at a negative point (P–S built log x for x ^ (2 − 1))
@example((pc.parse("λx. 1 + x ^ 2"), Num(-0.1)), 0)
def test_nested_derivatives_agree_across_engines_and_with_sympy(fp, i):
    """A Hessian row, as the Jacobian of λx. Ω(f) (λz. λw. w) x eᵢ: a pullback
    inside the differentiated term (reverse over reverse in ps and tape, nested
    tags in forward, rule 17/19 premises in the reduction), against sympy's
    second derivatives."""
    import sympy as sp
    f, point = fp
    pt = flat(point)
    n = len(pt)
    i = min(i, n - 1)
    note(f"f = {pc.pretty(f)} at {pt}, row {i}")
    g = partial_term(f, n, i)
    xs = sp.symbols(f"x1:{n + 1}")
    expr = pc.to_sympy(f, symbols=list(xs))[0]
    want = [[float(sp.diff(expr, xs[i], xj).subs(dict(zip(xs, pt)))) for xj in xs]]
    if not all(math.isfinite(v) for v in want[0]):
        return
    rows = rows_by_every_engine(g, pt)
    assert set(rows) == set(engines.METHODS), f"unsupported: {set(engines.METHODS) - set(rows)}"
    assert_all_agree(rows, want, 1e-7, 1e-7)
