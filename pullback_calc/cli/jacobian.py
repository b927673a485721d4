"""``pullback-calc jacobian``: the Jacobian of f : ℝⁿ → ℝᵐ at a point, one reduction
per row."""
from __future__ import annotations

import json

from . import progress
from .options import (jobs_args, json_trace_options, max_steps_args, parse_point,
                      source_args, terms_arg, unknown_args, verify_args, width_args)
from .show import fmt_point, fmt_row, json_num, json_trace
from .source import Source, output_count


def add(sub) -> None:
    p = sub.add_parser("jacobian", help="the Jacobian of f : ℝⁿ → ℝᵐ at a point, by reduction",
                       allow_abbrev=False,
                       description="Row p of the Jacobian is the normal form of "
                                   "Ω(f) (λz. λw. πₚ w) V, one reduction per row.")
    rows_args(p, "P")
    unknown_args(p)
    p.set_defaults(run=run)


def rows_args(p, name: str) -> None:
    """The options of a command that prints rows, one reduction each (jacobian, hessian)."""
    source_args(p)
    p.add_argument("--at", type=parse_point, required=True, metavar="POINT",
                   help="the point V, e.g. 1.5,2 or \"[1.5, 2]\" or -1,2")
    p.add_argument("--row", type=int, metavar=name, help=f"only row {name} (counting from 0)")
    p.add_argument("--trace", action="store_true", help="print each row's reduction trace")
    p.add_argument("--json", action="store_true", help="print {point, rows, steps} as JSON")
    terms_arg(p)
    p.add_argument("--ascii", action="store_true", help="print ASCII spellings only")
    width_args(p)
    max_steps_args(p)
    jobs_args(p)
    verify_args(p)


def reduce_rows(term, point, ps: list, jobs=None, by=None, **options) -> list:
    """``by(term, point, ps, workers=jobs, **options)`` -- ``jacobian_rows`` unless
    ``by`` is another such function (``hessian_rows``) -- with a bar over the rows
    (and a step counter) on a terminal."""
    from ..results.jacobian import jacobian_rows
    by = by or jacobian_rows
    if jobs not in (None, 1) or not progress.enabled():
        return by(term, point, ps, workers=jobs, **options)
    if len(ps) == 1:
        with progress.reduction():
            return by(term, point, ps, workers=jobs, **options)
    got = []  # one row at a time, so that the bar moves (the same rows and steps)
    with progress.bar("rows", len(ps), unit="row") as done, progress.reduction("steps"):
        for k, p in enumerate(ps):
            got += by(term, point, [p], workers=1, **options)
            if done is not None:
                done(k + 1)
    return got


def rows(term, args) -> list:
    """[(p, JacobianRow)] for the requested rows (traces only if --trace asks;
    --jobs N: in N processes)."""
    m = output_count(term, args.at, getattr(args, "source", None))
    ps = [args.row] if getattr(args, "row", None) is not None else list(range(m))
    return list(zip(ps, reduce_rows(term, args.at, ps, getattr(args, "jobs", None),
                                    max_steps=args.max_steps,
                                    record=bool(getattr(args, "trace", False)),
                                    on_unknown=getattr(args, "unknown", "error"),
                                    verify=getattr(args, "verify", False))))


def run(args, out) -> int:
    json_trace_options(args)
    source = args.source = Source(args)
    term = source.term()
    return write_rows(rows(term, args), args, out, f"Jacobian at {fmt_point(args.at)}, by "
                                                   f"reduction:")


def write_rows(got: list, args, out, heading: str) -> int:
    """[(p, JacobianRow)] as jacobian (and hessian) print them: a heading and a line per
    row with its steps, each after its trace with --trace; or --json's
    {point, rows, steps[, row_index][, traces]}."""
    from ..rendering.text import trace_lines
    from ..syntax.printer import pretty
    u = not args.ascii
    if args.json:
        doc = {"point": [json_num(v) for v in args.at],
               "rows": [[json_num(v) for v in r.row] for _, r in got],
               "steps": [r.steps for _, r in got]}
        if args.row is not None:
            doc["row_index"] = args.row
        if args.trace:
            doc["traces"] = [json_trace(r.trace, r.term, r.covector, u, r.steps,
                                        terms=args.terms) for _, r in got]
        json.dump(doc, out, ensure_ascii=not u)
        out.write("\n")
        return 0
    lines = [heading]
    for p, r in got:
        if args.trace:
            lines.append(f"-- row {p}: {pretty(r.term, u)}")
            lines.extend(trace_lines(r.trace, u, args.width))
            lines.append(f"   covector: {pretty(r.covector, u)}")
        lines.append(f"row {p}: {fmt_row(r.row)}    ({r.steps} steps)")
    out.write("\n".join(lines) + "\n")
    return 0
