"""Results of higher order: Hessians by nested pullbacks, covectors applied.

The i-th row of the Hessian of f : ℝⁿ → ℝ at V is the gradient of
x ↦ (Ω(f) (λz. e*) x) eᵢ -- a term that itself contains a pullback, so the
outer reduction differentiates through the inner one (rules 17–19): reverse
over reverse, with no numerical differentiation anywhere.
"""
from __future__ import annotations

from typing import Optional, Union

from ..deep import deep
from ..errors import JacobianError
from ..reduction.machine import DEFAULT_MAX_STEPS
from ..syntax.terms import App, Lam, Num, Pullback, Term, Tuple, Var
from ..syntax.types import rn
from .jacobian import JacobianRow, Matrix, as_term, jacobian_row, reduce
from .rows import as_point, coordinate_paths, function_type


def _basis(n: int, i: int) -> Term:
    vals = [Num(1.0 if j == i else 0.0) for j in range(n)]
    return vals[0] if n == 1 else Tuple(tuple(vals))


def partial_term(f: Term, n: int, i: int) -> Lam:
    """λx. Ω(f) (λz. λw. w) x eᵢ : the i-th partial derivative of f, as a term."""
    x = Var("x")  # f is closed, so no name of f can be captured
    omega = Lam(Var("z"), Lam(Var("w"), Var("w")))
    return Lam(x, App(App(Pullback(f, omega), x), _basis(n, i)), rn(n))


def _scalar_function(f: Term, n: int) -> None:
    dom, cod = function_type(f, n)
    if len(coordinate_paths(cod, "output")) != 1:
        raise JacobianError("the Hessian needs a real-valued function ℝⁿ → ℝ")
    k = len(coordinate_paths(dom, "input"))
    if k != n:
        raise JacobianError(f"the function takes {k} real input(s) but the point has {n} "
                            f"coordinate(s)")


@deep
def hessian_row(f: Union[str, Term], point, i: int,
                max_steps: int = DEFAULT_MAX_STEPS, record: bool = True,
                verify: bool = False) -> JacobianRow:
    """Row i (from 0) of the Hessian of f at ``point``, by nested pullbacks
    (``record=False``: no trace kept, ``verify``: every step checked by the oracle,
    as for ``jacobian_row``)."""
    pt = as_point(point)
    f = as_term(f, len(pt))
    _scalar_function(f, len(pt))
    if not 0 <= i < len(pt):
        raise JacobianError(f"row {i} does not exist: the Hessian has {len(pt)} rows")
    return jacobian_row(partial_term(f, len(pt), i), pt, 0, max_steps=max_steps, record=record,
                        verify=verify)


def _hessian_task(f: Term, pt: list, task: tuple) -> JacobianRow:
    i, max_steps, record, verify = task
    return hessian_row(f, pt, i, max_steps=max_steps, record=record, verify=verify)


@deep
def hessian_rows(f: Union[str, Term], point, rows=None, max_steps: int = DEFAULT_MAX_STEPS,
                 record: bool = False, workers: Optional[int] = None,
                 verify: bool = False) -> list:
    """``hessian_row`` for each of ``rows`` (default: every row), as a list of
    ``JacobianRow``; ``workers=N`` reduces the rows in N processes (the same rows,
    steps and traces), as ``jacobian_rows``."""
    from .parallel import map_rows
    pt = as_point(point)
    f = as_term(f, len(pt))
    _scalar_function(f, len(pt))
    rows = range(len(pt)) if rows is None else rows
    return map_rows(_hessian_task, f, pt, [(i, max_steps, record, verify) for i in rows],
                    workers)


@deep
def hessian(f: Union[str, Term], point, max_steps: int = DEFAULT_MAX_STEPS,
            record: bool = False, workers: Optional[int] = None,
            verify: bool = False) -> Matrix:
    """All rows of the Hessian: a ``Matrix`` (a list of rows; ``.artefact`` each
    row's ``JacobianRow``, with its trace when ``record=True``); ``workers=N``
    reduces the rows in N processes (the same rows, steps and traces); ``verify``
    as for ``jacobian_row``."""
    out = hessian_rows(f, point, None, max_steps=max_steps, record=record, workers=workers,
                       verify=verify)
    return Matrix([r.row for r in out], "pullback", None, out)


@deep
def apply_covector(covector: Union[str, Term], tangent: Union[str, Term],
                   max_steps: int = DEFAULT_MAX_STEPS) -> Term:
    """ω(v) by reduction: read a covector over any type (lists, functions)
    by applying it to a tangent of that type."""
    return reduce(App(as_term(covector), as_term(tangent)), max_steps=max_steps,
                  check=False).value


@deep
def strong_normal_form(term: Union[str, Term], max_steps: int = DEFAULT_MAX_STEPS) -> Term:
    """The normal form with the bodies of abstractions reduced too (open
    terms), for reading covectors over function spaces: e.g. the covector
    of l ↦ sum (map square l) at a Church list prints as
    ``λdl. dl (λx. λacc. x × x + acc) 0``.  The call-by-value strategy
    itself never reduces under λ; this is a read-out, not a reduction rule.

    Linear in the term: one fresh-name scope for the whole read-out (not one
    walk of the rest of the term per λ-body), and the parts of a normal form
    that are values already -- a tuple's components, a sum's items -- are read,
    not reduced again; the budgets are checked as it goes."""
    from .. import budgets
    from ..deep import bottom_up
    from ..reduction.machine import Machine
    from ..syntax.terms import Dual, Prim, Sum, fresh_scope
    m = Machine(max_steps=max_steps, record=False)
    term = as_term(term)
    seen = [0]

    def open_(item):
        t, unreduced = item  # unreduced: the whole term, or a λ's body
        seen[0] += 1
        if budgets.ACTIVE and not seen[0] & 1023:
            budgets.poll(f"reading the strong normal form ({seen[0]} subterms so far)")
        if unreduced:
            t, _ = m.reduce(t, own_scope=False)
        if isinstance(t, Lam):
            return ((t.body, True),), t
        if isinstance(t, (Tuple, Sum, Prim)):
            return tuple((i, False) for i in t.children()), t
        if isinstance(t, App):
            return ((t.fun, False), (t.arg, False)), t
        if isinstance(t, Dual):
            return ((t.functional, False),), t
        return None, t

    def close(t: Term, kids: list) -> Term:
        if isinstance(t, Lam):
            return Lam(t.pat, kids[0], t.ann)
        if isinstance(t, (Tuple, Sum)):
            return type(t)(tuple(kids))
        if isinstance(t, Prim):
            return Prim(t.op, tuple(kids))
        if isinstance(t, App):
            return App(kids[0], kids[1])
        assert isinstance(t, Dual), t
        return Dual(t.lam, kids[0])

    with fresh_scope(term):
        return bottom_up((term, True), open_, close)
