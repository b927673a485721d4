"""``pullback-calc trace``: a reduction trace as text, LaTeX, JSON or an HTML stepper.

Text and JSON are written as they are rendered (a 100,000-step trace is never one
string in memory); HTML and LaTeX show at most ``--show-steps`` steps of the main
derivation (its beginning and end), saying what they left out.  JSON lines
(``-f jsonl``, or ``-o T.jsonl``) are written as the term is reduced, a step a line, and
no step is kept: the memory does not grow with the trace.
"""
from __future__ import annotations

import contextlib

from . import progress
from .options import (PHASE_NAMES, TRACE_FORMATS, UsageError, count, max_steps_args,
                      max_term, parse_point, phases, positive_int, row, rules, source_args,
                      terms_arg, verify_args, width)
from .show import fmt_point, fmt_row, settle, term_limit
from .source import Source, output_count

# At most this many steps of the main derivation by default (0: all): a browser
# stays responsive, and a LaTeX document still compiles.
SHOW_STEPS = {"html": 20_000, "latex": 2_000, "text": None, "json": None}
FORMATS = TRACE_FORMATS + ("jsonl",)


def add(sub) -> None:
    p = sub.add_parser("trace", help="a reduction trace as text, LaTeX, JSON or an HTML stepper",
                       allow_abbrev=False,
                       description="Reduce a term (or, with --jacobian, compute one row of a "
                                   "Jacobian) and render the trace: text (one step per line), "
                                   "LaTeX (a derivation for a paper), JSON (see the schema in "
                                   "pullback_calc/rendering/json_trace.py) or HTML (an "
                                   "interactive stepper, one self-contained page).")
    source_args(p)
    p.add_argument("--format", "-f", choices=FORMATS, default=None,
                   help="output format (default: from -o's suffix -- .txt, .tex, .json, "
                        ".jsonl, .html -- else text); jsonl: JSON lines, a step a line, "
                        "written as the term is reduced (no step is kept in memory)")
    p.add_argument("-o", "--output", metavar="OUT",
                   help="write to OUT instead of standard output (its suffix may not name "
                        "another format than --format)")
    p.add_argument("--phase", type=phases, metavar="P,…",
                   help="only steps of these phases: " + ", ".join(PHASE_NAMES))
    p.add_argument("--rule", type=rules, metavar="R,…",
                   help="only steps of these rules, e.g. 5,15 (16 means 16a, 16b, 16c; "
                        "A the A-rules)")
    p.add_argument("--every", type=positive_int, default=1, metavar="K",
                   help="only every K-th step (of those chosen)")
    p.add_argument("--show-steps", type=count, default=None, metavar="N",
                   help="at most N steps of the main derivation, its first and last, with a "
                        "note of how many were left out (0: all; default 20,000 for html, "
                        "2,000 for latex, all for text and json)")
    p.add_argument("--color", nargs="?", const="always", default="auto",
                   choices=("auto", "always", "never"),
                   help="ANSI colours in text output (default: only on a terminal)")
    p.add_argument("--ascii", action="store_true", help="ASCII spellings only")
    p.add_argument("--width", type=width, default=100, metavar="N",
                   help="text: abbreviate each line to N columns (0: terms in full; "
                        "default 100)")
    p.add_argument("--max-term", type=max_term, default=None, metavar="N",
                   help="json/html/latex: abbreviate terms to about N characters (0: in full; "
                        "default 400 for json and jsonl, 160 for html, 200 for latex)")
    p.add_argument("--no-premises", action="store_true", help="leave premises out")
    p.add_argument("--fragment", action="store_true",
                   help="latex: a fragment to paste into a document (default: a whole "
                        "document)")
    p.add_argument("--paths", choices=("delta", "full", "none"), default="delta",
                   help="json: how redex paths are written (default delta)")
    terms_arg(p)
    p.add_argument("--title", metavar="TEXT", help="html/latex: the title")
    p.add_argument("--jacobian", action="store_true",
                   help="trace row P of the Jacobian at --at instead of reducing the term")
    p.add_argument("--at", type=parse_point, metavar="POINT",
                   help="with --jacobian: the point, e.g. 1.5,2")
    p.add_argument("--row", type=row, default=None, metavar="P",
                   help="with --jacobian: the row (counting from 0; default 0)")
    max_steps_args(p)
    verify_args(p)
    p.set_defaults(run=run)


def _format(args) -> str:
    """--format, else the one -o's suffix names (any other suffix: text); a suffix
    that names another format than --format is a usage error (the file would lie)."""
    from pathlib import Path
    from ..rendering.html import SUFFIXES
    named = SUFFIXES.get(Path(args.output).suffix.lower()) if args.output else None
    if args.format is None:
        return named or "text"
    if named is not None and named != args.format:
        ours = next(s for s, f in SUFFIXES.items() if f == args.format)
        raise UsageError(f"--format {args.format} and -o {args.output} disagree ({args.output} "
                         f"names {named} by its suffix): leave out --format, or give the "
                         f"file a {ours} name")
    return args.format


def _use_color(args, out) -> bool:
    import os
    if args.color == "always":
        return True
    if args.color == "never" or args.output is not None or os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(out, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


def _reduce(args, source, term):
    """(trace, start, value, title) of the reduction asked for."""
    from .. import jacobian_row, reduce
    if args.jacobian:
        output_count(term, args.at, source)  # closed up to the declarations
        with progress.reduction():
            r = jacobian_row(term, args.at, args.row or 0, max_steps=args.max_steps,
                             verify=args.verify)
        title = args.title or (f"Row {args.row or 0} of the Jacobian at "
                               f"{fmt_point(args.at)}: {fmt_row(r.row)}")
        return r.trace, r.term, r.covector, title
    source.typecheck(term)
    with progress.reduction():
        res = reduce(term, max_steps=args.max_steps, check=False, verify=args.verify)
    return res.trace, term, res.value, args.title or f"Reduction of {source.name}"


def _stream(args, source, term, out) -> int:
    """-f jsonl: each step written as it is taken (``JsonlTrace``); -o: the file
    appears whole when the reduction ends, or not at all."""
    from .. import jacobian_row, reduce
    from ..rendering.json_trace import JsonlTrace
    options = dict(spelling="ascii" if args.ascii else "unicode",
                   max_term=term_limit(args.max_term), paths=args.paths,
                   phases=args.phase, rules=args.rule, every=args.every,
                   premises=not args.no_premises)
    if args.jacobian:
        output_count(term, args.at, source)
    else:
        source.typecheck(term)
    if not args.jacobian:
        options["term"] = term  # (a row's term is made by jacobian_row: in the last line)
    with (JsonlTrace(out, **options) if args.output is None else
          JsonlTrace(args.output, **options)) as w, progress.reduction():
        if args.jacobian:
            r = jacobian_row(term, args.at, args.row or 0, max_steps=args.max_steps,
                             verify=args.verify, on_step=w)
            w.finish(r.covector, term=r.term)
        else:
            r = reduce(term, max_steps=args.max_steps, check=False, verify=args.verify,
                       on_step=w)
            w.finish(r.value)
    return 0


def _chunks(args, out, trace, start, value, title, done):
    """The rendered output, piece by piece."""
    u = not args.ascii
    chosen = dict(phases=args.phase, rules=args.rule, every=args.every)
    limit = args.max_term
    shown = SHOW_STEPS[args.format] if args.show_steps is None else (args.show_steps or None)
    fmt = args.format
    if fmt == "text":
        from ..rendering.text import iter_trace_lines
        color = _use_color(args, out)
        for line in iter_trace_lines(trace, u, args.width, not args.no_premises, color=color,
                                     show_steps=shown, progress=done, **chosen):
            yield line + "\n"
    elif fmt == "json":
        from ..rendering.json_trace import iter_trace_json
        yield from iter_trace_json(trace, term=start, value=value,
                                   spelling="unicode" if u else "ascii",
                                   max_term=term_limit(limit),
                                   paths=args.paths, premises=not args.no_premises,
                                   show_steps=shown, progress=done, terms=args.terms,
                                   **chosen)
        yield "\n"
    elif fmt == "latex":
        from ..rendering.latex import trace_to_latex
        yield trace_to_latex(trace, standalone=not args.fragment, title=title, term=start,
                             value=value, max_term=term_limit(limit, 200),
                             premises=not args.no_premises, show_steps=shown, progress=done,
                             **chosen)
    else:
        from ..rendering.html import trace_to_html
        yield trace_to_html(trace, title=title, term=start, value=value, unicode=u,
                            max_term=term_limit(limit, 160),
                            premises=not args.no_premises, show_steps=shown, progress=done,
                            **chosen)


def run(args, out) -> int:
    args.format = _format(args)
    if args.at is not None:
        args.jacobian = True
    if args.jacobian and args.at is None:
        raise UsageError("--jacobian needs the point: --at X,Y,… "
                         "(see 'pullback-calc trace --help')")
    if args.row is not None and not args.jacobian:
        raise UsageError("--row needs --jacobian and --at (see 'pullback-calc trace --help')")
    if args.terms == "table" and args.format != "json":
        raise UsageError(f"--terms table is for --format json, not {args.format} (the html "
                         "stepper always shares its terms in a table)")
    if args.format == "jsonl" and args.show_steps:
        raise UsageError("--show-steps is not for --format jsonl: its steps are written as "
                         "they are taken, before the last is known (--every K, --rule and "
                         "--phase choose steps)")
    source = args.source = Source(args)
    if args.format == "jsonl":
        return _stream(args, source, source.term(), out)
    trace, start, value, title = _reduce(args, source, source.term())
    settle()
    from ..rendering.output import atomic_file
    from ..rendering.text import count_steps
    # -o: written whole or not at all (what OUT held stays, if rendering fails or stops)
    with (contextlib.nullcontext(out) if args.output is None else atomic_file(args.output)) \
            as sink, progress.bar("rendering", count_steps(trace)) as done:
        for chunk in _chunks(args, out, trace, start, value, title, done):
            sink.write(chunk)
    return 0
