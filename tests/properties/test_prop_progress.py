"""Progress at ℝ (issue 9): every closed, well-typed term of type ℝ reduces,
within the step budget, to a numeral -- the oracle's value.

The paper leaves two Jacobian applications stuck by design (its values 1 and
2: a free variable, or a non-abstraction value, in function position).  In a
closed term they can still arise, inside the premises that run an operator
or differentiate a body at a *symbolic* point (rules 17, 18, 19b), and the
term of type ℝ around them was then stuck.  Rules 19b/19c now reduce them
away (papers/calculus.md §5.9, §6.6): 19c fires whenever the argument's
tangent is 0, whatever the function, and 19b reads a function it cannot look
inside as λz. ā₁ z.  No example is set aside as a known engine bug here.

The generators: closed terms using every construct, pullback applications
whose bodies hold Jacobians, dual maps and pullbacks that depend on the
variable (nested AD), higher-order programs over Church lists and the
function library, and two shapes built here -- a let-bound curried helper
used by an inner pullback, and a pullback along a function of a function
whose point depends on the outer variable.
"""
from hypothesis import given, note
from hypothesis import strategies as st

import pullback_calc as pc
from pullback_calc.syntax.terms import App, Lam, Num, Pullback, Term, Var
from pullback_calc.syntax.types import Arrow, R
from pullback_calc.testing import strategies as S
from pullback_calc.typing.check import types_equal

import regressions
from common import close, numeral, oracle_real, reduce_noted

RR = Arrow(R, R)
RRR = Arrow(R, RR)
ID_FORM = pc.parse("λz. λw. w")


def _pullback(f: Term, point: Term, tangent: Term) -> Term:
    return App(App(Pullback(f, ID_FORM), point), tangent)


@st.composite
def helpers_in_inner_pullbacks(draw):
    """Ω(λx. let k = K in Ω(λy. B) (λz. λw. w) A 1) (λz. λw. w) x₀ 1, with K a
    curried helper ℝ → ℝ → ℝ (which may use x), B using y and k, and A a real
    term in x: the inner pullback's premise runs with k free (rule 17)."""
    k = draw(S.functions(R, RR, {"x": R}, depth=2, budget=6))
    inner = draw(S.functions(R, R, {"x": R, "k": RRR}, depth=2, budget=6))
    at = draw(S.terms(R, {"x": R, "k": RRR}, depth=1, budget=3))
    body = App(Lam(Var("k"), _pullback(inner, at, Num(1.0))), k)
    return _pullback(Lam(Var("x"), body), draw(S.points(R)), draw(S.tangents(R)))


@st.composite
def functions_of_functions(draw):
    """Ω(λa. Ω(λg. G) (λz. λw. w) F T) (λz. λw. w) a₀ 1: the inner pullback is
    along a function of g : ℝ → ℝ (G may apply g several times and use a), at
    a point F and on a tangent T that may depend on a -- D-eval into the
    Jacobian values the inner covector holds, at the outer symbolic point."""
    G = draw(S.functions(RR, R, {"a": R}, depth=2, budget=6))
    F = draw(S.functions(R, R, {"a": R}, depth=1, budget=4))
    T = draw(S.functions(R, R, {"a": R}, depth=1, budget=4))
    body = _pullback(G, F, T)
    return _pullback(Lam(Var("a"), body), draw(S.points(R)), draw(S.tangents(R)))


CLOSED_REALS = st.one_of(
    S.terms(R, depth=3, budget=20),
    S.terms(R, depth=3, budget=20, weights=S.DIFFERENTIATION_WEIGHTS),
    S.pullback_applications(depth=2, budget=15),
    S.higher_order_programs(budget=15).map(lambda p: p[0]),
    helpers_in_inner_pullbacks(),
    functions_of_functions(),
)


@given(CLOSED_REALS)
@regressions.examples(regressions.CLOSED_REAL)
def test_closed_reals_reduce_to_the_oracles_numeral(t):
    """A closed term of type ℝ reduces within the step budget to a numeral
    (𝟎 counts as 0), and it is the number the independent oracle computes."""
    ty = pc.typecheck(t)
    if not types_equal(ty, R):  # a generated shape the checker types otherwise: not ℝ
        note(f"type {ty}")
        return
    v = reduce_noted(t).value
    x = numeral(v)
    assert x is not None, f"stuck: {pc.pretty(v)}"
    assert close(x, oracle_real(t), rel=1e-7, abs_=1e-7)
