"""Subject reduction: every step of every trace preserves the type.

For a step of the top-level trace, the whole term after the step
(``plug_all(step.ctx, step.contractum)``) has the original term's type in the
original context.  A premise is a separate derivation on an open term (the
inner binder, direction variables, fresh points are free): each of its steps
preserves the premise's own start type, with its free variables at the types
the start term gives them.
"""
from hypothesis import event, example, given, reject, settings
from hypothesis import strategies as st

import pullback_calc as pc
from pullback_calc.errors import PullbackCalcError
from pullback_calc.reduction.machine import plug_all
from pullback_calc.semantics import oracle
from pullback_calc.syntax.terms import App, Num, Pullback, Tuple
from pullback_calc.syntax.types import Arrow, DualT, Prod, R
from pullback_calc.testing.programs import programs
from pullback_calc.testing import strategies as S
from pullback_calc.typing.check import check, infer_with_free, types_equal

import regressions
from common import MAX_STEPS, assert_oracle_agrees, reduce_noted

UNDETERMINED = "cannot tell which tuple type"


def assert_preserved(term, ty, env, steps, what):
    for s in steps:
        after = plug_all(s.ctx, s.contractum)
        try:
            got = check(after, ty, env)
        except PullbackCalcError as e:
            if UNDETERMINED in str(e):
                # e.g. π1 (let v : ℝ × ℝ = 𝟎 in v) ⟶ π1 𝟎: β drops the annotation and the
                # checker cannot infer which product 𝟎 is (§2.4, postponed projections).
                # The declarative rules type it (𝟎 has every type): an incompleteness of
                # the inference, not of subject reduction.
                event("reduct typable, but not inferable: a projection of 𝟎")
                continue
            bug = regressions.linearity_bug(s, after) if "is not linear" in str(e) else None
            if bug:
                event(f"known engine bug: {bug}")
                reject()
            raise AssertionError(
                f"{what}, step {s.index} ({s.rule}) makes the term ill-typed: {e}\n"
                f"  redex:      {pc.pretty(s.redex)}\n  contractum: {pc.pretty(s.contractum)}"
            ) from None
        assert types_equal(got, ty), (
            f"{what}, step {s.index} ({s.rule}) changes the type {ty} to {got}\n"
            f"  redex:      {pc.pretty(s.redex)}\n  contractum: {pc.pretty(s.contractum)}")
        for d in s.premises:
            check_premise(d, f"{what} > premise of {s.rule} at step {s.index}")


def check_premise(d, what):
    try:
        ty, free = infer_with_free(d.start)
    except PullbackCalcError:
        # the start term alone does not fix the type of a projected free variable
        # (§2.4, postponed projections): its context is the enclosing derivation's
        event("premise start not typable on its own")
        return
    assert_preserved(d.start, ty, free, d.steps, what)


def check_subject_reduction(t, ty, ctx=None, max_steps: int = MAX_STEPS):
    assert types_equal(check(t, ty, ctx), ty)
    assert_preserved(t, ty, ctx, reduce_noted(t, max_steps).trace, "trace")


@given(S.terms(R, depth=3, budget=20))
@regressions.examples(regressions.CLOSED_REAL)
def test_subject_reduction_closed_reals(t):
    """Every step of the reduction of a closed term of type ℝ keeps type ℝ."""
    check_subject_reduction(t, R)


@given(S.pullback_applications(depth=2, budget=15))
def test_subject_reduction_pullbacks(t):
    """… of a pullback at a point on a tangent, premise steps included."""
    check_subject_reduction(t, R)


#: (the thorough profile, 2026-11-29: 8c copied curry's λx to its call, A-lift made
#: its parameter a let of the series, let x = ⟨1, y⟩, and 8c had kept the mark that
#: the spine binds no name twice -- rule 8 then bound x twice: ⟨⟨x, y⟩, x⟩)
CURRY = ("let curry = λf. λa. λb. f ⟨a, b⟩ in Ω(λx : ℝ × ℝ. let y = π1 x in "
         "curry (λx : ℝ × ℝ. 1) 1 y) (λx. λw. w) ⟨0.1, 0.1⟩ ⟨0.25, 0.25⟩")


@settings(max_examples=max(10, settings.default.max_examples // 2))
@given(S.higher_order_programs(budget=15))
@example((pc.parse(CURRY), "curry's λx copied to its call"))
def test_subject_reduction_higher_order(x):
    """… of the pullback along higher-order code (Church lists, combinators)."""
    check_subject_reduction(x[0], R)


def _vector(xs):
    return Num(xs[0]) if len(xs) == 1 else Tuple(tuple(map(Num, xs)))


@settings(max_examples=max(10, settings.default.max_examples // 2))
@given(st.sampled_from((("vector-J",), ("shadowed-name",))).flatmap(
    lambda want: programs(2, depth=1, want=want)))
def test_subject_reduction_vector_jacobians_and_shadowed_names(p):
    """… of a program's gradient when its body takes the Jacobian of a map ℝ² → ℝ²
    that adds its input vector twice (v ⊕ v), or calls a helper whose parameter is
    named as the variable of the derivative around the call (the thorough profile
    found one of each, 2026-12-01: ``regressions.CLOSED_REAL``); and the gradient's
    first entry is the oracle's.  The step budget is the user-program properties'
    (20× the evaluation's steps): th70 drew a program whose evaluation takes 25,792
    steps and its gradient 76,469, over the fixed 50,000 of the small terms (not an
    explicit example: every step of it type-checked takes 9 minutes;
    ``tests/test_user_programs.py`` reduces it without the check)."""
    for f in sorted(p.features):
        event(f"uses {f}")
    f, pt = p.term, list(p.point)
    t = App(App(Pullback(f, pc.parse("λz. λw. w")), _vector(pt)),
            _vector([1.0] + [0.0] * (len(pt) - 1)))
    evaluation = pc.call(f, pt, max_steps=10 * MAX_STEPS, record=False).steps
    check_subject_reduction(t, R, max_steps=max(MAX_STEPS, 20 * evaluation))
    assert_oracle_agrees(pc.grad(f, pt, record=False)[0],
                         lambda: oracle.jacobian_by_oracle(f, pt)[0][0], "gradient")


TYPES = [R, Prod((R, R)), Arrow(R, R), DualT(R), Arrow(R, DualT(R)), Arrow(Arrow(R, R), R)]
OPEN = {"x": R, "g": Arrow(R, R), "ω": DualT(R), "v": Prod((R, R)), "φ": Arrow(R, DualT(R))}


@given(st.tuples(st.sampled_from(TYPES), st.sampled_from([None, OPEN])).flatmap(
    lambda tc: st.tuples(st.just(tc[0]), st.just(tc[1]), S.terms(*tc, 3, budget=20))))
@regressions.examples(regressions.SUBJECT_REDUCTION, wrap=lambda t: (pc.typecheck(t), None, t))
def test_subject_reduction_any_type_open_or_closed(x):
    """… of open and closed terms of first-order, function and dual types."""
    ty, ctx, t = x
    check_subject_reduction(t, ty, ctx)
