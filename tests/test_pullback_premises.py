"""Premises by pullback reductions (issue 9, item 2; papers/calculus.md §5.9,
"The tangent premise").

The premise T of 16b, 16c, 18 and 19b is  Ω(λp.S) ω V P ⇓ ω S̄ T  for a fresh
free 1-form ω: rules 8/7/pb pull ω back, rule 6 composes the stage maps from
the output back (reverse accumulation), dual-app applies the composite to P.
When a stage of S does not move along P the forward premise (J(λp.S)·P) V
(rules 7J/8J) is used instead; both are checked here, with their values.
"""
import math

import pytest

import pullback_calc as pc
from pullback_calc.rendering.text import walk
from pullback_calc.syntax.terms import App, Jac, Pullback

TANGENT_RULES = {"16b", "16c", "18", "19b", "19c"}


def premises(trace, rules=TANGENT_RULES):
    """Every premise (recursively) of the given rules, with its steps' rules."""
    out, stack = [], list(trace)
    while stack:
        s = stack.pop()
        for d in s.premises:
            if d.rule in rules:
                out.append(d)
            stack.extend(d.steps)
    return out


def rules_in(d):
    """The rules of a premise's steps, its own premises' included."""
    return {s.rule for _, s in walk(d.steps) if hasattr(s, "redex")}


def is_pullback_premise(d) -> bool:
    """Ω(λp.S) ω V P: a pullback (of ω) applied to V, then to P."""
    t = d.start
    return isinstance(t, App) and isinstance(t.fun, App) and isinstance(t.fun.fun, Pullback)


@pytest.mark.parametrize("src, expected", [
    # cos''(0) = −1: rule 18's premise pulls back along the covector's body
    ("Ω(λx. Ω(λy. cos(y)) (λz. λw. w) x 1) (λz. λw. w) 0 1", -1.0),
    # sin'''(1) = −cos 1
    ("Ω(λa. Ω(λb. Ω(λc. sin(c)) (λz. λw. w) b 1) (λz. λw. w) a 1) (λz. λw. w) 1 1",
     -math.cos(1.0)),
])
def test_nested_derivatives_run_their_premises_in_reverse(src, expected):
    r = pc.reduce(src)
    assert math.isclose(r.value.value, expected, abs_tol=1e-12)
    ds = premises(r.trace)
    pulled = [d for d in ds if is_pullback_premise(d)]
    assert pulled, "no premise ran by pullback reductions"
    # pulled back along each stage (pb), the covector applied to the tangent (dual-app)
    assert any({"pb", "dual-app"} <= rules_in(d) for d in pulled)
    for d in pulled:  # the derivative is read off the stuck ω S̄ T
        assert isinstance(d.result, App) or d.result == pc.parse("𝟎")


def test_hessian_row_agrees_with_finite_differences_and_uses_rule_6():
    f = "λ⟨x, y⟩. sin(x × y) + x × x × y"
    r = pc.hessian_row(f, [0.7, 1.3], 0)
    # ∂²f/∂x∂· at (x, y): −y² sin(xy) + 2y,  −xy sin(xy) + cos(xy) + 2x
    x, y = 0.7, 1.3
    want = [-y * y * math.sin(x * y) + 2 * y, -x * y * math.sin(x * y) + math.cos(x * y) + 2 * x]
    assert all(math.isclose(a, b, rel_tol=1e-9) for a, b in zip(r.row, want))
    assert "6" in {s for d in premises(r.trace) for s in rules_in(d)}


def test_a_constant_stage_falls_back_to_the_forward_premise():
    # S = v × cos(2) × k: cos(2) does not move along dv, so rule 18's premise is
    # the forward (J(λv.S)·dv) 5, by 7J/8J
    r = pc.reduce("Ω(λv. λk. v × cos(2) × k) (λz. λw. w 1) 5")
    (d,) = [d for d in premises(r.trace) if d.rule == "18"]
    assert isinstance(d.start, App) and isinstance(d.start.fun, Jac)
    assert "8J" in rules_in(d)
    assert math.isclose(pc.reduce("Ω(λv. λk. v × cos(2) × k) (λz. λw. w 1) 5 1").value.value,
                        math.cos(2))
    # without the constant the premise is a pullback
    r2 = pc.reduce("Ω(λv. λk. v × v × k) (λz. λw. w 1) 5")
    (d2,) = [d for d in premises(r2.trace) if d.rule == "18"]
    assert is_pullback_premise(d2) and "8J" not in rules_in(d2)
    assert pc.pretty(r2.value) == "λdv. 10 × dv"


def test_a_chain_of_inert_stages_at_an_open_point_falls_back_to_the_forward_premise():
    # rule 18 differentiates the Church list's body c 1 (c 2 (c 3 n)) with the nil n
    # free: the partial sums are inert and each feeds the next stage, so the premise
    # runs forward (8J names each once); the folding function's own premise
    # (a × x + acc: a sum, no inert value mentioned by its Jacobian) is a pullback.
    # (The list applied to its nil too, λc. λn. … is a β-redex of the series since
    # A-lift takes a closure out of the function position: the output is λn. … here.)
    src = "Ω(λa. (λc. λn. c 1 (c 2 (c 3 n))) (λx. λacc. a × x + acc)) (λz. λw. w 0) 2"
    r = pc.reduce(src)
    ds = [d for d in premises(r.trace) if d.rule == "18"]
    forward = [d for d in ds if isinstance(d.start, App) and isinstance(d.start.fun, Jac)]
    pulled = [d for d in ds if is_pullback_premise(d)]
    assert any("c 1 (c 2 (c 3 n))" in pc.pretty(d.start) and "8J" in rules_in(d)
               for d in forward)
    assert any("a × x + acc" in pc.pretty(d.start) for d in pulled)
    assert pc.pretty(r.value) == "λda. 6 × da"
