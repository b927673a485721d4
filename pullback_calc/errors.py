"""One family of errors: every user mistake is a PullbackCalcError."""
from __future__ import annotations

from typing import Optional


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


class StepBudgetExceeded(ReductionError):
    """Reduction ran out of its step budget (``max_steps``)."""


class JacobianError(PullbackCalcError):
    """The input to ``jacobian_row`` is not a function R^n → R^m, or the point is wrong."""


# the public name; TypeError_ avoids shadowing the builtin inside the package
PullbackTypeError = TypeError_
