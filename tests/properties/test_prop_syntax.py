"""Properties of the syntax, and of the generators themselves.

* parse ∘ pretty is the identity up to α-equivalence, in both spellings;
* the generators produce what they promise: well-typed terms of the requested
  type in the requested context, linear terms that lin(S) accepts, points and
  tangents of their type, closed programs of their type.
"""
from hypothesis import given, settings
from hypothesis import strategies as st

import pullback_calc as pc
from pullback_calc.syntax.subst import alpha_eq, fv, linear
from pullback_calc.syntax.terms import Dual, Jac, Lam, Pullback, is_let, pattern_vars, subterms
from pullback_calc.syntax.types import Arrow, DualT, Prod, R
from pullback_calc.testing import strategies as S
from pullback_calc.typing.check import check, types_equal

import regressions

CONTEXT_NAMES = ("x", "y", "g", "ω", "k")


def contexts(first_order=False):
    return st.dictionaries(st.sampled_from(CONTEXT_NAMES), S.types(1, first_order), max_size=3)


def typed_terms(first_order=False):
    """(type, context, term) with the term generated at that type in that context."""
    return st.tuples(S.types(2, first_order), contexts(first_order)).flatmap(
        lambda tc: st.tuples(st.just(tc[0]), st.just(tc[1]),
                             S.terms(tc[0], tc[1], 3, first_order=first_order)))


def assert_round_trip(t):
    for uni in (True, False):
        text = pc.pretty(t, unicode=uni)
        back = pc.parse(text)
        assert alpha_eq(back, t), f"{text!r} reads back as {pc.pretty(back, unicode=uni)!r}"


@given(typed_terms().map(lambda x: x[2]))
@regressions.examples(regressions.ROUND_TRIP)
def test_parse_pretty_is_the_identity_up_to_alpha(t):
    """parse(pretty(t)) is t up to α, in the Unicode and the ASCII spelling."""
    assert_round_trip(t)


@given(S.terms(R, depth=2, budget=15).map(lambda t: pc.reduce(t, max_steps=20_000).trace))
def test_parse_pretty_round_trips_the_engine_reducts(trace):
    """… also for the contracta of reductions, which contain what users never
    write: environments, canonical directions, fresh names, Jacobians at
    points, dual maps built by pb."""
    for s in trace[:30]:
        assert_round_trip(s.contractum)


@given(typed_terms())
def test_generated_terms_have_the_requested_type(tct):
    """terms(ty, ctx) is well-typed at ty in ctx, with no other free variable."""
    ty, ctx, t = tct
    assert types_equal(check(t, ty, ctx), ty), pc.pretty(t)
    assert fv(t) <= set(ctx), "a free variable outside the context"


@given(typed_terms(first_order=True))
def test_first_order_terms_have_the_requested_type(tct):
    """terms(…, first_order=True) is well-typed, with no λ but the let sugar,
    and no J, ⋆ or Ω."""
    ty, ctx, t = tct
    assert types_equal(check(t, ty, ctx), ty)
    lets = {id(u.fun) for u in subterms(t) if is_let(u)}
    assert all(not isinstance(u, (Jac, Dual, Pullback))
               and (not isinstance(u, Lam) or id(u) in lets) for u in subterms(t))


@given(st.sampled_from([R, Prod((R, R)), Arrow(R, R), DualT(R), Arrow(R, DualT(R))]).flatmap(
    lambda ty: st.tuples(st.just(ty), S.linear_terms(
        ty, {"q": Prod((R, R)), "r": R, "h": Arrow(R, R), "c": R}, {"q", "h"}))))
def test_linear_terms_are_linear_by_lin(pair):
    """linear_terms(…, linear_in) is well-typed and lin(S) accepts it."""
    ty, t = pair
    assert linear(t, frozenset({"q", "h"})), pc.pretty(t)
    check(t, ty, {"q": Prod((R, R)), "r": R, "h": Arrow(R, R), "c": R})


@given(st.sampled_from([R, Prod((R, R)), Arrow(R, R), S.CHURCH]).flatmap(
    lambda ty: st.tuples(st.just(ty), S.one_forms(ty))))
def test_one_forms_are_well_typed_1_forms(pair):
    """one_forms(ty) has type ty → ty⋆; a literal λz. λw. B is linear in w."""
    ty, omega = pair
    want = Arrow(ty, DualT(ty))
    assert types_equal(check(omega, want), want)
    if isinstance(omega, Lam) and isinstance(omega.body, Lam):
        assert linear(omega.body.body, frozenset(pattern_vars(omega.body.pat)))


@given(st.sampled_from([R, Prod((R, R)), Arrow(R, R), S.CHURCH, DualT(R)]).flatmap(
    lambda ty: st.tuples(st.just(ty), S.points(ty), S.tangents(ty))))
def test_points_and_tangents_have_their_type(x):
    """points(ty) and tangents(ty) are closed terms of type ty."""
    ty, p, v = x
    assert not fv(p) and not fv(v)
    assert types_equal(check(p, ty), ty) and types_equal(check(v, ty), ty)


@given(st.tuples(st.integers(1, 3), st.integers(1, 2)).flatmap(
    lambda nm: st.tuples(st.just(nm), S.first_order_functions(*nm))))
def test_first_order_functions_have_their_type(x):
    """first_order_functions(n, m) is a closed λ of type ℝⁿ → ℝᵐ."""
    (n, m), f = x
    dom = R if n == 1 else Prod((R,) * n)
    cod = R if m == 1 else Prod((R,) * m)
    assert isinstance(f, Lam) and not fv(f)
    assert types_equal(check(f, Arrow(dom, cod)), Arrow(dom, cod))


@settings(max_examples=max(10, settings.default.max_examples // 2))
@given(S.higher_order_programs(as_program=True))
def test_higher_order_programs_are_closed_reals(prog):
    """higher_order_programs() is a closed term of type ℝ, its point of its domain."""
    assert not fv(prog.term)
    assert types_equal(check(prog.term, R), R)
    assert types_equal(check(prog.point, prog.dom), prog.dom)


@settings(max_examples=max(10, settings.default.max_examples // 2))
@given(S.higher_order_functions(2))
def test_higher_order_functions_are_closed_maps_of_reals(pair):
    """higher_order_functions(2) is a closed map ℝ × ℝ → ℝ."""
    f, desc = pair
    assert not fv(f) and desc
    ty = Arrow(Prod((R, R)), R)
    assert types_equal(check(f, ty), ty)
