"""``pullback-calc vjp``: f at a point and a vector-Jacobian product c·J f(V) (reverse
mode, ``pullback_calc.vjp``)."""
from __future__ import annotations

from . import progress
from .grad import common, json_out, typed_term
from .jvp import json_value, show_value
from .options import UsageError, parse_point, unknown_args, verify_args
from .show import fmt_point, fmt_row, json_num, json_trace


def add(sub) -> None:
    p = sub.add_parser("vjp", help="f and a vector-Jacobian product c·J at a point (reverse "
                                   "mode)",
                       allow_abbrev=False,
                       description="The primal f(V) and the vector-Jacobian product c·J f(V): "
                                   "Ω(f) ω V with ω a free 1-form reduces to (λp̂. M)⋆ (ω S̄), "
                                   "whose S̄ is f(V); the cotangent c is then pulled back "
                                   "along the linear map λp̂. M by rule 5. Two reductions: "
                                   "the step count is their sum.")
    p.add_argument("--at", type=parse_point, required=True, metavar="POINT",
                   help="the point V, e.g. 1.5,2 or \"[1.5, 2]\" or -1,2")
    p.add_argument("--cotangent", type=parse_point, default=None, metavar="C",
                   help="the cotangent c on the output, e.g. 1,0 (default 1 for a real-valued "
                        "f)")
    common(p)
    unknown_args(p)
    verify_args(p)
    p.set_defaults(run=run)


def run(args, out) -> int:
    from .. import vjp
    from ..syntax.types import real_leaves
    term = typed_term(args)
    with progress.reduction():
        v = vjp(term, args.at, max_steps=args.max_steps, record=args.trace,
                on_unknown=args.unknown, verify=args.verify)
        leaves = real_leaves(v.backprop.output)
        assert leaves is not None  # (vjp checked that the output is built from R)
        outputs = len(leaves)
        if args.cotangent is None and outputs != 1:
            raise UsageError(f"f has {outputs} outputs: give the cotangent, --cotangent "
                             f"C1,…,C{outputs} (see 'pullback-calc vjp --help')")
        cotangent = args.cotangent or [1.0]
        g = v(cotangent)
    steps = v.steps + g.steps
    stages = (("pullback", v.steps, v.trace, v.term, v.normal_form),  # Ω(f) ω V
              ("cotangent", g.steps, g.trace, g.term, g.covector))    # (λp̂. M)⋆ c, rule 5
    u = not args.ascii
    if args.json:
        doc = {"point": [json_num(x) for x in args.at],
               "cotangent": [json_num(x) for x in cotangent], "primal": json_value(v.primal),
               "vjp": [json_num(x) for x in g], "steps": steps,
               "reductions": [{"of": what, "steps": n} for what, n, *_ in stages]}
        if args.trace:
            for r, (_, n, trace, start, value) in zip(doc["reductions"], stages):
                r["trace"] = json_trace(trace, start, value, u, n, terms=args.terms)
        return json_out(doc, args, out)
    lines = []
    if args.trace:
        from ..rendering.text import trace_lines
        from ..syntax.printer import pretty
        for what, _n, trace, start, value in stages:
            lines.append(f"-- the {what}: {pretty(start, u)}")
            lines.extend(trace_lines(trace, u, args.width))
            lines.append(f"   normal form: {pretty(value, u)}")
    lines += [f"primal at {fmt_point(args.at)}: {show_value(v.primal)}",
              f"vjp of the cotangent {fmt_point(cotangent)}, by reduction: {fmt_row(list(g))}"
              f"    ({steps} steps: {v.steps} for the pullback, {g.steps} for the cotangent)"]
    out.write("\n".join(lines) + "\n")
    return 0
