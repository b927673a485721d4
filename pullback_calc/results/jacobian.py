"""Results: normal forms, and Jacobian rows read off them.

The p-th row of the Jacobian of f : ℝⁿ → ℝᵐ at V is the normal form of

    Ω(f) (λz. e_p*) V        e_p* = λw. πₚ w

a covector λp̂. c₁ × A₁ ⊕ … ⊕ cₙ × Aₙ whose coefficients are numerals
produced during reduction (rule 5).  The row is read off that normal form:
the coefficient of each input coordinate's atom -- never by applying the
covector to basis vectors.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional, Sequence, Union

from ..budgets import budget
from ..deep import bottom_up, deep
from ..errors import JacobianError
from ..reduction.linear import to_lincomb
from ..reduction.machine import DEFAULT_MAX_STEPS, Machine
from ..reduction.env import PatVars, component
from ..syntax.terms import App, Lam, Num, Proj, Pullback, Term, Tuple, Var, Zero, is_pattern
from ..syntax.types import Arrow, DualT, Prod, Real, Type, real_leaves, rn


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

    def _repr_html_(self) -> str:  # notebooks: the interactive stepper
        from ..rendering.html import result_repr_html
        return result_repr_html(self)


@dataclass
class JacobianRow:
    row: list
    steps: int
    trace: list = field(repr=False)
    covector: Term = field(repr=False, default=None)
    term: Term = field(repr=False, default=None)
    rule_counts: dict = field(default_factory=dict, repr=False)

    def _repr_html_(self) -> str:  # notebooks: the interactive stepper
        from ..rendering.html import result_repr_html
        return result_repr_html(self)


def _as_term(t, arity: Optional[int] = None) -> Term:
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
           free: Optional[dict] = None, verify: bool = False) -> ReductionResult:
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
    whole term is evaluated at every step)."""
    term = _checked_term(term, free) if check else _as_term(term)
    m = Machine(max_steps=max_steps, record=record, stop_after=stop_after,
                verify=_verifier(verify))
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
    if isinstance(term, str):
        program = parse_program(term)
        term, declared = program.term, dict(program.free)
    for name, ty in (free or {}).items():
        declared[name] = parse_type(ty) if isinstance(ty, str) else ty
    typecheck(term, declared, closed=True)
    return term


# ---- shapes -------------------------------------------------------------------------

def _pattern_domain(pat: Term, n: int) -> Type:
    """ℝ at every leaf of a tuple pattern; ℝⁿ for a single variable."""
    if isinstance(pat, Tuple):
        return bottom_up(pat, lambda p: (p.items, p) if isinstance(p, Tuple) else (None, rn(1)),
                         lambda p, items: Prod(tuple(items)))
    return rn(n)


def _function_type(f: Term, n: int, env: Optional[dict] = None,
                   closed: bool = False) -> tuple[Type, Type]:
    """(domain, codomain) of f, checked against the domain the point gives,
    so that projections of an unannotated ``λy.S`` can be typed (``env``,
    ``closed``: as for ``typing.check``)."""
    from ..typing.check import check
    from ..syntax.types import TVar
    expected: Type = TVar.new()
    if isinstance(f, Lam) and f.ann is None and is_pattern(f.pat):
        expected = Arrow(_pattern_domain(f.pat, n), TVar.new())
    ty = check(f, expected, env, closed)
    if isinstance(ty, Arrow) and real_leaves(ty.dom) is None:
        # a domain left open by inference (f = let g = λx. x in g): the point fixes it
        fixed = _domain_from_point(ty.dom, n)
        if fixed is not None:
            ty = check(f, Arrow(fixed, TVar.new()), env, closed)
    if isinstance(ty, DualT):
        raise JacobianError("expected a function ℝⁿ → ℝᵐ, found a covector")
    if not isinstance(ty, Arrow):
        raise JacobianError(f"expected a function ℝⁿ → ℝᵐ, found a term of type {ty}")
    if isinstance(ty.cod, TVar):
        # any codomain would do (e.g. the result of a free function h): ℝ is one
        return ty.dom, Real()
    return ty.dom, ty.cod


def _domain_from_point(dom: Type, n: int) -> Optional[Type]:
    """dom with ℝ for its type variables, if that makes it ℝⁿ for the point's n:
    an open domain α is ℝⁿ (flat, as for a λ of one variable), a product whose
    leaves are ℝ or open and number n has ℝ at each (None: no such reading)."""
    from ..syntax.types import TVar
    if isinstance(dom, TVar):
        return rn(n)
    if not isinstance(dom, Prod):
        return None
    leaves = [0]

    def leaf(t):
        if isinstance(t, Prod):
            return t.items, t
        leaves[0] += 1
        return None, Real() if isinstance(t, (TVar, Real)) else None

    out = bottom_up(dom, leaf, lambda t, items: None if None in items else Prod(tuple(items)))
    return out if out is not None and leaves[0] == n else None


def _leaves(t: Type, what: str) -> list:
    paths = real_leaves(t)
    if paths is None:
        raise JacobianError(f"the {what} type {t} is not ℝⁿ (built from ℝ by products), so "
                            f"there is no Jacobian matrix; reduce the pullback Ω(f) ω V "
                            f"instead and apply the covector to a tangent")
    return paths


def _point_term(dom: Type, point: Sequence[float]) -> Term:
    if isinstance(dom, Prod):
        vals = iter(point)
        return bottom_up(dom, lambda t: (t.items, t) if isinstance(t, Prod)
                         else (None, Num(next(vals))), lambda t, items: Tuple(tuple(items)))
    return Num(point[0])


def _coordinate_functional(cod: Type, path: tuple) -> Lam:
    """e_p* = λw. πₚ w (a projection path for nested products)."""
    w = Var("w")  # ω is closed: its names cannot capture anything
    body: Term = w
    for i in path:
        body = Proj(i, body)
    return Lam(w, body)


def _points(point, what: str = "the point") -> list[float]:
    """The reals of a point (a number or a list of numbers), each finite."""
    try:
        pt = [float(point)] if isinstance(point, (int, float)) else [float(v) for v in point]
    except (TypeError, ValueError):
        raise JacobianError(f"{what} must be a list of numbers, got {point!r}") from None
    bad = [i for i, v in enumerate(pt) if not math.isfinite(v)]
    if bad:  # no numeral can hold it, and every engine would answer nan or fail
        i = bad[0]
        raise JacobianError(f"{what} must be finite, got {pt[i]}" if len(pt) == 1 else
                            f"{what} must be finite: its coordinate {i} (counting from 0) "
                            f"is {pt[i]}")
    return pt


# ---- rows ---------------------------------------------------------------------------

@deep
def jacobian_row(f: Union[str, Term], point, p: int,
                 max_steps: int = DEFAULT_MAX_STEPS, record: bool = True,
                 on_unknown: str = "error", timeout: Optional[float] = None,
                 max_memory: Optional[float] = None, verify: bool = False) -> JacobianRow:
    """The p-th row (p from 0) of the Jacobian of f at ``point``, by reduction.
    ``record=False`` keeps no trace (``.trace`` is empty; ``.steps`` and
    ``.rule_counts`` are still counted): less memory, a little faster.
    ``on_unknown`` is the policy for free function variables in f
    (``results.unknown``): "error" when the row depends on one, or "zero".
    ``verify`` as for ``reduce``."""
    from . import unknown as U
    U.check_policy(on_unknown)
    f = _as_term(f, len(_points(point)))
    term, in_paths = _row_term(f, point, p)
    m = Machine(max_steps=max_steps, record=record, verify=_verifier(verify))
    with budget(timeout, max_memory):
        value, trace = m.reduce(term)
    free = U.unknown_functions(f)
    row = U.read_row(value, in_paths, free, on_unknown) if free else read_row(value, in_paths)
    return JacobianRow(row, m.steps_taken, trace, value, term, dict(m.rule_counts))


def without_lets(t: Term) -> Term:
    """A normal form with the lets that rule 1 kept around it (inert values the
    result shares: ``let c = cos(h 0.5) in λdx. c × dx``) substituted -- for
    reading its coefficients, not a reduction."""
    from ..syntax.subst import bind_pattern, subst
    while isinstance(t, App) and isinstance(t.fun, Lam):
        t = subst(t.fun.body, bind_pattern(t.fun.pat, t.arg))
    return t


def read_row(covector: Term, in_paths: list, settle=None, error=None) -> list[float]:
    """The coefficients of a covector normal form on ℝⁿ, coordinate by coordinate.
    ``settle`` may rewrite the linear combination first, and ``error(what, term)``
    make the error for a coefficient or atom that is not what it should be
    (``results.unknown`` passes both, for programs with free functions)."""
    covector = without_lets(covector)
    if isinstance(covector, Zero):
        return [0.0] * len(in_paths)
    if not (isinstance(covector, Lam) and is_pattern(covector.pat)):
        if error is not None:
            raise error("the normal form", covector)
        raise JacobianError(f"the normal form is not a covector: {covector}")
    coeffs = dict(to_lincomb(covector.body, PatVars(covector.pat)))
    if settle is not None:
        coeffs = settle(coeffs)
    row = []
    for path in in_paths:
        atom = component(covector.pat, path)
        c = coeffs.pop(atom, None)
        if c is None:
            row.append(0.0)
        elif isinstance(c, Num):
            row.append(c.value)
        elif error is not None:
            raise error(f"the coefficient of {atom}", c)
        else:
            raise JacobianError(f"the coefficient of {atom} is not a numeral: {c}")
    if coeffs:
        if error is not None:
            raise error("the normal form", next(iter(coeffs)))
        raise JacobianError("the normal form has atoms that are not input coordinates: "
                            + ", ".join(str(a) for a in coeffs))
    return row


@deep
def jacobian_rows(f: Union[str, Term], point, rows=None, max_steps: int = DEFAULT_MAX_STEPS,
                  record: bool = False, workers: Optional[int] = None,
                  on_unknown: str = "error", timeout: Optional[float] = None,
                  max_memory: Optional[float] = None, verify: bool = False) -> list:
    """``jacobian_row`` for each of ``rows`` (default: every output), as a list of
    ``JacobianRow``; ``workers=N`` (N > 1) reduces the rows in N processes
    (see ``results.parallel``): the same rows, steps and traces."""
    pt = _points(point)
    f = _as_term(f, len(pt))
    if rows is None:
        dom, cod = _function_type(f, len(pt))
        rows = range(len(_leaves(cod, "output")))
    tasks = [(p, max_steps, record, on_unknown, verify) for p in rows]
    from .parallel import map_rows
    with budget(timeout, max_memory):  # forked workers inherit it
        return map_rows(_row_task, f, pt, tasks, workers)


def _row_task(f: Term, pt: list, task: tuple) -> JacobianRow:
    p, max_steps, record, on_unknown, verify = task
    return jacobian_row(f, pt, p, max_steps=max_steps, record=record, on_unknown=on_unknown,
                        verify=verify)


@deep
def jacobian(f: Union[str, Term], point, max_steps: int = DEFAULT_MAX_STEPS,
             record: bool = False, workers: Optional[int] = None,
             on_unknown: str = "error", method: Optional[str] = None,
             timeout: Optional[float] = None, max_memory: Optional[float] = None,
             verify: bool = False) -> list:
    """All rows of the Jacobian, one reduction (reverse-mode run) per output:
    a list of rows (lists of floats).  ``record=True`` returns the
    ``JacobianRow`` of each row instead, traces included (the default keeps no
    trace: nothing here would return it).  ``workers=N`` reduces the rows in
    N processes; ``on_unknown`` as for ``jacobian_row``.  ``method="pullback" |
    "ps" | "forward" | "tape"`` runs that engine (``pullback_calc.engines``) and
    returns its ``EngineResult``: the rows (``.rows``) with its cost counters
    (``.costs``)."""
    if method is not None:
        from ..engines import jacobian as by_engine
        return by_engine(f, point, method, **({"max_steps": max_steps}
                                              if method == "pullback" else {}))
    out = jacobian_rows(f, point, None, max_steps=max_steps, record=record, workers=workers,
                        on_unknown=on_unknown, timeout=timeout, max_memory=max_memory,
                        verify=verify)
    return out if record else [r.row for r in out]


def jacobian_term(f: Union[Term, str], point, p: int = 0) -> Term:
    """The term ``Ω(f) (λz. λw. πₚ w) V`` whose normal form is row p of the Jacobian of f
    at V (the term ``jacobian_row`` reduces), checked the same way (graphs draw its reduction)."""
    return _row_term(_as_term(f, len(_points(point))), point, p)[0]


def _row_term(f: Term, point, p: int) -> tuple[Term, list]:
    """(Ω(f) (λz. λw. πₚ w) V, the input paths), the point and row checked."""
    pt = _points(point)
    dom, cod = _function_type(f, len(pt))
    in_paths, out_paths = _leaves(dom, "input"), _leaves(cod, "output")
    if len(in_paths) != len(pt):
        raise JacobianError(f"the function takes {len(in_paths)} real input(s) but the point "
                            f"has {len(pt)} coordinate(s)")
    if not 0 <= p < len(out_paths):
        raise JacobianError(f"row {p} does not exist: the function has {len(out_paths)} "
                            f"output(s) (rows are counted from 0)")
    omega = Lam(Var("z"), _coordinate_functional(cod, out_paths[p]))
    return App(Pullback(f, omega), _point_term(dom, pt)), in_paths
