"""Rule 5's covectors in a persistent map (reduction/linear.py, issue 10).

The combination λp̂. Σ cᵢ × Aᵢ that rule 5 builds at each reverse step is a
new version of a persistent map (Baker's rerooting): the step costs what it
changes, every old version stays readable (a recorded trace prints them),
and the summands keep the order a copied dict would give.  No step changes
(tests/test_perf_invariance.py); these tests check the structure itself.
"""
import gc

import pytest

import pullback_calc as pc
from pullback_calc.reduction.linear import LC, PMap, _MISSING, term_of
from pullback_calc.reduction.machine import Machine
from pullback_calc.syntax.terms import App, Lam, Num, Pullback, Sum, Tuple, Var


def test_every_version_of_a_persistent_map_stays_readable():
    v0 = PMap({"a": 1, "b": 2})
    v1 = v0.update([("b", 3), ("c", 4)])
    v2 = v1.update([("a", _MISSING)])
    v3 = v0.update([("d", 5)])  # a branch from an old version
    assert v2.dict() == {"b": 3, "c": 4}
    assert v0.dict() == {"a": 1, "b": 2}
    assert v1.dict() == {"a": 1, "b": 3, "c": 4}
    assert v3.dict() == {"a": 1, "b": 2, "d": 5}
    assert v2.dict() == {"b": 3, "c": 4}


def test_a_combination_keeps_the_order_of_its_summands():
    x, y, z = Var("x"), Var("y"), Var("z")
    lc = LC.of({x: Num(2.0), y: Num(3.0)}, frozenset())
    lc2 = LC(lc.pm.update([(x, _MISSING), (z, (lc.seq, Num(4.0))), (y, (1, Num(5.0)))]),
             frozenset(), 2, lc.seq + 1)
    assert list(lc2.coeffs.items()) == [(y, Num(5.0)), (z, Num(4.0))]
    assert list(lc.coeffs.items()) == [(x, Num(2.0)), (y, Num(3.0))]


def test_a_wide_covector_is_built_only_when_read():
    x, y = Var("x"), Var("y")
    t = term_of(LC.of({x: Num(2.0), y: Num(1.0)}, frozenset()))
    assert isinstance(t, Sum) and t._make_items is not None  # not built
    assert pc.pretty(t) == "2 × x ⊕ y"
    assert t._make_items is None and t.items is t.items  # built once, kept
    assert t == Sum((pc.parse("2 × x"), y))


def _gradient_term(src: str, pt: list):
    f = pc.parse(src)
    point = Num(pt[0]) if len(pt) == 1 else Tuple(tuple(Num(v) for v in pt))
    return App(Pullback(f, Lam(Var("z"), Lam(Var("w"), Var("w")))), point)


@pytest.mark.parametrize("record", [False, True])
@pytest.mark.parametrize("src, pt", [
    ("λ⟨x1, x2, x3, x4, x5⟩. x1 × x2 + x2 × x3 + x3 × x4 + x4 × x5", [1, 2, 3, 4, 5]),
    ("λx. " + "sin(" * 30 + "x" + ")" * 30, [0.5]),
])
def test_a_reduction_leaves_no_cyclic_garbage(src, pt, record):
    """The cyclic collector is paused during a reduction (gcpause.py), so a
    reference cycle built per step would stay in memory until the end:
    none is built (recursive closures, a term caching a combination that
    holds the term)."""
    t = _gradient_term(src, pt)
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        value, trace = Machine(record=record).reduce(t)
        del value, trace
        assert gc.collect() == 0
    finally:
        if was:
            gc.enable()


def test_old_covectors_of_a_recorded_trace_print_as_they_were():
    src = "λ⟨x1, x2, x3, x4⟩. x1 × x2 + x2 × x3 + x3 × x4"
    r = pc.jacobian_row(src, [1.0, 2.0, 3.0, 4.0], 0)
    fives = [s for s in r.trace if s.rule == "5"]
    texts = [pc.pretty(s.contractum) for s in fives]  # read in order, then again backwards
    assert [pc.pretty(s.contractum) for s in reversed(fives)] == texts[::-1]
    assert texts[-1].count("⊕") == 3 and r.row == [2.0, 4.0, 6.0, 3.0]


def test_reads_answers_for_the_atoms_left_not_for_those_that_cancelled():
    """A covector's ``cx`` (the names inside its compound atoms) only grows while
    the reverse phase composes: an atom that cancels leaves its names there.
    ``reads`` decides whether rule 5 reduces an item of a map's body, so a stale
    name made the redex depend on how the covector was built (the thorough
    profile: π2 (d ⟨0, 1⟩) left, a compound atom over ``t`` cancelled)."""
    from pullback_calc.reduction.linear import reads
    from pullback_calc.syntax.terms import Proj
    atom = Proj(2, App(Var("d"), Tuple((Num(0.0), Num(1.0)))))
    body = term_of(LC.of({atom: Num(-0.5)}, frozenset({"d", "t"})))  # "t": cancelled
    assert reads(body, ["d"]) and not reads(body, ["t"])
    assert not reads(body, ["w"])
