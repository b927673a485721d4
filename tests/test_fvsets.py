"""Large free-variable sets share their structure (syntax/fvsets.py, issue 10).

A nested term whose every level adds names -- a Church list's tangent --
would copy a growing frozenset at each level: memory and time quadratic in
the depth.  Above ``SMALL`` names the sets are persistent (``FVSet``).  These
tests check that an FVSet is the same set as a frozenset under everything
the engine does with sets, and that the free variables of a nested term take
linear memory.  No step changes (tests/test_perf_invariance.py).
"""
import tracemalloc

from hypothesis import given, settings
from hypothesis import strategies as st

import pullback_calc as pc
from pullback_calc.syntax.fvsets import SMALL, FVSet, meets, union, union_all
from pullback_calc.syntax.subst import fv, fv_copied
from pullback_calc.syntax.terms import App, Var

NAMES = st.frozensets(st.integers(0, 3 * SMALL).map(lambda i: f"x{i}"), max_size=3 * SMALL)


def _as(s: frozenset, big: bool):
    return FVSet.of(s) if big and s else s


@settings(max_examples=300, deadline=None)
@given(NAMES, NAMES, st.booleans(), st.booleans())
def test_an_fvset_is_the_set_it_holds(a, b, big_a, big_b):
    A, B = _as(a, big_a), _as(b, big_b)
    assert len(A) == len(a) and set(A) == a and all(x in A for x in a)
    assert bool(A) == bool(a) and (A == a) and (a == A)
    assert A & B == a & b and a & B == a & b and A & b == a & b
    assert set(union(A, B)) == a | b and set(A | B) == a | b and set(a | B) == a | b
    assert set(A - B) == a - b and set(a - B) == a - b and set(A - b) == a - b
    assert A.isdisjoint(B) == a.isdisjoint(b) == (not meets(A, B))
    assert (A <= B) == (a <= b) and (A >= B) == (a >= b)
    assert set(union_all([A, B, frozenset({"y"})])) == a | b | {"y"}
    keys = dict.fromkeys(b).keys()
    assert A & keys == a & b


def test_a_union_is_a_frozenset_until_it_is_large():
    small = frozenset(f"x{i}" for i in range(SMALL // 2))
    other = frozenset(f"y{i}" for i in range(SMALL // 2))
    assert type(union(small, other)) is frozenset
    big = union(small, frozenset(f"z{i}" for i in range(SMALL)))
    assert type(big) is FVSet and len(big) == SMALL // 2 + SMALL
    assert union(big, small) is big  # nothing new: the same set, not a copy
    assert type(big - big) is frozenset and not (big - big)


def _nested(n: int):
    """c x1 (c x2 (… (c xn z))) -- each level adds a name."""
    t = Var("z")
    for i in range(n, 0, -1):
        t = App(App(Var("c"), Var(f"x{i}")), t)
    return t


def _fv_memory(n: int) -> int:
    t = _nested(n)
    tracemalloc.start()
    fv(t)
    fv_copied(t)
    used = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return used


def test_free_variables_of_a_nested_term_take_linear_memory():
    t = _nested(300)
    assert fv(t) == {"c", "z"} | {f"x{i}" for i in range(1, 301)}
    assert type(fv(t)) is FVSet and type(fv(t.arg)) is FVSet
    assert fv_copied(t) == {"c"}
    # frozensets copied at every level: ×4 per doubling of the depth
    m1, m2 = _fv_memory(1500), _fv_memory(3000)
    assert m2 < 2.6 * m1, (m1, m2)


def test_a_church_gradient_is_unchanged():
    # (the sets change representation, not content: the same row as by sympy)
    from pullback_calc.testing.extreme import church_sum
    n = 3 * SMALL
    r = pc.jacobian_row(pc.parse(church_sum(n)), [0.5] * n, 0, record=False)
    assert list(r.row) == [1.0] * n
