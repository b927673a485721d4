"""Command-line subcommands of the AD front door (issue 11): grad, jvp, tape.

    pullback-calc grad FILE | -e TEXT --at POINT [--json] [--trace] [--unknown error|zero]
    pullback-calc jvp  FILE | -e TEXT --at POINT --tangent T [--json] [--trace] [--unknown …]
    pullback-calc tape FILE | -e TEXT [--at POINT [--row P]] [--json] [--ascii]

Kept apart from cli.py (which calls ``add_commands``) so that other
subcommands can be added there without touching these.
"""
from __future__ import annotations

import json

from .results.unknown import POLICIES


def _unknown(p) -> None:
    p.add_argument("--unknown", choices=POLICIES, default="error",
                   help="free function variables (unknown functions): 'error' if the result "
                        "depends on their derivative (default), 'zero': treat them as constant")


def add_commands(sub) -> None:
    """Add grad, jvp and tape to the subparsers of ``cli.build_parser``."""
    from .cli import _max_steps, _row, _source_args, _width, parse_point

    def common(p, trace: bool = True) -> None:
        _source_args(p)
        p.add_argument("--json", action="store_true", help="print the result as JSON")
        p.add_argument("--ascii", action="store_true", help="print ASCII spellings only")
        if trace:
            p.add_argument("--trace", action="store_true", help="print the reduction trace")
            p.add_argument("--width", type=_width, default=100, metavar="N",
                           help="trace line width (0: unlimited; default 100)")
        _max_steps(p)

    p = sub.add_parser("grad", help="the gradient of f : ℝⁿ → ℝ at a point (reverse mode)",
                       allow_abbrev=False,
                       description="The gradient of a real-valued f at POINT: the normal form "
                                   "of Ω(f) (λz. λw. w) V, one reduction.")
    p.add_argument("--at", type=parse_point, required=True, metavar="POINT",
                   help="the point, e.g. 2,3 or \"[2, 3]\" or -1,2")
    common(p)
    _unknown(p)
    p.set_defaults(run=cmd_grad)

    p = sub.add_parser("jvp", help="f and its directional derivative at a point (forward mode)",
                       allow_abbrev=False,
                       description="The primal f(V) and the tangent J f(V)·T: the normal form "
                                   "of ⟨f V, (J(f)·T) V⟩, forward mode by the Jacobian rules.")
    p.add_argument("--at", type=parse_point, required=True, metavar="POINT",
                   help="the point V, e.g. 1.5,2")
    p.add_argument("--tangent", type=parse_point, required=True, metavar="T",
                   help="the direction T, e.g. 1,0")
    common(p)
    _unknown(p)
    p.set_defaults(run=cmd_jvp)

    p = sub.add_parser("tape", help="the let series of f as a Wengert list (values, adjoints)",
                       allow_abbrev=False,
                       description="The A-normal let series of f, one elementary operation a "
                                   "line; with --at, the forward values and the adjoints that "
                                   "the reduction of Ω(f) (λz. e_P*) V computes.")
    p.add_argument("--at", type=parse_point, metavar="POINT", help="the point, e.g. 1.5,2")
    p.add_argument("--row", type=_row, default=0, metavar="P",
                   help="with --at: adjoints of output P (counting from 0; default 0)")
    common(p, trace=False)
    p.set_defaults(run=cmd_tape)


def _trace_lines(result, args) -> list[str]:
    from .rendering.text import trace_lines
    return trace_lines(result.trace, not args.ascii, args.width)


def _json_out(doc: dict, args, out) -> int:
    json.dump(doc, out, ensure_ascii=args.ascii)
    out.write("\n")
    return 0


def cmd_grad(args, out) -> int:
    from . import grad
    from .cli import Source, _fmt_point, _fmt_row, _json_num, _json_trace
    args.source = source = Source(args)
    term = source.term()
    source.typecheck(term)  # typed by default, like every command (--free, --no-check)
    g = grad(term, args.at, max_steps=args.max_steps, record=args.trace or False,
             on_unknown=args.unknown)
    if args.json:
        doc = {"point": [_json_num(v) for v in args.at],
               "gradient": [_json_num(v) for v in g], "steps": g.steps}
        if args.trace:
            doc["trace"] = _json_trace(g.trace, None, None, not args.ascii, g.steps)  # the one schema
        return _json_out(doc, args, out)
    lines = _trace_lines(g, args) if args.trace else []
    lines.append(f"gradient at {_fmt_point(args.at)}, by reduction: {_fmt_row(list(g))}    "
                 f"({g.steps} steps)")
    out.write("\n".join(lines) + "\n")
    return 0


def _show(v) -> str:
    from .syntax.printer import show_num
    if isinstance(v, tuple):
        return "(" + ", ".join(_show(x) for x in v) + ")"
    return show_num(v)


def _json_value(v):
    from .cli import _json_num
    return [_json_value(x) for x in v] if isinstance(v, tuple) else _json_num(v)


def cmd_jvp(args, out) -> int:
    from . import jvp
    from .cli import Source, _fmt_point, _json_trace
    args.source = source = Source(args)
    term = source.term()
    source.typecheck(term)
    r = jvp(term, args.at, args.tangent, max_steps=args.max_steps,
            record=args.trace or False, on_unknown=args.unknown)
    if args.json:
        doc = {"point": _json_value(tuple(args.at)), "direction": _json_value(tuple(args.tangent)),
               "primal": _json_value(r.primal), "tangent": _json_value(r.tangent),
               "steps": r.steps}
        if args.trace:
            doc["trace"] = _json_trace(r.trace, None, None, not args.ascii, r.steps)  # the one schema
        return _json_out(doc, args, out)
    lines = _trace_lines(r, args) if args.trace else []
    lines += [f"at {_fmt_point(args.at)} along {_fmt_point(args.tangent)}, by forward mode "
              f"(J):",
              f"primal:  {_show(r.primal)}",
              f"tangent: {_show(r.tangent)}    ({r.steps} steps)"]
    out.write("\n".join(lines) + "\n")
    return 0


def cmd_tape(args, out) -> int:
    from .cli import Source
    from .results.tape import tape
    args.source = source = Source(args)
    term = source.term()
    source.typecheck(term)
    t = tape(term, at=args.at, row=args.row, max_steps=args.max_steps)
    if args.json:
        return _json_out(t.to_json(not args.ascii), args, out)
    out.write("\n".join(t.lines(not args.ascii)) + "\n")
    return 0
