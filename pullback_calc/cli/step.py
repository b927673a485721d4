"""``pullback-calc step``: the interactive terminal stepper over a reduction."""
from __future__ import annotations

from . import progress
from .options import UsageError, max_steps_args, parse_point, row, source_args, width
from .source import Source, output_count


def add(sub) -> None:
    p = sub.add_parser("step", help="an interactive terminal stepper over a reduction",
                       allow_abbrev=False,
                       description="Reduce a term (or, with --at, one row of its Jacobian) and "
                                   "step through the trace: next, back, goto N, run RULE, "
                                   "premise, context, term, latex, help, quit. Commands are "
                                   "read from standard input, one a line.")
    source_args(p)
    p.add_argument("--at", type=parse_point, metavar="POINT",
                   help="step through row --row of the Jacobian at POINT instead")
    p.add_argument("--row", type=row, default=None, metavar="P",
                   help="with --at: the row (counting from 0; default 0)")
    p.add_argument("--ascii", action="store_true", help="ASCII spellings only")
    p.add_argument("--width", type=width, default=100, metavar="N",
                   help="abbreviate terms to fit N columns (0: in full; default 100)")
    max_steps_args(p)
    p.set_defaults(run=run)


def run(args, out) -> int:
    import sys
    from .. import jacobian_row, reduce
    from ..errors import PullbackCalcError
    from ..stepper import run_stepper
    if sys.stdin is None:  # (`<&-`): before the work, not after it
        raise PullbackCalcError("standard input is closed: the stepper reads its commands "
                                "from it (or give them in a file: step … < COMMANDS)")
    source = args.source = Source(args)
    term = source.term()
    if args.at is not None:
        output_count(term, args.at, source)
        with progress.reduction():
            r = jacobian_row(term, args.at, args.row or 0, max_steps=args.max_steps)
        trace, start, value = r.trace, r.term, r.covector
    else:
        if args.row is not None:
            raise UsageError("--row needs --at (see 'pullback-calc step --help')")
        source.typecheck(term)
        if source.name == "<stdin>":
            raise UsageError("the stepper reads its commands from standard input: give the "
                             "term as FILE or -e TEXT")
        with progress.reduction():
            res = reduce(term, max_steps=args.max_steps, check=False)
        trace, start, value = res.trace, term, res.value
    return run_stepper(trace, start, value, unicode=not args.ascii, width=args.width,
                       out=out)
