"""``pullback-calc grad``: the gradient of f : ℝⁿ → ℝ at a point (reverse mode)."""
from __future__ import annotations

import json

from . import progress
from .options import (json_trace_options, max_steps_args, parse_point, source_args,
                      terms_arg, unknown_args, verify_args, width)
from .show import fmt_point, fmt_row, json_num, json_trace
from .source import Source


def common(p, trace: bool = True) -> None:
    """The options grad, jvp and tape share."""
    source_args(p)
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--ascii", action="store_true", help="print ASCII spellings only")
    if trace:
        p.add_argument("--trace", action="store_true", help="print the reduction trace")
        terms_arg(p)
        p.add_argument("--width", type=width, default=100, metavar="N",
                       help="trace line width (0: unlimited; default 100)")
    max_steps_args(p)


def typed_term(args):
    """The term grad, vjp and jvp work on, type-checked (typed by default, like every
    command: --free, --no-check), once the JSON-trace options are checked."""
    json_trace_options(args)
    args.source = source = Source(args)
    term = source.term()
    source.typecheck(term)
    return term


def trace_lines(result, args) -> list[str]:
    from ..rendering.text import trace_lines
    return trace_lines(result.trace, not args.ascii, args.width)


def json_out(doc: dict, args, out) -> int:
    json.dump(doc, out, ensure_ascii=args.ascii)
    out.write("\n")
    return 0


def add(sub) -> None:
    p = sub.add_parser("grad", help="the gradient of f : ℝⁿ → ℝ at a point (reverse mode)",
                       allow_abbrev=False,
                       description="The gradient of a real-valued f at POINT: the normal form "
                                   "of Ω(f) (λz. λw. w) V, one reduction.")
    p.add_argument("--at", type=parse_point, required=True, metavar="POINT",
                   help="the point, e.g. 2,3 or \"[2, 3]\" or -1,2")
    common(p)
    unknown_args(p)
    verify_args(p)
    p.set_defaults(run=run)


def run(args, out) -> int:
    from .. import grad
    term = typed_term(args)
    with progress.reduction():
        g = grad(term, args.at, max_steps=args.max_steps, record=args.trace or False,
                 on_unknown=args.unknown, verify=args.verify)
    if args.json:
        doc = {"point": [json_num(v) for v in args.at],
               "gradient": [json_num(v) for v in g], "steps": g.steps}
        if args.trace:
            doc["trace"] = json_trace(g.trace, None, None, not args.ascii, g.steps,
                                      terms=args.terms)  # the one schema
        return json_out(doc, args, out)
    lines = trace_lines(g, args) if args.trace else []
    lines.append(f"gradient at {fmt_point(args.at)}, by reduction: {fmt_row(list(g))}    "
                 f"({g.steps} steps)")
    out.write("\n".join(lines) + "\n")
    return 0
