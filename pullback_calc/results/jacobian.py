"""Results: normal forms, and Jacobian rows read off them.

The p-th row of the Jacobian of f : ℝⁿ → ℝᵐ at V is the normal form of

    Ω(f) (λz. e_p*) V        e_p* = λw. πₚ w

a covector λp̂. c₁ × A₁ ⊕ … ⊕ cₙ × Aₙ whose coefficients are numerals
produced during reduction (rule 5).  The row is read off that normal form:
the coefficient of each input coordinate's atom -- never by applying the
covector to basis vectors.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union

from .. import display
from ..budgets import budget
from ..deep import deep
from ..errors import ArgumentError, JacobianError
from ..reduction.machine import DEFAULT_MAX_STEPS, Machine
from ..syntax.terms import App, Lam, Pullback, Term, Var
from . import unknown as U
from .rows import (as_point, coordinate_functional, coordinate_paths, function_type,
                   point_term, read_row)


@dataclass
class ReductionResult:
    value: Term
    steps: int
    trace: list = field(repr=False)
    rule_counts: dict = field(default_factory=dict, repr=False)
    #: with ``stop_after=N``: the next step not taken (its redex, rule and
    #: evaluation context), or None if the normal form came first
    next_step: object = field(default=None, repr=False)

    @property
    def stopped(self) -> bool:
        """True if ``value`` is the state after ``stop_after`` steps, not a normal form."""
        return self.next_step is not None

    def _repr_html_(self) -> Optional[str]:  # notebooks: the interactive stepper
        return display.html_of(self)


@dataclass
class JacobianRow:
    row: list
    steps: int
    trace: list = field(repr=False)
    covector: Optional[Term] = field(repr=False, default=None)
    term: Optional[Term] = field(repr=False, default=None)
    rule_counts: dict = field(default_factory=dict, repr=False)

    def _repr_html_(self) -> Optional[str]:  # notebooks: the interactive stepper
        return display.html_of(self)


class Matrix(list):
    """A Jacobian or a Hessian, one list of floats per row: a list (equal to the plain
    list of its rows) that also says how it was computed.  ``.engine`` is the engine
    ("pullback", the reduction, unless ``jacobian(method=…)`` chose another);
    ``.costs`` its cost counters (``engines.Costs``) when ``method=`` asked for a
    measured run, else None (an unrecorded reduction is not itemised);
    ``.artefact`` what it built on the way: for the reduction, each row's
    ``JacobianRow`` (steps, rule counts, and the trace when recorded), for the other
    engines their ``EngineResult.artefact``.  ``.rows`` is the plain list, as an
    ``EngineResult``'s."""

    def __init__(self, rows, engine: str = "pullback", costs=None, artefact=None):
        super().__init__(rows)
        self.engine, self.costs, self.artefact = engine, costs, artefact

    @property
    def rows(self) -> list:
        return list(self)


def as_term(t, arity: Optional[int] = None) -> Term:
    """A term from its text, the term itself, or a Python function over floats
    (traced into a term, ``arity`` real arguments: default its parameters)."""
    if isinstance(t, str):
        from ..syntax.parser import parse
        return parse(t)
    if isinstance(t, Term):
        return t
    if callable(t):
        from ..tracing import trace
        return trace(t, arity)
    raise JacobianError(f"expected a term (its text, a term or a Python function), "
                        f"got {type(t).__name__}")


@deep
def reduce(term: Union[str, Term], max_steps: int = DEFAULT_MAX_STEPS,
           record: bool = True, stop_after: Optional[int] = None,
           timeout: Optional[float] = None,
           max_memory: Optional[float] = None, check: bool = True,
           free: Optional[dict] = None, verify: bool = False,
           on_step=None) -> ReductionResult:
    """Reduce a term to its normal form by the call-by-value strategy.
    ``stop_after=N``: stop after N steps of the main derivation (premises run
    whole, inside their step) and return the term reached as ``.value``, with
    ``.next_step`` the redex to contract next, its rule and its context (like
    the K framework's ``krun --depth N``).  ``timeout`` (seconds) and
    ``max_memory`` (megabytes) bound the time and memory as ``max_steps``
    bounds the steps (see budgets.py).

    The term is type-checked first, as the command line does: closed, up to
    the free variables it declares (``free x : ℝ`` lines before the term) and
    those of ``free`` (names to types, as types or their text); an
    unbound or ill-typed term is a ``PullbackTypeError`` naming where.
    ``check=False`` reduces it unchecked (untyped experiments).

    ``verify=True`` checks every step (premises included) with the oracle:
    the term means the same before and after it, or a ``VerificationError``
    names the first step that changed it (``results.verify``; slow: the
    whole term is evaluated at every step).

    ``on_step(step)`` is called with each step of the main derivation (its
    premises in it) as it is taken, and the trace keeps none (``.trace`` is
    empty): a trace streamed, e.g. to a file as JSON lines
    (``rendering.json_trace.JsonlTrace``), in memory that does not grow with it."""
    term = _checked_term(term, free) if check else as_term(term)
    m = Machine(max_steps=max_steps, record=record, stop_after=stop_after,
                verify=_verifier(verify), on_step=on_step)
    with budget(timeout, max_memory):
        value, trace = m.reduce(term)
    return ReductionResult(value, m.steps_taken, trace, dict(m.rule_counts), m.next_step)


def _verifier(verify: bool):
    """The step checker of ``verify=True`` (None: no check)."""
    if not verify:
        return None
    from .verify import Verifier
    return Verifier()


def _checked_term(term: Union[str, Term], free: Optional[dict]) -> Term:
    """The term, type-checked as a closed term up to its declared free variables."""
    from ..syntax.parser import parse_program, parse_type
    from ..typing import typecheck
    declared: dict = {}
    if not isinstance(term, (str, Term)):
        hint = " (decode it first: text.decode('utf-8'))" if isinstance(term, bytes) else ""
        raise ArgumentError(f"expected a term, as text or a Term, got {type(term).__name__}"
                            + hint)
    if isinstance(term, str):
        program = parse_program(term)
        term, declared = program.term, dict(program.free)
    for name, ty in (free or {}).items():
        declared[name] = parse_type(ty) if isinstance(ty, str) else ty
    typecheck(term, declared, closed=True)
    return term


# ---- rows ---------------------------------------------------------------------------

@deep
def jacobian_row(f: Union[str, Term], point, p: int,
                 max_steps: int = DEFAULT_MAX_STEPS, record: bool = True,
                 on_unknown: str = "error", timeout: Optional[float] = None,
                 max_memory: Optional[float] = None, verify: bool = False,
                 on_step=None) -> JacobianRow:
    """The p-th row (p from 0) of the Jacobian of f at ``point``, by reduction.
    ``record=False`` keeps no trace (``.trace`` is empty; ``.steps`` and
    ``.rule_counts`` are still counted): less memory, a little faster.
    ``on_unknown`` is the policy for free function variables in f
    (``results.unknown``): "error" when the row depends on one, or "zero".
    ``verify`` and ``on_step`` as for ``reduce``."""
    U.check_policy(on_unknown)
    f = as_term(f, len(as_point(point)))
    term, in_paths = _row_term(f, point, p)
    m = Machine(max_steps=max_steps, record=record, verify=_verifier(verify), on_step=on_step)
    with budget(timeout, max_memory):
        value, trace = m.reduce(term)
    free = U.unknown_functions(f)
    row = U.read_row(value, in_paths, free, on_unknown) if free else read_row(value, in_paths)
    return JacobianRow(row, m.steps_taken, trace, value, term, dict(m.rule_counts))


@deep
def jacobian_rows(f: Union[str, Term], point, rows=None, max_steps: int = DEFAULT_MAX_STEPS,
                  record: bool = False, workers: Optional[int] = None,
                  on_unknown: str = "error", timeout: Optional[float] = None,
                  max_memory: Optional[float] = None, verify: bool = False) -> list:
    """``jacobian_row`` for each of ``rows`` (default: every output), as a list of
    ``JacobianRow``; ``workers=N`` (N > 1) reduces the rows in N processes
    (see ``results.parallel``): the same rows, steps and traces."""
    pt = as_point(point)
    f = as_term(f, len(pt))
    if rows is None:
        dom, cod = function_type(f, len(pt))
        rows = range(len(coordinate_paths(cod, "output")))
    tasks = [(p, max_steps, record, on_unknown, verify) for p in rows]
    from .parallel import map_rows
    with budget(timeout, max_memory):  # forked workers inherit it
        return map_rows(_row_task, f, pt, tasks, workers)


def _row_task(f: Term, pt: list, task: tuple) -> JacobianRow:
    p, max_steps, record, on_unknown, verify = task
    return jacobian_row(f, pt, p, max_steps=max_steps, record=record, on_unknown=on_unknown,
                        verify=verify)


def jacobian_term(f: Union[Term, str], point, p: int = 0) -> Term:
    """The term ``Ω(f) (λz. λw. πₚ w) V`` whose normal form is row p of the Jacobian of f
    at V (the term ``jacobian_row`` reduces), checked the same way (graphs draw its reduction)."""
    return _row_term(as_term(f, len(as_point(point))), point, p)[0]


def _row_term(f: Term, point, p: int) -> tuple[Term, list]:
    """(Ω(f) (λz. λw. πₚ w) V, the input paths), the point and row checked."""
    pt = as_point(point)
    dom, cod = function_type(f, len(pt))
    in_paths, out_paths = coordinate_paths(dom, "input"), coordinate_paths(cod, "output")
    if len(in_paths) != len(pt):
        raise JacobianError(f"the function takes {len(in_paths)} real input(s) but the point "
                            f"has {len(pt)} coordinate(s)")
    if not 0 <= p < len(out_paths):
        raise JacobianError(f"row {p} does not exist: the function has {len(out_paths)} "
                            f"output(s) (rows are counted from 0)")
    omega = Lam(Var("z"), coordinate_functional(cod, out_paths[p]))
    return App(Pullback(f, omega), point_term(dom, pt)), in_paths
