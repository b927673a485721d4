"""Large free-variable sets that share their structure (a persistent set).

``fv`` caches a set on every node, and a node's set is its children's
united.  Where each level of a nested term adds names of its own -- a Church
list's tangent ``A₁ ⊕ J(…)·(A₂ ⊕ J(…)·(…))`` gains three at each element --
frozensets would copy the whole set at every level: memory and time
quadratic in the depth.  Above ``SMALL`` names a set is instead an
``FVSet``, the keys of a hash array mapped trie (``immutables.Map``): adding
k names to it costs O(k log n) and shares everything else with the set it
came from.  Small sets stay frozensets (the common case, and the fastest).

An ``FVSet`` answers what the engine asks of a set of names -- ``in``,
``len``, iteration, ``&``, ``|``, ``-``, ``isdisjoint``, ``<=``, ``==`` -- with
frozensets, dict key views and other ``FVSet``s on either side; ``&`` and a
small set minus a large one give frozensets.
"""
from __future__ import annotations

from itertools import filterfalse
from typing import Iterable

import immutables

#: the largest set kept as a frozenset (a copy of it costs less than the trie)
SMALL = 64

_SETS: tuple[type, ...] = (frozenset, set, type({}.keys()))


class FVSet:
    """An immutable set of names, more than ``SMALL`` of them, sharing structure."""
    __slots__ = ("m",)

    def __init__(self, m: immutables.Map):
        self.m = m

    @staticmethod
    def of(names: Iterable) -> "FVSet":
        return FVSet(immutables.Map((x, None) for x in names))

    def __contains__(self, x) -> bool:
        return x in self.m

    def __iter__(self):
        return iter(self.m)

    def __len__(self) -> int:
        return len(self.m)

    def __bool__(self) -> bool:
        return len(self.m) > 0

    def __repr__(self) -> str:
        return f"FVSet({sorted(self.m)!r})"

    # ---- set algebra ---------------------------------------------------------------
    def __and__(self, other):
        if not isinstance(other, (FVSet,) + _SETS):
            return NotImplemented  # (e.g. env.PatVars: its own __rand__)
        # (the smaller side walked, the larger asked: loops in C, filter/map)
        if len(other) < len(self):
            return frozenset(filter(self.m.__contains__, other))
        return frozenset(filter(other.__contains__, self.m))

    __rand__ = __and__

    def __or__(self, other):
        if not isinstance(other, (FVSet,) + _SETS):
            return NotImplemented
        return union(self, other)

    __ror__ = __or__

    def __sub__(self, other):
        if not isinstance(other, (FVSet,) + _SETS):
            return NotImplemented
        m = self.m
        gone = list(filter(m.__contains__, other)) if len(other) <= len(m) else \
            list(filter(other.__contains__, m))
        if not gone:
            return self
        with m.mutate() as mm:
            for x in gone:
                del mm[x]
            out = mm.finish()
        return FVSet(out) if len(out) > SMALL else frozenset(out)

    def __rsub__(self, other):
        if not isinstance(other, _SETS):
            return NotImplemented
        return frozenset(filterfalse(self.m.__contains__, other))

    def isdisjoint(self, other) -> bool:
        return not meets(self, other)

    def __le__(self, other) -> bool:
        return len(self) <= len(other) and all(map(other.__contains__, self.m))

    def __ge__(self, other) -> bool:
        m = self.m
        return len(other) <= len(m) and all(map(m.__contains__, other))

    def __eq__(self, other) -> bool:
        if not isinstance(other, (FVSet,) + _SETS):
            return NotImplemented
        return len(other) == len(self.m) and self >= other  # type: ignore[arg-type]

    def __hash__(self) -> int:
        return hash(frozenset(self.m))


def union(a, b):
    """a ∪ b: one of them when it contains the other (not a copy); a frozenset
    while at most ``SMALL`` names, else an FVSet that shares the larger one's
    structure (only the smaller one's names are added)."""
    if not b or b is a:
        return a
    if not a:
        return b
    if len(b) > len(a):
        a, b = b, a
    if type(a) is not FVSet:
        if b <= a:
            return a
        if type(b) is FVSet:  # (not as large as a: a few names)
            b = frozenset(b.m)
        if len(a) + len(b) <= SMALL:
            return a | b
        if len(a) <= SMALL:  # (both small, their union is not)
            return FVSet.of(a | b)
        a = FVSet.of(a)  # once: later unions share it
    m = a.m
    new = list(filterfalse(m.__contains__, b))
    if not new:
        return a
    with m.mutate() as mm:
        for x in new:
            mm[x] = None
        return FVSet(mm.finish())


def union_all(sets: list):
    """The union of several sets (the largest first, the others added to it)."""
    if sum(len(s) for s in sets) <= SMALL:
        return frozenset().union(*sets)
    sets = sorted(sets, key=len, reverse=True)
    out = sets[0]
    for s in sets[1:]:
        out = union(out, s)
    return out


def meets(a, b) -> bool:
    """a ∩ b ≠ ∅ -- the smaller set walked, stopping at the first common name
    (``not (a & b)`` builds the whole intersection)."""
    if len(b) < len(a):
        a, b = b, a
    return any(map(b.__contains__, a))
