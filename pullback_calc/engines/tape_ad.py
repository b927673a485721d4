"""A tape (Wengert list) with a reverse sweep and a rule table (``method="tape"``).

Yota's "build your own AD" and DVL's reverse mode (``../shared/seeds/``):

- the forward pass runs the program on *tape cells*: every function symbol
  applied to a cell appends an entry ``%k = op(%i, %j)`` to the tape, with the
  partial derivatives of op at the primal arguments (its ``rrule``: the value and
  what its pullback needs);
- the reverse sweep seeds the output's adjoint (1, or a covector's values) and
  walks the tape backwards, each entry adding adjoint × partial to its inputs'
  adjoints (fan-out is summed there, as Yota's ``set_or_add_deriv!``).

The rule table ``RULES`` has one entry per function symbol, *derived from*
``prims.PARTIALS`` (the same table rule 15 of the calculus reads): an entry
evaluates the symbol's partial-derivative terms at the primal arguments, on
this engine's own numbers, so a symbol registered in ``prims`` works here too.

Nesting, as in DVL: every tape has a perturbation tag, newer tapes larger; a
cell's primal and partials may be cells of older tapes, so the arithmetic of
an inner reverse sweep is itself recorded on the outer tape, and an operation
on cells of several tapes works on the newest and treats the others as
constants (no perturbation confusion).  A pullback written in the term,
Ω(f) ω, runs this way at each point: a fresh tape, f on input cells, ω at the
output as a seed, a sweep, and the covector v ↦ gradient · v.

Not expressible here (``NotSupported``): J(λq.S)·P, and pullbacks whose point
or output is not made of reals (tapes hold reals: DVL's "cannot tapify
procedures").
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Optional

from ..deep import deep
from ..syntax import prims
from ..syntax import terms as T
from ..syntax.types import Prod
from .common import EngineResult, Measure, NotSupported
from .evaluator import ZERO, Builtin, Closure, Env, EvalError, Evaluator, checked
from .tables import DerivedTable

__all__ = ["RULES", "Tape", "Cell", "jacobian", "value", "TapeEngine"]

_tags = itertools.count(1)


@dataclass(frozen=True)
class Entry:
    """One line of the Wengert list: op applied to (input index, partial) pairs."""
    op: str
    inputs: tuple   # ((index, partial) …) of the cells on this tape; partial None means 1
    primal: object
    operands: tuple = ()  # for the listing: "%i" for a cell of this tape, else the constant


class Tape:
    """The tape of one run of reverse mode (its perturbation ``tag``)."""

    def __init__(self):
        self.tag = next(_tags)
        self.entries: list[Entry] = []

    def push(self, entry: Entry) -> "Cell":
        self.entries.append(entry)
        return Cell(self, len(self.entries) - 1, entry.primal)

    def listing(self, width: int = 0) -> str:
        """The tape as Yota prints it: ``%k = op(%i, %j)   ∂ = (…)``."""
        lines = []
        for k, e in enumerate(self.entries):
            if e.op == "input":
                lines.append(f"  inp %{k}  = {_num(e.primal)}")
                continue
            args = ", ".join(e.operands)
            parts = ", ".join("1" if d is None else _num(d) for _, d in e.inputs)
            lines.append(f"  %{k} = {e.op}({args}) = {_num(e.primal)}    ∂ = ({parts})")
        return "\n".join(lines)


class Cell:
    """A real that lives on a tape: DVL's tape-cell (tag, id, primal)."""
    __slots__ = ("tape", "index", "primal")

    def __init__(self, tape: Tape, index: int, primal):
        self.tape, self.index, self.primal = tape, index, primal

    def __repr__(self):
        return f"Cell(%{self.index} on tape {self.tape.tag}, {self.primal!r})"


def _num(v) -> str:
    while isinstance(v, Cell):
        v = v.primal
    return f"{float(v):.6g}" if isinstance(v, (int, float)) else repr(v)


# ---- the rule table: op ↦ partials at the primal arguments -----------------------------

def _rrule(op: str):
    """The partials of op at ``primals`` (on ``engine``'s numbers), from
    ``prims.PARTIALS``: its terms evaluated with the arguments bound."""
    def partials(primals: tuple, engine: "TapeEngine", active: tuple) -> tuple:
        names = tuple(T.Var(f"arg{i}") for i in range(len(primals)))
        env = {n.name: v for n, v in zip(names, primals)}
        # only the active arguments' partials (log a of a constant exponent may not exist)
        return tuple(None if d is None or not on else engine.partial(d, env)
                     for d, on in zip(prims.PARTIALS[op](*names), active))
    return partials


#: op ↦ (primal arguments, engine, which are on the tape) ↦ the tuple of ∂op/∂argᵢ
#: (None: identically 1, or an argument not on the tape)
RULES = DerivedTable("tape rrules", _rrule)


class TapeEngine(Evaluator):
    """The evaluator on tape cells: its arithmetic records, Ω runs a sweep."""

    def __init__(self, measure: Measure):
        super().__init__(self.arith, measure, _is_number)
        self.forced: Optional[str] = None  # "derivative" while sweeping or taking partials

    # -- arithmetic on cells -------------------------------------------------------------
    def arith(self, op: str, args: tuple, role: str):
        role = self.forced or role
        cells = [a for a in args if isinstance(a, Cell)]
        if not cells:
            self.measure.op(role, op)
            return checked("tape", op, prims.EVAL[op], tuple(float(a) for a in args))
        tape = max((c.tape for c in cells), key=lambda t: t.tag)
        primals = tuple(a.primal if isinstance(a, Cell) and a.tape is tape else a for a in args)
        active = tuple(isinstance(a, Cell) and a.tape is tape for a in args)
        value = self.arith(op, primals, role)
        outer, self.forced = self.forced, "derivative"
        try:
            partials = RULES[op](primals, self, active)
        finally:
            self.forced = outer
        inputs = tuple((a.index, d) for a, d in zip(args, partials)
                       if isinstance(a, Cell) and a.tape is tape)
        operands = tuple(f"%{a.index}" if isinstance(a, Cell) and a.tape is tape else _num(a)
                         for a in args)
        self.measure.alloc("tape cell")
        return tape.push(Entry(op, inputs, value, operands))

    def partial(self, term: T.Term, env: dict):
        """A partial-derivative term of ``prims.PARTIALS`` at the given values."""
        if isinstance(term, T.Var):
            return env[term.name]
        if isinstance(term, T.Num):
            return term.value
        if isinstance(term, T.Prim):
            return self.arith(term.op, tuple(self.partial(a, env) for a in term.args),
                              "derivative")
        raise EvalError(f"unexpected partial derivative term {term}")

    def _d(self, op: str, *args):
        return self.arith(op, args, "derivative")

    # -- the reverse sweep ------------------------------------------------------------------
    def sweep(self, tape: Tape, seeds: dict) -> dict:
        """Adjoints of every entry, from the seeds (index ↦ adjoint), back to front."""
        adjoint = dict(seeds)
        for k in range(len(tape.entries) - 1, -1, -1):
            a = adjoint.get(k)
            if a is None:
                continue
            for i, d in tape.entries[k].inputs:
                contribution = a if d is None else self._d("mul", a, d)
                adjoint[i] = contribution if i not in adjoint else \
                    self._d("add", adjoint[i], contribution)
        return adjoint

    def tapify(self, tape: Tape, x):
        """Reals become input cells (DVL's tapify); tuples componentwise."""
        if isinstance(x, tuple):
            return tuple(self.tapify(tape, v) for v in x)
        if x is ZERO:
            x = 0.0
        if not _is_number(x):
            raise NotSupported("a pullback at a point that is a function (a Church list, a "
                               "closure): tapes hold reals, so the tape engine differentiates "
                               "with respect to reals and tuples of them only")
        self.measure.alloc("tape cell")
        return tape.push(Entry("input", (), x))

    # -- Ω(f) ω at a point: one tape, one sweep ------------------------------------------------
    def pullback(self, t: T.Pullback, env: Env):
        f, omega = self.eval(t.fun, env), self.eval(t.form, env)

        def at(x):
            if x is ZERO:  # the zero vector has no shape of its own: the tangent's, or f's
                return Builtin(lambda v: self.dot(self.gradient(
                    f, _zeros_like(v) if isinstance(v, tuple) else x,
                    lambda y: self.apply(omega, y)), v))
            g = self.gradient(f, x, lambda y: self.apply(omega, y))
            return Builtin(lambda v: self.dot(g, v))
        return Builtin(at)

    def gradient(self, f, x, covector_at):
        """The covector ω(f x) ∘ Jf(x) as a vector like x: run f on a fresh tape,
        seed each output cell with the covector's value on that output's basis
        vector, sweep, and read the inputs' adjoints."""
        tape = Tape()
        xc = self.tapify(tape, _shaped(f, x))
        y = self.apply(f, xc)
        y0 = _strip(y, tape)
        c = covector_at(y0)
        seeds: dict = {}
        for path, leaf in _leaves(y):
            if isinstance(leaf, Cell) and leaf.tape is tape:
                s = self.apply(c, _basis(y0, path))
                s = 0.0 if s is ZERO else s
                seeds[leaf.index] = s if leaf.index not in seeds else \
                    self._d("add", seeds[leaf.index], s)
        adjoint = self.sweep(tape, seeds)
        return _rebuild(xc, lambda cell: adjoint.get(cell.index, 0.0))

    def dot(self, g, v):
        if isinstance(g, tuple):
            total = None
            vs = v if isinstance(v, tuple) else (ZERO,) * len(g)
            for a, b in zip(g, vs):
                term = self.dot(a, b)
                total = term if total is None else self._d("add", total, term)
            return total
        return self._d("mul", g, 0.0 if v is ZERO else v)


def _zeros_like(v):
    """A point of zeros shaped like the tangent v (a tuple of reals, 𝟎s, tuples)."""
    return tuple(_zeros_like(i) for i in v) if isinstance(v, tuple) else 0.0


def _shaped(f, x):
    """The point x, with the zero vector 𝟎 (no shape of its own) given the shape of
    f's pattern: its reals are the inputs the tape differentiates with respect to."""
    if x is not ZERO or not isinstance(f, Closure):
        return x

    def of_type(ty):
        return tuple(of_type(i) for i in ty.items) if isinstance(ty, Prod) else 0.0

    def zeros(p):
        return tuple(zeros(i) for i in p.items) if isinstance(p, T.Tuple) else 0.0
    # a variable's shape is its annotation's (λx : ℝ × ℝ. π1 x at 𝟎: two inputs, not one)
    if isinstance(f.lam.pat, T.Var) and isinstance(f.lam.ann, Prod):
        return of_type(f.lam.ann)
    return zeros(f.lam.pat)


def _is_number(v) -> bool:
    return isinstance(v, (float, int, Cell))


def _leaves(y, here=()):
    if isinstance(y, tuple):
        return [lp for i, it in enumerate(y, 1) for lp in _leaves(it, here + (i,))]
    if isinstance(y, (Closure, Builtin)):
        raise NotSupported("a pullback along a function whose output is a function: the tape "
                           "engine seeds reals only")
    return [(here, y)]


def _strip(y, tape: Tape):
    """y with this tape's cells replaced by their primals."""
    if isinstance(y, tuple):
        return tuple(_strip(v, tape) for v in y)
    if isinstance(y, Cell) and y.tape is tape:
        return y.primal
    return y


def _basis(y, path, here=()):
    if isinstance(y, tuple):
        return tuple(_basis(v, path, here + (i,)) for i, v in enumerate(y, 1))
    return 1.0 if here == path else 0.0


def _rebuild(x, leaf):
    if isinstance(x, tuple):
        return tuple(_rebuild(v, leaf) for v in x)
    return leaf(x)


def _flat(x) -> list:
    if isinstance(x, tuple):
        return [v for it in x for v in _flat(it)]
    while isinstance(x, Cell):
        x = x.primal
    return [0.0 if x is ZERO else float(x)]


# ---- running it ---------------------------------------------------------------------------

@deep
def jacobian(f: T.Term, point, cotangents: Optional[list] = None) -> EngineResult:
    """The rows of the Jacobian of f : ℝⁿ → ℝᵐ at ``point``: one forward pass
    recording the tape, then one reverse sweep per output (seed 1 there) -- or,
    with ``cotangents`` (lists of m reals), one sweep per cotangent."""
    from ..semantics.oracle import shape_point
    from .ps import seeds
    measure = Measure()
    engine = TapeEngine(measure)
    F = engine.eval(f, Env({}))
    tape = Tape()
    xc = engine.tapify(tape, shape_point(f, point))
    y = engine.apply(F, xc)
    leaves = _leaves(y)
    rows = []
    for seed in seeds(_strip(y, tape), cotangents, _function_output):
        start: dict = {}
        for (_path, leaf), s in zip(leaves, _flat(seed)):
            if isinstance(leaf, Cell) and leaf.tape is tape and s != 0.0:
                start[leaf.index] = s if leaf.index not in start else start[leaf.index] + s
        adjoint = engine.sweep(tape, start)
        rows.append(_flat(_rebuild(xc, lambda c: adjoint.get(c.index, 0.0))))  # noqa: B023
    return EngineResult("tape", rows, measure.freeze("tape cells"), tape)


def _function_output(_leaf) -> None:
    raise NotSupported("the function's output is a function: the tape engine reads rows of "
                       "functions ℝⁿ → ℝᵐ")


@deep
def value(term: T.Term):
    """The value of a closed term, its pullbacks run on tapes; returns
    (value, costs, None)."""
    measure = Measure()
    v = TapeEngine(measure).eval(term, Env({}))
    return v, measure.freeze("tape cells"), None


def apply_value(v, arg, measure: Optional[Measure] = None):
    return TapeEngine(measure or Measure()).apply(v, arg)
