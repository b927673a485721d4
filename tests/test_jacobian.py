"""Jacobian rows by reduction: answers, phases, reverse-mode fidelity, depth."""
import math

import pytest

import pullback_calc as pc
from pullback_calc.reduction.linear import to_lincomb
from pullback_calc.reduction.env import PatVars
from pullback_calc.syntax.terms import Num, size

RUNNING = "λ⟨x, y⟩. ((x + 1) × (2 × x + y × y)) ^ 2"
PHASES = ["A", "decompose", "forward", "reverse"]


def test_running_example_row_and_normal_form():
    r = pc.jacobian_row(RUNNING, [1.5, 2], 0)
    assert r.row == pytest.approx([420.0, 350.0])
    # the row is in the normal form itself: numerals times direction variables
    assert pc.pretty(r.covector) in ("λ⟨dx, dy⟩. 350 × dy ⊕ 420 × dx",
                                     "λ⟨dx, dy⟩. 420 × dx ⊕ 350 × dy")
    coeffs = to_lincomb(r.covector.body, PatVars(r.covector.pat))
    assert all(isinstance(c, Num) for c in coeffs.values())


def test_running_example_trace_shows_the_phases_in_order():
    r = pc.jacobian_row(RUNNING, [1.5, 2], 0)
    phases = [s.phase for s in r.trace]
    assert phases == sorted(phases, key=PHASES.index), phases
    assert set(phases) == set(PHASES)
    rules = [s.rule for s in r.trace]
    # forward phase: one pullback-at-a-point step per elementary term, each
    # followed by the evaluation of that term; reverse: one rule-5 per term
    n_elementary = rules.count("pb")
    assert rules.count("5") == n_elementary
    assert rules.count("8") + rules.count("7") == n_elementary
    # the reverse phase starts after the last forward step
    last_forward = max(i for i, s in enumerate(r.trace) if s.phase == "forward")
    first_reverse = min(i for i, s in enumerate(r.trace) if s.phase == "reverse")
    assert last_forward < first_reverse


def test_each_elementary_term_is_evaluated_once_in_the_forward_phase():
    # (x+1) is used twice but computed once: count rule-4 steps per operator
    r = pc.jacobian_row("λx. let a = x + 1 in a × a × a", [2.0], 0)
    forward_prims = [s for s in r.trace if s.phase == "forward" and s.rule == "4"]
    adds = [s for s in forward_prims if s.redex.op == "add"]
    assert len(adds) == 1
    assert r.row == pytest.approx([3 * 3.0 ** 2])


def test_reverse_phase_produces_numeral_coefficients_step_by_step():
    r = pc.jacobian_row("λ⟨x, y⟩. sin(x × y)", [0.5, 2.0], 0)
    fives = [s for s in r.trace if s.rule == "5"]
    assert fives
    for s in fives:  # every covector produced has numeral coefficients
        cov = s.contractum
        lc = to_lincomb(cov.body, PatVars(cov.pat))
        assert all(isinstance(c, Num) for c in lc.values())
    assert r.row == pytest.approx([2.0 * math.cos(1.0), 0.5 * math.cos(1.0)])


def _sum_of_products(n):
    xs = [f"x{i}" for i in range(1, n + 1)]
    body = " + ".join(f"{a} × {b}" for a, b in zip(xs, xs[1:]))
    return f"λ⟨{', '.join(xs)}⟩. {body}"


def test_a_row_costs_like_the_program_not_like_inputs_times_program():
    steps = {}
    for n in (20, 40, 80):
        r = pc.jacobian_row(_sum_of_products(n), [1.0 + i / n for i in range(n)], 0)
        steps[n] = r.steps
        pt = [1.0 + i / n for i in range(n)]
        want = [(pt[i - 1] if i > 0 else 0) + (pt[i + 1] if i < n - 1 else 0) for i in range(n)]
        assert r.row == pytest.approx(want)
    # linear: doubling the program doubles the steps (not quadruples)
    assert steps[80] / steps[40] < 2.3 and steps[40] / steps[20] < 2.3


def test_vector_valued_function_all_rows():
    f = "λy. ⟨sin(π1 y) × π2 y, exp(π1 y) / π2 y, π2 y⟩"
    J = pc.jacobian(f, [0.3, 2.0])
    a, b = 0.3, 2.0
    assert J == [pytest.approx([math.cos(a) * b, math.sin(a)]),
                 pytest.approx([math.exp(a) / b, -math.exp(a) / b ** 2]),
                 pytest.approx([0.0, 1.0])]


def test_constant_function_has_zero_row():
    assert pc.jacobian("λx. 3", [1.0]) == [[0.0]]


def test_ten_thousand_deep_sin_chain():
    n = 10_000
    r = pc.jacobian_row("λx. " + "sin(" * n + "x" + ")" * n, [0.5], 0)
    v, d = 0.5, 1.0
    for _ in range(n):
        d *= math.cos(v)
        v = math.sin(v)
    assert r.row == pytest.approx([d], rel=1e-9)
    assert r.steps < 10 * n  # linear in the depth


def test_errors_are_clear():
    with pytest.raises(pc.JacobianError, match="point has 1"):
        pc.jacobian_row(RUNNING, [1.0], 0)
    with pytest.raises(pc.JacobianError, match="row 1 does not exist"):
        pc.jacobian_row(RUNNING, [1.0, 2.0], 1)
    with pytest.raises(pc.JacobianError, match="expected a function"):
        pc.jacobian_row("3", [1.0], 0)
    with pytest.raises(pc.ParseError):
        pc.jacobian_row("λx. (", [1.0], 0)
    with pytest.raises(pc.PullbackTypeError):
        pc.jacobian_row("λx. sin(⟨x, x⟩)", [1.0], 0)
    with pytest.raises(pc.StepBudgetExceeded):
        pc.jacobian_row(RUNNING, [1.5, 2], 0, max_steps=10)
    with pytest.raises(pc.ReductionError, match="log"):
        pc.jacobian_row("λx. log(x)", [-1.0], 0)


def test_all_errors_share_one_base_class():
    for cls in (pc.ParseError, pc.PullbackTypeError, pc.ReductionError,
                pc.StepBudgetExceeded, pc.JacobianError):
        assert issubclass(cls, pc.PullbackCalcError)


def test_trace_labels_are_strings_from_the_rule_table():
    from pullback_calc.reduction.rules import RULES
    r = pc.jacobian_row(RUNNING, [1.5, 2], 0)

    def every(steps):
        for s in steps:
            yield s
            for d in s.premises:
                yield from every(d.steps)
    # the step count is every step performed, premises' steps included (rule 5's
    # arithmetic premises: 87.5 × 4, 87.5 × 2, 175 + 245, … are steps too)
    assert r.steps == len(list(every(r.trace))) > len(r.trace)
    assert all(isinstance(s.rule, str) and s.rule in RULES for s in every(r.trace))


def test_determinism_same_trace_twice():
    a = pc.jacobian_row(RUNNING, [1.5, 2], 0)
    b = pc.jacobian_row(RUNNING, [1.5, 2], 0)
    assert [s.rule for s in a.trace] == [s.rule for s in b.trace]
    assert [pc.pretty(s.contractum) for s in a.trace] == [pc.pretty(s.contractum) for s in b.trace]


def test_the_trace_replays_as_a_sequence_of_terms():
    # each step's "after" term is the next step's "before" term
    r = pc.reduce("(λf. f (f 2)) (λx. sin(x) × x)")
    for s, t in zip(r.trace, r.trace[1:]):
        assert s.term_after() == t.term_before()
    assert r.trace[-1].term_after() == r.value
    assert size(r.value) == 1


def _arithmetic(trace):
    """The rule-4 steps of a trace, premises included, by function symbol."""
    from collections import Counter
    ops: Counter = Counter()

    def walk(steps):
        for s in steps:
            if s.rule == "4":
                ops[s.redex.op] += 1
            for d in s.premises:
                walk(d.steps)
    walk(trace)
    return ops


def test_every_operation_of_back_propagation_is_a_step():
    """A sin chain of depth N: N sin forward, N cos for the partials and the
    N − 1 multiplications of the adjoints (rule 5's premises), each a rule-4
    step; evaluating the chain takes the N sin alone."""
    n = 100
    f = "λx. " + "sin(" * n + "x" + ")" * n
    assert _arithmetic(pc.jacobian_row(f, [0.7], 0).trace) == {"sin": n, "cos": n, "mul": n - 1}
    assert _arithmetic(pc.reduce(f"({f}) 0.7").trace) == {"sin": n}


def test_the_running_example_shows_its_reverse_arithmetic():
    r = pc.jacobian_row(RUNNING, [1.5, 2], 0)
    reverse_premises = [(pc.pretty(d.start), pc.pretty(d.result))
                        for s in r.trace if s.rule == "5" for d in s.premises]
    assert reverse_premises == [("⟨35 × 7, 35 × 2.5⟩", "⟨245, 87.5⟩"), ("87.5 × 4", "350"),
                                ("87.5 × 2", "175"), ("175 + 245", "420")]
    assert all(x.phase == "reverse" for s in r.trace if s.rule == "5"
               for d in s.premises for x in d.steps)
