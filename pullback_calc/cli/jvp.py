"""``pullback-calc jvp``: f and its directional derivative at a point (forward mode)."""
from __future__ import annotations

from . import progress
from .grad import common, json_out, trace_lines, typed_term
from .options import parse_point, unknown_args
from .show import fmt_point, json_num, json_trace


def add(sub) -> None:
    p = sub.add_parser("jvp", help="f and its directional derivative at a point (forward mode)",
                       allow_abbrev=False,
                       description="The primal f(V) and the tangent J f(V)·T: the normal form "
                                   "of ⟨f V, (J(f)·T) V⟩, forward mode by the Jacobian rules.")
    p.add_argument("--at", type=parse_point, required=True, metavar="POINT",
                   help="the point V, e.g. 1.5,2")
    p.add_argument("--tangent", type=parse_point, required=True, metavar="T",
                   help="the direction T, e.g. 1,0")
    common(p)
    unknown_args(p)
    p.set_defaults(run=run)


def show_value(v) -> str:
    """A real or a (nested) tuple of reals, as the output shows them."""
    from ..syntax.printer import show_num
    if isinstance(v, tuple):
        return "(" + ", ".join(show_value(x) for x in v) + ")"
    return show_num(v)


def json_value(v):
    return [json_value(x) for x in v] if isinstance(v, tuple) else json_num(v)


def run(args, out) -> int:
    from .. import jvp
    term = typed_term(args)
    with progress.reduction():
        r = jvp(term, args.at, args.tangent, max_steps=args.max_steps,
                record=args.trace or False, on_unknown=args.unknown)
    if args.json:
        doc = {"point": json_value(tuple(args.at)), "direction": json_value(tuple(args.tangent)),
               "primal": json_value(r.primal), "tangent": json_value(r.tangent),
               "steps": r.steps}
        if args.trace:
            doc["trace"] = json_trace(r.trace, None, None, not args.ascii, r.steps,
                                      terms=args.terms)  # the one schema
        return json_out(doc, args, out)
    lines = trace_lines(r, args) if args.trace else []
    lines += [f"at {fmt_point(args.at)} along {fmt_point(args.tangent)}, by forward mode "
              f"(J):",
              f"primal:  {show_value(r.primal)}",
              f"tangent: {show_value(r.tangent)}    ({r.steps} steps)"]
    out.write("\n".join(lines) + "\n")
    return 0
