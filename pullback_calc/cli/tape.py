"""``pullback-calc tape``: the let series of f as a Wengert list (values, adjoints)."""
from __future__ import annotations

from .grad import common, json_out
from .options import parse_point, row
from .source import Source


def add(sub) -> None:
    p = sub.add_parser("tape", help="the let series of f as a Wengert list (values, adjoints)",
                       allow_abbrev=False,
                       description="The A-normal let series of f, one elementary operation a "
                                   "line; with --at, the forward values and the adjoints that "
                                   "the reduction of Ω(f) (λz. e_P*) V computes.")
    p.add_argument("--at", type=parse_point, metavar="POINT", help="the point, e.g. 1.5,2")
    p.add_argument("--row", type=row, default=0, metavar="P",
                   help="with --at: adjoints of output P (counting from 0; default 0)")
    common(p, trace=False)
    p.set_defaults(run=run)


def run(args, out) -> int:
    from ..results.wengert import tape
    args.source = source = Source(args)
    term = source.term()
    source.typecheck(term)
    t = tape(term, at=args.at, row=args.row, max_steps=args.max_steps)
    if args.json:
        return json_out(t.to_json(not args.ascii), args, out)
    out.write("\n".join(t.lines(not args.ascii)) + "\n")
    return 0
