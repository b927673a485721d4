"""The AD user's front door: grad, grad1, vjp / D, jvp, jacobian -- every answer by reduction.

These are the one-call forms users of rackpropagator (``grad``, ``grad1``,
``D``, ``D+``, ``primal``/``backprop``), Yota (``grad``) and JAX (``grad``,
``vjp``, ``jvp``) expect, built on the calculus:

* ``grad(f, *point)``      the normal form of ``Ω(f) (λz. λw. w) V`` (reverse mode);
* ``grad1(f)``             the *term* ``λx. Ω(f) (λz. λw. w) x 1`` -- so
                           ``grad1(grad1(f))`` nests pullbacks and is reduced
                           by rules 17–19 (reverse over reverse);
* ``vjp(f, point)``        one reduction of ``Ω(f) ω V`` with ω a free 1-form:
                           its normal form ``(λp̂. M)⋆ (ω S̄)`` holds the primal
                           ``S̄`` and the linear map ``λp̂. M``; the backpropagator
                           reduces ``(λp̂. M)⋆ (λw. s·w)`` by rule 5 for each output
                           sensitivity ``s``;
* ``jvp(f, point, t)``     the normal form of ``⟨f V, (J(f)·t) V⟩``: forward mode
                           by the Jacobian rules 9–20;
* ``jacobian(f, point)``   every row, one reduction of ``Ω(f) (λz. e_p*) V`` per
                           output p (or by another engine: ``method=``).

``f`` may be concrete syntax, a term, the name of a function symbol
(``"cos"`` is ``λx. cos(x)``) or a Python function over floats (traced into a
term by ``pullback_calc.tracing``).  Every result carries ``.steps`` and, when
recorded (``record=True``, the default), ``.trace``.  Free function variables
follow the unknown-function policy ``on_unknown`` (``results.unknown``).
"""
from __future__ import annotations

from collections import abc
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Optional, Union

from .errors import JacobianError
from .reduction.machine import DEFAULT_MAX_STEPS, Machine
from .results import unknown as U
from .results.jacobian import Matrix, as_term, jacobian_row, jacobian_rows
from .results.rows import (as_point, coordinate_functional, coordinate_paths, function_type,
                           is_real, point_term, without_lets)
from .syntax import prims
from .syntax.subst import fv
from .syntax.terms import (App, Dual, Jac, Lam, Num, Prim, Pullback, Sum, Term, Tuple, Var,
                           Zero, direction_pattern, fresh, tup)
from .syntax.types import Prod, Real, Type, real_leaves

__all__ = ["Gradient", "VJP", "Backpropagator", "JVP", "Value", "as_function",
           "grad", "grad1", "vjp", "D", "jvp", "jacobian", "call", "primal", "backprop"]

FunctionLike = Union[str, Term, Any]  # text, a term, a primitive's name or a Python function


# ---- inputs ---------------------------------------------------------------------------

def _eta(op: str) -> Lam:
    """λx. f(x) or λ⟨x1, …, xk⟩. f(x1, …, xk) for a function symbol f."""
    k = prims.ARITY[op]
    xs = [Var("x")] if k == 1 else [Var(f"x{i}") for i in range(1, k + 1)]
    return Lam(tup(*xs), Prim(op, tuple(xs)))


def as_function(f: FunctionLike, arity: Optional[int] = None) -> Term:
    """The term of ``f``: parsed text, a term as it is, ``λx. f(x)`` for the name
    of a function symbol, or a Python function traced into a term (``arity``
    real arguments; default: its number of parameters)."""
    if isinstance(f, str) and f.strip() in prims.ARITY:
        return _eta(f.strip())
    if not isinstance(f, (str, Term)) and not callable(f):
        raise JacobianError(f"expected a function (its text, a term, a function symbol's name "
                            f"or a Python function), got {type(f).__name__}")
    return as_term(f, arity)


def _point_args(point: tuple) -> list[float]:
    """``grad(f, 2, 3)`` and ``grad(f, [2, 3])`` both mean the point (2, 3)."""
    if len(point) == 1 and not is_real(point[0]):
        return as_point(point[0])
    return as_point(list(point))


def _lambda(f: Term) -> Lam:
    """f itself if it is an abstraction, else λp. f p (J and Ω need a λ literal)."""
    if isinstance(f, Lam):
        return f
    p = Var(fresh("p", fv(f)))  # (f may hold names no parser saw: a result's)
    return Lam(p, App(f, p))


def _shape(f: Term, n: int) -> tuple[Type, Type, list, list]:
    dom, cod = function_type(f, n)
    in_paths, out_paths = coordinate_paths(dom, "input"), coordinate_paths(cod, "output")
    if len(in_paths) != n:
        raise JacobianError(f"the function takes {len(in_paths)} real input(s) but the point "
                            f"has {n} coordinate(s)")
    return dom, cod, in_paths, out_paths


def _flat(v, what: str) -> list[float]:
    """The reals of a number or a (nested) sequence of numbers, left to right."""
    if is_real(v) or isinstance(v, (str, bytes, abc.Mapping, abc.Set)):
        return as_point(v, what)  # (text and unordered collections: refused there)
    try:
        items = list(v)
    except TypeError:  # no sequence: as_point refuses it with the message of a point
        return as_point(v, what)
    return as_point([x for item in items for x in _flat(item, what)], what)


# ---- results --------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class Gradient(Sequence):
    """Input sensitivities (a gradient, or a vector-Jacobian product): a sequence
    of floats, equal to a list or tuple of the same numbers, together with the
    reduction that computed it -- ``.covector`` its normal form, ``.term`` the
    term reduced, ``.steps`` and ``.trace`` as for ``jacobian_row``."""
    values: tuple
    steps: int
    trace: list = field(default_factory=list, repr=False)
    covector: Optional[Term] = field(default=None, repr=False)
    term: Optional[Term] = field(default=None, repr=False)
    rule_counts: dict = field(default_factory=dict, repr=False)

    def __getitem__(self, i):
        return self.values[i]

    def __len__(self) -> int:
        return len(self.values)

    def __eq__(self, other) -> bool:
        if isinstance(other, Gradient):
            return self.values == other.values
        if isinstance(other, (list, tuple)):
            return list(self.values) == list(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.values)

    def __repr__(self) -> str:
        return f"Gradient({list(self.values)}, steps={self.steps})"


@dataclass(frozen=True)
class Backpropagator:
    """Output sensitivity ↦ input sensitivities, by reduction: calling it with
    ``s`` reduces ``(λp̂. M)⋆ (λw. Σ sᵢ × πᵢ w)`` (rule 5) to a covector and
    reads its coefficients.  ``dual_map`` is the linear map ``λp̂. M`` (the
    Jacobian at the point) from the vjp's reduction; ``covector(s)`` the term
    of the functional for ``s``."""
    dual_map: Lam
    output: Type
    in_paths: tuple
    unknown: dict = field(default_factory=dict, repr=False)
    on_unknown: str = "error"
    max_steps: int = DEFAULT_MAX_STEPS
    record: bool = True
    verify: bool = False

    def functional(self, sensitivity) -> Term:
        """λw. Σ sᵢ × πᵢ w, the covector on the output for the sensitivity s."""
        out_paths = real_leaves(self.output)
        assert out_paths is not None  # (the output type was checked to be built from R)
        s = _flat(sensitivity, "the output sensitivity")
        if len(s) != len(out_paths):
            raise JacobianError(f"the cotangent (output sensitivity) has {len(s)} component(s) "
                                f"but the output has {len(out_paths)} (it must conform to the "
                                f"output)")
        w = Var("w")
        parts = []
        for c, path in zip(s, out_paths):
            if c == 0.0:
                continue
            coord = coordinate_functional(self.output, path).body
            parts.append(coord if c == 1.0 else Prim("mul", (Num(c), coord)))
        body = Zero() if not parts else parts[0] if len(parts) == 1 else Sum(tuple(parts))
        return Lam(w, body)

    def __call__(self, sensitivity=1.0) -> Gradient:
        term = Dual(self.dual_map, self.functional(sensitivity))
        m = Machine(max_steps=self.max_steps, record=self.record, verify=_verifier(self.verify))
        value, trace = m.reduce(term)
        row = U.read_row(value, list(self.in_paths), self.unknown, self.on_unknown)
        return Gradient(tuple(row), m.steps_taken, trace, value, term, dict(m.rule_counts))


@dataclass(frozen=True, eq=False)
class VJP:
    """``(primal, backpropagator)`` of f at a point (rackpropagator's
    ``proc-result``, JAX's ``vjp``): unpacks as a pair; calling it calls the
    backpropagator.  ``.normal_form`` is ``(λp̂. M)⋆ (ω S̄)``, reached from
    ``.term`` = ``Ω(f) ω V`` in ``.steps`` steps (``.trace``)."""
    primal: Any
    backprop: Backpropagator
    steps: int
    trace: list = field(default_factory=list, repr=False)
    term: Optional[Term] = field(default=None, repr=False)
    normal_form: Optional[Term] = field(default=None, repr=False)

    def __iter__(self):
        return iter((self.primal, self.backprop))

    def __call__(self, sensitivity=1.0) -> Gradient:
        return self.backprop(sensitivity)

    def __repr__(self) -> str:
        return f"VJP(primal={self.primal!r}, steps={self.steps})"


@dataclass(frozen=True, eq=False)
class JVP:
    """``(primal, tangent)`` of f at a point along a tangent (JAX's ``jvp``):
    unpacks as a pair.  Both come from one reduction of ``.term`` =
    ``⟨f V, (J(f)·t) V⟩`` (forward mode, rules 9–20)."""
    primal: Any
    tangent: Any
    steps: int
    trace: list = field(default_factory=list, repr=False)
    term: Optional[Term] = field(default=None, repr=False)
    normal_form: Optional[Term] = field(default=None, repr=False)

    def __iter__(self):
        return iter((self.primal, self.tangent))

    def __repr__(self) -> str:
        return f"JVP(primal={self.primal!r}, tangent={self.tangent!r}, steps={self.steps})"


@dataclass(frozen=True, eq=False)
class Value:
    """The value of ``f`` at a point (``call``): a float, a tuple of floats, or
    the normal form itself when it is not first order."""
    value: Any
    steps: int
    trace: list = field(default_factory=list, repr=False)
    term: Optional[Term] = field(default=None, repr=False)
    normal_form: Optional[Term] = field(default=None, repr=False)

    def __float__(self) -> float:
        return float(self.value)

    def __repr__(self) -> str:
        return f"Value({self.value!r}, steps={self.steps})"


def primal(result):
    """rackpropagator's ``primal``: the primal output of a ``vjp``/``jvp``."""
    return result.primal


def backprop(result: VJP) -> Backpropagator:
    """rackpropagator's ``backprop``: the backpropagator of a ``vjp``."""
    return result.backprop


# ---- reading values -------------------------------------------------------------------

def _read_value(t: Term, ty: Type, unknown: dict, policy: str, what: str):
    """A first-order normal form of type ``ty`` as a float or nested tuple of floats."""
    if isinstance(ty, Prod):
        if isinstance(t, Zero):
            return tuple(_read_value(t, i, unknown, policy, what) for i in ty.items)
        if isinstance(t, Tuple) and len(t.items) == len(ty.items):
            return tuple(_read_value(a, i, unknown, policy, what)
                         for a, i in zip(t.items, ty.items))
        return (_read_value(t, Real(), unknown, policy, what),)  # reports what is wrong
    return U.read_real(t, unknown, policy, what)


# ---- the API --------------------------------------------------------------------------

def grad(f: FunctionLike, *point, max_steps: int = DEFAULT_MAX_STEPS, record: bool = True,
         on_unknown: str = "error", verify: bool = False) -> Gradient:
    """The gradient of a real-valued f at ``point`` (``grad(f, 2, 3)`` or
    ``grad(f, [2, 3])``), by one reverse-mode reduction of
    ``Ω(f) (λz. λw. w) V``: rackpropagator's ``((grad f) 2.0 3.0)``.  A coordinate
    is any real number -- int, float, Fraction, Decimal, a NumPy scalar -- and a
    point may be any sequence of them (a NumPy array too); text is refused, never read.
    ``verify=True`` checks every step with the oracle (``reduce``)."""
    pt = _point_args(point)
    f = as_function(f, len(pt))
    _, _, _, out_paths = _shape(f, len(pt))
    if len(out_paths) != 1:
        raise JacobianError(f"grad needs a real-valued function, but this one has "
                            f"{len(out_paths)} outputs; use vjp (or jacobian) instead")
    r = jacobian_row(f, pt, 0, max_steps=max_steps, record=record, on_unknown=on_unknown,
                     verify=verify)
    return Gradient(tuple(r.row), r.steps, r.trace, r.covector, r.term, r.rule_counts)


def jacobian(f: FunctionLike, point, max_steps: int = DEFAULT_MAX_STEPS, record: bool = False,
             workers: Optional[int] = None, on_unknown: str = "error",
             method: Optional[str] = None, timeout: Optional[float] = None,
             max_memory: Optional[float] = None, verify: bool = False) -> Matrix:
    """All rows of the Jacobian of f : ℝⁿ → ℝᵐ at ``point``, one reverse-mode
    reduction per output: a ``Matrix`` (a list of rows, with ``.engine``,
    ``.costs`` and ``.artefact``).  ``record=True`` keeps each row's trace (in
    ``.artefact``'s ``JacobianRow`` s; by default none is kept: the rows do not need
    it); ``workers=N`` reduces the rows in N processes; ``on_unknown`` as for
    ``jacobian_row``.  ``method="pullback" | "ps" | "forward" | "tape"`` runs that
    engine instead (``pullback_calc.engines``; "pullback" is the same reduction,
    with its traces recorded and its costs counted) and fills in ``.costs``.
    ``timeout``/``max_memory`` bound either (``budgets.py``); ``verify=True`` checks
    every step of the reduction with the oracle (``reduce``)."""
    f = as_function(f, len(as_point(point)))
    if method is None:
        rows = jacobian_rows(f, point, None, max_steps=max_steps, record=record,
                             workers=workers, on_unknown=on_unknown, timeout=timeout,
                             max_memory=max_memory, verify=verify)
        return Matrix([r.row for r in rows], "pullback", None, rows)
    ignored = [name for name, given in (("record", record), ("workers", workers),
                                        ("on_unknown", on_unknown != "error"),
                                        ("verify", verify)) if given]
    if ignored:
        raise JacobianError(f"method={method!r} does not take {', '.join(ignored)} (they are "
                            f"options of the default reduction, without method=)")
    from .budgets import budget
    from .engines import jacobian as by_engine
    options = {"max_steps": max_steps} if method == "pullback" else {}
    with budget(timeout, max_memory):
        r = by_engine(f, point, method, **options)
    return Matrix(r.rows, r.engine, r.costs, r.artefact)


def grad1(f: FunctionLike) -> Lam:
    """The derivative of f : ℝ → ℝ as a *term*, ``λx. Ω(f) (λz. λw. w) x 1``
    (rackpropagator's ``grad1``): it can be differentiated again --
    ``grad1(grad1("cos"))`` -- and is evaluated by reduction (``call``)."""
    f = as_function(f, 1)
    dom, cod = function_type(f, 1)
    if not (isinstance(dom, Real) and isinstance(cod, Real)):
        raise JacobianError(f"grad1 needs a function ℝ → ℝ, got one of type {dom} → {cod}; "
                            f"use grad for functions of several inputs")
    # a name of f's own would be captured by the new binder only if free in f
    x = Var("x" if "x" not in fv(f) else fresh("x", fv(f)))
    omega = Lam(Var("z"), Lam(Var("w"), Var("w")))
    return Lam(x, App(App(Pullback(_lambda(f), omega), x), Num(1.0)), Real())


def call(f: FunctionLike, *point, max_steps: int = DEFAULT_MAX_STEPS,
         record: bool = True) -> Value:
    """f at ``point``, by reduction of ``f V`` (e.g. a term made by ``grad1``)."""
    pt = _point_args(point)
    f = as_function(f, len(pt))
    dom, cod, _, _ = _shape(f, len(pt))
    term = App(f, point_term(dom, pt))
    m = Machine(max_steps=max_steps, record=record)
    value, trace = m.reduce(term)
    out = _read_value(value, cod, U.unknown_functions(f), "error", "the value")
    return Value(out, m.steps_taken, trace, term, value)


def vjp(f: FunctionLike, point, *, max_steps: int = DEFAULT_MAX_STEPS, record: bool = True,
        on_unknown: str = "error", verify: bool = False) -> VJP:
    """``(primal, backpropagator)`` of f : ℝⁿ → ℝᵐ at ``point`` from one
    reduction of ``Ω(f) ω V`` with ω a free 1-form (the tangent premises'
    device, papers/calculus.md §5.9): the normal form ``(λp̂. M)⋆ (ω S̄)``
    gives the primal ``S̄`` and the map the backpropagator pulls output
    sensitivities back along (by rule 5, one reduction per call).  ``verify=True``
    checks every step of both with the oracle (``reduce``)."""
    U.check_policy(on_unknown)
    pt = as_point(point)
    f = as_function(f, len(pt))
    dom, cod, in_paths, _ = _shape(f, len(pt))
    unknown = U.unknown_functions(f)
    omega = Var(fresh("omega", fv(f)))
    term = App(Pullback(_lambda(f), omega), point_term(dom, pt))
    m = Machine(max_steps=max_steps, record=record, verify=_verifier(verify))
    value, trace = m.reduce(term)
    nf, value = value, without_lets(value)  # (lets it keeps at an open program's point)
    if isinstance(value, Zero):
        # f is constant: rule 3 drops (λp̂. 𝟎)⋆ (ω S̄) to 𝟎, and S̄ with it;
        # the primal then comes from a reduction of f V (same machine: steps add up)
        dual_map = Lam(direction_pattern(_pattern_of(dom)), Zero())
        primal_term, trace2 = m.reduce(App(f, term.arg))
        for s in trace2:  # one trace: its steps numbered on (permalinks, --show-steps)
            s.index += len(trace)
        trace = trace + trace2
    elif (isinstance(value, Dual) and isinstance(value.functional, App)
            and value.functional.fun == omega):
        dual_map, primal_term = value.lam, value.functional.arg
    else:
        raise JacobianError(f"the pullback along a free 1-form did not reach the form "
                            f"(λp̂. M)⋆ (ω S̄): {value}")
    out = _read_value(primal_term, cod, unknown, "error", "the primal output")
    bp = Backpropagator(dual_map, cod, tuple(in_paths), unknown, on_unknown, max_steps, record,
                        verify)
    return VJP(out, bp, m.steps_taken, trace, term, nf)


def _verifier(verify: bool):
    """The step checker of ``verify=True`` (``results.verify``), or None."""
    if not verify:
        return None
    from .results.verify import Verifier
    return Verifier()


def _pattern_of(dom: Type) -> Term:
    """A pattern of fresh variables shaped like ``dom`` (a variable for ℝ)."""
    if isinstance(dom, Prod):
        return Tuple(tuple(_pattern_of(i) for i in dom.items))
    return Var(fresh("x"))


def D(f: FunctionLike, **options):
    """rackpropagator's ``D+`` in Python form: ``D(f)(2, 3)`` is ``vjp(f, [2, 3])``,
    so ``D(f)(2, 3)([1, 0])`` applies the backpropagator to a sensitivity."""
    def at(*point) -> VJP:
        return vjp(f, _point_args(point), **options)
    return at


def jvp(f: FunctionLike, point, tangent, *, max_steps: int = DEFAULT_MAX_STEPS,
        record: bool = True, on_unknown: str = "error") -> JVP:
    """``(primal, tangent out)`` of f at ``point`` along ``tangent``: the normal
    form of ``⟨f V, (J(f)·t) V⟩`` -- the calculus' own Jacobian, forward mode
    (rules 9–20, and 7J/8J for let series).  The reduction is the forward
    tangent judgment, as a 7J/8J premise is: D-curry is lazy there (18L), so
    the tangent of a let-bound helper is taken where the helper is applied
    (a program whose helpers the value never calls: 14,181 steps eager, 474
    lazy; papers/calculus.md §3.3, §10)."""
    U.check_policy(on_unknown)
    pt = as_point(point)
    f = as_function(f, len(pt))
    dom, cod, _, _ = _shape(f, len(pt))
    t = _flat(tangent, "the tangent")
    if len(t) != len(pt):
        raise JacobianError(f"the tangent has {len(t)} component(s) but the point has {len(pt)}")
    V = point_term(dom, pt)
    lam = _lambda(f)
    term = Tuple((App(lam, V), App(Jac(lam, point_term(dom, t)), V)))
    m = Machine(max_steps=max_steps, record=record, forward=True)
    value, trace = m.reduce(term)
    unknown = U.unknown_functions(f)
    if not (isinstance(value, Tuple) and len(value.items) == 2):
        raise JacobianError(f"forward mode did not reach a pair ⟨primal, tangent⟩: {value}")
    out = _read_value(value.items[0], cod, unknown, "error", "the primal output")
    tan = _read_value(value.items[1], cod, unknown, on_unknown, "the output tangent")
    return JVP(out, tan, m.steps_taken, trace, term, value)
