"""Every step of a trace preserves the type of the whole term (spot checks;
the property-based version generates the terms)."""
import pytest

import pullback_calc as pc
from pullback_calc.reduction.machine import plug_all
from pullback_calc.typing import check, typecheck, types_equal

TERMS = [
    "Ω(λ⟨x, y⟩. ((x + 1) × (2 × x + y × y)) ^ 2) (λz. λw. w) ⟨1.5, 2⟩",
    "let sum = λl. l (λx. λacc. x + acc) 0 in let xs = λf. λd. f 1 (f 2 (f 3 d)) in "
    "Ω(sum) (λz. λw. w) xs",
    "Ω(λx. Ω(λy. cos(y)) (λz. λw. w) x 1) (λz. λw. w) 0.5",
    "Ω(λy. ⟨sin(π1 y) × π2 y, π1 y⟩) (λz. λw. π2 w) ⟨0.3, 2⟩",
]


def test_a_reduct_of_the_wrong_type_is_caught():
    # the check itself can fail: a contractum of another type is rejected
    with pytest.raises(pc.PullbackTypeError):
        check(pc.parse("⟨1, 2⟩"), typecheck(pc.parse("3")))


@pytest.mark.parametrize("src", TERMS)
def test_each_step_preserves_the_type(src):
    t = pc.parse(src)
    ty = typecheck(t)
    r = pc.reduce(t)
    assert r.steps > 5
    for s in r.trace:
        after = plug_all(s.ctx, s.contractum)
        # the reduct has the redex's type (its principal type may be more general)
        assert types_equal(check(after, ty), ty), (s.rule, pc.pretty(s.contractum))
