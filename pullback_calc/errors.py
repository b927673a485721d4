"""One family of errors: every user mistake is a PullbackCalcError."""
from __future__ import annotations

from typing import Any, Optional


class PullbackCalcError(Exception):
    """Base class of every error a user's input can cause."""

    def __init__(self, message: str, pos=None):
        super().__init__(message)
        self.message = message
        self.pos = pos

    def __str__(self) -> str:
        return f"{self.pos}: {self.message}" if self.pos is not None else self.message


class ParseError(PullbackCalcError):
    """Concrete syntax that does not parse; carries line and column."""


class TypeError_(PullbackCalcError):
    """A term that is not well typed; names the subterm, expected and actual type."""

    def __init__(self, message: str, pos=None, term=None, expected=None, actual=None):
        super().__init__(message, pos)
        self.term, self.expected, self.actual = term, expected, actual


class ReductionError(PullbackCalcError):
    """A redex whose rule cannot apply (e.g. log of a negative numeral)."""

    def __init__(self, message: str, rule: Optional[str] = None, redex=None):
        super().__init__(message)
        self.rule, self.redex = rule, redex


class BudgetExceeded(ReductionError):
    """A resource budget ran out: ``budget`` is "steps", "time" or "memory".

    The state reached is kept for display (e.g. the state after N steps):
    ``steps`` is the number of steps taken so far and ``term`` the whole term
    being reduced when the budget ran out -- a premise's, if it ran out inside
    one (both None when it ran out outside reduction, e.g. while parsing);
    ``next_step`` the step the machine would have taken next (a ``Step`` whose
    redex and contractum are the redex), set by the machine when it knows it.
    """

    budget = "resources"

    def __init__(self, message: str, rule: Optional[str] = None, redex=None,
                 steps: Optional[int] = None, term=None):
        super().__init__(message, rule, redex)
        self.steps, self.term = steps, term
        self.next_step: Optional[Any] = None


class StepBudgetExceeded(BudgetExceeded):
    """Reduction ran out of its step budget (``max_steps``)."""
    budget = "steps"


class TimeBudgetExceeded(BudgetExceeded):
    """The wall-clock budget (``timeout=``, ``--timeout``) ran out."""
    budget = "time"


class MemoryBudgetExceeded(BudgetExceeded):
    """The memory budget (``max_memory=``, ``--max-memory``) ran out."""
    budget = "memory"


class ArgumentError(PullbackCalcError, ValueError):
    """An argument of an API function that makes no sense (a negative step budget, a
    text where a number belongs, an unknown option): named, with what was given.  Also
    a ValueError, as Python's own functions report such arguments."""


def whole_number(name: str, v, least: int = 0) -> int:
    """``v`` if it is an int (not a bool) of at least ``least``, else ArgumentError."""
    if isinstance(v, bool) or not isinstance(v, int) or v < least:
        raise ArgumentError(f"{name} must be a whole number of at least {least}, got {v!r}")
    return v


class JacobianError(PullbackCalcError):
    """The input to ``jacobian_row`` is not a function R^n → R^m, or the point is wrong."""


# the public name; TypeError_ avoids shadowing the builtin inside the package
PullbackTypeError = TypeError_
