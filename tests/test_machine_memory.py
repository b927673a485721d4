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


def _by_definition(ctx) -> tuple[int, bool]:
    """A frame's depth (frames from the root to it) and whether one of them
    is the body of a dual map, counted the long way."""
    frames = []
    while ctx is not None:
        frames.append(ctx)
        ctx = ctx.parent
    return len(frames), any(f.kind == "dual-body" for f in frames)


@pytest.mark.parametrize("asked", ["in order", "backwards"])
def test_frame_depth_and_phase_as_defined_whenever_asked(asked):
    # (the frames work out depth and in_dual when first asked, from the
    # nearest frame that knows, so a reduction stores no int per frame)
    r = pc.jacobian_row(sin_chain(40), [0.7], 0)
    steps = list(r.trace) + [p for s in r.trace for d in s.premises for p in d.steps]
    if asked == "backwards":  # the deepest frames first: nothing known above them
        steps.reverse()
    seen_dual = 0
    for s in steps:
        for ctx in (s._ctx, s.ctx):  # as recorded, and materialised
            if ctx is not None:
                assert (ctx.depth, ctx.in_dual) == _by_definition(ctx), (s.index, s.rule)
                seen_dual += ctx.in_dual
        assert s.depth == (0 if s.ctx is None else _by_definition(s.ctx)[0])
    assert seen_dual > 40  # the reverse phase was among them
    assert {s.phase for s in r.trace} >= {"forward", "reverse", "decompose", "A"}


def test_frames_hold_no_depth_until_asked():
    m = pc.jacobian_row(sin_chain(300), [0.7], 0)
    deep = [s._ctx for s in m.trace if s._ctx is not None]
    assert all(c._r == 0 for c in deep)  # nobody asked yet
    # asking one frame tells every frame above it (so a renderer asking every
    # step's depth walks each frame once, not each step's whole chain) and
    # no other
    one = deep[len(deep) // 2]
    assert one.depth > 1
    above, c = set(), one
    while c is not None:
        assert c._r >> 1 != 0
        above.add(id(c))
        c = c.parent
    assert all(c._r == 0 for c in deep if id(c) not in above)
    assert max(c.depth for c in deep) > 300  # (ints above 256 are objects of their own)


def test_a_frame_is_materialised_once_and_keeps_its_depth():
    # (the materialised copy sits in the same slot as depth and phase: a copy
    # is asked for its depth in the frame's place)
    from pullback_calc.reduction.machine import Ctx, Machine, materialise_ctx
    # (a closed β's contractum is delayed: the frames inside it are copied)
    src = "(λx. let y = sin(x) × 2 in let z = ⟨y + x, x⟩ in π₁ z × y) 3"
    _, trace = Machine().reduce(pc.parse(f"let f = {src} in ⟨f, f + 1⟩"))
    frames = [s._ctx for s in trace if s._ctx is not None]
    mats = [materialise_ctx(c) for c in frames]
    assert all(materialise_ctx(c) is m for c, m in zip(frames, mats))  # cached
    copies = [c for c in frames if type(c._r) is Ctx]
    assert copies and len(copies) < len(frames)  # delayed frames were copied, others not
    for c, m in zip(frames, mats):
        assert (c.depth, c.in_dual) == (m.depth, m.in_dual) == _by_definition(m)
        assert materialise_ctx(m) is m


@pytest.mark.parametrize("premises", [None, [], ["a premise"], ("a", "b")])
@pytest.mark.parametrize("hint", [None, "reverse"])
def test_a_step_keeps_premises_and_phase_in_one_slot(premises, hint):
    from pullback_calc.reduction.machine import Step
    x = pc.parse("x")
    s = Step(3, "5", x, x, None, premises, hint)
    assert list(s.premises) == list(premises or [])
    assert s.phase_hint == hint and s.phase == (hint or "reverse")
    assert not hasattr(s, "__dict__")
