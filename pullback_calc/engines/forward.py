"""Forward mode on tagged dual numbers (``method="forward"``): DVL's bundles.

This is the evaluator the tests already trusted as an oracle
(``pullback_calc.semantics.oracle``), promoted to an engine: every real is a
dual number primal + ε·tangent whose perturbation ε is a fresh *tag* per
derivative, so nested derivatives never confuse their perturbations, and a
function-valued derivative is read lazily with the tag renaming of Manzyuk
et al.  The oracle stays a module of its own (it keeps its own table of
derivatives, written independently of ``prims.PARTIALS``, so that it remains
an independent check); this module adds the engines'
interface and the cost counters, which the oracle tallies while
``oracle.COUNTS`` is set.

One forward pass per input coordinate gives a column of the Jacobian (n passes
for n inputs, whatever the number of outputs: the opposite trade-off of the
reverse engines).  Everything in the calculus is expressible here: a
pullback Ω(f) ω at x is v ↦ ω(f x)(J f(x) v), J and ⋆ by their meaning.
"""
from __future__ import annotations

from collections import Counter
from contextlib import contextmanager
from typing import Optional

from ..semantics import oracle
from .common import EngineResult, NotSupported, costs_from_counter
from .evaluator import arithmetic_error

__all__ = ["jacobian", "value", "apply_value", "counting"]


@contextmanager
def counting():
    """Tally the oracle's real operations and closures into a Counter."""
    saved, oracle.COUNTS = oracle.COUNTS, Counter()
    try:
        yield oracle.COUNTS
    finally:
        oracle.COUNTS = saved


def jacobian(f, point, cotangents: Optional[list] = None) -> EngineResult:
    """The Jacobian of f : ℝⁿ → ℝᵐ at ``point``: one forward pass per input
    (a column each), returned as rows.  Forward mode has no vector-Jacobian
    product of its own: ``cotangents`` are not supported (a vjp would be n
    passes and a sum -- use ``jacobian``)."""
    if cotangents is not None:
        raise NotSupported("forward mode computes Jacobian-vector products (one per input); "
                           "it has no vector-Jacobian product: use jacobian")
    with counting() as c, _arithmetic():
        try:
            rows = oracle.jacobian_by_oracle(f, point)
        except oracle.OracleError as e:
            raise NotSupported(str(e)) from None
    return EngineResult("forward", rows, costs_from_counter(c, "closures"), None)


def value(term):
    """The value of a closed term by the tagged evaluator: (value, costs, None)."""
    with counting() as c, _arithmetic():
        try:
            v = oracle.evaluate(term)
        except oracle.OracleError as e:
            raise NotSupported(str(e)) from None
    return v, costs_from_counter(c, "closures"), None


@contextmanager
def _arithmetic():
    """The oracle's arithmetic errors as the engines report them (``arithmetic_error``:
    the operation, its operands, the application it was in and where that is)."""
    try:
        yield
    except (ArithmeticError, ValueError) as e:
        op, operands = getattr(e, "operation", None) or ("an operation", ())
        raise arithmetic_error("forward-mode", op, operands, e,
                               getattr(e, "subterm", None)) from None


def apply_value(v, arg, counts: Optional[Counter] = None):
    return oracle.apply(v, arg)
