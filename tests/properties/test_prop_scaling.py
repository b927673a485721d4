"""Cost that grows with the program as the program does: a derivative of a
helper of k stages, taken inside the program and differentiated again
(``pullback_calc.testing.programs.derivative_chains``), at k and at 2k stages.

Reverse mode costs a constant times the program, so the steps the second k
stages add are the steps the first k added: measured at k, 2k and 4k stages,
the increment from 2k to 4k is twice the one from k to 2k for a linear cost
(whatever its fixed part, and parts that start only past some length), four
times for a quadratic one.  The gradient of such a program took N(N − 1)/2
``lift`` steps for N stages until rule pb named the functional at an open point
(papers/calculus.md §5.8): increments ×2.5 and more from 8 stages of ``sin`` on,
a growth no program of 4–6 stages shows.  The values are checked against the
oracle at the longest length.
"""
from hypothesis import given, settings
from hypothesis import strategies as st

import pullback_calc as pc
from pullback_calc.semantics import oracle
from pullback_calc.testing.programs import (ChurchBuild, DerivativeChain, TupleNest,
                                            church_builds, derivative_chains, input_lists,
                                            tuple_nests)

from pullback_calc.testing.work import count_calls

from common import assert_oracle_agrees

#: each example reduces the program three times, the longest with 4k stages (up to a
#: second of CPU for a derivative of a derivative): a fifth of the profile's examples
SOME = max(5, settings.default.max_examples // 5)

#: the increment of the steps per doubling of the helper: 2 for a linear cost, 4 for a
#: quadratic one
GROWTH = 2.3


def _steps(c: DerivativeChain, repeat: int, how: str) -> int:
    t = c.text(repeat)
    if how == "grad":
        g = pc.grad(t, [c.point], max_steps=2_000_000, record=False)
        if repeat == 4:
            assert_oracle_agrees(g[0], lambda: oracle.jacobian_by_oracle(pc.parse(t),
                                                                         [c.point])[0][0],
                                 "gradient")
        return g.steps
    j = pc.jvp(t, [c.point], [1.0], max_steps=2_000_000, record=False)
    return j.steps


def _linear(c: DerivativeChain, how: str) -> None:
    a, b, d = (_steps(c, r, how) for r in (1, 2, 4))
    assert d - b <= GROWTH * (b - a), (how, a, b, d, round((d - b) / (b - a), 3))


@settings(max_examples=SOME)
@given(derivative_chains(max_k=8))
def test_the_gradient_of_a_derivative_grows_with_the_helper(c):
    """grad of a program that differentiates a k-stage helper, at k, 2k, 4k."""
    _linear(c, "grad")


@settings(max_examples=SOME)
@given(derivative_chains(max_k=8))
def test_forward_mode_over_a_derivative_grows_with_the_helper(c):
    """jvp of the same programs."""
    _linear(c, "jvp")


# ---- Church lists as long as the program ------------------------------------------------

def _church_steps(c: ChurchBuild, k: int, check: bool) -> int:
    t = c.text(k)
    g = pc.grad(t, [c.point], max_steps=2_000_000, record=False)
    if check:
        assert_oracle_agrees(g[0], lambda: oracle.jacobian_by_oracle(pc.parse(t),
                                                                     [c.point])[0][0],
                             "gradient")
        evaluation = pc.call(t, c.point, record=False).steps
        # the goal of issue 26 for a list of the inputs: ≤ 10× the evaluation's steps
        assert g.steps <= 10 * evaluation, (g.steps, evaluation)
    return g.steps


@settings(max_examples=SOME)
@given(church_builds(), st.sampled_from((4, 6, 8)))
def test_the_gradient_over_a_church_list_grows_with_the_list(c, k):
    """grad over a Church list of k, 2k, 4k elements computed from the input, built
    written out, by cons, by a Church numeral iterating a cons closure, or by a
    numeral iterating a helper: the numeral's gradient was quadratic (each D-eval
    premise read the tail, whose fold rule 5's premise computed again: increments
    ×2.9–3.3), and cons consumed by foldl too (×2.7)."""
    a, b, d = (_church_steps(c, r * k, r == 4) for r in (1, 2, 4))
    assert d - b <= GROWTH * (b - a), (a, b, d, round((d - b) / (b - a), 3))


# ---- the work, not only the steps: a list of the inputs written in place ---------------

#: the work (Python calls) per doubling of the list, at its last doubling: ×2 for a
#: linear cost (×1.8–2.2 measured at 8–64 inputs), ×2.7–3.3 when each cell's closure
#: was moved to its far call alone
WORK_GROWTH = 2.4


@settings(max_examples=SOME)
@given(input_lists(), st.sampled_from((8, 12, 16)))
def test_the_work_over_a_written_list_of_the_inputs_grows_with_the_list(c, k):
    """The gradient's work (calls, not steps) over a list of the inputs written in
    place, at k, 2k and 4k inputs: its steps were linear while its work was quadratic
    (8c moved the cells' closures one by one to their calls at the far end of the
    series: the --compare family church, 15.4 s at 800 inputs), which a property
    counting steps could not see; its row is checked against the oracle at k."""
    def row(n: int):
        text, point = c.text(n), c.point(n)
        return count_calls(lambda: pc.jacobian_row(text, point, 0, max_steps=2_000_000,
                                                   record=False))
    row(2)  # (the first reduction's one-time work, out of the count)
    work = [row(n) for n in (k, 2 * k, 4 * k)]
    t, point = pc.parse(c.text(k)), c.point(k)
    assert_oracle_agrees(work[0][1].row[0],
                         lambda: oracle.jacobian_by_oracle(t, point)[0][0], "gradient")
    work = [calls for calls, _ in work]
    assert work[2] <= WORK_GROWTH * work[1], (c.consumer, k, work)


@settings(max_examples=SOME)
@given(church_builds().filter(lambda c: c.consumer != "foldl"), st.sampled_from((8, 12, 16)))
def test_the_work_over_a_church_list_of_computed_elements_grows_with_the_list(c, k):
    """The gradient's work (calls) over a Church list of k, 2k, 4k elements computed
    from the input: 8c's run ended at each stage computing an element, so it took the
    cells' closures one at a time, each a walk to its call at the far end of the
    series (cons-built: ×2.9–3.3 per doubling; written out: ×3.1–3.4).  The run now
    goes on past such stages.  (foldl's continuations are copied into each other one
    at a time, each β copying the body built so far: ×2.6, calculus.md §9.)"""
    def grad(n: int):
        t = pc.parse(c.text(n))
        return count_calls(lambda: pc.grad(t, [c.point], max_steps=2_000_000, record=False))
    grad(2)  # (the first reduction's one-time work, out of the count)
    work = [grad(n)[0] for n in (k, 2 * k, 4 * k)]
    assert work[2] <= WORK_GROWTH * work[1], (c.builder, c.consumer, k, work)



@settings(max_examples=SOME)
@given(tuple_nests(), st.sampled_from((16, 20, 24)))
def test_the_work_through_a_nest_of_tuples_grows_with_the_nest(c: TupleNest, k: int):
    """The gradient's work (calls) through a nest of tuples k, 2k, 4k deep, taken
    apart again (written in place, by lets, by helpers).  Its reverse phase rebuilt
    an atom π (… (π dv)) as deep as the nest at each rule-5 step, as the stage
    changed its innermost variable (×2.7–3.0 per doubling from 32 to 64 levels); rule
    5 moves such a chain in one node now (``linear._moved_chain``), counting the
    projections of tuples it takes as rule 2's steps: the trace, when one is kept,
    has them, and the same counts.  The thorough profile's first run of it (2026-11-30)
    drew a nest of helpers, ``wrap_i = λv. ⟨v, x⟩`` and ``out_i = λt. π1 t`` per level,
    whose *type checking* was quadratic (×2.40 per doubling from 48 to 96 levels): the
    postponed projections were solved one per pass, and the occurs check walked the
    nest at each binding (typing/check.py; tests/test_typing.py)."""
    def grad(n: int, record: bool = False):
        t = pc.parse(c.text(n))
        return count_calls(lambda: pc.grad(t, [c.point], max_steps=2_000_000, record=record))
    grad(2)  # (the first reduction's one-time work, out of the count)
    work = [grad(n) for n in (k, 2 * k, 4 * k)]
    g = work[0][1]
    traced = grad(k, record=True)[1]
    assert (traced.steps, traced.rule_counts, list(traced)) == (g.steps, g.rule_counts, list(g))
    assert_oracle_agrees(g[0], lambda: oracle.jacobian_by_oracle(pc.parse(c.text(k)),
                                                                 [c.point])[0][0], "gradient")
    calls = [n for n, _ in work]
    assert calls[2] <= WORK_GROWTH * calls[1], (c, k, calls)
