"""``pullback-calc compare``: one program through every engine, side by side.

With ``--at POINT`` the term is a function ℝⁿ → ℝᵐ and each engine computes its
Jacobian there (sympy too, as a reference, when the function is first order);
without it the term is closed and each engine computes its value (the
pullbacks in it run by that engine).  Every engine's answer is checked
against the first engine that has one (the reduction engine, normally), and
its cost counters are shown in one table.  Exit status: 0 if every engine
that can express the term agrees, 1 if one disagrees or the input is wrong.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional

from . import METHODS, NotSupported, evaluate, jacobian
from .common import Costs

__all__ = ["Outcome", "compare_jacobian", "compare_value"]


@dataclass(frozen=True)
class Outcome:
    """One engine's line of the comparison."""
    engine: str
    rows: Optional[list] = None          # Jacobian rows, or [reals] of a value
    kind: str = "rows"                   # "rows", "reals", "covector", "function", "unsupported"
    costs: Optional[Costs] = None
    message: str = ""                    # why an engine cannot express the term
    agrees: Optional[bool] = None        # None: nothing to compare (the reference, unsupported)
    artefact: object = field(default=None, repr=False, compare=False)


def _close(a: list, b: list, tol: float) -> bool:
    return len(a) == len(b) and all(
        len(x) == len(y) and all(math.isclose(p, q, rel_tol=tol, abs_tol=tol)
                                 for p, q in zip(x, y)) for x, y in zip(a, b))


def _mark(outcomes: list, tol: float) -> list:
    """Each comparable outcome against the first one (the reference)."""
    ref = next((o for o in outcomes if o.rows is not None), None)
    out = []
    for o in outcomes:
        if o.rows is None or ref is None or o is ref:
            out.append(o)
        else:
            out.append(Outcome(o.engine, o.rows, o.kind, o.costs, o.message,
                               _close(o.rows, ref.rows, tol), o.artefact))
    return out


def compare_jacobian(f, point, tol: float = 1e-9, max_steps: Optional[int] = None,
                     methods=METHODS, with_sympy: bool = True) -> list:
    """The Jacobian of f at ``point`` by every engine (and sympy), marked."""
    outcomes = []
    for m in methods:
        opts = {"max_steps": max_steps} if m == "pullback" and max_steps else {}
        try:
            r = jacobian(f, point, m, **opts)
        except NotSupported as e:
            outcomes.append(Outcome(m, kind="unsupported", message=e.message))
            continue
        outcomes.append(Outcome(m, r.rows, "rows", r.costs, artefact=r.artefact))
    if with_sympy:
        rows = _sympy_rows(f, point)
        if rows is not None:
            outcomes.append(Outcome("sympy", rows, "rows"))
    return _mark(outcomes, tol)


def _sympy_rows(f, point) -> Optional[list]:
    try:
        from ..results.sympy_bridge import sympy_jacobian
        return [[float(v) for v in row] for row in sympy_jacobian(f, point)]
    except Exception:  # not first order (Church lists, pullbacks): sympy does not apply
        return None


def compare_value(term, tol: float = 1e-9, max_steps: Optional[int] = None,
                  methods=METHODS) -> list:
    """The value of a closed term by every engine, marked."""
    outcomes = []
    for m in methods:
        opts = {"max_steps": max_steps} if m == "pullback" and max_steps else {}
        try:
            v = evaluate(term, m, **opts)
        except NotSupported as e:
            outcomes.append(Outcome(m, kind="unsupported", message=e.message))
            continue
        rows = [v.reals] if v.reals is not None else None
        outcomes.append(Outcome(m, rows, v.kind, v.costs, artefact=v.artefact))
    return _mark(outcomes, tol)


# ---- presentation ---------------------------------------------------------------------------

def _num(v: float) -> str:
    from ..syntax.printer import show_num
    return show_num(v)


def _rows_text(o: Outcome) -> str:
    if o.kind == "unsupported":
        return "not supported by this engine"
    if o.rows is None:
        return "a function (not compared)"
    return "; ".join("[" + ", ".join(_num(v) for v in r) + "]" for r in o.rows)


def _agree_text(o: Outcome) -> str:
    if o.agrees is None:
        return "reference" if o.rows is not None else "—"
    return "yes" if o.agrees else "NO"


COLUMNS = ("engine", "result", "agrees", "primal", "d.mul", "d.add", "d.other", "allocated",
           "steps")


def table(outcomes: list) -> list[str]:
    rows = []
    for o in outcomes:
        c = o.costs
        cost = ["", "", "", "", "", ""] if c is None else [
            str(c.primal_ops), str(c.derivative_mul), str(c.derivative_add),
            str(c.derivative_other), f"{c.allocations} {c.allocation_kind}",
            "" if c.steps is None else str(c.steps)]
        rows.append([o.engine, _rows_text(o), _agree_text(o), *cost])
    widths = [max(len(r[i]) for r in rows + [list(COLUMNS)]) for i in range(len(COLUMNS))]
    fmt = lambda r: "  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip()  # noqa: E731
    lines = [fmt(list(COLUMNS))] + [fmt(r) for r in rows]
    for o in outcomes:
        if o.kind == "unsupported":
            lines.append(f"{o.engine}: {o.message}")
    return lines


def verdict(outcomes: list) -> tuple[bool, str]:
    compared = [o for o in outcomes if o.rows is not None]
    bad = [o.engine for o in outcomes if o.agrees is False]
    if bad:
        return False, f"MISMATCH: {', '.join(bad)} disagree(s) with {compared[0].engine}"
    if len(compared) < 2:
        if compared or any(o.kind == "function" for o in outcomes):
            return True, ("the value is a function (a covector on a function space, a "
                          "symbolic covector, a closure), which engines represent "
                          "differently, so it is not compared; apply it to a tangent to "
                          "compare")
        return True, "no engine could compute it"
    missing = [o.engine for o in outcomes if o.kind == "unsupported"]
    if missing:
        return True, (f"all {len(compared)} that can compute it agree (not supported by "
                      f"{', '.join(missing)}: see above)")
    return True, f"all {len(compared)} agree"


def to_json(outcomes: list, point) -> dict:
    ok, message = verdict(outcomes)
    return {"point": point, "mode": "jacobian" if point is not None else "value",
            "agree": ok, "verdict": message,
            "engines": [{"engine": o.engine, "kind": o.kind, "rows": o.rows,
                         "agrees": o.agrees, "message": o.message or None,
                         "costs": None if o.costs is None else o.costs.as_dict()}
                        for o in outcomes]}


def artefacts(outcomes: list, unicode: bool = True) -> list[str]:
    """The P–S transformed term (one binding a line) and the tape."""
    lines = []
    for o in outcomes:
        if o.engine == "ps" and o.artefact is not None:
            lines += ["", "P–S transformed program:", *let_lines(o.artefact, unicode)]
        if o.engine == "tape" and o.artefact is not None and hasattr(o.artefact, "listing"):
            lines += ["", "tape (Wengert list) of the forward pass:", o.artefact.listing()]
    return lines


def let_lines(t, unicode: bool = True, indent: int = 2) -> list[str]:
    """A let series one binding a line, λ-bodies indented (for reading a transform)."""
    from ..syntax import terms as T
    from ..syntax.printer import pretty
    pad = " " * indent
    out = []
    while isinstance(t, T.App) and isinstance(t.fun, T.Lam):
        bound = t.arg
        name = pretty(t.fun.pat, unicode)
        if isinstance(bound, T.Lam) and isinstance(bound.body, T.App) \
                and isinstance(bound.body.fun, T.Lam):
            out.append(f"{pad}let {name} = λ{pretty(bound.pat, unicode)}.")
            out += let_lines(bound.body, unicode, indent + 4)
        else:
            out.append(f"{pad}let {name} = {_tail(bound, unicode, indent)}")
        t = t.fun.body
    out.append(f"{pad}in {_tail(t, unicode, indent)}")
    return out


def _tail(t, unicode: bool, indent: int) -> str:
    from ..syntax import terms as T
    from ..syntax.printer import pretty
    if isinstance(t, T.Tuple) and len(t.items) == 2 and isinstance(t.items[1], T.Lam) \
            and isinstance(t.items[1].body, T.App) and isinstance(t.items[1].body.fun, T.Lam):
        bp = t.items[1]
        inner = let_lines(bp.body, unicode, indent + 4)
        return (f"⟨{pretty(t.items[0], unicode)}, λ{pretty(bp.pat, unicode)}.\n"
                + "\n".join(inner) + f"\n{' ' * indent}⟩")
    return pretty(t, unicode)
