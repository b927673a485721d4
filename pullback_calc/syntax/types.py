"""Types: R, products, functions and duals (σ* -- linear functionals on σ)."""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Optional


class Type:
    """Equality and hashing are structural and iterative (an annotation may be
    a million arrows deep); the dataclasses below leave them to this class."""

    _tag = 0

    def _parts(self) -> tuple:
        if isinstance(self, Prod):
            return self.items
        if isinstance(self, Arrow):
            return (self.dom, self.cod)
        if isinstance(self, DualT):
            return (self.of,)
        return ()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Type):
            return NotImplemented
        stack = [(self, other)]
        while stack:
            a, b = stack.pop()
            if a is b:
                continue
            if type(a) is not type(b) or getattr(a, "id", None) != getattr(b, "id", None):
                return False
            pa, pb = a._parts(), b._parts()
            if len(pa) != len(pb):
                return False
            stack.extend(zip(pa, pb))
        return True

    def __ne__(self, other: object) -> bool:
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self) -> int:
        from ..deep import cached_hash  # (deep imports budgets, which is light)
        # no str in the key: a pickled type keeps its _hash
        return cached_hash(self, Type._parts, lambda t: (t._tag, getattr(t, "id", None)))

    def __str__(self) -> str:
        return show_type(self)

    def __repr__(self) -> str:
        return f"<type {show_type(self)}>"


@dataclass(frozen=True, repr=False, eq=False)
class Real(Type):
    pass


@dataclass(frozen=True, repr=False, eq=False)
class Prod(Type):
    _tag = 1
    items: tuple

    def __post_init__(self):
        assert len(self.items) >= 2


@dataclass(frozen=True, repr=False, eq=False)
class Arrow(Type):
    _tag = 2
    dom: Type
    cod: Type


@dataclass(frozen=True, repr=False, eq=False)
class DualT(Type):
    """σ*: the linear functionals on σ (usable wherever σ → R is)."""
    _tag = 3
    of: Type


_tv = itertools.count()


@dataclass(frozen=True, repr=False, eq=False)
class TVar(Type):
    """A type variable of inference."""
    _tag = 4
    id: int = -1

    @staticmethod
    def new() -> "TVar":
        return TVar(next(_tv))


R = Real()


def rn(n: int) -> Type:
    """R^n: R for n = 1, an n-fold product otherwise."""
    return R if n == 1 else Prod(tuple(R for _ in range(n)))


def real_leaves(t: Type) -> Optional[list[tuple[int, ...]]]:
    """Paths to the R leaves if ``t`` is built from R by products, else None."""
    out: list[tuple[int, ...]] = []
    stack: list[tuple[Type, tuple[int, ...]]] = [(t, ())]  # left to right, without recursion
    while stack:
        u, path = stack.pop()
        if isinstance(u, Real):
            out.append(path)
        elif isinstance(u, Prod):
            stack.extend((it, path + (i,)) for i, it in reversed(list(enumerate(u.items, 1))))
        else:
            return None
    return out


_GREEK = "αβγδεζηθικμνξρστυφχψω"


def show_type(t: Type, unicode: bool = True, names: Optional[dict] = None) -> str:
    names = {} if names is None else names
    out: list[str] = []
    stack: list = [(t, 0)]  # (type, precedence) tasks and literal strings; no recursion
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        t, prec = item
        if isinstance(t, Real):
            out.append("ℝ" if unicode else "R")
        elif isinstance(t, TVar):
            if t.id not in names:
                k = len(names)
                greek = _GREEK[k % len(_GREEK)] + ("" if k < len(_GREEK) else str(k // len(_GREEK)))
                names[t.id] = greek if unicode else f"'t{k}"
            out.append(names[t.id])
        elif isinstance(t, DualT):
            stack += ["⋆" if unicode else "^*", (t.of, 3)]
        elif isinstance(t, Prod):
            sep = " × " if unicode else " * "
            parts: list = ["(" if prec > 1 else ""]
            for i, it in enumerate(t.items):
                parts += [sep] if i else []
                parts.append((it, 2))
            parts.append(")" if prec > 1 else "")
            stack.extend(reversed(parts))
        elif isinstance(t, Arrow):
            arrow = " → " if unicode else " -> "
            parts = ["(" if prec > 0 else "", (t.dom, 1), arrow, (t.cod, 0),
                     ")" if prec > 0 else ""]
            stack.extend(reversed(parts))
        else:
            raise TypeError(t)
    return "".join(out)
