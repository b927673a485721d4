"""The engine bugs the properties found and that are still open.

Each shrunk counterexample of ``regressions.KNOWN_ENGINE_BUGS`` is a strict
xfail: when the engine is fixed the test XPASSes, the run fails, and the
example moves to the regressions proper (and the property stops rejecting
the bug's signature).  The expected values are checked against the oracle,
and the signatures against the bugs' own terms.
"""
import math

import pytest

import pullback_calc as pc
from pullback_calc.errors import PullbackCalcError
from pullback_calc.reduction.machine import plug_all
from pullback_calc.testing import oracle
from pullback_calc.typing.check import check, types_equal

import regressions
from common import MAX_STEPS, numeral

BUGS = regressions.KNOWN_ENGINE_BUGS
VALUES = [(name, term, value) for name, (_, cases, _) in BUGS.items()
          for term, value in cases]
TYPINGS = [(name, term) for name, (_, _, terms) in BUGS.items() for term in terms]


def _ids(cases):
    return [f"{c[0]}-{i}" for i, c in enumerate(cases)]


def _open(cases):
    """The cases as strict xfails (they fail while the bug is open)."""
    return [pytest.param(*c, marks=pytest.mark.xfail(strict=True, reason=BUGS[c[0]][0][:200]))
            for c in cases]


@pytest.mark.parametrize("name, term, value", VALUES, ids=_ids(VALUES))
def test_the_expected_values_are_the_oracles(name, term, value):
    """The value each open bug's term should reduce to is the oracle's."""
    assert math.isclose(float(oracle.evaluate(term)), value, rel_tol=1e-12, abs_tol=1e-12)


@pytest.mark.parametrize("name, term, value", _open(VALUES), ids=_ids(VALUES))
def test_known_bug_reduces_to_its_value(name, term, value):
    """The term reduces to its value."""
    v = pc.reduce(term, max_steps=MAX_STEPS).value
    x = numeral(v)
    assert x is not None and math.isclose(x, value, rel_tol=1e-9, abs_tol=1e-12), pc.pretty(v)


@pytest.mark.parametrize("name, term", _open(TYPINGS), ids=_ids(TYPINGS))
def test_known_bug_preserves_types(name, term):
    """Every step keeps the term's type."""
    t = pc.parse(term)
    ty = pc.typecheck(t)
    r = pc.reduce(t, max_steps=MAX_STEPS)
    assert r.trace
    for s in r.trace:
        assert types_equal(check(plug_all(s.ctx, s.contractum), ty), ty), s.rule


@pytest.mark.parametrize("name, term, value", VALUES, ids=_ids(VALUES))
def test_the_signature_recognizes_the_stuck_terms(name, term, value):
    """While a bug's term is stuck, ``known_engine_bug`` names that bug, so
    the properties set aside exactly what this file tracks."""
    v = pc.reduce(term, max_steps=MAX_STEPS).value
    if numeral(v) is None:
        assert regressions.known_engine_bug(v) == name


@pytest.mark.parametrize("name, term", TYPINGS, ids=_ids(TYPINGS))
def test_the_signature_recognizes_the_ill_typed_steps(name, term):
    """While a bug's term has a step the checker rejects as not linear,
    ``linearity_bug`` names that bug."""
    t = pc.parse(term)
    ty = pc.typecheck(t)
    for s in pc.reduce(t, max_steps=MAX_STEPS).trace:
        after = plug_all(s.ctx, s.contractum)
        try:
            check(after, ty)
        except PullbackCalcError as e:
            if "is not linear" in str(e):
                assert regressions.linearity_bug(s, after) == name
            return
