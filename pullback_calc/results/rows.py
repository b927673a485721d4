"""The shape of a function ℝⁿ → ℝᵐ, for the readers of its derivatives.

Its type checked against the point (``function_type``), the paths of its input
and output coordinates (``coordinate_paths``), the point as a term
(``point_term``), the coordinate functional e_p* = λw. πₚ w of output p
(``coordinate_functional``), and a row read off a covector normal form
(``read_row``, through the lets kept around it: ``without_lets``).  Shared by
``results.jacobian``, ``results.unknown``, the engines and the AD front door
(``api.py``).
"""
from __future__ import annotations

import decimal
import math
import numbers
from collections import abc
from typing import Optional, Sequence

from ..deep import bottom_up
from ..errors import JacobianError
from ..reduction.env import PatVars, component
from ..reduction.linear import to_lincomb
from ..syntax.subst import bind_pattern, subst
from ..syntax.terms import App, Lam, Num, Proj, Term, Tuple, Var, Zero, is_pattern
from ..syntax.types import Arrow, DualT, Prod, Real, TVar, Type, real_leaves, rn

__all__ = ["function_type", "coordinate_paths", "point_term", "coordinate_functional", "is_real",
           "as_point", "read_row", "without_lets"]


def _pattern_domain(pat: Term, n: int) -> Type:
    """ℝ at every leaf of a tuple pattern; ℝⁿ for a single variable."""
    if isinstance(pat, Tuple):
        return bottom_up(pat, lambda p: (p.items, p) if isinstance(p, Tuple) else (None, rn(1)),
                         lambda p, items: Prod(tuple(items)))
    return rn(n)


def function_type(f: Term, n: int, env: Optional[dict] = None,
                  closed: bool = False) -> tuple[Type, Type]:
    """(domain, codomain) of f, checked against the domain the point gives,
    so that projections of an unannotated ``λy.S`` can be typed (``env``,
    ``closed``: as for ``typing.check``)."""
    from ..typing.check import check
    expected: Type = TVar.new()
    if isinstance(f, Lam) and f.ann is None and is_pattern(f.pat):
        expected = Arrow(_pattern_domain(f.pat, n), TVar.new())
    ty = check(f, expected, env, closed)
    if isinstance(ty, Arrow) and real_leaves(ty.dom) is None:
        # a domain left open by inference (f = let g = λx. x in g): the point fixes it
        fixed = _domain_from_point(ty.dom, n)
        if fixed is not None:
            ty = check(f, Arrow(fixed, TVar.new()), env, closed)
    if isinstance(ty, DualT):
        raise JacobianError("expected a function ℝⁿ → ℝᵐ, found a covector")
    if not isinstance(ty, Arrow):
        raise JacobianError(f"expected a function ℝⁿ → ℝᵐ, found a term of type {ty}")
    if isinstance(ty.cod, TVar):
        # any codomain would do (e.g. the result of a free function h): ℝ is one
        return ty.dom, Real()
    return ty.dom, ty.cod


def _domain_from_point(dom: Type, n: int) -> Optional[Type]:
    """dom with ℝ for its type variables, if that makes it ℝⁿ for the point's n:
    an open domain α is ℝⁿ (flat, as for a λ of one variable), a product whose
    leaves are ℝ or open and number n has ℝ at each (None: no such reading)."""
    if isinstance(dom, TVar):
        return rn(n)
    if not isinstance(dom, Prod):
        return None
    leaves = [0]

    def leaf(t):
        if isinstance(t, Prod):
            return t.items, t
        leaves[0] += 1
        return None, Real() if isinstance(t, (TVar, Real)) else None

    out = bottom_up(dom, leaf, lambda t, items: None if None in items else Prod(tuple(items)))
    return out if out is not None and leaves[0] == n else None


def coordinate_paths(t: Type, what: str) -> list:
    """The paths of the real coordinates of ``t`` (``types.real_leaves``); an error
    naming ``what`` ("input", "output") if ``t`` is not ℝⁿ."""
    paths = real_leaves(t)
    if paths is None:
        raise JacobianError(f"the {what} type {t} is not ℝⁿ (built from ℝ by products), so "
                            f"there is no Jacobian matrix; reduce the pullback Ω(f) ω V "
                            f"instead and apply the covector to a tangent")
    return paths


def point_term(dom: Type, point: Sequence[float]) -> Term:
    """The point as a term of type ``dom``: a numeral, or nested tuples of numerals."""
    if isinstance(dom, Prod):
        vals = iter(point)
        return bottom_up(dom, lambda t: (t.items, t) if isinstance(t, Prod)
                         else (None, Num(next(vals))), lambda t, items: Tuple(tuple(items)))
    return Num(point[0])


def coordinate_functional(cod: Type, path: tuple) -> Lam:
    """e_p* = λw. πₚ w (a projection path for nested products)."""
    w = Var("w")  # ω is closed: its names cannot capture anything
    body: Term = w
    for i in path:
        body = Proj(i, body)
    return Lam(w, body)


def as_point(point, what: str = "the point") -> list[float]:
    """A point's coordinates as floats (a real number -- int, float, Fraction, Decimal,
    a NumPy scalar -- is a point of ℝ), each finite; an error if it is not a real number
    or a list of them.  Text is refused, not read: "12" is no point (its characters
    would be the coordinates 1 and 2)."""
    try:
        if is_real(point):
            return _finite([_float(point, what)], what)
        if isinstance(point, (str, bytes, abc.Mapping, abc.Set)):  # (no order of coordinates)
            raise TypeError
        coords = list(point)
    except TypeError:
        raise JacobianError(f"{what} must be a real number or a list of them, got "
                            f"{_shown(point)}") from None
    for i, v in enumerate(coords):
        if not is_real(v):
            raise JacobianError(f"{what} must be a list of real numbers: its coordinate {i} "
                                f"(counting from 0) is {_shown(v)}")
    return _finite([_float(v, what) for v in coords], what)


def _float(v, what: str) -> float:
    """float(v), or the error that names v (10**400 overflows, Decimal('sNaN') and a
    complex 0-d array do not convert)."""
    try:
        return float(v)
    except OverflowError:
        raise JacobianError(f"{what} must be finite: {_shown(v)} is beyond the floats") from None
    except (TypeError, ValueError):
        raise JacobianError(f"{what} must be real numbers: {_shown(v)} is no float") from None


def _shown(v) -> str:
    """repr(v), its middle cut out past 60 characters (an int of 400 digits)."""
    r = repr(v)
    return r if len(r) <= 60 else r[:40] + " … " + r[-12:]


def is_real(v) -> bool:
    """Is v a real number (NumPy's scalars register as numbers.Real; Decimal is not one but
    converts exactly enough); complex numbers and text are not."""
    return isinstance(v, (numbers.Real, decimal.Decimal)) or \
        (hasattr(v, "__float__") and not isinstance(v, (numbers.Complex, str, bytes))
         and getattr(v, "shape", None) == ())


def _finite(pt: list, what: str) -> list[float]:
    bad = [i for i, v in enumerate(pt) if not math.isfinite(v)]
    if bad:  # no numeral can hold it, and every engine would answer nan or fail
        i = bad[0]
        raise JacobianError(f"{what} must be finite, got {pt[i]}" if len(pt) == 1 else
                            f"{what} must be finite: its coordinate {i} (counting from 0) "
                            f"is {pt[i]}")
    return pt


def without_lets(t: Term) -> Term:
    """A normal form with the lets that rule 1 kept around it (inert values the
    result shares: ``let c = cos(h 0.5) in λdx. c × dx``) substituted -- for
    reading its coefficients, not a reduction."""
    while isinstance(t, App) and isinstance(t.fun, Lam):
        t = subst(t.fun.body, bind_pattern(t.fun.pat, t.arg))
    return t


def read_row(covector: Term, in_paths: list, settle=None, error=None) -> list[float]:
    """The coefficients of a covector normal form on ℝⁿ, coordinate by coordinate.
    ``settle`` may rewrite the linear combination first, and ``error(what, term)``
    make the error for a coefficient or atom that is not what it should be
    (``results.unknown`` passes both, for programs with free functions)."""
    covector = without_lets(covector)
    if isinstance(covector, Zero):
        return [0.0] * len(in_paths)
    if not (isinstance(covector, Lam) and is_pattern(covector.pat)):
        if error is not None:
            raise error("the normal form", covector)
        raise JacobianError(f"the normal form is not a covector: {covector}")
    coeffs = dict(to_lincomb(covector.body, PatVars(covector.pat)))
    if settle is not None:
        coeffs = settle(coeffs)
    row = []
    for path in in_paths:
        atom = component(covector.pat, path)
        c = coeffs.pop(atom, None)
        if c is None:
            row.append(0.0)
        elif isinstance(c, Num):
            row.append(c.value)
        elif error is not None:
            raise error(f"the coefficient of {atom}", c)
        else:
            raise JacobianError(f"the coefficient of {atom} is not a numeral: {c}")
    if coeffs:
        if error is not None:
            raise error("the normal form", next(iter(coeffs)))
        raise JacobianError("the normal form has atoms that are not input coordinates: "
                            + ", ".join(str(a) for a in coeffs))
    return row
