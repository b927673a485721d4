"""Without a trace the machine keeps only what the rest of the reduction needs
(issue 10, peak memory).  Counted in objects alive, not in bytes or seconds."""
import gc

import pytest

import pullback_calc as pc
from pullback_calc.reduction import rules as R
from pullback_calc.syntax.terms import Pullback
from pullback_calc.testing.extreme import sin_chain


def _pullbacks_alive_at_the_turn(n: int, record: bool) -> tuple[int, list]:
    """Pullback nodes alive when the reverse phase begins (the first rule 15
    step): by then rule pb has consumed the whole pullback chain of the
    program's n stages.  Also the row, to compare record=True/False."""
    seen: list = []
    rule15 = R.RULES["15"]
    # (what earlier tests left alive in this process does not count)
    before = {id(o) for o in gc.get_objects() if type(o) is Pullback}

    def spy(t, m):
        if not seen:
            seen.append(sum(type(o) is Pullback and id(o) not in before
                            for o in gc.get_objects()))
        return rule15(t, m)

    R.RULES["15"] = spy
    try:
        r = pc.jacobian_row(sin_chain(n), [0.7], 0, record=record)
    finally:
        R.RULES["15"] = rule15
    return seen[0], [r.steps, r.row, r.rule_counts]


@pytest.mark.parametrize("n", [50, 200])
def test_forward_frames_do_not_keep_the_pullback_chain(n):
    # each stage's dual map waits for the rest of the program in a frame; a
    # frame that kept the functional it descended into would keep every
    # stage's Ω(…) of the chain alive (n of them) until the end
    alive, without = _pullbacks_alive_at_the_turn(n, record=False)
    assert alive <= 2, alive  # the row's own term Ω(f) ω V, nothing per stage
    # a trace keeps them on purpose (its steps show them), and the steps,
    # row and rule counts are the same either way
    alive_traced, with_trace = _pullbacks_alive_at_the_turn(n, record=True)
    assert alive_traced >= n
    assert without == with_trace
