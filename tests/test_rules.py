"""Every rule fires on a redex made for it, and its contractum is checked.

Each case: a term, the rule expected at the first step where it fires, the
expected contractum (concrete syntax, compared up to α-equivalence), and
where useful the normal form.
"""
import math

import pytest

import pullback_calc as pc
from pullback_calc.reduction.rules import EXTRA, NUMBERED, RULES
from pullback_calc.syntax.subst import alpha_eq


def reduce_open(term, **options):
    """Reduce without the closed type check: these terms are open on purpose (the
    free 1-form ω, unknown functions g, h, …), to show each rule on its own."""
    return pc.reduce(term, check=False, **options)


CASES = [
    # rule, term, expected contractum of that rule's first step, expected normal form
    ("1", "(λx. x + 1) 2", "2 + 1", "3"),
    ("2", "π2 ⟨1, 2⟩", "2", "2"),
    # rule 3 collects; the arithmetic is rule 4's next step, visible in the trace
    ("3", "1 ⊕ 2 ⊕ 𝟎", "1 + 2", "3"),
    ("3", "⟨1, 2⟩ ⊕ ⟨3, 4⟩", "⟨1 ⊕ 3, 2 ⊕ 4⟩", "⟨4, 6⟩"),
    ("3", "𝟎 5", "𝟎", "𝟎"),
    ("3", "π1 𝟎", "𝟎", "𝟎"),
    ("3", "(λx. x) ⊕ (λy. 2 × y)", "λx. x ⊕ 2 × x", None),
    ("3", "2 × v ⊕ 3 × v", "(2 + 3) × v", "5 × v"),
    ("4", "sin(0) + exp(0)", "0", "1"),
    ("5", "(λv. 3 × v)⋆ (λw. 2 × w)", "λv. 6 × v", "λv. 6 × v"),
    ("5", "(λv. ⟨v, 3 × v⟩)⋆ (λw. π1 w ⊕ π2 w)", "λv. 4 × v", None),
    ("6", "(λv. 3 × v)⋆ ((λu. 2 × u)⋆ ω)", "(λv. 2 × (3 × v))⋆ ω", None),
    # … into a ground value's space (ω at a real): linear normal form, 2 × 3 by rule 4
    ("6", "(λv. 3 × v)⋆ ((λu. 2 × u)⋆ (ω 1))", "(λv. 6 × v)⋆ (ω 1)", None),
    ("6", "(λv. ⟨v, 3 × v⟩)⋆ ((λ⟨a, b⟩. ⟨a ⊕ b, 2 × b⟩)⋆ (ω ⟨1, 2⟩))",
     "(λv. ⟨4 × v, 6 × v⟩)⋆ (ω ⟨1, 2⟩)", None),
    ("7", "Ω(λx. let y = sin(x) in y) ω", "Ω(λx. sin(x)) ω", None),
    ("8", "Ω(λx. let y = sin(x) in let z = cos(y) in z) ω",
     "Ω(λx. ⟨x, sin(x)⟩) (Ω(λ⟨x, y⟩. let z = cos(y) in z) ω)", None),
    ("8c", "Ω(λx. let g = λy. y × y in let z = g x in z) ω",
     "Ω(λx. let z = (λy. y × y) x in z) ω", None),
    ("pb", "Ω(λx. sin(x)) (λz. λw. w) 2",
     "(λdx. (J(λx. sin(x))·dx) 2)⋆ ((λz. λw. w) (sin(2)))", None),
    ("dual-app", "((λv. 3 × v)⋆ ω) 2", "ω (3 × 2)", "ω 6"),
    ("9", "(J(λx. 5)·1) 2", "𝟎", "𝟎"),
    ("10", "(J(λ⟨x, y⟩. y)·⟨3, 4⟩) ⟨1, 2⟩", "4", "4"),
    ("11", "(J(λy. π2 y)·⟨3, 4⟩) ⟨1, 2⟩", "π2 ⟨3, 4⟩", "4"),
    ("12", "(J(λ⟨x, y⟩. x ⊕ y ⊕ 7)·⟨3, 4⟩) ⟨1, 2⟩", "3 ⊕ 4", "7"),
    ("13", "(J(λx. J(λu. sin(u))·x)·1) 2", "J(λu. sin(u))·1", None),
    ("13", "(J(λ⟨a, x⟩. J(λy. a × y)·x)·⟨3, 5⟩) ⟨7, 11⟩",
     "J(λy. 3 × y)·11 ⊕ J(λy. 7 × y)·5", None),
    ("14", "(J(λω. Ω(λu. sin(u)) ω)·δ) k", "Ω(λu. sin(u)) δ", None),
    ("15", "(J(λx. sin(x))·1) 2", "cos(2) × 1", None),
    ("15", "(J(λ⟨x, y⟩. x × y)·⟨1, 0⟩) ⟨2, 3⟩", "3 × 1 ⊕ 2 × 0", "3"),
    ("16a", "(J(λω. (λv. 3 × v)⋆ ω)·δ) k", "(λv. 3 × v)⋆ δ", None),
    ("16b", "(J(λx. (λv. x × v)⋆ ω)·1) 2", "(λv. v × 1)⋆ ω", None),
    ("16c", "(J(λ⟨x, ω⟩. (λv. x × v)⋆ ω)·⟨1, δ⟩) ⟨2, k⟩",
     "(λv. 2 × v)⋆ δ ⊕ (λv. v × 1)⋆ k", None),
    ("18", "(J(λx. λy. x × y)·1) 2", "λy. y × 1", None),
    # 18L: D-curry inside a forward tangent premise (here: 18's premise, forward
    # because of the constant stage c), the body's Jacobian left under λx, over the
    # coordinates of the environment ⟨v, c⟩ that the body uses (v)
    ("18L", "(J(λv. λk. let c = 2 in let g = λx. v × x in g c)·1) 5",
     "λx. (J(λv. v × x)·1) 5", "λk. 2"),
    # … all of them: the environment stays as it is
    # (c = 2 + k, open: a closed stage would be substituted by 8Jc)
    ("18L", "(J(λv. λk. let c = 2 + k in let g = λx. v × x × c in g c)·1) 5",
     "λx. (J(λ⟨v, c⟩. v × x × c)·⟨1, 𝟎⟩) ⟨5, c⟩", "λk. let c = 2 + k in c × (c × 1)"),
    ("19a", "(J(λf. f 3)·g) h", "g 3", "g 3"),
    ("19b", "(J(λ⟨f, x⟩. f x)·⟨g, 1⟩) ⟨λu. sin(u), 2⟩",
     "g 2 ⊕ (J(λu. sin(u))·1) 2", None),
    # 19b with a constant function (â₁ = 𝟎): the summand â₁ ā₂ is left out
    ("19b", "(J(λ⟨f, x⟩. f x)·⟨𝟎, 1⟩) ⟨λu. sin(u), 2⟩", "(J(λu. sin(u))·1) 2", None),
    # 19b on a function that cannot be looked inside (h free): η, λz. h z
    ("19b", "(J(λ⟨f, x⟩. f x)·⟨g, 1⟩) ⟨h, 2⟩", "g 2 ⊕ (J(λz. h z)·1) 2", None),
    # … a stuck application: its body h 3 z is left as it is (a value, never A-reduced)
    ("19b", "(J(λ⟨f, x⟩. f x)·⟨g, 1⟩) ⟨h 3, 2⟩", "g 2 ⊕ (J(λz. h 3 z)·1) 2",
     "g 2 ⊕ (J(λz. h 3 z)·1) 2"),
    # value 1 in a larger environment: one step to its η-form, a value
    ("19b", "(J(λ⟨x, y⟩. h y)·⟨1, 3⟩) ⟨2, 5⟩", "(J(λz. h z)·3) 5", "(J(λz. h z)·3) 5"),
    # 19m: the function's direction is a lazy tangent of its value (18L): one
    # Jacobian of the body along ⟨P', T₀⟩, the sum of the two partial derivatives
    ("19m", "(J(λ⟨f, x⟩. f x)·⟨λy. (J(λa. a × y)·1) 3, 1⟩) ⟨λy. 3 × y, 2⟩",
     "(J(λ⟨a, y⟩. a × y)·⟨1, 1⟩) ⟨3, 2⟩", "5"),
    # … not one (ā₁ is not S'[V'/p']): the ordinary split
    ("19b", "(J(λ⟨f, x⟩. f x)·⟨λy. (J(λa. a × y)·1) 3, 1⟩) ⟨λy. 4 × y, 2⟩",
     "(λy. (J(λa. a × y)·1) 3) 2 ⊕ (J(λy. 4 × y)·1) 2", "6"),
    # … nor when renaming y to ā₁'s binder k would capture a free k of the body
    ("19b", "(J(λ⟨f, x⟩. f x)·⟨λy. (J(λa. a × y × k)·1) 3, 1⟩) ⟨λk. 3 × k × k, 2⟩",
     "(λy. (J(λa. a × y × k)·1) 3) 2 ⊕ (J(λk. 3 × k × k)·1) 2", None),
    # 19c: the premise T₀ is zero (a constant argument), so only the function varies
    ("19c", "(J(λ⟨f, x⟩. f x)·⟨g, 0⟩) ⟨λu. sin(u), 2⟩", "g 2", "g 2"),
    ("19c", "(J(λ⟨f, x⟩. f x)·⟨g, 𝟎⟩) ⟨h, 2⟩", "g 2", "g 2"),   # ā₁ = h: not looked inside
    ("19c", "(J(λ⟨x, y⟩. h y)·⟨1, 0⟩) ⟨2, 3⟩", "𝟎", "𝟎"),     # p not in a₁: â₁ = 𝟎
    ("20a", "(J(λ⟨x, y⟩. ⟨y, x⟩)·⟨3, 4⟩) ⟨1, 2⟩",
     "⟨(J(λ⟨x, y⟩. y)·⟨3, 4⟩) ⟨1, 2⟩, (J(λ⟨x, y⟩. x)·⟨3, 4⟩) ⟨1, 2⟩⟩", "⟨4, 3⟩"),
    ("20b", "Ω(λx. let y = sin(x) in y × x) (λz. λw. w) 2",
     "⟨dx, (J(λx. sin(x))·dx) 2⟩", None),
    ("7J", "J(λx. let y = sin(x) in y)·1", "J(λx. sin(x))·1", None),
    # 8Jc: a stage that does not read x -- an atom is substituted, a closed
    # operation computed outside the Jacobian -- and 8h, a defined operation on
    # numerals computed outside the pullback
    ("8Jc", "(J(λx. let g = λy. y × y in let z = g x in z)·1) 2",
     "(J(λx. let z = (λy. y × y) x in z)·1) 2", "4"),
    ("8Jc", "(J(λx. let c = sin(0) in let y = x × c in y)·1) 2",
     "let c = sin(0) in (J(λx. let y = x × c in y)·1) 2", "0"),
    # 8f: a helper's computation that reads none of its own binders floats out of it
    # (h passed on, not only called: a helper used only by calls is moved to them, 8c)
    ("8f", "Ω(λx. let h = λs. ⟨exp(sin(x)), s⟩ in let y = g h in y) ω",
     "Ω(λx. let c_1 = exp(sin(x)) in let h = λs. ⟨c_1, s⟩ in let y = g h in y) ω", None),
    # 8c: a helper that calls no unknown function, used only by calls of the
    # series, is moved to each call (β_v copies the helper, not work)
    ("8c", "Ω(λx. let h = λs. s × x in let y = h 1 in let z = h y in z) ω",
     "Ω(λx. let y = let s = 1 in s × x in let z = let s = y in s × x in z) ω",
     "Ω(λx. ⟨x, 1 × x⟩) (Ω(λ⟨x, y⟩. y × x) ω)"),
    # A-lift out of the function position, when the let ends in a closure builder
    ("A-lift", "Ω(λx. (let y = x × x in λl. ⟨y, l⟩) 1) ω",
     "let y = x × x in let l = 1 in ⟨y, l⟩", "Ω(λx. ⟨x, x × x⟩) (Ω(λ⟨x, y⟩. ⟨y, 1⟩) ω)"),
    ("8h", "Ω(λx. let c = sin(0) in let y = x × c in y) ω",
     "let c = sin(0) in Ω(λx. let y = x × c in y) ω", "Ω(λx. x × 0) ω"),
    ("8J", "(J(λx. let y = sin(x) in let z = cos(y) in z)·1) 2",
     "(J(λ⟨x, y⟩. let z = cos(y) in z)·⟨1, (J(λx. sin(x))·1) 2⟩) ⟨2, sin(2)⟩", None),
    # 8Jd: a stage nothing live reads -- its value is computed, its tangent is 𝟎
    ("8Jd", "(J(λx. let y = sin(x) in let z = x × 2 in z)·1) 3",
     "(J(λ⟨x, y⟩. let z = x × 2 in z)·⟨1, 𝟎⟩) ⟨3, sin(3)⟩", "2"),
    # pbc: the pullback along a constant map is the zero covector at every point; the
    # map's body is still evaluated there, ω is not applied
    ("pbc", "Ω(λx. let a = sin(2) in let b = a × a in b) ω",
     "λx. let y = (let a = sin(2) in let b = a × a in b) in 𝟎", None),
    ("pbc", "Ω(λx. let a = sin(2) in let b = a × a in b) (λz. λw. z × w) 0.5 1",
     "λx. let y = (let a = sin(2) in let b = a × a in b) in 𝟎", "𝟎"),
    # 8Jz: a stage read only by a product with a coordinate that is 0 at the point --
    # its value is computed, its tangent is 𝟎 (f's derivative along λt. 1 is not taken)
    ("8Jz", "(J(λ⟨x, y, f⟩. let b = y × 1 in let a = f x in a × b)·⟨1, 1, λt. 1⟩) "
     "⟨0.5, 0, λt. sin(t)⟩",
     "(J(λ⟨⟨⟨x, y, f⟩, b⟩, a⟩. let mul_1 = a × b in mul_1)·⟨⟨⟨1, 1, λt. 1⟩, 1⟩, 𝟎⟩) "
     "⟨⟨⟨0.5, 0, λt. sin(t)⟩, 0⟩, (λt. sin(t)) 0.5⟩", "0.479425538604203"),
    # 8Js: the coefficient f x (no free variable) moves after the atom y × v (v free)
    ("8Js", "(J(λ⟨x, y, f⟩. let a = f x in let b = y × v in a × b)·⟨1, 1, λt. 1⟩) "
     "⟨0.5, 0, λt. sin(t)⟩",
     "(J(λ⟨x, y, f⟩. let b = y × v in let a = f x in let mul_1 = a × b in mul_1)·⟨1, 1, λt. 1⟩) "
     "⟨0.5, 0, λt. sin(t)⟩", None),
    # an open point: its inert component sin(u) is shared by a let (kept by rule 1)
    ("8J", "(J(λ⟨x, w⟩. let y = x × w in let z = y × y in z)·⟨1, 0⟩) ⟨u, sin(u)⟩",
     "let w = sin(u) in (J(λ⟨⟨x, w⟩, y⟩. let z = y × y in z)·⟨⟨1, 0⟩, "
     "(J(λ⟨x, w⟩. x × w)·⟨1, 0⟩) ⟨u, w⟩⟩) ⟨⟨u, w⟩, u × w⟩",
     "let w = sin(u) in u × w × (w × 1 ⊕ u × 0) ⊕ u × w × (w × 1 ⊕ u × 0)"),
    ("lift", "⟨1, (λx. x + x) (sin(u))⟩", "let x = sin(u) in ⟨1, x + x⟩",
     "let x = sin(u) in ⟨1, x + x⟩"),
    ("A-name", "Ω(λx. sin(cos(x))) ω", "let cos_1 = cos(x) in sin(cos_1)", None),
    ("A-lift", "Ω(λx. let y = (let z = cos(x) in sin(z)) in y) ω",
     "let z = cos(x) in let y = sin(z) in y", None),
    ("A-tail", "Ω(λx. let y = sin(x) in cos(y)) ω", "cos(y)", None),
]


def first_step(trace, rule):
    """The first step with that label, searching premises too."""
    stack = list(reversed(trace))
    while stack:
        s = stack.pop()
        if s.rule == rule:
            return s
        for d in reversed(s.premises):
            stack.extend(reversed(d.steps))
    return None


@pytest.mark.parametrize("rule,src,contractum,normal", CASES,
                         ids=[f"{c[0]}:{c[1][:30]}" for c in CASES])
def test_rule_fires_with_its_contractum(rule, src, contractum, normal):
    r = reduce_open(src, max_steps=10_000)
    step = first_step(r.trace, rule)
    assert step is not None, f"rule {rule} never fired; rules: {[s.rule for s in r.trace]}"
    if rule == "A-tail":  # A-tail's contractum names its result freshly
        assert pc.pretty(step.redex) == contractum
        assert step.contractum.fun.body == step.contractum.fun.pat
        return
    if rule == "A-name":
        got = pc.pretty(step.contractum)
        assert got.startswith("let cos_") and got.endswith("in sin(" + got[4:got.index(" =")] + ")")
        return
    expected = pc.parse(contractum)
    assert alpha_eq(step.contractum, expected), (
        f"rule {rule}: got {pc.pretty(step.contractum)}, expected {contractum}")
    if normal is not None:
        assert alpha_eq(r.value, pc.parse(normal)), pc.pretty(r.value)


def test_premises_are_recorded_for_rules_with_a_proof_tree():
    for rule, src in [("16b", "(J(λx. (λv. x × v)⋆ ω)·1) 2"),
                      ("18", "(J(λx. λy. x × y)·1) 2"),
                      ("19b", "(J(λ⟨f, x⟩. f x)·⟨g, 1⟩) ⟨λu. sin(u), 2⟩"),
                      ("19c", "(J(λ⟨f, x⟩. f x)·⟨g, 0⟩) ⟨λu. sin(u), 2⟩"),
                      ("17", "(J(λx. Ω(λu. x × u) ω)·1) 2")]:
        step = first_step(reduce_open(src).trace, rule)
        assert step.premises, rule
        d = step.premises[0]
        assert d.rule == rule and d.steps and d.result is not None


def test_rule_17_replaces_the_pullback_by_the_abstraction_of_its_reduct():
    r = reduce_open("(J(λx. Ω(λu. x × u) ω)·1) 2")
    step = first_step(r.trace, "17")
    # contractum: (J(λx. λu'. W)·1) 2 with W the pullback at the fresh point u'
    inner = step.contractum.fun.lam.body
    assert isinstance(inner, pc.parse("λa. a").__class__)
    w = step.premises[0].result
    assert pc.pretty(w).startswith("(λdu. x × du)⋆")
    # and rule 18 differentiates it next
    assert first_step(r.trace, "18") is not None
    # d/dx at 2 of  u ↦ (λdu. x·du)⋆(ω (x·u))  along 1 involves the 1-form's
    # derivative: the result is a function of the fresh point
    assert pc.pretty(r.value).startswith("λu")


def test_every_rule_has_a_case():
    labelled = {c[0] for c in CASES} | {"17"}
    assert set(NUMBERED) | set(EXTRA) <= labelled
    assert set(RULES) == set(NUMBERED) | set(EXTRA)


def test_every_rule_has_a_docstring_with_its_number():
    for label, fn in RULES.items():
        doc = fn.__doc__ or ""
        if label.startswith("A-"):
            assert label in doc
        else:
            assert f"({label})" in doc, label


def test_stuck_terms_are_values():
    # value 1: a free variable in function position with p in the argument
    r = reduce_open("(J(λx. h x)·1) 2")
    assert r.steps == 0 or all(s.rule.startswith("A") for s in r.trace)
    # a pullback along a free function stays a value
    r = reduce_open("Ω(h) ω")
    assert r.steps == 0


def test_reduction_errors_name_the_rule():
    with pytest.raises(pc.ReductionError) as e:
        reduce_open("log(0 - 1)")
    assert e.value.rule == "4" and "log" in str(e.value)


def test_step_budget():
    with pytest.raises(pc.StepBudgetExceeded) as e:
        reduce_open("(λf. f (f (f 1))) (λx. x + 1)", max_steps=3)
    assert "3 steps" in str(e.value)
    assert reduce_open("(λf. f (f (f 1))) (λx. x + 1)", max_steps=20).value == pc.parse("4")


def test_rule_5_substitutes_simultaneously():
    # a map permuting names the functional also binds
    r = reduce_open("(λ⟨a, b⟩. ⟨b, a⟩)⋆ (λ⟨a, b⟩. a ⊕ 10 × b)")
    assert alpha_eq(r.value, pc.parse("λ⟨a, b⟩. 10 × a ⊕ b"))
    r = reduce_open("Ω(λ⟨x, y⟩. ⟨y, x⟩) (Ω(λ⟨x, y⟩. x + 10 × y) (λz. λw. w)) ⟨1, 2⟩")
    assert alpha_eq(r.value, pc.parse("λ⟨dx, dy⟩. 10 × dx ⊕ dy"))


def test_rule_5_and_rule_3_do_not_capture():
    r = reduce_open("(λv. 2 × v)⋆ (λw. v × w)")  # the functional's free v stays free
    # (its coefficient v × 2 is inert: named by a let around the covector, §5.5)
    assert alpha_eq(r.value, pc.parse("let c = v × 2 in λu. c × u"))
    covector = r.value.fun.body
    assert covector.pat.name != "v"
    r = reduce_open("(λx. y) ⊕ (λz. x)")
    assert r.value.pat.name != "x" and alpha_eq(r.value, pc.parse("λq. y ⊕ x"))


def test_non_linear_covectors_are_type_errors():
    for src in ["Ω(λx. 3 × x) (λz. λw. w × w)", "(λv. v)⋆ (λw. sin(w))"]:
        with pytest.raises(pc.PullbackTypeError, match="not linear"):
            pc.typecheck(pc.parse(src))
    pc.typecheck(pc.parse("Ω(λx. 3 × x) (λz. λw. z × w)"))  # linear in w, fine


def test_rule_17_declines_when_its_premise_is_stuck():
    # J(λx. g x)·a with g free: its reduct at a fresh point is stuck, so the
    # Jacobian of it in g is a value instead of a 17 → 18 → 8J → 17 loop
    m = __import__("pullback_calc.reduction.machine", fromlist=["Machine"]).Machine(max_steps=5000)
    src = "Ω(λg. let a = g 1 in (J(λx. g x)·a) 2) (λz. λw. w) h"
    value, trace = m.reduce(pc.parse(src))
    assert m.steps_taken < 200
    assert "17" not in m.rule_counts  # tried, declined, not counted
    assert "17" not in {s.rule for s in trace}


def test_rules_19b_19c_decline_too():
    # nested differentiation through an unknown function terminates
    for src in ["Ω(λx. Ω(λy. h y) (λz. λw. w) x 1) (λz. λw. w) 0",
                "(J(λg. J(λx. g (g x))·1)·δ) h",
                "(J(λx. (J(λy. h (x × y))·1) 2)·1) 3"]:
        assert reduce_open(src, max_steps=20_000).steps < 20_000


def test_rule_19b_keeps_the_derivative_of_an_unknown_function_as_value_1():
    # (J(λz. g z)·T) W with g free is value 1: 19b runs its premise and declines
    r = reduce_open("(J(λz. g z)·3) 5")
    assert r.trace == [] and alpha_eq(r.value, pc.parse("(J(λz. g z)·3) 5"))
    # the η-form's body is not A-reduced while the function is stuck ...
    r = reduce_open("(J(λ⟨f, x⟩. f x)·⟨𝟎, 1⟩) ⟨h 3, 2⟩")
    assert [s.rule for s in r.trace] == ["19b"]
    # ... and reduces once it is known
    r = reduce_open("(λh. (J(λ⟨f, x⟩. f x)·⟨𝟎, 1⟩) ⟨h 3, 2⟩) (λa. λb. a × b × b)")
    assert r.value == pc.parse("12")


def test_rule_17_moves_the_function_of_an_eta_form_into_the_point():
    # J(λz. F z)·1 with F = k (k 1 1) not linear in k: no premise, F goes to the point;
    # d/dk of u ↦ ∂z k(k(1,1), z) at k = (a,b) ↦ ab along (a,b) ↦ a + b is 3
    src = "(J(λk. J(λz. k (k 1 1) z)·1)·(λa. λb. a + b)) (λa. λb. a × b)"
    r = reduce_open(f"({src}) 0.7")
    assert r.value == pc.parse("3")
    step = first_step(r.trace, "17")
    assert not step.premises
    w = step.contractum.fun.lam.body.body  # (J(λ⟨z, g⟩. g z)·⟨1, 𝟎⟩) ⟨u, k (k 1 1)⟩
    assert alpha_eq(w.fun, pc.parse("J(λ⟨z, g⟩. g z)·⟨1, 𝟎⟩"))
    from pullback_calc.testing.oracle import apply, evaluate
    assert apply(evaluate(src), 0.7) == 3.0


def test_rule_13_with_an_inner_binder_shadowing_p():
    r = reduce_open("Ω(λ⟨x, v⟩. (J(λx. v + x)·1) 2) (λz. λw. w) ⟨1, 5⟩")
    assert alpha_eq(r.value, pc.parse("𝟎")) or pc.pretty(r.value) == "λ⟨dx, dv⟩. 𝟎" \
        or alpha_eq(r.value, pc.parse("λ⟨dx, dv⟩. 𝟎"))


def test_pullback_along_a_variable_function_is_differentiated():
    # d/df of Ω(f)(…) 0.5 1 = f'(0.5) along df = x ↦ x²: df'(0.5) = 1
    src = "Ω(λf. Ω(f) (λz. λw. w) 0.5 1) (λz. λw. w) (λx. sin(x)) (λx. x × x)"
    assert reduce_open(src).value == pc.parse("1")


def test_rule_5_premise_reduces_redexes_made_by_substitution():
    import math
    r = reduce_open("Ω(λv. (J(λx. sin(x))·v) 1) (λz. λw. w) 5")
    assert alpha_eq(r.value, pc.parse(f"λdv. {math.cos(1)!r} × dv"))
    assert any(s.rule == "5" and s.premises for s in r.trace)


# ---- engine bugs found by the property suite (tests/properties) -------------------------

def test_direction_names_avoid_the_users_names():
    # the user's dx must not be taken for the direction of x (wrong derivative before)
    import math
    r = reduce_open("Ω(λz. let dx = sin(z) in let x = 2 × z in dx) (λz. λw. w) 1.2 1")
    assert math.isclose(r.value.value, math.cos(1.2), rel_tol=1e-12)
    r = reduce_open("Ω(λz. let dx = 1 in let x = z in dx) (λz. λw. w) 1.2 1")
    assert pc.pretty(r.value) in ("𝟎", "0")


def test_like_atoms_collect_only_when_known_real():
    # g ⊕ g with g a function must not become the ill-typed 2 × g
    r = reduce_open("Ω(λg. g ⊕ g) (λz. λw. w 1) (λx. x) (λx. 5 × x)")
    assert r.value == pc.parse("10")
    assert reduce_open("v ⊕ v").value == pc.parse("v ⊕ v")          # v of any type: stays
    assert reduce_open("v ⊕ 2 × v").value == pc.parse("3 × v")      # × shows v is real
    r = reduce_open("Ω(λx. x ⊕ x ⊕ 2 × x) (λz. λw. w) 1")
    assert alpha_eq(r.value, pc.parse("λdx. 4 × dx"))


def test_the_numeral_0_is_linear():
    # rule 3 turns 𝟎 into 0 under a dual map's binder: the reduct must still type-check
    t = pc.parse("(λx. x + 𝟎)⋆ (λw. w)")
    ty = pc.typecheck(t)
    r = reduce_open(t)
    assert any(s.rule == "3" for s in r.trace)
    from pullback_calc.reduction.machine import plug_all
    from pullback_calc.typing.check import check, types_equal
    for s in r.trace:
        assert types_equal(check(plug_all(s.ctx, s.contractum), ty), ty), s.rule
    with pytest.raises(pc.PullbackTypeError, match="not linear"):
        pc.typecheck(pc.parse("(λx. x + 1)⋆ (λw. w)"))


def test_d_eval_into_the_zero_function():
    # 𝟎 is a value at function types: differentiating an application of it
    assert reduce_open("(J(λc. (J(λd. d)·c) c)·1) 𝟎").value == pc.parse("1")
    r = reduce_open("Ω(λx. Ω(λy. 3) (λz. λw. w) x x) (λz. λw. w) 1 1")
    assert r.value in (pc.parse("𝟎"), pc.parse("0"))
    assert reduce_open("(J(λ⟨f, x⟩. f x)·⟨g, 1⟩) ⟨𝟎, 2⟩").value == pc.parse("g 2")
    # f free: a value (the paper's value 1); 19b runs its premise T₀ = 1, then declines
    r = reduce_open("(J(λx. f x)·1) 2")
    assert r.trace == [] and r.value == pc.parse("(J(λx. f x)·1) 2")


def test_rule_13_product_rule_through_a_function_of_the_environment():
    # the map applies g, a component of p, and the direction x is in p too:
    # d/d⟨g,x⟩ (Jg(2)·x) along ⟨λc. c, 1⟩ at ⟨λc. c², 1⟩ = 1·1 + 2·2·1 = 5
    assert reduce_open("(J(λ⟨g, x⟩. (J(λy. g y)·x) 2)·⟨λc. c, 1⟩) ⟨λc. c × c, 1⟩"
                     ).value == pc.parse("5")
    assert reduce_open("Ω(λx. let g = λc. c in (J(λy. g y)·x) 1) (λz. λw. w) 0 1"
                     ).value == pc.parse("1")


def test_rule_6_does_not_capture():
    # (λx. x)⋆((λy. y × x)⋆ω): the outer binder x must not capture S's free x
    src = "((λω. (λx. ((λx. x)⋆ ((λy. y × x)⋆ ω)) 3)⋆ (λw. w))⋆ (λf. f 1)) (λw. w)"
    assert reduce_open(src).value == pc.parse("3")
    r = reduce_open("(λx. x)⋆ ((λy. y × x)⋆ ω)")
    assert r.trace[0].rule == "6"
    assert alpha_eq(r.value, pc.parse("(λz. z × x)⋆ ω"))


def test_let_series_are_linear_when_their_parts_are():
    from pullback_calc.reduction.machine import plug_all
    from pullback_calc.typing.check import check, types_equal
    pc.typecheck(pc.parse("(λd. let a = d 1 in a ⊕ d 2)⋆ (λw. w)"))
    for bad in ["(λd. let a = d 1 in a × a)⋆ (λw. w)", "(λd. (λa. 3) (d 1))⋆ (λw. w)"]:
        with pytest.raises(pc.PullbackTypeError, match="not linear"):
            pc.typecheck(pc.parse(bad))
    # A-reduction under a dual map keeps its body linear (subject reduction)
    t = pc.parse("(λd. (J(λy. d (y × y))·1) 2)⋆ (λw. w)")
    ty = pc.typecheck(t)
    for s in reduce_open(t).trace:
        assert types_equal(check(plug_all(s.ctx, s.contractum), ty), ty), s.rule


@pytest.mark.parametrize("term, value", [
    # the dual map of any S into 𝟎 is 𝟎: S is not reduced
    ("(λv. ⟨v, (J(λx. sin(x))·v) 1⟩)⋆ 𝟎", "𝟎"),
    # T reads a only: the item under b is substituted nowhere, so it is not reduced
    ("(λv. ⟨v, (J(λx. sin(x))·v) 1⟩)⋆ (λ⟨a, b⟩. 2 × a)", "λv. 2 × v"),
    ("(λv. ⟨(J(λx. sin(x))·v) 1, v⟩)⋆ (λ⟨a, b⟩. 2 × b)", "λv. 2 × v"),
])
def test_rule_5_does_not_reduce_what_the_functional_does_not_read(term, value):
    r = reduce_open(term)
    assert [s.rule for s in r.trace] == ["5"] and alpha_eq(r.value, pc.parse(value))


def test_rule_5_reduces_the_items_the_functional_reads():
    r = reduce_open("(λv. ⟨v, (J(λx. sin(x))·v) 1⟩)⋆ (λ⟨a, b⟩. 2 × b)")
    assert [s.rule for s in r.trace] == ["15", "4", "5"]


def test_rule_1_keeps_a_chain_of_inert_lets():
    """An inert value used once, in the inert term the next let binds, stays bound:
    the chain is the adjoint program, and substituting it from the innermost let
    outwards was quadratic (papers/calculus.md §5.1)."""
    from pullback_calc.syntax.subst import alpha_eq
    r = pc.reduce("let a = sin(u) in let b = a × 2 in let c = b × 3 in λd. c × d", check=False)
    assert alpha_eq(r.value, pc.parse("let a = sin(u) in let b = a × 2 in let c = b × 3 in "
                                      "λd. c × d")), pc.pretty(r.value)
    # (used once anywhere else, it is substituted as before)
    r = pc.reduce("let a = sin(u) in ⟨a × 2, 1⟩", check=False)
    assert alpha_eq(r.value, pc.parse("⟨sin(u) × 2, 1⟩")), pc.pretty(r.value)


def test_rule_1_keeps_a_link_read_a_few_lets_on():
    """A chain's next link may be some inert lets on (the adjoints of a function
    with several paths interleave, papers/calculus.md §5.1): a reader among the next
    eight inert lets keeps the let; one further on, or a let between that is no inert
    one, does not."""
    from pullback_calc.reduction.rules import CHAIN_REACH
    from pullback_calc.syntax.subst import alpha_eq

    def series(between: int, last: str = "λd. c × d") -> str:
        lets = "".join(f"let m{i} = cos(u) × {i + 2} in " for i in range(between))
        ms = " + ".join(f"m{i}" for i in range(between))
        return f"let a = sin(u) in {lets}let c = a × ({ms}) in {last}"
    for k in (1, 3, CHAIN_REACH - 1):
        text = series(k)
        r = pc.reduce(text, check=False)
        assert alpha_eq(r.value, pc.parse(text)), (k, pc.pretty(r.value))
    # a reader CHAIN_REACH lets on: a is substituted, as any inert value used once
    r = pc.reduce(series(CHAIN_REACH), check=False)
    assert "let a =" not in pc.pretty(r.value), pc.pretty(r.value)


def _sin_chain_premise(n: int):
    body = "y"
    for _ in range(n):
        body = f"sin({body})"
    return pc.reduce(f"Ω(λy. {body}) (λa. λw. w) u", check=False)


def test_pb_names_the_functional_at_an_open_point_with_stages_to_come():
    """At an open point, with three or more stages still to come, the functional is
    bound by a let (β_v-equal), and the forward phase is a let series: a let is
    lifted once (rule 5's coefficients, out of the named functional), not once per
    enclosing dual map (7 / 15 / 31 lifts at 8 / 16 / 32 stages; 28 / 120 / 496
    before), and the steps are linear in the stages."""
    from pullback_calc.reduction.machine import names_functional
    r = _sin_chain_premise(8)
    first = r.trace[[s.rule for s in r.trace].index("pb")]
    assert names_functional(first.contractum), pc.pretty(first.contractum)
    counts = [_sin_chain_premise(n) for n in (8, 16, 32)]
    lifts = [c.rule_counts.get("lift", 0) for c in counts]
    assert lifts[2] - lifts[1] == 2 * (lifts[1] - lifts[0]), lifts
    assert counts[2].steps - counts[1].steps == 2 * (counts[1].steps - counts[0].steps)
    # (near the end of the chain it stays a nest: naming costs three steps a stage)
    short = _sin_chain_premise(2)
    assert not any(s.rule == "pb" and names_functional(s.contractum) for s in short.trace)


def test_lift_moves_a_series_of_kept_lets_in_one_step():
    """The kept lets around a value are its substitution context: K[L⟨W⟩] → L⟨K[W]⟩ in
    one step, whatever the length of L (a let at a time took one step per let per
    frame: 8,700 of a generated program's 25,683 steps)."""
    from pullback_calc.syntax.subst import alpha_eq
    lets = " ".join(f"let a{i} = sin(u × {i}) in" for i in range(1, 9))
    body = " × ".join(f"a{i}" for i in range(1, 9))
    r = pc.reduce(f"({lets} λd. {body} × d) 2", check=False)
    assert r.rule_counts.get("lift") == 1, r.rule_counts
    # (then β, and each let, used once outside any λ now, is substituted by rule 1)
    want = pc.parse(" × ".join(f"sin(u × {i})" for i in range(1, 9)) + " × 2")
    assert alpha_eq(r.value, want), pc.pretty(r.value)
    assert r.steps == 1 + 1 + 8


# ---- rule 8c's run: constants, aliases, and the helpers in it called once ---------------

def _series_lets(src: str):
    from pullback_calc.syntax.terms import is_let
    t, lets = pc.parse(src), []
    while is_let(t):
        lets.append(t)
        t = t.fun.body
    return lets, t


def test_8c_run_takes_the_helpers_the_series_calls_once():
    """A written list's cells: closures between aliases, each called once at the far
    end (benchmarks/README.md, church).  The run takes a helper only if its one use is
    a call ``let r = h a``, and no later helper of the run reads it; it ends at the
    first that is not so used."""
    from pullback_calc.reduction.rules import _called_once
    lets, _ = _series_lets(
        "let x = x1 in let h1 = λacc. x + acc in let x = x2 in let h2 = λacc. x + acc in "
        "let h3 = λt. t in let h4 = λt. t in "
        "let a = h4 0 in let b = h2 a in let c = h1 b in let d = h3 (h3 c) in d")
    helpers = [t for t in lets[:6] if isinstance(t.arg, pc.syntax.terms.Lam)]
    rest = lets[5].fun.body
    taken = _called_once(helpers, rest)
    # h1, h2 called once; h3 called twice: the run ends there (h4, after it, is not taken)
    assert taken == {id(helpers[0]), id(helpers[1])}
    assert _called_once(helpers[3:], rest) == {id(helpers[3])}
    read = _series_lets("let h1 = λt. t in let h2 = λs. h1 s in let a = h2 1 in a")[0]
    assert _called_once(read[:2], read[1].fun.body) == set()  # (h2 reads h1)


def test_8c_run_moves_a_written_lists_closures_in_one_step():
    from pullback_calc.syntax.terms import Lam, is_let
    from pullback_calc.testing.extreme import church_sum

    def cells(pb) -> int:  # (the cells' closures λacc. xₖ + acc bound in the series)
        n, t = 0, pb.fun.body
        while is_let(t):
            n += isinstance(t.arg, Lam) and t.arg.pat == pc.parse("acc")
            t = t.fun.body
        return n
    r = pc.jacobian_row(church_sum(6), [0.1 * i for i in range(6)], 0)
    moved = [cells(s.redex) - cells(s.contractum) for s in r.trace
             if s.rule == "8c" and cells(s.redex)]
    assert moved == [6], moved  # (one step for the six, where one at a time took six)
    assert r.row == [1.0] * 6


def test_8c_run_goes_past_a_stage_that_binds_a_name_again():
    """A kept stage that binds a name the run read (here y, free in the alias c's image,
    hence in the helpers substituted below the stage) is renamed apart: the run goes on
    past it, as in the program renamed apart, and captures nothing.  (The run stopped
    there: a foldl's continuation ``λacc. k (f acc x)`` meeting ``k = λacc. acc``
    took one 8c more than the same program renamed apart -- the thorough profile.)"""
    from pullback_calc.reduction.rules import RULES
    from pullback_calc.syntax.subst import fv, subst
    from pullback_calc.syntax.terms import App, Num, is_let
    src = ("Ω(λx. let c = y in let h = λz. z × c in let y = sin(x) in "
           "let g = λz. z + c in let r = h y in let s = g r in s) (λa. λw. w)")
    t = pc.parse(src)
    out = RULES["8c"](t, None)
    lets, u = [], out.fun.body
    while is_let(u):
        lets.append(u)
        u = u.fun.body
    # c, h and g substituted in the one step; the stage kept, its binder renamed apart
    assert len(lets) == 3 and pc.pretty(lets[0].arg) == "sin(x)", pc.pretty(out)
    assert lets[0].fun.pat.name != "y" and "y" in fv(out)
    for term in (t, out):  # (and the meaning: d/dx (sin(x) y + y) = cos(x) y, y free)
        v = subst(term, {"y": Num(0.7)})
        got = pc.reduce(App(App(v, Num(0.5)), Num(1.0))).value
        assert got.value == pytest.approx(math.cos(0.5) * 0.7), pc.pretty(got)


def test_8c_takes_the_same_run_whatever_names_the_series_repeats():
    """A name bound twice in the series (nil's ``v4`` bound again to a constant) kept
    the run from a stage that read the new binding, which it took for the old (an
    abstraction a kept stage may not read): the run follows bindings, not names."""
    from pullback_calc.testing.programs import alpha_rename
    src = ("λ⟨x1, x2⟩. let nil = λf. λd. d in let cons = λx. λl. λf. λd. f x (l f d) in "
           "let sum = λl. l (λx. λacc. x + acc) 0 in let iter6 = λf7. λz8. f7 z8 in "
           "let n12 = λf. λa. f a in "
           "exp(sin(sum (n12 (λl. cons (iter6 (λt5. sin(t5 × (-1))) x2) l) nil)))")
    t = pc.parse(src)
    a = pc.grad(t, [0.3, 0.3], record=False)
    b = pc.grad(alpha_rename(t, "shadow"), [0.3, 0.3], record=False)
    assert list(a) == list(b) and a.steps == b.steps, (a.steps, b.steps)


@pytest.mark.parametrize("style", ["plain", "engine", "shadow"])
def test_8c_run_ends_at_a_stage_that_binds_a_helpers_name_as_the_renamed_program_does(style):
    """The one place 8c's run reads a name, not a binding: a kept stage that binds
    the name of a helper of the run (h, bound again by ``let h = c × x2``) ends the
    run instead of being renamed apart.  The old h is then called nowhere, so the
    program renamed apart ends its run at the same helper (``_called_once`` takes no
    helper the rest does not call): the same steps, by the same rules."""
    from pullback_calc.testing.programs import alpha_rename
    t = pc.parse("λ⟨x1, x2⟩. let g = λb. b × x2 in let h = λa. a × x1 in let c = sin(x1) in "
                 "let h = c × x2 in let r = g h in r × c")
    a = pc.grad(t, [0.3, 0.7], record=True)
    b = pc.grad(alpha_rename(t, style), [0.3, 0.7], record=True)
    assert list(a) == list(b) == pytest.approx([0.7 * 0.7 * 2 * math.sin(0.3) * math.cos(0.3),
                                                2 * 0.7 * math.sin(0.3) ** 2])
    assert [s.rule for s in a.trace] == [s.rule for s in b.trace]


def test_8c_keeps_a_heavy_helper_a_wrapper_that_does_not_compute_takes_into_a_loop():
    """A helper that computes (k, a call of sin on x1) used once in the body of a
    helper that does not (``p = λb. ⟨k, b⟩``, moved for its own reasons, into a
    list's cell, applied once per cell) is not moved with it: the chain exception of
    ``inlined_once`` is for a helper that computes, moved into a derivative's map.
    Moved, k's body was a new closure per cell (1,525 steps at 20 cells against the
    1,255 of the program written with ``⟨k, e⟩`` for ``p e``); kept, the wrapper costs
    its one β a cell."""

    def prog(n: int, use: str) -> str:
        cells = "".join(f"cons {0.1 * i:.1f} (" for i in range(n)) + "nil" + ")" * n
        return ("λ⟨x1, x2⟩. let nil = λf. λd. d in let cons = λx. λl. λf. λd. f x (l f d) in "
                "let k = λa. sin(a × x1) in let p = λb. ⟨k, b⟩ in "
                f"let l = {cells} in l (λe. λacc. (let ⟨g, c⟩ = {use} in g c) + acc) x2")
    for n in (5, 20):
        a = pc.grad(prog(n, "p e"), [0.3, 0.7], record=False)
        b = pc.grad(prog(n, "⟨k, e⟩"), [0.3, 0.7], record=False)
        want = [sum(0.1 * i * math.cos(0.1 * i * 0.3) for i in range(n)), 1.0]
        assert list(a) == pytest.approx(want) and list(b) == pytest.approx(want)
        assert a.steps <= b.steps + n + 5, (n, a.steps, b.steps)


def test_the_live_reads_question_costs_a_bounded_walk(monkeypatch):
    """``_reads_live`` (rules 9 and pbc) walks down to the occurrences of the
    pattern's variables, answering "reads" at the first live one or after
    ``LIVE_REACH`` nodes: a series read only at its end, n stages on, costs the same
    bounded walk at n = 100 and 1,000 -- asked at every step of a series, an
    unbounded walk would make the series quadratic.  Dead items do not count, nor
    the items of a let-bound tuple that the let's body does not project."""
    from pullback_calc.reduction import rules
    from pullback_calc.reduction.env import Env
    calls = [0]
    real = rules.fv

    def counting(t):
        calls[0] += 1
        return real(t)
    monkeypatch.setattr(rules, "fv", counting)
    env = Env(pc.parse("x"))
    work = []
    for n in (100, 1000):
        lets = " ".join(f"let a{i} = sin(c × {i}) in" for i in range(n))
        for src in (f"{lets} a1 × x", f"λt. π2 ⟨x, {lets} a1 × t⟩"):
            t = pc.parse(src)
            calls[0] = 0
            rules._reads_live(t, env)
            work.append(calls[0])
    assert work[:2] == work[2:], work  # (the same walk at 100 and 1,000 stages)
    assert rules._reads_live(pc.parse("λt. π2 ⟨x, t⟩"), env) is False
    assert rules._reads_live(pc.parse("λt. π1 ⟨x, t⟩"), env) is True
    assert rules._reads_live(pc.parse("λt. π2 ⟨sin(x), t⟩"), env) is True  # (not a value)
    assert rules._reads_live(pc.parse("λt. π2 ⟨⟨x, λs. x⟩, t⟩"), env) is False
    # the pair as A-normal form names it (th62): x is dead in let t = ⟨x, λq. q⟩ in π2 t,
    # live where the body takes π1 t or uses t whole; the body's walk is bounded too
    for body, live in (("π2 t", False), ("π1 t", True), ("t", True),
                       ("(λt. π1 t) ⟨1, 2⟩", False), ("(λt. π1 t) t", True),
                       ("π2 t (π2 t 1)", False)):
        E = pc.parse(f"λs. let t = ⟨x, λq. q⟩ in {body}")
        assert rules._reads_live(E, env) is live, body
    for n in (100, 1000):
        lets = " ".join(f"let a{i} = sin(c × {i}) in" for i in range(n))
        calls[0] = 0
        rules._reads_live(pc.parse(f"λs. let t = ⟨x, λq. q⟩ in {lets} π2 t a1"), env)
        assert calls[0] <= 2 * rules.LIVE_REACH + 10, (n, calls[0])


def test_renaming_binders_apart_changes_no_step_of_a_sum_of_dual_maps():
    """``test_renaming_the_binders_changes_no_step`` (th61, thorough profile): renaming
    every binder to v1, v2, … makes ``x (λy. 1)`` and ``x (λx. 1)`` -- α-equal atoms
    of a covector -- the same term, which rule 5's linear normal form merged; with
    the original names it kept them apart and added them later (9 steps against 8).
    Atoms are keyed up to α now (``subst.alpha_representative``)."""
    from pullback_calc.syntax.subst import alpha_eq
    from pullback_calc.testing.programs import alpha_rename
    t = pc.parse("(λx. ⟨x (λx. x), x (λy. 1)⟩ ⊕ ⟨x (λx. 1), x (λx. 1)⟩)⋆ "
                 "(λx : ℝ × ℝ. π2 x) (λx. 1) + 1")
    u = alpha_rename(t, "shadow")
    a, b = pc.reduce(t), pc.reduce(u)
    assert alpha_eq(a.value, b.value)
    assert a.steps == b.steps and a.rule_counts == b.rule_counts, (a.rule_counts, b.rule_counts)


def test_rule_3_collects_alpha_equal_atoms():
    """Rule 3 collects c × A ⊕ A′ for A′ α-equal to A as it does for A′ = A."""
    from pullback_calc.syntax.types import Arrow, R
    free = {"g": Arrow(Arrow(R, R), R)}
    for s in ("2 × g (λy. y) ⊕ g (λz. z)", "2 × g (λy. y) ⊕ g (λy. y)"):
        r = pc.reduce(s, free=free)
        assert pc.pretty(r.value) == "3 × g (λy. y)"
        assert [x.rule for x in r.trace] == ["3", "4"]
    # without an occurrence under ×, nothing shows that the atom is a real: it stays
    assert pc.reduce("g (λy. y) ⊕ g (λz. z)", free=free).steps == 0


def test_alpha_representatives_are_per_reduction_and_only_for_binders():
    """``alpha_representative``: outside a reduction every term is its own; inside,
    the first α-equal term met; a term without a binder is always its own (equal
    is then α-equal); α-equal terms, long ones too, share a sketch."""
    from pullback_calc.syntax.subst import alpha_representative, alpha_sketch, has_binder
    from pullback_calc.syntax.terms import fresh_scope
    a, b = pc.parse("g (λy. y)"), pc.parse("g (λz. z)")
    assert alpha_representative(b) is b  # (no reduction: no table)
    with fresh_scope(a):
        assert alpha_representative(a) is a
        assert alpha_representative(b) is a
        assert alpha_representative(pc.parse("g (λz. 1)")) is not a
        x = pc.parse("x + y")
        assert not has_binder(x) and alpha_representative(x) is x
    with fresh_scope(a):  # a new reduction: a new table
        assert alpha_representative(b) is b
    long = pc.parse(" ⊕ ".join(["(λq. q)"] * 2000))
    assert alpha_sketch(long) == alpha_sketch(pc.parse(" ⊕ ".join(["(λr. r)"] * 2000)))
    assert alpha_sketch(pc.parse("g (λy. y)")) != alpha_sketch(pc.parse("g (λy. h)"))
    # atoms that differ only past a long first child (a Jacobian's direction after a
    # large map) get different sketches: read level by level, not depth first
    S = " + ".join(f"sin(q × {i})" for i in range(40))
    assert alpha_sketch(pc.parse(f"(J(λq. {S})·a) v")) != \
        alpha_sketch(pc.parse(f"(J(λq. {S})·b) v"))
