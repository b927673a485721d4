"""``pullback-calc hessian``: the Hessian of f : ℝⁿ → ℝ at a point, by nested pullbacks
(one reduction per row)."""
from __future__ import annotations

from .jacobian import reduce_rows, rows_args, write_rows
from .options import json_trace_options
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
    rows_args(p, "I")
    p.set_defaults(run=run)


def run(args, out) -> int:
    from ..results.higher import hessian_rows
    json_trace_options(args)
    source = args.source = Source(args)
    term = source.term()
    output_count(term, args.at, source)  # a function, closed up to the declarations
    ps = [args.row] if args.row is not None else list(range(len(args.at)))
    got = reduce_rows(term, args.at, ps, args.jobs, by=hessian_rows, max_steps=args.max_steps,
                      record=args.trace, verify=args.verify)
    return write_rows(list(zip(ps, got)), args, out,
                      f"Hessian at {fmt_point(args.at)}, by nested pullbacks:")
