"""``pullback-calc check``: every row by reduction and by an independent reference
(sympy, or the forward-mode oracle and central differences), or a closed term's
value against the oracle's."""
from __future__ import annotations

import math
from typing import Optional, Sequence

from ..errors import PullbackCalcError
from .options import (UsageError, jobs_args, max_steps_args, parse_point, seconds,
                      source_args, tolerance)
from .show import abbrev_term, fmt_point, fmt_row, function_note, note
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


def check_lines(term, point, tol: float, max_steps: int, jobs: Optional[int] = None,
                 timeout: Optional[float] = None,
                 source: Optional[Source] = None) -> tuple[list[str], bool, str]:
    """Rows by reduction against sympy, or — when sympy cannot express the
    program or runs out of time — the forward-mode oracle and central
    differences: (lines, all agree, the reference's name)."""
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
    lines, ok = [], True
    if expected is not None:
        for p, r in enumerate(rows):
            s = expected[p]
            good = len(r.row) == len(s) and all(_agree(a, b, tol) for a, b in zip(r.row, s))
            ok = ok and good
            lines.append(f"row {p}: reduction {fmt_row(r.row)}    ({r.steps} steps)")
            lines.append(f"       sympy     {fmt_row(s)}    {'OK' if good else 'MISMATCH'}")
        return lines, ok, "sympy"
    try:
        oracle = X.oracle_rows(term, dom, cod, point)
        diffs = X.difference_rows(term, dom, cod, point)
    except (ArithmeticError, ValueError, TypeError) as e:  # e.g. log of a negative
        raise PullbackCalcError(f"no reference could check this program: {why}, and the "
                                f"forward-mode oracle failed ({e})") from None
    except Exception as e:  # the oracle's own errors (OracleError, …)
        raise PullbackCalcError(f"no reference could check this program: {why}, and the "
                                f"forward-mode oracle failed ({e})") from None
    lines.append(f"(not sympy: {why})")
    for p, r in enumerate(rows):
        good = len(r.row) == len(oracle[p]) and all(
            _agree(a, b, tol) for a, b in zip(r.row, oracle[p]))
        near = _difference_ok(r.row, diffs[p], tol)
        ok = ok and good and near
        lines.append(f"row {p}: reduction   {fmt_row(r.row)}    ({r.steps} steps)")
        lines.append(f"       oracle      {fmt_row(oracle[p])}    "
                     f"{'OK' if good else 'MISMATCH'}")
        lines.append(f"       differences {fmt_row([round(v, 9) for v in diffs[p]])}    "
                     f"{'OK' if near else 'MISMATCH'}")
    return lines, ok, "the forward-mode oracle and central finite differences"


def _valuecheck_lines(term, ty, tol: float, max_steps: int) -> tuple[list[str], bool]:
    from ..results import crosscheck as X
    try:
        vc = X.check_value(term, ty, max_steps)
    except ValueError as e:
        raise PullbackCalcError(f"cannot check this program: {e}") from None
    lines, ok = [], True
    for args, got, want in vc.probes:
        good = len(got) == len(want) and all(_agree(a, b, tol) for a, b in zip(got, want))
        ok = ok and good
        if args:
            shown = " ".join(f"({abbrev_term(a)})" for a in args)
            lines.append(f"applied to {shown}:")
        lines.append(f"  reduction {fmt_row(got)}")
        lines.append(f"  oracle    {fmt_row(want)}    {'OK' if good else 'MISMATCH'}")
    lines.insert(0, f"({vc.steps} reduction steps)")
    return lines, ok


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
        lines, ok = _valuecheck_lines(term, ty, args.tol, args.max_steps)
        lines.insert(0, f"Value by reduction vs the forward-mode oracle (tolerance "
                        f"{args.tol:g})")
    else:
        lines, ok, ref = check_lines(term, args.at, args.tol, args.max_steps, args.jobs,
                                      args.sympy_timeout, source)
        lines.insert(0, f"Jacobian at {fmt_point(args.at)}: reduction vs {ref} "
                        f"(tolerance {args.tol:g})")
    if given:
        lines.insert(1, "free variables, for this check: " + ", ".join(
            f"{n} = {abbrev_term(v, 50)}" for n, v in given))
    lines.append("all rows agree" if ok and args.at is not None else
                 "all values agree" if ok else
                 "MISMATCH: reduction and the reference disagree")
    out.write("\n".join(lines) + "\n")
    note(function_note(term, source))
    return 0 if ok else 1
