"""The tape view (results/wengert.py): the A-normal let series as a Wengert list,
with forward values and adjoints read off the reduction's trace."""
import math

import pytest

import pullback_calc as pc
from pullback_calc.results.wengert import tape
from pullback_calc.syntax.terms import Num

RUNNING = "λ⟨x, y⟩. ((x + 1) × (2 × x + y ^ 2)) ^ 2"


def num(t):
    assert isinstance(t, Num), t
    return t.value


def test_running_example_six_operations_values_and_adjoints():
    t = tape(RUNNING, at=[1.5, 2])
    assert [(e.name, e.operation) for e in t.entries] == [
        ("add_2", "add"), ("mul_4", "mul"), ("pow_5", "pow"), ("add_3", "add"),
        ("mul_1", "mul"), ("pow_6", "pow")]
    assert [num(e.value) for e in t.entries] == [2.5, 3.0, 4.0, 7.0, 17.5, 306.25]
    # adjoints: ∂f/∂(each intermediate), as the reverse phase accumulated them
    assert [num(e.adjoint) for e in t.entries] == [245.0, 87.5, 87.5, 87.5, 35.0, 1.0]
    assert [(e.name, num(e.value), num(e.adjoint)) for e in t.inputs] == [
        ("x", 1.5, 420.0), ("y", 2.0, 350.0)]
    assert t.output == "pow_6" and t.steps == 57
    text = str(t)
    assert "add_3 = add mul_4 pow_5" in text and "306.25" in text


def test_adjoints_agree_with_the_gradient_of_the_rest_of_the_program():
    """The adjoint of mul_1 = (x+1)(2x+y²) is d(m²)/dm = 2m; of add_2 it is 2m·(2x+y²)."""
    t = tape(RUNNING, at=[0.5, -1.0])
    vals = {e.name: num(e.value) for e in t.entries}
    adj = {e.name: num(e.adjoint) for e in t.entries}
    assert adj["mul_1"] == pytest.approx(2 * vals["mul_1"])
    assert adj["add_2"] == pytest.approx(2 * vals["mul_1"] * vals["add_3"])
    assert [num(e.adjoint) for e in t.inputs] == list(pc.grad(RUNNING, 0.5, -1.0))


def test_tape_without_a_point_is_the_let_series():
    t = tape(RUNNING)
    assert len(t.entries) == 6 and all(e.value is None and e.adjoint is None
                                       for e in t.entries)
    assert "value" not in str(t)


def test_higher_order_and_tuple_patterns():
    fold = "λ⟨i, a, b, c⟩. let l = λf. λd. f a (f b (f c d)) in l (λx. λacc. x × acc) i"
    t = tape(fold, at=[1, 2, 3, 4])
    # rule 8c substitutes the list (an abstraction used once), then copies the folding
    # function to its three calls: the series is the unrolled fold, the products and
    # the copies of the accumulator, which are no stages (no value, no adjoint)
    assert [e.operation for e in t.entries] == ["mul", "copy", "mul", "copy", "mul"]
    assert num(t.entries[-1].value) == 24.0
    assert [num(e.adjoint) for e in t.inputs] == [24.0, 12.0, 8.0, 6.0]
    assert [num(e.value) if e.value is not None else None for e in t.entries] == \
        [4.0, None, 12.0, None, 24.0]
    # each product's adjoint is the product of the factors after it: a, a × b
    assert [num(e.adjoint) if e.adjoint is not None else None for e in t.entries] == \
        [6.0, None, 2.0, None, 1.0]


def test_a_copy_has_no_adjoint_and_shifts_none():
    """A copy (rule 8c substitutes it) is no stage: the tape read the covector of
    stage k for the k-th let, so after a copy every adjoint was the entry's
    before it -- the copy showed sin_1's, and sin_1 none."""
    t = tape("λ⟨x, y⟩. let a = x × y in let b = a in sin(b) × a", at=[1, 2])
    got = {e.name: (pc.pretty(e.adjoint) if e.adjoint is not None else None) for e in t.entries}
    assert got["b"] is None
    assert num(t.entries[2].adjoint) == 2.0  # d(sin_1 × a)/d sin_1 = a
    assert num(t.entries[0].adjoint) == pytest.approx(math.cos(2) * 2 + math.sin(2))


def test_tuple_patterns():
    t2 = tape("λ⟨x, y⟩. let ⟨a, b⟩ = ⟨x × y, sin(x)⟩ in a × b", at=[0.5, 2])
    pair = t2.entries[2]
    assert pair.name == "⟨a, b⟩"
    assert pc.pretty(pair.adjoint) == f"⟨{pc.pretty(Num(math.sin(0.5)))}, 1⟩"


def test_elementary_body_and_rows():
    t = tape("λx. sin(x)", at=[0.5])
    assert len(t.entries) == 1 and num(t.inputs[0].adjoint) == pytest.approx(math.cos(0.5))
    t = tape("λ⟨x, y⟩. ⟨x × y, sin(x)⟩", at=[0.5, 2], row=1)
    assert pc.pretty(t.entries[-1].adjoint) == "⟨0, 1⟩"
    assert [num(e.adjoint) for e in t.inputs] == [pytest.approx(math.cos(0.5)), 0.0]


def test_json():
    doc = tape(RUNNING, at=[1.5, 2]).to_json()
    assert doc["inputs"][0] == {"index": 0, "name": "x", "operation": "input", "operands": [],
                                "value": 1.5, "adjoint": 420}
    assert doc["entries"][5]["operands"] == ["mul_1", "2"] and doc["steps"] == 57


def test_a_let_that_rebinds_an_input_is_its_own_entry():
    """Rule 8 renames a let that rebinds a variable of the input apart (x_2); the tape
    read values and adjoints by the name the program wrote, so the input x showed
    the let's adjoint (cos 1, where ∂/∂x sin(2x) = 2 cos 1) and the let the input's
    value (0.5 for x × 2 = 1).  The thorough profile's tape property found it."""
    t = tape("λx. let x = x × 2 in sin(x)", at=[0.5])
    assert num(t.inputs[0].value) == 0.5
    assert num(t.inputs[0].adjoint) == pytest.approx(2 * math.cos(1.0))
    assert t.entries[0].name != "x" and num(t.entries[0].value) == 1.0
    assert num(t.entries[0].adjoint) == pytest.approx(math.cos(1.0))
    assert list(pc.grad("λx. let x = x × 2 in sin(x)", 0.5)) == \
        [pytest.approx(num(t.inputs[0].adjoint))]
