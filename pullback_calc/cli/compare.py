"""``pullback-calc compare``: every AD engine on the same term, side by side
(``engines/compare.py`` does the work)."""
from __future__ import annotations

import json

from ..errors import PullbackCalcError
from .options import max_steps_args, parse_point, source_args, tolerance
from .show import fmt_point
from .source import Source


def add(sub) -> None:
    p = sub.add_parser("compare", help="every AD engine on the same term, side by side",
                       allow_abbrev=False,
                       description="Differentiate the term with each engine -- pullback "
                                   "(reduction), ps (Pearlmutter–Siskind reverse transform), "
                                   "forward (tagged dual numbers), tape (Wengert list) -- and "
                                   "show their results, whether they agree, and their costs. "
                                   "With --at the term is a function ℝⁿ → ℝᵐ and the engines "
                                   "compute its Jacobian; without it the term is closed and "
                                   "they compute its value. Exit status 0 if every engine that "
                                   "can express the term agrees, 1 if not.")
    source_args(p)
    p.add_argument("--at", type=parse_point, metavar="POINT",
                   help="the point of the Jacobian, e.g. 1.5,2 (omit for a closed term)")
    p.add_argument("--tol", type=tolerance, default=1e-9, metavar="T",
                   help="relative and absolute tolerance of agreement (default 1e-9)")
    p.add_argument("--json", action="store_true",
                   help="print {point, mode, agree, verdict, engines: [{engine, kind, rows, "
                        "agrees, message, costs}]} as JSON")
    p.add_argument("--show", action="store_true",
                   help="also print the P–S transformed program and the tape")
    p.add_argument("--ascii", action="store_true", help="print ASCII spellings only")
    max_steps_args(p)
    p.set_defaults(run=run)


def run(args, out) -> int:
    from ..engines.compare import (artefacts, compare_jacobian, compare_value, table, to_json,
                                   verdict)
    from ..typing import typecheck
    source = args.source = Source(args)
    term = source.term()
    # typed by default like every command (an unbound `sni` is an error, --free declares);
    # under --no-check the engines still need the term's type
    ty = source.typecheck(term)
    if ty is None:
        ty = typecheck(term, source.free)
    if args.at is not None:
        outcomes = compare_jacobian(term, args.at, args.tol, args.max_steps)
        head = f"Jacobian at {fmt_point(args.at)}, by every engine:"
    else:
        _closed_or_explain(term, ty)
        outcomes = compare_value(term, args.tol, args.max_steps)
        head = "Value of the term, by every engine:"
    ok, message = verdict(outcomes)
    if args.json:
        json.dump(to_json(outcomes, args.at), out, ensure_ascii=args.ascii)
        out.write("\n")
        return 0 if ok else 1
    lines = [head, *table(outcomes), message]
    if args.show:
        lines += artefacts(outcomes, not args.ascii)
    out.write("\n".join(lines) + "\n")
    return 0 if ok else 1


def _closed_or_explain(term, ty) -> None:
    from ..syntax.types import Arrow, real_leaves
    if isinstance(ty, Arrow) and real_leaves(ty.dom) is not None \
            and real_leaves(ty.cod) is not None:
        raise PullbackCalcError(f"the term is a function {ty}: give the point of its Jacobian "
                                "with --at POINT")
