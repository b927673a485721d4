"""``pullback-calc graph``: reduction graphs with graphviz (``rendering/graph.py``
builds them; this module only reads the options, reduces and writes the file)."""
from __future__ import annotations

import argparse

from . import progress
from .options import UsageError, max_steps_args, parse_point, positive_int, source_args
from .show import note, settle
from .source import Source, output_count

GRAPHVIZ = ("dot", "svg", "png", "pdf")  # rendering.graph.FORMATS (tests check they agree)
FORMATS = (*GRAPHVIZ, "html")  # html: the full graph as a page to explore (rendering/explorer.py)
#: the memory budget (MB) of a graph without --max-memory: its reduction keeps every
#: step, for a drawing of a few hundred of them (a 100,000-deep chain took 1.6 GB)
MEMORY = 1024
USAGE = ("pullback-calc graph FILE | -e TEXT [--full | --whole] [--budget N] "
         "[--format dot|svg|png|pdf|html] [-o OUT] [--jacobian --at POINT [--row P]] "
         "[--max-steps N]")
BUDGET = 60  # --full's terms by default in a drawing (the explorer's: explorer.NODE_BUDGET)


def add(sub) -> None:
    p = sub.add_parser("graph",
                       help="reduction graphs with graphviz, or one to explore in a browser",
                       allow_abbrev=False,
                       description="Draw a reduction graph with graphviz: the strategy's path "
                                   "(default; phases coloured, premises as clusters) or, with "
                                   "--full, every one-step reduct at every redex position, "
                                   "breadth-first up to a node budget, with the call-by-value path "
                                   "highlighted; or, with --whole, the call-by-value path from "
                                   "start to normal form with the other reducts of each term "
                                   "beside it. With --full, --format html (or -o G.html) writes "
                                   "a page to explore the graph instead: expand a term, find "
                                   "terms matching a pattern, follow the call-by-value path "
                                   "(graphs of a few thousand terms; no graphviz needed). "
                                   "Without --max-memory, a graph gives up at "
                                   f"{MEMORY:,} MB (its reduction keeps every step).")
    source_args(p)
    kind = p.add_mutually_exclusive_group()
    kind.add_argument("--full", action="store_true",
                      help="the full reduction graph (all redex positions) instead of the "
                           "strategy's path")
    kind.add_argument("--whole", action="store_true",
                      help="the whole call-by-value reduction, every step, with each term's "
                           "other one-step reducts as small side nodes (a whole small "
                           "reduction at a readable size)")
    p.add_argument("--budget", type=positive_int, default=None, metavar="N",
                   help=f"--full: at most N terms (default {BUDGET}; 2,000 for html)")
    p.add_argument("--format", choices=FORMATS, default=None,
                   help="output format (default: from -o's suffix, else dot); html: with "
                        "--full, a self-contained page to explore the graph")
    p.add_argument("-o", "--output", metavar="OUT",
                   help="write to OUT (default: standard output)")
    p.add_argument("--jacobian", action="store_true",
                   help="graph row P of the Jacobian at --at: the term Ω(f) (λz. λw. πₚ w) V")
    p.add_argument("--at", type=parse_point, metavar="POINT",
                   help="the point V for --jacobian, e.g. 1.5,2 (implies --jacobian)")
    p.add_argument("--row", type=int, default=None, metavar="P",
                   help="the row for --jacobian (default 0)")
    max_steps_args(p)
    p.add_argument("--show-steps", type=positive_int, default=400, metavar="N",
                   help="strategy and --whole graphs: draw at most N steps per derivation, "
                        "eliding the middle (default 400)")
    p.add_argument("--label-width", type=positive_int, default=40, metavar="N",
                   help="abbreviate terms in nodes to N characters (default 40)")
    p.add_argument("--detail", action=argparse.BooleanOptionalAction, default=None,
                   help="more on each edge than its rule: the contractum (strategy graph; "
                        "off by default) or the redex (--full; on by default)")
    p.add_argument("--no-premises", action="store_true",
                   help="strategy graph: leave out premise sub-derivations")
    p.add_argument("--ascii", action="store_true", help="ASCII spellings in labels")
    p.set_defaults(run=run)


def _format(args) -> str:
    from pathlib import PurePath
    from ..rendering.graph import format_from_suffix
    if args.format is not None:
        return args.format
    if args.output and PurePath(args.output).suffix.lower() in (".html", ".htm"):
        return "html"
    if args.output and format_from_suffix(args.output) is None:
        raise UsageError(f"cannot tell the format from {args.output!r}: use --format "
                         f"{'|'.join(FORMATS)} (see 'pullback-calc graph --help')")
    return (format_from_suffix(args.output) if args.output else None) or "dot"


def run(args, out) -> int:
    from ..budgets import budget
    with budget(max_memory=MEMORY if args.max_memory is None else None):
        return _run(args, out)


def _run(args, out) -> int:
    from ..rendering import graph as G
    jac = args.jacobian or args.at is not None
    if jac and args.at is None:
        raise UsageError("--jacobian needs the point: --at POINT (see 'pullback-calc graph "
                         "--help')")
    if args.row is not None and not jac:
        raise UsageError("--row needs --jacobian --at POINT (see 'pullback-calc graph --help')")
    fmt = _format(args)
    if fmt == "html":
        return _explorer(args, out, jac)
    budget = args.budget or BUDGET
    binary = fmt in ("png", "pdf")
    if binary and args.output is None and out.isatty():
        raise UsageError(f"{fmt} is binary: write it to a file with -o OUT")
    source = args.source = Source(args)
    term = source.term()
    common = dict(unicode=not args.ascii, label_width=max(args.label_width, 12))
    if args.detail is not None:
        common["detail"] = args.detail
    if jac:
        output_count(term, args.at, source)  # closed up to the declarations
    if args.full:
        if jac:
            from ..results.jacobian import jacobian_term
            start = jacobian_term(term, args.at, args.row or 0)
        else:
            source.typecheck(term)
            start = term
        g = G.full_graph(start, node_budget=budget,
                         cbv_max_steps=min(args.max_steps, 100_000), **common)
    else:
        from .. import jacobian_row, reduce
        with progress.reduction():
            if jac:
                result = jacobian_row(term, args.at, args.row or 0, max_steps=args.max_steps)
            else:
                source.typecheck(term)
                result = reduce(term, max_steps=args.max_steps, check=False)
                result.term = term
        settle()
        draw = G.whole_graph if args.whole else G.strategy_graph
        options = dict(max_steps=args.show_steps, **common)
        if not args.whole:
            options["premises"] = not args.no_premises
        g = draw(result, **options)
        cut = g.info.get("alternatives_cut")
        if cut is not None:
            note([f"note: the other reducts are drawn for the first {cut} terms only: the "
                  f"larger ones would take too long"])
    with progress.bar("graphviz", None, unit="graph"):
        data = _pipe(g, fmt, args, result if not args.full else None, common)
    if args.output is None:
        if binary:
            out.flush()
            out.buffer.write(data)
            out.buffer.flush()
        else:
            out.write(data.decode("utf-8"))
    else:
        from ..rendering.output import write_atomic
        write_atomic(args.output, data)  # whole or not at all
    return 0


def _pipe(g, fmt: str, args, result, common) -> bytes:
    from ..rendering import graph as G
    try:
        return g.pipe(fmt)
    except G.RenderError as e:
        if "init_rank" not in str(e) or args.full or args.whole or args.no_premises:
            raise
        # dot cannot rank some premise-cluster layouts: draw without them
        note(["note: graphviz could not lay out the premise clusters; drawing the graph "
              "without premises"])
        return G.strategy_graph(result, premises=False, max_steps=args.show_steps,
                                **common).pipe(fmt)


def _explorer(args, out, jac: bool) -> int:
    """--full --format html: the full graph as a page to explore (rendering/explorer.py)."""
    from ..rendering.explorer import NODE_BUDGET, graph_to_html
    from .show import fmt_point
    if not args.full:
        raise UsageError("--format html is the full graph to explore: add --full (the "
                         "strategy's path as a page is 'pullback-calc trace -f html')")
    source = args.source = Source(args)
    term = source.term()
    if jac:
        from ..results.jacobian import jacobian_term
        output_count(term, args.at, source)
        start = jacobian_term(term, args.at, args.row or 0)
        title = (f"All one-step reductions of row {args.row or 0} of the Jacobian at "
                 f"{fmt_point(args.at)}")
    else:
        source.typecheck(term)
        start = term
        written = " ".join(args.expr.split()) if args.expr is not None else source.name
        title = "All one-step reductions of " + (written if len(written) <= 70
                                                  else written[:69] + "…")
    with progress.bar("graph", None, unit="graph"):
        text = graph_to_html(start, node_budget=args.budget or NODE_BUDGET, title=title,
                             unicode=not args.ascii, cbv_max_steps=min(args.max_steps, 100_000))
    if args.output is None:
        out.write(text)
    else:
        from ..rendering.output import write_atomic
        write_atomic(args.output, text.encode("utf-8"))  # whole or not at all
    return 0
