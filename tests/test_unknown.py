"""The unknown-function policy (results/unknown.py): free function variables
and unregistered symbols in a differentiated program -- an error naming the
function and its position only when the result's sensitivity to it is not 0
(rackpropagator's error-non-zero-sensitivity-transform); on_unknown="zero"
treats them as constant."""

import pytest

import pullback_calc as pc
from pullback_calc.syntax.terms import Pos


def test_the_issue_example_names_the_function_and_its_position():
    with pytest.raises(pc.UnknownFunctionError) as e:
        pc.jacobian("λx. x × x + h x", [0.5])
    assert e.value.name == "h" and e.value.pos == Pos(1, 13)
    assert "derivative of h is unknown" in e.value.message
    assert "sensitivity is 1, not 0" in e.value.message
    assert 'on_unknown="zero"' in e.value.message


def test_zero_policy_treats_unknown_functions_as_constant():
    assert pc.jacobian("λx. x × x + h x", [0.5], on_unknown="zero") == [[1.0]]
    assert pc.grad("λx. sin(h x) + x", 0.5, on_unknown="zero") == [1.0]
    assert pc.grad("λ⟨x, y⟩. h x y + x × y", 0.5, 2, on_unknown="zero") == [2.0, 0.5]


def test_an_unregistered_symbol_is_an_unknown_function():
    """softplus(x) parses as the application of a variable softplus."""
    with pytest.raises(pc.UnknownFunctionError, match="softplus") as e:
        pc.grad("λx. x + softplus(x)", 1.0)
    assert e.value.pos == Pos(1, 9)


def test_zero_sensitivity_is_no_error():
    """A call whose result has weight 0 needs no derivative (rackpropagator: a
    code path that does not contribute to the derivative)."""
    assert pc.grad("λx. x + 0 × h(x)", 0.5) == [1.0]


def test_an_unknown_value_is_always_an_error():
    """x × h(x) needs h's value (the coefficient of dx), whatever the policy."""
    for policy in ("error", "zero"):
        with pytest.raises(pc.UnknownFunctionError, match="value of h") as e:
            pc.grad("λx. x × h 2", 0.5, on_unknown=policy)
        assert e.value.pos == Pos(1, 9)


def test_policy_in_vjp_and_jvp():
    _, bp = pc.vjp("λx. x × x + 0 × h(x)", [3.0])
    assert bp(1.0) == [6.0]
    with pytest.raises(pc.UnknownFunctionError, match="value of k") as e:
        pc.vjp("λx. x × x + k (h x)", [3.0], on_unknown="zero")  # the primal needs k
    assert e.value.pos == Pos(1, 13)
    # forward mode: the tangent of sin(h x) + x along 1 needs h's derivative
    with pytest.raises(pc.UnknownFunctionError, match="value of h"):
        pc.jvp("λx. sin(h x) + x", [0.5], [1.0], on_unknown="zero")
    assert pc.jvp("λx. x × x + 0 × h(x)", [3.0], [1.0]).tangent == 6.0


def test_bad_policy():
    with pytest.raises(pc.JacobianError, match="on_unknown must be one of"):
        pc.jacobian("λx. x", [1.0], on_unknown="ignore")
