"""Types: R, products, functions and duals (σ* -- linear functionals on σ)."""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Optional


class Type:
    def __str__(self) -> str:
        return show_type(self)

    def __repr__(self) -> str:
        return f"<type {show_type(self)}>"


@dataclass(frozen=True, repr=False)
class Real(Type):
    pass


@dataclass(frozen=True, repr=False)
class Prod(Type):
    items: tuple

    def __post_init__(self):
        assert len(self.items) >= 2


@dataclass(frozen=True, repr=False)
class Arrow(Type):
    dom: Type
    cod: Type


@dataclass(frozen=True, repr=False)
class DualT(Type):
    """σ*: the linear functionals on σ (usable wherever σ → R is)."""
    of: Type


_tv = itertools.count()


@dataclass(frozen=True, repr=False)
class TVar(Type):
    """A type variable of inference."""
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
    if isinstance(t, Real):
        return [()]
    if isinstance(t, Prod):
        out = []
        for i, it in enumerate(t.items, 1):
            sub = real_leaves(it)
            if sub is None:
                return None
            out.extend((i,) + s for s in sub)
        return out
    return None


_GREEK = "αβγδεζηθικμνξρστυφχψω"


def show_type(t: Type, unicode: bool = True, names: Optional[dict] = None) -> str:
    names = {} if names is None else names

    def go(t: Type, prec: int) -> str:
        if isinstance(t, Real):
            return "ℝ" if unicode else "R"
        if isinstance(t, TVar):
            if t.id not in names:
                k = len(names)
                names[t.id] = (_GREEK[k % len(_GREEK)] + ("" if k < len(_GREEK) else str(k // len(_GREEK)))
                               if unicode else f"'t{k}")
            return names[t.id]
        if isinstance(t, DualT):
            s = go(t.of, 3) + ("⋆" if unicode else "^*")
            return s
        if isinstance(t, Prod):
            s = (" × " if unicode else " * ").join(go(i, 2) for i in t.items)
            return f"({s})" if prec > 1 else s
        if isinstance(t, Arrow):
            s = f"{go(t.dom, 1)} {'→' if unicode else '->'} {go(t.cod, 0)}"
            return f"({s})" if prec > 0 else s
        raise TypeError(t)

    return go(t, 0)
