"""The reduction engine (``method="pullback"``), measured like the others.

Row p of the Jacobian is the normal form of Ω(f) (λz. e_p*) V (``results.jacobian``);
a vector-Jacobian product c·J is one reduction with the 1-form λz. λw. c·w.
Its costs are read off the recorded trace: a rule-4 step (δ, a function symbol
on numerals) is a real operation, counted as primal in the forward phase and
as derivative work in the reverse phase and in the premises of rules 5 and 6
(back-propagation's arithmetic); the allocations are the dual maps built by
rule ``pb`` (one per elementary stage: the calculus' backpropagators); the
steps are all steps, premises included.
"""
from __future__ import annotations

from collections import Counter
from typing import Optional

from ..reduction.machine import DEFAULT_MAX_STEPS, Machine
from ..results.jacobian import jacobian_rows, reduce
from ..results.rows import as_point, coordinate_paths, function_type, point_term, read_row
from ..syntax.terms import ZERO, App, Lam, Num, Prim, Proj, Pullback, Term, Var
from .common import EngineResult, costs_from_counter

__all__ = ["jacobian", "value", "tally"]


def tally(trace, counter: Counter, phase: Optional[str] = None) -> None:
    """Count rule-4 steps by operation and phase, and ``pb`` steps, in a trace
    and its premises."""
    for step in trace:
        p = phase or step.phase
        if step.rule == "4" and isinstance(step.redex, Prim):
            counter["primal" if p == "forward" else "derivative", step.redex.op] += 1
        elif step.rule == "pb":
            counter["allocation", "dual map"] += 1
        for d in step.premises:
            tally(d.steps, counter, "reverse" if d.rule in ("5", "6") else None)


def jacobian(f, point, cotangents: Optional[list] = None,
             max_steps: int = DEFAULT_MAX_STEPS) -> EngineResult:
    c: Counter = Counter()
    if cotangents is None:
        rows = jacobian_rows(f, point, max_steps=max_steps, record=True)
        for r in rows:
            tally(r.trace, c)
        return EngineResult("pullback", [r.row for r in rows],
                            costs_from_counter(c, "dual maps", sum(r.steps for r in rows)), rows)
    pt = as_point(point)
    dom, cod = function_type(f, len(pt))
    in_paths, out_paths = coordinate_paths(dom, "input"), coordinate_paths(cod, "output")
    out, steps = [], 0
    for cot in cotangents:
        if len(cot) != len(out_paths):
            from ..errors import JacobianError
            raise JacobianError(f"the cotangent has {len(cot)} coordinate(s) but the function "
                                f"has {len(out_paths)} output(s)")
        w = Var("w")
        body: Optional[Term] = None
        for ci, path in zip(cot, out_paths):
            at: Term = w
            for i in path:
                at = Proj(i, at)
            term = Prim("mul", (Num(float(ci)), at))
            body = term if body is None else Prim("add", (body, term))
        omega = Lam(Var("z"), Lam(w, ZERO if body is None else body))  # (0: no cotangent)
        m = Machine(max_steps=max_steps, record=True)
        covector, trace = m.reduce(App(Pullback(f, omega), point_term(dom, pt)))
        tally(trace, c)
        steps += m.steps_taken
        out.append(read_row(covector, in_paths))
    return EngineResult("pullback", out, costs_from_counter(c, "dual maps", steps), None)


def value(term, max_steps: int = DEFAULT_MAX_STEPS):
    """The normal form of a closed term: (normal form, costs, the reduction)."""
    r = reduce(term, max_steps=max_steps, record=True, check=False)
    c: Counter = Counter()
    tally(r.trace, c)
    return r.value, costs_from_counter(c, "dual maps", r.steps), r
