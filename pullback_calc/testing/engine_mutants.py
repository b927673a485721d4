"""Mutants of the other AD engines (``pullback_calc.engines``): one broken entry
in one engine's rule table, installed like the reduction rules' mutants
(``mutant(name)``, or ``PULLBACK_CALC_MUTANT=NAME`` for a whole test run).

The engines' agreement property (tests/properties/test_prop_engines.py) must
fail under each: the other engines, and sympy, still give the right rows.
"""
from __future__ import annotations

from .mutation import Mutant

__all__ = ["ENGINE_MUTANTS"]


def _tape_rules():
    from ..engines.tape_ad import RULES
    return RULES


def _ps_reverse():
    from ..engines.ps import REVERSE
    return REVERSE


def _oracle_derivatives():
    from ..semantics import oracle
    return oracle.DERIVATIVES


def _swap_partials(original):
    """A tape rrule whose two partials are paired with the wrong arguments."""
    def broken(primals, engine, active):
        parts = original(primals, engine, (True,) * len(primals))[::-1]
        return tuple(d if on else None for d, on in zip(parts, active))
    return broken


def _forget_closure(original):
    """The reverse rule of an application that drops the closure's sensitivity:
    what flows back to the free variables of the applied λ is lost."""
    from ..syntax import terms as T

    def broken(b, s, rv, fn):
        c = rv.let("c", T.App(T.Var(fn.bp[b.name]), s))
        rv.accumulate(b.expr.arg.name, T.Proj(2, c))
    return broken


def _negate_first(original):
    """A derivative rule of the forward engine with the wrong sign."""
    from ..semantics import oracle
    return (lambda *xs: oracle.neg(original[0](*xs)),) + tuple(original[1:])


ENGINE_MUTANTS = {m.name: m for m in [
    Mutant("tape-mul-swap-partials", "mul",
           "tape engine: the rrule of × pairs ∂/∂a = b and ∂/∂b = a with the wrong arguments",
           _swap_partials, table=_tape_rules),
    Mutant("ps-app-drop-closure", "App",
           "P–S engine: the reverse rule of an application drops the closure's sensitivity "
           "(free variables of an applied λ get nothing back)", _forget_closure,
           table=_ps_reverse),
    Mutant("forward-sin-sign", "sin",
           "forward engine: the derivative of sin is −cos", _negate_first,
           table=_oracle_derivatives),
]}
