"""``pullback-calc hessian``: the Hessian of f : ℝⁿ → ℝ at a point, by nested pullbacks
(one reduction per row)."""
from __future__ import annotations

from .jacobian import reduce_rows, write_rows
from .options import (jobs_args, json_trace_options, max_steps_args, parse_point, row,
                      source_args, terms_arg, width_args)
from .show import fmt_point
from .source import Source, output_count


def add(sub) -> None:
    p = sub.add_parser("hessian", help="the Hessian of f : ℝⁿ → ℝ at a point, by nested "
                                       "pullbacks",
                       allow_abbrev=False,
                       description="Row i of the Hessian is the gradient of the i-th partial "
                                   "derivative x ↦ Ω(f) (λz. λw. w) x eᵢ: the normal form of a "
                                   "pullback along a term that holds a pullback itself "
                                   "(reverse over reverse, rules 17–19), one reduction per "
                                   "row.")
    source_args(p)
    p.add_argument("--at", type=parse_point, required=True, metavar="POINT",
                   help="the point V, e.g. 2,3 or \"[2, 3]\" or -1,2")
    p.add_argument("--row", type=row, metavar="I", help="only row I (counting from 0)")
    p.add_argument("--trace", action="store_true", help="print each row's reduction trace")
    p.add_argument("--json", action="store_true",
                   help="print {point, rows, steps} as JSON (as jacobian --json)")
    terms_arg(p)
    p.add_argument("--ascii", action="store_true", help="print ASCII spellings only")
    width_args(p)
    max_steps_args(p)
    jobs_args(p)
    p.set_defaults(run=run)


def run(args, out) -> int:
    from ..results.higher import hessian_rows
    json_trace_options(args)
    source = args.source = Source(args)
    term = source.term()
    output_count(term, args.at, source)  # a function, closed up to the declarations
    ps = [args.row] if args.row is not None else list(range(len(args.at)))
    got = reduce_rows(term, args.at, ps, args.jobs, by=hessian_rows, max_steps=args.max_steps,
                      record=args.trace)
    return write_rows(list(zip(ps, got)), args, out,
                      f"Hessian at {fmt_point(args.at)}, by nested pullbacks:")
