"""What every engine shares: the cost counters, the result record, the
"not supported" error, and reading values as rows.

Costs are measured the same way in every engine (``papers/engines.md`` §5):

- ``primal_ops``       real operations computing the program's values (every
                       function symbol applied to reals that is not derivative
                       work; an inner derivative's own values count here too)
- ``derivative_mul``   real multiplications done for derivatives
- ``derivative_add``   real additions done for derivatives (accumulation)
- ``derivative_other`` other real operations done for derivatives (partials such
                       as ``cos a`` for ``sin a``, negations, divisions)
- ``allocations``      what the engine allocates to remember the forward pass:
                       closures (``ps``, ``forward``), tape cells (``tape``), dual
                       maps built by rule ``pb`` (``pullback``); ``allocation_kind``
                       says which
- ``steps``            reduction steps (``pullback`` only; None elsewhere)
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Optional

from ..errors import PullbackCalcError

__all__ = ["Costs", "EngineResult", "EngineValue", "NotSupported", "costs_from_counter", "Measure"]


class NotSupported(PullbackCalcError):
    """The engine's construction cannot express this term (e.g. a pullback
    along a function of a Church list in the P–S engine); the message says which
    construct and why."""


@dataclass(frozen=True)
class Costs:
    primal_ops: int = 0
    derivative_mul: int = 0
    derivative_add: int = 0
    derivative_other: int = 0
    allocations: int = 0
    allocation_kind: str = ""
    steps: Optional[int] = None

    @property
    def derivative_ops(self) -> int:
        return self.derivative_mul + self.derivative_add + self.derivative_other

    def as_dict(self) -> dict:
        return {"primal_ops": self.primal_ops, "derivative_mul": self.derivative_mul,
                "derivative_add": self.derivative_add,
                "derivative_other": self.derivative_other,
                "allocations": self.allocations, "allocation_kind": self.allocation_kind,
                "steps": self.steps}


class Measure:
    """A mutable tally, filled while an engine runs and frozen into ``Costs``.
    Keys are (role, op) with role "primal" or "derivative", and
    ("allocation", kind)."""

    def __init__(self):
        self.counts: Counter = Counter()

    def op(self, role: str, op: str) -> None:
        self.counts[role, op] += 1

    def alloc(self, kind: str) -> None:
        self.counts["allocation", kind] += 1

    def freeze(self, kind: str, steps: Optional[int] = None) -> "Costs":
        return costs_from_counter(self.counts, kind, steps)


_SINGULAR = {"closures": "closure", "tape cells": "tape cell", "dual maps": "dual map"}


def costs_from_counter(c: Counter, kind: str, steps: Optional[int] = None) -> Costs:
    primal = sum(n for (role, _), n in c.items() if role == "primal")
    mul = c["derivative", "mul"]
    add = c["derivative", "add"]
    other = sum(n for (role, op), n in c.items()
                if role == "derivative" and op not in ("mul", "add"))
    # only what the engine's construction allocates (a tape engine's evaluator
    # makes closures too, but its memory of the forward pass is the tape)
    allocs = c["allocation", _SINGULAR.get(kind, kind)]
    return Costs(primal, mul, add, other, allocs, kind, steps)


@dataclass(frozen=True)
class EngineResult:
    """One engine's Jacobian rows (or one vector-Jacobian product: one row), its
    ``costs``, and what it built on the way (``artefact``: the P–S transformed
    term, the tape, the reduction rows)."""
    engine: str
    rows: list
    costs: Costs
    artefact: object = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class EngineValue:
    """One engine's value of a closed term: ``reals`` (its reals, left to
    right) when it is ℝ or a tuple of reals, or the row of a covector on ℝⁿ;
    ``kind`` says which ("reals", "covector") or "function" when it is a
    function the engines cannot compare."""
    engine: str
    kind: str
    reals: Optional[list]
    costs: Costs
    artefact: object = field(default=None, repr=False, compare=False)


def leaves_of(v, zero=None) -> list:
    """The reals of a first-order engine value (floats, tuples; ``zero`` is
    the engine's ZERO and stands for one 0)."""
    if isinstance(v, tuple):
        return [x for item in v for x in leaves_of(item, zero)]
    if zero is not None and v is zero:
        return [0.0]
    return [float(v)]
