"""Folds over Church lists whose folding function depends on the input, on purpose.

    λx. foldl (λacc. λc. F ⟨acc, c, x⟩) z0 [c1, …, cn]
    λx. foldr (λc. λacc. F ⟨acc, c, x⟩) z0 [c1, …, cn]

with ``foldl = λg. λz0. λl. l (λy. λk. λacc. k (g acc y)) (λacc. acc) z0``
(foldr building a continuation), F a generated first-order function ℝ³ → ℝ
and z0 a numeral or x.  The list is written out, built by a let-bound cons, or
written out and taken out of a pair.  The folding function is a coordinate of
the environment (it depends on x), so where the list is a stage the premise of
rule 18 on its body runs forward: with foldl, rule 18L keeps the folding
function's tangent lazy (papers/calculus.md §5.9).  A list written out and
applied in place is the series of its calls since rule 8c copies a helper used
only by calls and A-lift takes a closure builder out of a function position
(2026-11-29): no premise -- hence the pair and cons builds, which keep a list's
closures as stages.  The derivative must equal the oracle's forward mode and
central finite differences.
"""
from hypothesis import event, given, note
from hypothesis import strategies as st

import pullback_calc as pc
from pullback_calc.syntax.subst import bind_pattern, subst
from pullback_calc.syntax.terms import (App, Lam, Num, Prim, Proj, Term, Tuple, Var, church_list,
                                        pattern_vars, subterms)
from pullback_calc.testing import strategies as S

from test_prop_derivatives import assert_row_by_oracles

FOLDL = "λg. λz0. λl. l (λy. λk. λacc. k (g acc y)) (λacc. acc) z0"
FOLDR = "λg. λz0. λl. l g z0"
ELEMENT = st.integers(-10, 10).map(lambda k: k / 10)


NIL, CONS = "λf. λd. d", "λx. λl. λf. λd. f x (l f d)"


def _bound(t: Term) -> set:
    """The names t binds anywhere."""
    return {n for u in subterms(t) if isinstance(u, Lam) for n in pattern_vars(u.pat)}


def _fold(kind: str, F, z0: str, xs: list, build: str = "literal", mix: bool = False):
    """λx. let kind = … in kind (λa. λb. F ⟨acc, c, x⟩) z0 [xs], the list written
    out ("literal"), built by a let-bound cons ("cons"), or written out and taken
    out of a pair ("pair": the list is then a stage, not the calls of its body);
    ``mix``: F's value plus x × acc."""
    by_cons = build == "cons"
    first, second = ("acc", "c") if kind == "foldl" else ("c", "acc")
    args = Tuple((Var("acc"), Var("c"), Var("x")))
    if isinstance(F.pat, Tuple) and all(isinstance(v, Var) for v in F.pat.items) \
            and len(F.pat.items) == 3 and not {"acc", "c", "x"} & _bound(F.body):
        # F's body written in place, as users write a folding function (F applied to
        # the triple is a let of a tuple pattern, which the premises take apart first)
        body = subst(F.body, bind_pattern(F.pat, args))
    else:
        body = App(F, args)
    if mix:  # (through the accumulator and x both: D-eval's chain rule through the
        # argument, rule 19m's, is then never 0)
        body = Prim("add", (body, Prim("mul", (Var("x"), Var("acc")))))
    g = Lam(Var(first), Lam(Var(second), body))
    if by_cons:
        lst: Term = Var("nil")
        for x in reversed(xs):
            lst = App(App(Var("cons"), Num(x)), lst)
    else:
        lst = church_list(Num(x) for x in xs)
        if build == "pair":
            lst = Proj(1, Tuple((lst, Num(0.0))))
    body = App(App(App(Var(kind), g), pc.parse(z0)), lst)
    if by_cons:
        body = App(Lam(Var("nil"), App(Lam(Var("cons"), body), pc.parse(CONS))), pc.parse(NIL))
    fold = pc.parse(FOLDL if kind == "foldl" else FOLDR)
    return Lam(Var("x"), App(Lam(Var(kind), body), fold))


#: (f, point): a fold whose folding function depends on the input x
FOLDS = st.builds(
    lambda kind, F, z0, xs, pt, build, mix: (_fold(kind, F, z0, xs, build, mix), [pt]),
    st.sampled_from(["foldl", "foldl", "foldr"]), S.first_order_functions(3, budget=6),
    st.sampled_from(["0", "1", "x"]), st.lists(ELEMENT, min_size=1, max_size=4),
    st.integers(-12, 12).map(lambda k: k / 10), st.sampled_from(["pair", "literal", "cons"]),
    st.booleans())


@given(FOLDS)
def test_folds_with_a_varying_folding_function_equal_forward_mode_and_finite_differences(x):
    f, pt = x
    note(f"f = {pc.pretty(f)} at {pt}")
    assert_row_by_oracles(f, pt)
    event("rule 19m fired" if "19m" in pc.jacobian_row(f, pt, 0).rule_counts else "no rule 19m")
