"""``pullback-calc reduce``: reduce a term to normal form (or --depth N steps), showing
every step."""
from __future__ import annotations

import json

from ..errors import StepBudgetExceeded
from . import progress
from .options import (count, json_trace_options, max_steps_args, max_term, source_args,
                      terms_arg, verify_args, width)
from .show import JSON_MAX_TERM, function_note, json_trace, note, settle, term_limit
from .source import Source


def add(sub) -> None:
    p = sub.add_parser("reduce", help="reduce a term to normal form, showing every step",
                       allow_abbrev=False,
                       description="Parse, type-check and reduce a term (call-by-value); print "
                                   "the trace one step per line, the normal form and the number "
                                   "of steps.")
    source_args(p)
    max_steps_args(p)
    verify_args(p)
    p.add_argument("--ascii", action="store_true", help="print ASCII spellings only")
    p.add_argument("--width", type=width, default=100, metavar="N",
                   help="abbreviate each trace line to N columns (0: print terms in full; "
                        "default 100)")
    p.add_argument("--no-trace", action="store_true", help="print only the normal form")
    p.add_argument("--json", action="store_true",
                   help="print the trace as JSON (the schema of trace -f json)")
    p.add_argument("--max-term", type=max_term, default=None, metavar="N",
                   help=f"json: abbreviate terms to about N characters (0: in full; default "
                        f"{JSON_MAX_TERM})")
    terms_arg(p)
    p.add_argument("--depth", type=count, default=None, metavar="N",
                   help="stop after N steps and show the state reached: the term, the next "
                        "redex marked in its context, and the rule that would fire")
    p.set_defaults(run=run)


def run(args, out) -> int:
    from .. import reduce
    from ..rendering.text import iter_trace_lines, state_lines
    from ..syntax.printer import pretty
    json_trace_options(args, None)  # (with --no-trace the JSON still holds the value)
    source = args.source = Source(args)
    term = source.term()
    source.typecheck(term)
    want_trace = args.json or not args.no_trace
    u = not args.ascii
    try:
        with progress.reduction():
            result = reduce(term, max_steps=args.max_steps, record=want_trace, check=False,
                            verify=args.verify,
                            stop_after=args.depth)
    except StepBudgetExceeded as e:  # offer the state reached
        nxt = e.next_step  # (the machine's, where it stopped)
        if nxt is not None and not args.json:
            lines = [f"state after {nxt.index} steps (the step budget ran out):",
                     *state_lines(e.term, nxt, u, args.width),
                     f"(to see the trace up to here: --depth {nxt.index})"]
            out.write("\n".join(lines) + "\n")
        raise
    settle()
    if args.json:
        stopped = result.stopped
        doc = json_trace([] if args.no_trace else result.trace, term,
                         None if stopped else result.value, u, result.steps,
                         max_term=term_limit(args.max_term), terms=args.terms,
                         state=result.value if stopped else None,
                         next_step=result.next_step if stopped else None)
        json.dump(doc, out, ensure_ascii=not u, indent=2)
        out.write("\n")
        return 0
    if not args.no_trace:  # line by line: a 100,000-step trace is never one string
        from ..rendering.text import count_steps
        with progress.bar("rendering", count_steps(result.trace)) as done:
            for line in iter_trace_lines(result.trace, u, args.width, progress=done):
                out.write(line + "\n")
    lines = []
    if result.stopped:
        lines.append(f"state after {len(result.trace) if want_trace else args.depth} steps "
                     f"(not a normal form; --depth {args.depth}):")
        lines += state_lines(result.value, result.next_step, u, args.width)
    else:
        lines.append(f"normal form: {pretty(result.value, u)}")
    top = len(result.trace)
    lines.append(f"steps: {result.steps}" if args.no_trace or top == result.steps else
                 f"steps: {result.steps} ({top} in the main derivation, "
                 f"{result.steps - top} in premises)")
    note(function_note(term, source))
    out.write("\n".join(lines) + "\n")
    return 0
