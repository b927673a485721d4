"""A call-by-value evaluator of core terms, shared by the ``ps`` and ``tape`` engines.

Core terms: variables, numerals, function symbols, λ (with patterns),
application, tuples, projections, 𝟎 and ⊕.  Values are reals (floats, or an
engine's own numbers such as tape cells), tuples, closures and ``ZERO``.
The engine supplies the arithmetic (``prim``) and, if it can, what the
calculus' own constructs (Ω, J, ⋆) mean; by default they are not supported.

⊕ is the P–S "conformant plus": reals add, tuples add componentwise and
``ZERO`` is the unit at every type.  A sensitivity tuple may stop early
(trailing components omitted are 0: the P–S engine injects a projection's
sensitivity without knowing the tuple's length), so ⊕ pads the shorter tuple
and a projection past the end is 0.
"""
from __future__ import annotations

import math
from typing import Callable

from ..errors import ReductionError
from ..syntax import terms as T
from ..semantics import oracle
from .common import Measure, NotSupported

__all__ = ["ZERO", "Closure", "Evaluator", "EvalError", "ArithmeticFailure", "arithmetic_error",
           "checked"]


class EvalError(Exception):
    """A run-time error of an engine's evaluator (ill-shaped data)."""


class ArithmeticFailure(EvalError):
    """An engine's arithmetic undefined at its operands (``op``, ``operands``,
    ``reason``); the evaluator adds the application it was evaluating."""

    def __init__(self, engine: str, op: str, operands: tuple, reason: object):
        super().__init__(f"{op}{operands}: {reason}")
        self.engine, self.op, self.operands, self.reason = engine, op, operands, reason


def checked(engine: str, op: str, fn: Callable, operands: tuple) -> float:
    """``fn(*operands)``, the engine's arithmetic for ``op``: an ArithmeticFailure
    where it is undefined or its result is not a finite real (as rule 4 says)."""
    try:
        v = fn(*operands)
    except (ArithmeticError, ValueError) as e:
        raise ArithmeticFailure(engine, op, operands, e) from None
    if not math.isfinite(v):
        raise ArithmeticFailure(engine, op, operands, "the result is too large for a float")
    return v


def arithmetic_error(engine: str, op: str, operands: tuple, reason, subterm=None):
    """The ReductionError of an engine's failed arithmetic, worded as rule 4's (the
    operation, its operands and why), with the application it happened in and
    that application's source position."""
    from ..syntax.printer import pretty
    if isinstance(reason, OverflowError):  # (its own message is a raw errno tuple)
        reason = "the result is too large for a float"
    where = "" if subterm is None else f" in `{_short(pretty(subterm))}`"
    e = ReductionError(f"the {engine} engine cannot go on{where}: {op} is undefined at "
                       f"{', '.join(map(repr, operands))} ({reason})", redex=subterm)
    e.pos = None if subterm is None else subterm.pos
    return e


def _short(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[:width // 2 - 1] + "…" + text[-width // 2:]


# the formal 0 at every type (applied or projected it stays 0): the oracle's own
ZERO = oracle.ZERO


class Closure:
    """λq.S in an environment."""
    __slots__ = ("lam", "env")

    def __init__(self, lam: T.Lam, env: "Env"):
        self.lam, self.env = lam, env

    def __repr__(self):
        return f"<closure {self.lam}>"


#: environments: linked frames, the oracle's
Env = oracle.Env


def bind(pat: T.Term, value, out: dict) -> None:
    """Match a value against a λ's pattern (𝟎 matches a tuple pattern as 0s)."""
    try:
        oracle.bind(pat, value, out)
    except oracle.OracleError as e:
        raise EvalError(str(e)) from None


def role_of(t: T.Term) -> str:
    """"derivative" for the arithmetic an engine generated to differentiate
    (marked on the node), "primal" for the program's own."""
    return "derivative" if t._flags & T.DERIVATIVE else "primal"


def mark_derivative(t: T.Term) -> T.Term:
    t._flags |= T.DERIVATIVE
    return t


class Evaluator:
    """Call by value over an engine's arithmetic ``prim(op, args, role)``."""

    def __init__(self, prim: Callable, measure: Measure, is_number: Callable):
        self.prim, self.measure, self.is_number = prim, measure, is_number

    # the calculus' constructs: an engine overrides what it supports
    def pullback(self, t: T.Pullback, env: Env):
        raise NotSupported("Ω(S) P (a pullback written in the term) is not supported by "
                           "this engine")

    def jacobian(self, t: T.Jac, env: Env):
        raise NotSupported("J(λq.S)·P (a Jacobian written in the term) is not supported by "
                           "this engine")

    def dual(self, t: T.Dual, env: Env):
        # (λq.S)⋆P is v ↦ P(S[v/q]): evaluation only, no derivative
        f, w = self.closure(t.lam, env), self.eval(t.functional, env)
        return _Builtin(lambda v: self.apply(w, self.apply(f, v)))

    def closure(self, lam: T.Lam, env: Env) -> Closure:
        self.measure.alloc("closure")
        return Closure(lam, env)

    def apply(self, f, arg):
        if f is ZERO:
            return ZERO
        if isinstance(f, Closure):
            frame: dict = {}
            bind(f.lam.pat, arg, frame)
            try:
                return self.eval(f.lam.body, Env(frame, f.env))
            except ReductionError as e:  # generated code: the nearest source position
                if e.pos is None:
                    e.pos = f.lam.pos
                raise
        if isinstance(f, _Builtin):
            return f.fn(arg)
        raise EvalError(f"cannot apply {f!r}: not a function")

    def plus(self, a, b, role: str = "derivative"):
        """The conformant ⊕ (tuples padded: trailing components omitted are 0)."""
        if a is ZERO:
            return b
        if b is ZERO:
            return a
        if isinstance(a, tuple) and isinstance(b, tuple):
            n = max(len(a), len(b))
            a = a + (ZERO,) * (n - len(a))
            b = b + (ZERO,) * (n - len(b))
            return tuple(self.plus(x, y, role) for x, y in zip(a, b))
        if self.is_number(a) and self.is_number(b):
            return self.prim("add", (a, b), role)
        raise NotSupported(f"⊕ of {_kind(a)} and {_kind(b)} (only reals and tuples of "
                           "them are added by this engine)")

    def eval(self, t: T.Term, env: Env):
        if isinstance(t, T.Var):
            try:
                return env.lookup(t.name)
            except oracle.OracleError:
                raise NotSupported(f"free variable {t.name!r}: the engine evaluates closed "
                                   "terms only") from None
        if isinstance(t, T.Num):
            return t.value
        if isinstance(t, T.Prim):
            args = tuple(0.0 if v is ZERO else v for v in (self.eval(a, env) for a in t.args))
            for v in args:
                if not self.is_number(v):
                    raise EvalError(f"{t.op} applied to {_kind(v)}")
            try:
                return self.prim(t.op, args, role_of(t))
            except ArithmeticFailure as e:  # (the innermost application: not caught again)
                raise arithmetic_error(e.engine, e.op, e.operands, e.reason, t) from None
        if isinstance(t, T.Lam):
            return self.closure(t, env)
        if isinstance(t, T.App):
            f = self.eval(t.fun, env)
            return self.apply(f, self.eval(t.arg, env))
        if isinstance(t, T.Tuple):
            return tuple(self.eval(a, env) for a in t.items)
        if isinstance(t, T.Proj):
            v = self.eval(t.arg, env)
            if v is ZERO:
                return ZERO
            if not isinstance(v, tuple):
                raise EvalError(f"π{t.index} of {_kind(v)}")
            return v[t.index - 1] if t.index <= len(v) else ZERO
        if isinstance(t, T.Zero):
            return ZERO
        if isinstance(t, T.Sum):
            out = ZERO
            for a in t.items:
                out = self.plus(out, self.eval(a, env), role_of(t))
            return out
        if isinstance(t, T.Pullback):
            return self.pullback(t, env)
        if isinstance(t, T.Jac):
            return self.jacobian(t, env)
        if isinstance(t, T.Dual):
            return self.dual(t, env)
        raise EvalError(f"unknown term {t!r}")


class _Builtin:
    """A function value the engine made (a covector, a dual map)."""
    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn


Builtin = _Builtin


def _kind(v) -> str:
    if isinstance(v, tuple):
        return "a tuple"
    if isinstance(v, (Closure, _Builtin)):
        return "a function"
    if v is ZERO:
        return "𝟎"
    return "a real"
