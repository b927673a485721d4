"""Reading an engine's value of a closed term as reals, so engines can be compared.

A value of type ℝ or a tuple of reals gives its reals; a covector on ℝⁿ (type
σ⋆, σ built from ℝ by products) gives its row -- its values on
the basis vectors of σ (the reduction engine's normal form is read as
``results.rows.read_row`` reads it).  Any other value is a function the
engines represent differently (a term, a closure, a Python function): kind
"function", not compared.
"""
from __future__ import annotations

from typing import Optional

from ..syntax import terms as T
from ..syntax.types import DualT, Real, real_leaves

__all__ = ["read_value"]


def read_value(term: T.Term, v, method: str, engine=None) -> tuple[str, Optional[list]]:
    """(kind, reals) of the value ``v`` of the closed ``term`` by ``method``;
    ``engine`` the method's module, whose ``apply_value`` applies a covector to a
    basis vector (the reduction engine's values are terms: reduced here)."""
    from ..typing.check import infer
    ty = infer(term)
    paths = real_leaves(ty)
    if paths is not None:
        reals = _reals_term(v, ty) if method == "pullback" else _reals(v, ty)
        return ("reals", reals) if reals is not None else ("function", None)
    dom = ty.of if isinstance(ty, DualT) else None
    dom_paths = real_leaves(dom) if dom is not None else None
    if dom_paths is None:
        return "function", None
    row = []
    for p in dom_paths:
        e = _basis(dom, p)
        if method == "pullback":
            x = _apply_term(v, e)
        else:
            x = _apply(engine, v, e)
        if x is None:
            return "function", None
        row.append(x)
    return "covector", row


def _basis(ty, path, here=()):
    if hasattr(ty, "items"):
        return tuple(_basis(t, path, here + (i,)) for i, t in enumerate(ty.items, 1))
    return 1.0 if here == path else 0.0


def _reals(v, ty) -> Optional[list]:
    if hasattr(ty, "items"):
        items = v if isinstance(v, tuple) else (None,) * len(ty.items) if _is_zero(v) else None
        if items is None:
            return None
        out = []
        for it, t in zip(items, ty.items):
            r = _reals(it if it is not None else v, t)
            if r is None:
                return None
            out += r
        return out
    if _is_zero(v):
        return [0.0]
    while hasattr(v, "primal") and not isinstance(v, (int, float)):  # a tape cell
        v = v.primal
    return [float(v)] if isinstance(v, (int, float)) else None


def _is_zero(v) -> bool:
    from .evaluator import ZERO  # (the oracle's, shared by every engine)
    return v is ZERO


def _apply(engine, f, e) -> Optional[float]:
    r = engine.apply_value(f, e)
    out = _reals(r, Real())
    return out[0] if out else None


def _reals_term(v: T.Term, ty) -> Optional[list]:
    if isinstance(v, T.Zero):
        leaves = real_leaves(ty)
        return None if leaves is None else [0.0] * len(leaves)
    if isinstance(v, T.Num):
        return [v.value]
    if isinstance(v, T.Tuple) and hasattr(ty, "items"):
        out = []
        for it, t in zip(v.items, ty.items):
            r = _reals_term(it, t)
            if r is None:
                return None
            out += r
        return out
    return None


def _to_term(e) -> T.Term:
    if isinstance(e, tuple):
        return T.Tuple(tuple(_to_term(x) for x in e))
    return T.Num(e)


def _apply_term(cov: T.Term, e) -> Optional[float]:
    from ..errors import PullbackCalcError
    from ..results.jacobian import reduce
    try:
        r = reduce(T.App(cov, _to_term(e)), record=False, check=False).value
    except PullbackCalcError:
        return None
    if isinstance(r, T.Zero):
        return 0.0
    return r.value if isinstance(r, T.Num) else None
