"""Registered examples of function symbols (``registry.register_primitive``).

Symbols the peers of shared/seeds lack (rackpropagator has no ``tanh``,
``abs`` or ``max``), registered at run time rather than built in, so that
they are also worked examples of the registration API::

    import pullback_calc as pc
    with pc.extras.registered():               # or pc.extras.register_all()
        pc.grad("λ⟨x, y⟩. softplus(x) + atan2(y, x)", 1.0, 2.0)

| symbol | value | partial derivatives |
|---|---|---|
| ``sigmoid(a)`` | 1 / (1 + e^−a) | sigmoid(a) × (1 − sigmoid(a)) |
| ``softplus(a)`` | log(1 + e^a) | sigmoid(a) |
| ``step(a)`` | 1 if a > 0 else 0 | 0 |
| ``sign(a)`` | −1, 0 or 1 | 0 |
| ``max0(a)`` | max(a, 0) (ReLU) | step(a): the subgradient 0 at a = 0 (as JAX and PyTorch) |
| ``abs(a)`` | abs(a) | sign(a): the subgradient 0 at a = 0 |
| ``atan2(y, x)`` | the angle of (x, y) | x / (x² + y²), −y / (x² + y²) |
| ``hypot(a, b)`` | √(a² + b²) | a / hypot(a, b), b / hypot(a, b) |
| ``erf(a)`` | the error function | 2/√π · e^−a² |

``step`` and ``sign`` are there to state the subgradients of ``max0`` and
``abs`` as terms (their own derivative is 0, almost everywhere right).  At
a kink (0 for max0 and abs, the origin for atan2 and hypot) the symbols are
not differentiable: the chosen subgradient is what the rules return, and
finite differences there disagree with any choice.
"""
from __future__ import annotations

import contextlib
import math

import sympy

from .registry import (primitive_scope, register_primitive, registered_primitives,
                       unregister_primitive)
from .syntax.terms import Num, Prim

__all__ = ["NAMES", "register_all", "unregister_all", "registered"]


def _sigmoid(a: float) -> float:
    # two forms, so that neither exp overflows
    if a >= 0:
        return 1.0 / (1.0 + math.exp(-a))
    e = math.exp(a)
    return e / (1.0 + e)


def _softplus(a: float) -> float:
    return max(a, 0.0) + math.log1p(math.exp(-abs(a)))


def _positive(t):
    """1 + t × t: a guard that keeps generated arguments away from 0."""
    return Prim("add", (Num(1.0), Prim("mul", (t, t))))


# (name, arity, value, partials, sympy, generator, LaTeX), in registration order:
# a symbol's partials may use the symbols before it
_SPECS: list[tuple] = [
    ("sigmoid", 1, _sigmoid, ["λa. sigmoid(a) × (1 − sigmoid(a))"],
     lambda a: 1 / (1 + sympy.exp(-a)), None, r"\sigma"),
    ("softplus", 1, _softplus, ["λa. sigmoid(a)"],
     lambda a: sympy.log(1 + sympy.exp(a)), None, None),
    ("step", 1, lambda a: 1.0 if a > 0 else 0.0, [0.0],
     lambda a: sympy.Heaviside(a, 0), None, None),
    # (sympy cannot differentiate sign or Abs of a symbol not declared real)
    ("sign", 1, lambda a: (a > 0) - (a < 0), [0.0],
     lambda a: 2 * sympy.Heaviside(a, sympy.S.Half) - 1, None, r"\operatorname{sgn}"),
    ("max0", 1, lambda a: max(a, 0.0), ["λa. step(a)"],
     lambda a: sympy.Max(a, 0), None, None),
    ("abs", 1, abs, ["λa. sign(a)"], lambda a: sympy.sqrt(a ** 2), None, None),
    ("atan2", 2, math.atan2,
     ["λ⟨y, x⟩. x / (x × x + y × y)", "λ⟨y, x⟩. −y / (x × x + y × y)"],
     sympy.atan2, lambda a, b: Prim("atan2", (a, _positive(b))), None),
    ("hypot", 2, math.hypot, ["λ⟨a, b⟩. a / hypot(a, b)", "λ⟨a, b⟩. b / hypot(a, b)"],
     lambda a, b: sympy.sqrt(a ** 2 + b ** 2), lambda a, b: Prim("hypot", (a, _positive(b))),
     None),
    ("erf", 1, math.erf, [f"λa. {2 / math.sqrt(math.pi)!r} × exp(−(a × a))"], sympy.erf, None,
     r"\operatorname{erf}"),
]

NAMES = tuple(s[0] for s in _SPECS)


def register_all() -> dict:
    """Register every symbol of the table that is not registered yet; returns
    the ``Primitive`` of each, by name."""
    have = registered_primitives()
    for name, arity, value, partials, sym, gen, tex in _SPECS:
        if name not in have:
            register_primitive(name, arity, value, partials, sympy=sym, generate=gen, latex=tex)
    return {n: p for n, p in registered_primitives().items() if n in NAMES}


def unregister_all() -> None:
    for name in reversed(NAMES):
        if name in registered_primitives():
            unregister_primitive(name)


@contextlib.contextmanager
def registered():
    """The symbols of the table, registered for the block only."""
    with primitive_scope():
        yield register_all()
