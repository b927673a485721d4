"""``--verify``: every step keeps the meaning of the term, checked by the oracle.

A reduction step rewrites a redex in its context; if the rule is sound, the
whole term means the same before and after (subject reduction for
meanings).  ``Verifier`` evaluates both sides of every step with the
independent denotational evaluator (``semantics.oracle``) and stops the
reduction at the first step that changes the value, naming its rule, its
redex and where it is -- so a researcher who adds a rule or a primitive sees
the wrong step, not a wrong row at the end.

Values are compared by their type: reals with a relative tolerance, tuples
componentwise, functions and covectors by applying both to a few random
arguments of their domain (a point, a tangent, a smooth function).  Terms
inside premises are open -- the inner binder, the directions, a fresh point
or 1-form -- so their free variables get random values of their types
(inferred), the same on both sides of the step.  A step whose term has no
value the oracle can compute (a stuck term on a free function, a type the
checker cannot resolve) is counted as not checked, never as passed.
"""
from __future__ import annotations

import math
import random
from typing import Optional

from ..errors import ReductionError
from ..semantics import oracle
from ..syntax.types import R, Arrow, DualT, Prod, TVar, Type

__all__ = ["Verifier", "VerificationError"]

_TRIES = 2  # random arguments per function compared


class VerificationError(ReductionError):
    """A step changed the meaning of the term (``--verify``)."""


class _Unknown(Exception):
    """The oracle gives no value here: the step cannot be checked."""


class Verifier:
    """Called by the machine after every recorded step (``Machine(verify=…)``)."""

    def __init__(self, seed: int = 0):
        self.seed = seed
        self.checked = 0
        self.unchecked = 0

    def __call__(self, step, depth: int) -> None:
        before, after = step.term_before(), step.term_after()
        rng = random.Random(f"{self.seed}/{depth}/{step.index}")
        try:
            ty, env = _typed(before, rng)
            a = _value(before, env)
        except _Unknown:
            self.unchecked += 1
            return
        try:
            b = _value(after, env)
        except _Unknown as e:
            self._fail(step, depth, f"the term had a value before it and has none after "
                                    f"({e})")
        diff = _differ(a, b, ty, rng, 3)
        self.checked += 1
        if diff is not None:
            self._fail(step, depth, diff)

    @staticmethod
    def _fail(step, depth: int, why: str):
        where = "" if depth == 0 else f" (in a premise, {depth} deep)"
        raise VerificationError(
            f"--verify: step {step.index}{where}, rule {step.rule}, changed the meaning of the "
            f"term: {why}; redex {_short(step.redex)} ⟶ {_short(step.contractum)}",
            rule=step.rule, redex=step.redex)


def _short(t, n: int = 80) -> str:
    s = str(t)
    return f"`{s[:n]}{'…' if len(s) > n else ''}`"


def _typed(term, rng) -> tuple[Type, dict]:
    """The term's type and random values for its free variables."""
    from ..typing.check import infer_with_free
    try:
        ty, free = infer_with_free(term)
    except Exception as e:  # (an intermediate the checker cannot type: not checked)
        raise _Unknown(str(e)) from None
    return ty, {name: _sample(t, rng, 2) for name, t in free.items()}


def _value(term, env: dict):
    try:
        return oracle.evaluate(term, env)
    except (oracle.OracleError, ArithmeticError, ValueError, TypeError, RecursionError) as e:
        raise _Unknown(f"{type(e).__name__}: {e}") from None


# ---- random values of a type ------------------------------------------------------------

def _sample(ty: Type, rng: random.Random, depth: int):
    """A random value of ``ty``: reals in [-1.2, 1.2], smooth functions, linear
    functionals (an unresolved type variable is taken to be ℝ)."""
    if isinstance(ty, Prod):
        return tuple(_sample(t, rng, depth) for t in ty.items)
    if isinstance(ty, DualT):
        return _functional(ty.of, rng)
    if isinstance(ty, Arrow):
        return _function(ty, rng, depth)
    return rng.uniform(-1.2, 1.2)


def _reals(v) -> list:
    """The real leaves of a value (functions contribute their value at 0.5)."""
    if v is oracle.ZERO:
        return [0.0]
    if isinstance(v, tuple):
        return [r for x in v for r in _reals(x)]
    if callable(v) and not isinstance(v, oracle.DualNumber):
        try:
            return _reals(oracle.apply(v, 0.5))
        except Exception:  # (a function of a tuple or of a function: no leaves read)
            return []
    return [v]


def _combine(cs: list, xs: list):
    """Σ cᵢ xᵢ on the oracle's numbers (dual numbers included)."""
    total = 0.0
    for c, x in zip(cs, xs):
        total = oracle.prim("add", total, oracle.prim("mul", c, x))
    return total


def _functional(of: Type, rng: random.Random):
    cs = [rng.uniform(-1, 1) for _ in range(8)]
    return lambda v: _combine(cs, _reals(v))


def _function(ty: Arrow, rng: random.Random, depth: int):
    """x ↦ M(a·sin(s) + b·s), s a random linear combination of x's reals and M
    a fixed random map from a number to the codomain: smooth, and fixed once
    made (both sides of a step see the same function)."""
    cs = [rng.uniform(-1, 1) for _ in range(8)]
    a, b = rng.uniform(0.5, 1.5), rng.uniform(-1, 1)
    make = _maker(ty.cod, rng, depth)

    def f(x):
        s = _combine(cs, _reals(x))
        return make(oracle.prim("add", oracle.prim("mul", a, oracle.prim("sin", s)),
                                oracle.prim("mul", b, s)))
    return f


def _maker(ty: Type, rng: random.Random, depth: int):
    """A fixed smooth map from a number s to a value of ``ty``."""
    if isinstance(ty, Prod):
        makers = [_maker(t, rng, depth) for t in ty.items]
        return lambda s: tuple(m(oracle.prim("mul", float(i), s))
                               for i, m in enumerate(makers, 1))
    if isinstance(ty, DualT):
        cs = [rng.uniform(-1, 1) for _ in range(8)]
        return lambda s: (lambda v: oracle.prim("mul", s, _combine(cs, _reals(v))))
    if isinstance(ty, Arrow):
        if depth <= 0:
            return lambda s: oracle.ZERO
        g = _function(ty, rng, depth - 1)
        return lambda s: (lambda x: _scale(g(x), s))
    return lambda s: s


def _scale(v, s):
    if v is oracle.ZERO:
        return v
    if isinstance(v, tuple):
        return tuple(_scale(x, s) for x in v)
    if callable(v) and not isinstance(v, oracle.DualNumber):
        return lambda x: _scale(oracle.apply(v, x), s)
    return oracle.prim("mul", s, v)


# ---- comparing values ---------------------------------------------------------------------

def _differ(a, b, ty: Type, rng: random.Random, depth: int) -> Optional[str]:
    """None if the values agree at ``ty``, else what differs."""
    if isinstance(ty, Prod):
        xs = a if isinstance(a, tuple) else (oracle.ZERO,) * len(ty.items)
        ys = b if isinstance(b, tuple) else (oracle.ZERO,) * len(ty.items)
        for i, (x, y, t) in enumerate(zip(xs, ys, ty.items), 1):
            d = _differ(x, y, t, rng, depth)
            if d is not None:
                return f"component {i}: {d}"
        return None
    if isinstance(ty, (Arrow, DualT)):
        if depth <= 0:
            return None
        dom, cod = (ty.of, R) if isinstance(ty, DualT) else (ty.dom, ty.cod)
        for _ in range(_TRIES):
            x = _sample(dom, rng, 1)
            try:
                fa = oracle.apply(a, x)
            except Exception:  # (no value there before: nothing to compare)
                continue
            try:
                fb = oracle.apply(b, x)
            except Exception as e:
                return f"applied to {_show(x)}: a value before, none after ({e})"
            d = _differ(fa, fb, cod, rng, depth - 1)
            if d is not None:
                return f"applied to {_show(x)}: {d}"
        return None
    if isinstance(ty, TVar) and (callable(a) or isinstance(a, tuple)):
        return None  # (a shape the types do not tell: not compared)
    x, y = _real(a), _real(b)
    if x is None or y is None:
        return None
    if math.isclose(x, y, rel_tol=1e-7, abs_tol=1e-9):
        return None
    return f"{_num(x)} before, {_num(y)} after"


def _real(v) -> Optional[float]:
    if v is oracle.ZERO:
        return 0.0
    if isinstance(v, (int, float)):
        return float(v)
    return None


def _num(x: float) -> str:
    return f"{x:.10g}"


def _show(x) -> str:
    if isinstance(x, tuple):
        return "⟨" + ", ".join(_show(v) for v in x) + "⟩"
    if isinstance(x, float):
        return _num(x)
    return "a random function"
