"""The tape view: a function's A-normal let series as a numbered Wengert list.

A-reduction (``areduction/anf.py``) turns the body of ``λp. S`` into a let
series ``let x₁ = E₁ in … let xₙ = Eₙ in xₙ`` of elementary terms -- one
operation each, operands atoms: exactly a Wengert list, the tape of
tape-based AD and the equations of a jaxpr.  ``tape(f)`` lists it; with a
point it also shows

* the **forward values**, read off the reduction's forward phase: rule ``pb``
  at the last stage is applied to the environment ``⟨…⟨⟨V, v₁⟩, v₂⟩…, vₙ₋₁⟩``
  of every earlier value, and ``vₙ`` is the argument of the 1-form ω;
* the **adjoints**, read off the reverse phase: each rule-5 step composes the
  covector with one stage's linear map and yields a covector on the
  environment ``⟨p, x₁, …, xₖ⟩``; the coefficient of ``dxₖ`` there is the
  adjoint x̄ₖ (every later use of xₖ has been pulled back by then), and the
  final normal form holds the inputs' adjoints (the Jacobian row).

Nothing is recomputed in Python: values and adjoints are terms taken from
the trace of ``jacobian_row``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Sequence, Union

from ..errors import JacobianError
from ..reduction.env import PatVars, component
from ..reduction.linear import to_lincomb
from ..reduction.machine import DEFAULT_MAX_STEPS, Machine
from ..syntax.printer import pretty, show_num
from ..syntax.subst import bind_pattern, fv
from ..syntax.terms import (App, Dual, Jac, Lam, Num, Prim, Proj, Pullback, Sum, Term, Tuple, Var,
                            Zero, formal_sum, pattern_vars)
from ..syntax.types import real_leaves
from .jacobian import as_term, jacobian_row
from .rows import function_type

__all__ = ["TapeEntry", "Tape", "tape", "let_series"]


@dataclass(frozen=True)
class TapeEntry:
    """One line of the tape: ``name = operation operands`` (an elementary term),
    with its forward value and adjoint when the tape was taken at a point."""
    index: int                      # 1, 2, … (0 for an input)
    name: str                       # the variable (or pattern) bound
    operation: str                  # 'mul', 'sin', 'tuple', 'π1', 'apply', 'λ', 'input', …
    operands: tuple = ()            # the operand terms (atoms)
    term: Optional[Term] = None     # the elementary term itself
    value: Optional[Term] = None    # forward value (a numeral, tuple, λ, …)
    adjoint: Optional[Term] = None  # the adjoint from the reverse phase


@dataclass(frozen=True)
class Tape:
    """The Wengert list of ``function``; ``point``/``steps``/``trace`` are those
    of the reduction the values and adjoints were read from (``jacobian_row``
    of row ``row``), or None without a point."""
    function: Term
    inputs: tuple
    entries: tuple
    output: str
    point: Optional[tuple] = None
    row: int = 0
    steps: Optional[int] = None
    trace: list = field(default_factory=list, repr=False)

    def lines(self, unicode: bool = True, width: int = 40) -> list[str]:
        head = f"tape of {pretty(self.function, unicode)}"
        if self.point is not None:
            head += (f" at ({', '.join(show_num(v) for v in self.point)})"
                     f"{f', row {self.row}' if self.row else ''}: forward values and "
                     f"adjoints from the reduction ({self.steps} steps)")
        rows = [("in", e.name, "", e) for e in self.inputs]
        for e in self.entries:
            ops = " ".join(_short(o, unicode, width) for o in e.operands)
            rows.append((str(e.index), e.name, f"{e.operation} {ops}".rstrip(), e))
        w_idx = max(len(r[0]) for r in rows)
        w_name = max(len(r[1]) for r in rows)
        w_op = max(len(r[2]) for r in rows)
        out = [head]
        with_values = self.point is not None
        if with_values:
            w_val = max(len(_short(r[3].value, unicode, width)) for r in rows)
            out.append(f"  {'#':>{w_idx}}  {'':<{w_name}}   {'operation':<{w_op}}  "
                       f"{'value':<{w_val}}  adjoint")
        for idx, name, op, e in rows:
            eq = "=" if op else " "
            line = f"  {idx:>{w_idx}}  {name:<{w_name}} {eq} {op:<{w_op}}"
            if with_values:
                line += f"  {_short(e.value, unicode, width):<{w_val}}  " \
                        f"{_short(e.adjoint, unicode, width)}"
            out.append(line.rstrip())
        out.append(f"  out {self.output}")
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())

    def to_json(self, unicode: bool = True) -> dict:
        def entry(e: TapeEntry) -> dict:
            return {"index": e.index, "name": e.name, "operation": e.operation,
                    "operands": [pretty(o, unicode) for o in e.operands],
                    "value": _json_term(e.value, unicode),
                    "adjoint": _json_term(e.adjoint, unicode)}
        doc: dict = {"function": pretty(self.function, unicode),
               "inputs": [entry(e) for e in self.inputs],
               "entries": [entry(e) for e in self.entries], "output": self.output}
        if self.point is not None:
            doc.update(point=list(self.point), row=self.row, steps=self.steps)
        return doc


def _json_term(t: Optional[Term], unicode: bool):
    if t is None:
        return None
    if isinstance(t, Num):
        v = t.value
        return int(v) if v.is_integer() and abs(v) < 2 ** 53 else v
    return pretty(t, unicode)


def _short(t: Optional[Term], unicode: bool, width: int) -> str:
    if t is None:
        return "·"
    s = pretty(t, unicode)
    if width and len(s) > width:
        half = (width - 1) // 2
        s = s[:half] + "…" + s[len(s) - half:]
    return s


# ---- the let series ------------------------------------------------------------------

def _operation(E: Term) -> tuple[str, tuple]:
    """(operation name, operands) of an elementary term."""
    if isinstance(E, Prim):
        return E.op, E.args
    if isinstance(E, Tuple):
        return "tuple", E.items
    if isinstance(E, Proj):
        return f"π{E.index}", (E.arg,)
    if isinstance(E, App):
        return "apply", (E.fun, E.arg)
    if isinstance(E, Sum):
        return "⊕", E.items
    if isinstance(E, Lam):
        return "lambda", (E,)
    if isinstance(E, Jac):
        return "J", (E.lam, E.along)
    if isinstance(E, Dual):
        return "dual", (E.lam, E.functional)
    if isinstance(E, Pullback):
        return "Ω", (E.fun, E.form)
    if isinstance(E, Zero):
        return "zero", ()
    return "copy", (E,)  # an atom


def _split_series(body: Term) -> tuple[list, Term]:
    """[(pattern, E)] of ``let q = E in …`` and the final result atom."""
    out = []
    while isinstance(body, App) and isinstance(body.fun, Lam):  # (is_let)
        out.append((body.fun.pat, body.arg))
        body = body.fun.body
    return out, body


def let_series(f: Union[str, Term], max_steps: int = DEFAULT_MAX_STEPS) -> tuple[Lam, list]:
    """The A-normal form ``λp. L`` of f, by the A-rules of the reduction of ``Ω(f) ω``,
    and its trace."""
    f = as_term(f)
    if not isinstance(f, Lam):
        raise JacobianError("the tape needs a λ-abstraction (a function to differentiate)")
    m = Machine(max_steps=max_steps, record=True)
    _, trace = m.reduce(Pullback(f, Lam(Var("z"), Lam(Var("w"), Var("w")))))
    return _series_from(f, trace), trace


def _series_from(f: Lam, trace: list) -> Lam:
    """The A-normal body the decomposition starts from, with the names rule 8 gave
    it: a let that rebinds a variable of the input pattern or of an earlier let is
    renamed apart once, before the first rule-8 step (``reduction/spine.py``),
    and the environments that the values and adjoints are read from use the new
    name -- ``λx. let x = 𝟎 in …`` has the input x and a coordinate x_1."""
    for s in trace:  # the decomposition starts from the A-normal body
        if s.rule in ("7", "8") and isinstance(s.redex, Pullback) \
                and isinstance(s.redex.fun, Lam):
            lam = s.redex.fun
            c = s.contractum
            if s.rule == "8" and isinstance(c, Pullback) and isinstance(c.fun, Lam) \
                    and isinstance(c.fun.body, Tuple) and isinstance(c.form, Pullback) \
                    and isinstance(c.form.fun, Lam) and isinstance(c.form.fun.pat, Tuple):
                q, rest = c.form.fun.pat.items[1], c.form.fun.body
                first = lam.body
                ann = first.fun.ann if isinstance(first, App) and isinstance(first.fun, Lam) \
                    else None
                lam = Lam(lam.pat, App(Lam(q, rest, ann), c.fun.body.items[1]), lam.ann)
            return lam
    return f  # an elementary body: nothing to name


# ---- reading the reduction -----------------------------------------------------------

def _forward_values(trace: list, omega: Term) -> tuple[dict, Optional[Term]]:
    """{name: value} of the environment at the last stage (rule pb), and the
    output value (ω's argument, rule 1)."""
    env: dict = {}
    out = None
    for s in trace:
        if s.phase == "reverse":
            break
        r = s.redex
        if s.rule == "pb" and isinstance(r, App) and isinstance(r.fun, Pullback) \
                and isinstance(r.fun.fun, Lam):
            env = bind_pattern(r.fun.fun.pat, r.arg)
        elif s.rule == "1" and isinstance(r, App) and r.fun == omega:
            out = r.arg
    return env, out


def _stage_covectors(trace: list) -> dict:
    """{number of environment leaves: (direction leaves, covector)} from the
    rule-5 steps of the reverse phase (the first one's functional is ω at the
    output: key None)."""
    out: dict = {}
    for s in trace:
        if s.rule != "5" or s.phase != "reverse" or not isinstance(s.redex, Dual):
            continue
        if None not in out:
            out[None] = s.redex.functional
        leaves = pattern_vars(s.redex.lam.pat)
        out.setdefault(len(leaves), (leaves, s.contractum))
    return out


def _introductions(trace: list) -> dict:
    """{variable: (leaves of the first environment that holds it, its direction)}
    from the forward phase's pb steps: the environment pattern p of Ω(λp.E) and the
    direction pattern p̂ of its map, leaf by leaf.  A let that rule 8c substituted
    (a copy, a helper, a constant) or 8h computed outside is in no environment: it
    has no adjoint of its own."""
    out: dict = {}
    for s in trace:
        if s.phase == "reverse":
            break
        r, c = s.redex, s.contractum
        if s.rule != "pb" or not isinstance(r, App) or not isinstance(r.fun, Pullback) \
                or not isinstance(r.fun.fun, Lam):
            continue
        while isinstance(c, App) and isinstance(c.fun, Lam):  # (a named functional)
            c = c.fun.body
        if not isinstance(c, Dual):
            continue
        xs, ds = pattern_vars(r.fun.fun.pat), pattern_vars(c.lam.pat)
        if len(xs) == len(ds):
            for x, d in zip(xs, ds):
                out.setdefault(x, (len(xs), d))
    return out


def _adjoint(direction: str, covector: Term) -> Term:
    """The part of a covector on the direction ``direction``: its coefficient
    when the variable occurs alone, else the sum of the atoms mentioning it."""
    if isinstance(covector, Zero):
        return Num(0.0)
    if not isinstance(covector, Lam):
        return covector
    coeffs = to_lincomb(covector.body, PatVars(covector.pat))
    parts = [(a, c) for a, c in coeffs.items() if direction in fv(a)]
    if not parts:
        return Num(0.0)
    if len(parts) == 1 and parts[0][0] == Var(direction):
        return parts[0][1]
    return formal_sum([a if c == Num(1.0) else Prim("mul", (c, a)) for a, c in parts])


def _seed(functional: Optional[Term], cod) -> Optional[Term]:
    """The output's adjoint: the coefficients of ω at the output, e.g. 1 for λw. w."""
    if not (isinstance(functional, Lam) and isinstance(functional.pat, Var)):
        return functional
    paths = real_leaves(cod) or [()]
    coeffs = to_lincomb(functional.body, frozenset({functional.pat.name}))
    vals = [coeffs.get(component(functional.pat, p), Num(0.0)) for p in paths]
    return vals[0] if len(vals) == 1 else Tuple(tuple(vals))


def tape(f: Union[str, Term], at: Optional[Sequence[float]] = None, row: int = 0,
         max_steps: int = DEFAULT_MAX_STEPS) -> Tape:
    """The Wengert list of f (its A-normal let series), one elementary operation
    an entry; with ``at`` a point, each entry's forward value and adjoint (for
    output ``row``) as the reduction of ``Ω(f) (λz. e_row*) at`` computed them."""
    f = as_term(f)
    if not isinstance(f, Lam):
        raise JacobianError("the tape needs a λ-abstraction (a function to differentiate)")
    if at is None:
        series, trace = let_series(f, max_steps)
        steps, point, r = None, None, None
    else:
        r = jacobian_row(f, at, row, max_steps=max_steps, record=True)
        series, trace, steps = _series_from(f, r.trace), r.trace, r.steps
        point = tuple(float(v) for v in ([at] if isinstance(at, (int, float)) else at))
    lets, result = _split_series(series.body)
    if not lets:  # an elementary body E: one operation
        lets, result = [(Var("out"), series.body)], Var("out")
    in_names = pattern_vars(series.pat)

    values: dict = {}
    adjoints: dict = {}
    if r is not None:
        omega = r.term.fun.form
        values, out_value = _forward_values(trace, omega)
        last = lets[-1][0]
        # (the output is the last let's variable -- unless the series ends in another
        # atom: `let x = 1 in 1` outputs the numeral, and x is not the output)
        if not (isinstance(last, Var) and result == last):
            last = None
        if isinstance(last, Var):
            values[last.name] = out_value
        stages = _stage_covectors(trace)
        assert point is not None  # (with r)
        _, cod = function_type(f, len(point))
        if isinstance(last, Var):
            adjoints[last.name] = _seed(stages.get(None), cod)
        final_dirs = pattern_vars(r.covector.pat) if isinstance(r.covector, Lam) else None
        for i, x in enumerate(in_names):
            adjoints[x] = (_adjoint(final_dirs[i], r.covector) if final_dirs
                           else Num(0.0) if isinstance(r.covector, Zero) else None)
        introduced = _introductions(trace)
        for q, _ in (lets[:-1] if last is not None else lets):
            for x in pattern_vars(q):
                got = introduced.get(x)
                if got is None:
                    continue
                leaves, direction = got
                stage = stages.get(leaves)
                if stage is not None and direction in stage[0]:
                    adjoints[x] = _adjoint(direction, stage[1])
                # (else x was no coordinate: 8c substituted it, 8h computed it outside)

    def gather(q: Term, table: dict) -> Optional[Term]:
        """The entry of a pattern: a variable's, or the tuple of its leaves'."""
        if isinstance(q, Var):
            return table.get(q.name)
        assert isinstance(q, Tuple), q
        items = [gather(i, table) for i in q.items]
        kept = [i for i in items if i is not None]
        return Tuple(tuple(kept)) if len(kept) == len(items) else None

    inputs = tuple(TapeEntry(0, x, "input", value=values.get(x), adjoint=adjoints.get(x))
                   for x in in_names)
    entries = []
    for k, (q, E) in enumerate(lets, 1):
        op, operands = _operation(E)
        entries.append(TapeEntry(k, pretty(q), op, tuple(operands), E, gather(q, values),
                                 gather(q, adjoints)))
    return Tape(f, inputs, tuple(entries), pretty(result), point, row, steps, trace)
