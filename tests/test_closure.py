"""The compatible closure contains the strategy's step, and more."""
import pytest

import pullback_calc as pc
from pullback_calc.reduction.closure import canonical, one_step_reducts, replace_at
from pullback_calc.reduction.machine import Machine, plug_all

TERMS = [
    "(λx. x + 1) ((λy. y × 2) 3) + sin(0)",
    "Ω(λx. sin(cos(x))) (λz. λw. w) 2",
    "(λv. (J(λx. sin(x))·v) 1) (2 + 3)",
    "⟨1 + 2, (λx. x) 4⟩",
    "Ω(λ⟨x, y⟩. x × y) (λz. λw. w) ⟨1, 2⟩",
]


@pytest.mark.parametrize("src", TERMS)
def test_the_strategys_step_is_one_of_the_reducts(src):
    t = pc.parse(src)
    m = Machine(max_steps=1)
    trace = []
    try:
        m._run(t, trace)
    except pc.StepBudgetExceeded:
        pass
    first = plug_all(trace[0].ctx, trace[0].contractum)
    reducts = one_step_reducts(t)
    assert any(canonical(r.term) == canonical(first) for r in reducts)
    for r in reducts:  # each reduct is the term with its redex replaced
        assert replace_at(t, r.path, r.contractum) == r.term


def test_reducts_off_the_strategy():
    rules = {(r.path, r.rule) for r in one_step_reducts(pc.parse(TERMS[2]))}
    assert ((0, 1), "15") in rules   # under the λ: not a call-by-value position
    assert ((1,), "4") in rules      # the strategy's step
    assert len(one_step_reducts(pc.parse("⟨1 + 2, (λx. x) 4⟩"))) == 2


def test_values_have_no_reducts_in_evaluation_positions():
    assert one_step_reducts(pc.parse("⟨1, λx. x⟩")) == []


def test_canonical_identifies_alpha_equivalent_terms():
    assert canonical(pc.parse("λa. λb. a b c")) == canonical(pc.parse("λx. λy. x y c"))
    assert canonical(pc.parse("λa. λb. a b")) != canonical(pc.parse("λa. λb. b a"))
