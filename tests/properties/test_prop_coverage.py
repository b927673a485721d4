"""Rule coverage, as in PLT Redex: every rule is reached by *generated* terms.

The sweep generates its own terms (derandomized, so it does not depend on
which other property tests ran before it) and stops as soon as every label
of ``coverage.ALL_LABELS`` has fired; its counts go into the session
collector, which ``pytest --rule-coverage`` prints.
"""
from hypothesis import HealthCheck, Phase, find, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

import pullback_calc as pc
from pullback_calc.reduction.rules import EXTRA, NUMBERED
from pullback_calc.syntax.subst import fv
from pullback_calc.syntax.terms import App, Lam, Num, Prim, Proj, Pullback, Tuple, Var
from pullback_calc.syntax.types import Arrow, DualT, R
from pullback_calc.testing import strategies as S
from pullback_calc.testing.coverage import ALL_LABELS, SESSION, RuleCoverage, iter_steps
from pullback_calc.testing.programs import programs

from common import MAX_STEPS
from test_prop_church_folds import FOLDS

def _kept_lets():
    """π1 ⟨let x = sin(I) in x × S, T⟩ with r free in I: the bound value is
    inert and x is used twice, so rule 1 keeps the let, and lift takes it out
    of the tuple."""
    x = Var("x")
    return st.builds(
        lambda i, s, t: Proj(1, Tuple((App(Lam(x, Prim("mul", (x, s))), Prim("sin", (i,))), t))),
        S.terms(R, {"r": R}, depth=2).filter(lambda t: "r" in fv(t)),
        S.terms(R, {"x": R}, depth=2).filter(lambda t: "x" in fv(t)),
        S.terms(R, {"r": R}, depth=1))


#: free variables for open terms: a free functional is what rule 6 needs
OPEN = {"ω": DualT(R), "κ": Arrow(R, DualT(R)), "g": Arrow(R, R), "r": R}
#: the sweep's generators: first ones aimed at the rarest rules, then general
#: ones.  16b needs a dual map whose functional is bound outside the
#: pulled-back function's parameter, as in Ω(λv. λk. ((λx. v × x)⋆ k) 1): a
#: codomain ℝ⋆ → ℝ, many dual maps, coefficients and functionals from the context.
SWEEP = [
    _kept_lets(),                                             # lift
    S.pullback_applications(depth=2, doms=(R,), cods=(Arrow(DualT(R), R),), budget=15,
                            weights={**S.DIFFERENTIATION_WEIGHTS, "dualapp": 8, "scalevar": 8,
                                     "var": 6}),              # 16b
    S.pullback_applications(OPEN, depth=2, budget=15),        # 6
    S.pullback_applications(depth=3, budget=25),              # 13, 14, 17, 19b, 19c
    S.higher_order_programs().map(lambda p: p[0]),
    S.terms(R, depth=3),
    # 18L, 19m: a fold whose folding function varies (foldl's continuation)
    FOLDS.map(lambda x: App(App(Pullback(x[0], pc.parse("λz. λw. w")), Num(x[1][0])), Num(1.0))),
    # 19m again, with a folding function that computes with x: rule 8c inlines
    # one that does not, and then the continuation no longer varies
    st.lists(st.integers(-3, 3), min_size=2, max_size=4).map(lambda xs: pc.parse(
        "Ω(λx. (λg. λz0. λl. l (λx. λk. λacc. k (g acc x)) (λacc. acc) z0) "
        "(λacc. λc. acc × x + c) 0 (λc. λn. " + "".join(f"c ({v}) (" for v in xs) + "n"
        + ")" * len(xs) + ")) (λz. λw. w) 0.5 1")),
    # 8f: a let-bound helper that computes with the variable it captures, passed on
    # (a helper used only by calls is copied to them by 8c, through a pair only
    # projected too: this one is taken apart by a pattern)
    st.tuples(st.sampled_from(("sin(x)", "cos(x)", "exp(tanh(x))", "sin(x) × 2")),
              st.integers(-3, 3)).map(lambda fk: pc.parse(
                  f"Ω(λx. let h = λs. {fk[0]} × s in let ⟨g, o⟩ = ⟨h, 0⟩ in g ({fk[1]})) "
                  "(λz. λw. w) 0.5 1")),
    # 8Js, 8Jz: a pullback along a constant function whose 1-form's coefficient is a
    # derivative (the covector λdy. B × J(λy. p y)·dy u, its atom 0 at the point)
    programs(2, depth=1, want=("Ω-constant",)).map(lambda p: pc.parse(
        f"Ω({p.text}) (λz. λw. w) ⟨{p.point[0]}, {p.point[1]}⟩ ⟨1, 0⟩")),
]
EXAMPLES_PER_GENERATOR = 150


def test_every_rule_is_reached_by_generated_terms():
    """Every numbered rule, pb, dual-app, 7J, 8J and the A-rules fire in the
    reductions of generated terms (premise steps included).  Each generator
    of the sweep runs (derandomized) until every rule is reached.  With
    ``-s`` it prints, for each rule, the shortest generated term that reached it."""
    cov = RuleCoverage()
    witness: dict = {}

    def all_reached(t):
        r = pc.reduce(t, max_steps=MAX_STEPS, free=OPEN)
        cov.record(r.trace)
        text = pc.pretty(t)
        for label in {s.rule for s in iter_steps(r.trace)}:
            if len(text) < len(witness.get(label, text + " ")):
                witness[label] = text
        return not cov.missing()

    quick = settings(max_examples=EXAMPLES_PER_GENERATOR, derandomize=True, database=None,
                     deadline=None, phases=[Phase.generate],
                     suppress_health_check=list(HealthCheck))
    for generator in SWEEP:
        try:
            find(generator, all_reached, settings=quick)
            break
        except NoSuchExample:
            pass
    SESSION.update(cov)
    print(f"\n{cov.reductions} generated terms reached {len(cov.reached())} labels; witnesses:")
    for label in ALL_LABELS:
        print(f"{label:>8}  {witness.get(label, '(never reached)')}")
    assert set(ALL_LABELS) == set(NUMBERED) | set(EXTRA)
    assert not cov.missing(), "rules never reached by generated terms:\n" + cov.table()


def test_the_collector_counts_premise_steps_and_prints_every_label():
    r = pc.reduce("(J(λx. λy. x × y)·1) 2")     # rule 18, whose premise is a derivation
    cov = RuleCoverage().record(r.trace)
    assert cov["18"] == 1 and cov["15"] >= 1      # 15 fires inside 18's premise
    assert cov.steps == sum(1 for _ in iter_steps(r.trace)) > len(r.trace)
    table = cov.table()
    for label in ALL_LABELS:
        assert f"  {label} " in table
    assert "never reached" in table and cov.missing()
    assert set(cov.missing()) == set(ALL_LABELS) - cov.reached()
