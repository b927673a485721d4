"""``pullback-calc check``: every row by reduction and by an independent reference
(sympy, or the forward-mode oracle and central differences), or a closed term's
value against the oracle's."""
from __future__ import annotations

import json
import math
from typing import Optional, Sequence

from ..errors import PullbackCalcError
from .options import (UsageError, jobs_args, max_steps_args, parse_point, seconds,
                      source_args, tolerance)
from .show import abbrev_term, fmt_point, fmt_row, function_note, json_num, note
from .source import Source, output_count


def add(sub) -> None:
    p = sub.add_parser("check", help="cross-check a reduction against an independent reference",
                       allow_abbrev=False,
                       description="With --at: compute every row of the Jacobian by reduction "
                                   "and by sympy — or, where sympy cannot express the program "
                                   "(helpers outside the λ, nested pullbacks, function-typed "
                                   "data) or takes longer than --sympy-timeout, by the "
                                   "forward-mode oracle and central finite differences. "
                                   "Without --at: reduce a closed term and compare its value "
                                   "with the forward-mode oracle's (a function or covector is "
                                   "applied to sample arguments first). Says which reference "
                                   "was used; exit status 0 if they agree, 1 if not.")
    source_args(p)
    p.add_argument("--at", type=parse_point, default=None, metavar="POINT",
                   help="the point, e.g. 1.5,2 (for a function ℝⁿ → ℝᵐ)")
    p.add_argument("--tol", type=tolerance, default=1e-9, metavar="T",
                   help="relative and absolute tolerance (default 1e-9)")
    p.add_argument("--sympy-timeout", type=seconds, default=None, metavar="S",
                   help="give sympy at most S seconds, then use the oracle (default 10)")
    p.add_argument("--json", action="store_true",
                   help="print the comparison as JSON: {point, tolerance, reference, "
                        "why_not_sympy, rows (each: reduction, steps, sympy or oracle and "
                        "differences, agree), agree} with --at; {reference, steps, probes, "
                        "agree} without")
    p.add_argument("--ascii", action="store_true", help="JSON: ASCII spellings of terms")
    max_steps_args(p)
    jobs_args(p)
    p.set_defaults(run=run)


def _agree(a: float, b: float, tol: float) -> bool:
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


def _difference_ok(got: Sequence[float], fd: Sequence[float], tol: float) -> bool:
    """Central differences are accurate to about 1e-6 of the row's scale."""
    scale = max([1.0, *map(abs, got)])
    t = max(tol, 1e-6)
    return len(got) == len(fd) and all(math.isclose(a, b, rel_tol=t, abs_tol=t * scale)
                                       for a, b in zip(got, fd))


def jacobian_check(term, point, tol: float, max_steps: int, jobs: Optional[int] = None,
                   timeout: Optional[float] = None, source: Optional[Source] = None) -> dict:
    """Rows by reduction against sympy, or — when sympy cannot express the
    program or runs out of time — the forward-mode oracle and central
    differences: ``{"reference", "why_not_sympy", "rows", "agree"}``, each row
    ``{"row", "reduction", "steps", "sympy" | "oracle" and "differences", "agree"}``."""
    from ..results import crosscheck as X
    from ..results.rows import function_type
    from .jacobian import reduce_rows
    m = output_count(term, point, source)
    dom, cod = function_type(term, len(point))
    # sympy works in a child process while the rows are reduced here
    job = X.SympyJob(term, point, X.SYMPY_TIMEOUT if timeout is None else timeout)
    try:
        rows = reduce_rows(term, point, list(range(m)), jobs, max_steps=max_steps,
                           record=False)
    except BaseException:
        job.cancel()
        raise
    expected, why = job.result()
    out = []
    if expected is not None:
        for p, r in enumerate(rows):
            s = expected[p]
            good = len(r.row) == len(s) and all(_agree(a, b, tol) for a, b in zip(r.row, s))
            out.append({"row": p, "reduction": r.row, "steps": r.steps, "sympy": s,
                        "agree": good})
        return {"reference": "sympy", "why_not_sympy": None, "rows": out,
                "agree": all(r["agree"] for r in out)}
    try:
        oracle = X.oracle_rows(term, dom, cod, point)
        diffs = X.difference_rows(term, dom, cod, point)
    except Exception as e:  # e.g. log of a negative; the oracle's own errors (OracleError, …)
        raise PullbackCalcError(f"no reference could check this program: {why}, and the "
                                f"forward-mode oracle failed ({e})") from None
    for p, r in enumerate(rows):
        good = len(r.row) == len(oracle[p]) and all(
            _agree(a, b, tol) for a, b in zip(r.row, oracle[p]))
        near = _difference_ok(r.row, diffs[p], tol)
        out.append({"row": p, "reduction": r.row, "steps": r.steps, "oracle": oracle[p],
                    "oracle_agrees": good, "differences": [round(v, 9) for v in diffs[p]],
                    "differences_agree": near, "agree": good and near})
    return {"reference": "oracle", "why_not_sympy": why, "rows": out,
            "agree": all(r["agree"] for r in out)}


REFERENCE = {"sympy": "sympy",
             "oracle": "the forward-mode oracle and central finite differences"}


def check_lines(term, point, tol: float, max_steps: int, jobs: Optional[int] = None,
                timeout: Optional[float] = None,
                source: Optional[Source] = None) -> tuple[list[str], bool, str]:
    """``jacobian_check`` as lines: (lines, all agree, the reference's name)."""
    got = jacobian_check(term, point, tol, max_steps, jobs, timeout, source)
    return _jacobian_lines(got), got["agree"], REFERENCE[got["reference"]]


def _ok(good: bool) -> str:
    return "OK" if good else "MISMATCH"


def _jacobian_lines(got: dict) -> list[str]:
    lines = [] if got["why_not_sympy"] is None else [f"(not sympy: {got['why_not_sympy']})"]
    for r in got["rows"]:
        if "sympy" in r:
            lines.append(f"row {r['row']}: reduction {fmt_row(r['reduction'])}    "
                         f"({r['steps']} steps)")
            lines.append(f"       sympy     {fmt_row(r['sympy'])}    {_ok(r['agree'])}")
        else:
            lines.append(f"row {r['row']}: reduction   {fmt_row(r['reduction'])}    "
                         f"({r['steps']} steps)")
            lines.append(f"       oracle      {fmt_row(r['oracle'])}    "
                         f"{_ok(r['oracle_agrees'])}")
            lines.append(f"       differences {fmt_row(r['differences'])}    "
                         f"{_ok(r['differences_agree'])}")
    return lines


def value_check(term, ty, tol: float, max_steps: int) -> dict:
    """A closed term's value by reduction against the forward-mode oracle's:
    ``{"reference", "steps", "probes", "agree"}``, each probe ``{"applied_to"
    (the sample arguments, as terms), "reduction", "oracle", "agree"}``."""
    from ..results import crosscheck as X
    try:
        vc = X.check_value(term, ty, max_steps)
    except ValueError as e:
        raise PullbackCalcError(f"cannot check this program: {e}") from None
    probes = []
    for args, got, want in vc.probes:
        good = len(got) == len(want) and all(_agree(a, b, tol) for a, b in zip(got, want))
        probes.append({"applied_to": list(args), "reduction": got, "oracle": want,
                       "agree": good})
    return {"reference": "oracle", "steps": vc.steps, "probes": probes,
            "agree": all(p["agree"] for p in probes)}


def _value_lines(got: dict) -> list[str]:
    lines = [f"({got['steps']} reduction steps)"]
    for p in got["probes"]:
        if p["applied_to"]:
            shown = " ".join(f"({abbrev_term(a)})" for a in p["applied_to"])
            lines.append(f"applied to {shown}:")
        lines.append(f"  reduction {fmt_row(p['reduction'])}")
        lines.append(f"  oracle    {fmt_row(p['oracle'])}    {_ok(p['agree'])}")
    return lines


def run(args, out) -> int:
    source = args.source = Source(args)
    term = source.term()
    given: list = []
    if source.free:  # an open program is checked with samples for its free variables
        from ..results.crosscheck import bind_free
        (source.typecheck(term) if args.at is None else
         output_count(term, args.at, source))
        term, given = bind_free(term, source.free)
    if args.at is None:
        from ..typing import typecheck
        ty = typecheck(term, source.free, closed=not source.no_check)
        from ..syntax.types import Arrow, real_leaves
        if isinstance(ty, Arrow) and real_leaves(ty.dom) is not None \
                and real_leaves(ty.cod) is not None:
            raise UsageError("this is a function ℝⁿ → ℝᵐ: check its Jacobian at a point with "
                             "--at X,Y,… (see 'pullback-calc check --help')")
        got = value_check(term, ty, args.tol, args.max_steps)
        lines = [f"Value by reduction vs the forward-mode oracle (tolerance {args.tol:g})",
                 *_value_lines(got)]
    else:
        got = jacobian_check(term, args.at, args.tol, args.max_steps, args.jobs,
                             args.sympy_timeout, source)
        lines = [f"Jacobian at {fmt_point(args.at)}: reduction vs "
                 f"{REFERENCE[got['reference']]} (tolerance {args.tol:g})", *_jacobian_lines(got)]
    if args.json:
        doc = {**({} if args.at is None else {"point": args.at}), "tolerance": args.tol,
               **got, "free": dict(given)}
        json.dump(_json_ready(doc, not args.ascii), out, ensure_ascii=args.ascii)
        out.write("\n")
    else:
        if given:
            lines.insert(1, "free variables, for this check: " + ", ".join(
                f"{n} = {abbrev_term(v, 50)}" for n, v in given))
        lines.append("all rows agree" if got["agree"] and args.at is not None else
                     "all values agree" if got["agree"] else
                     "MISMATCH: reduction and the reference disagree")
        out.write("\n".join(lines) + "\n")
    note(function_note(term, source))
    return 0 if got["agree"] else 1


def _json_ready(v, unicode: bool):
    """Numbers as JSON numbers (whole ones as integers), terms printed."""
    from ..syntax.printer import pretty
    from ..syntax.terms import Term
    if isinstance(v, dict):
        return {k: _json_ready(x, unicode) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_json_ready(x, unicode) for x in v]
    if isinstance(v, Term):
        return pretty(v, unicode)
    if isinstance(v, float):
        return json_num(v)
    return v
