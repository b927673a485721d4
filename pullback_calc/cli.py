"""The ``pullback-calc`` command line: reduce terms, compute Jacobians, check them.

    pullback-calc reduce   FILE | -e TEXT  [--max-steps N] [--ascii] [--width N] [--no-trace] [--json]
    pullback-calc jacobian FILE | -e TEXT  --at X,Y,…  [--row P] [--trace] [--json] [--max-steps N]
                           [--jobs N]
    pullback-calc check    FILE | -e TEXT  --at X,Y,…  [--tol T] [--max-steps N] [--jobs N]
    pullback-calc trace    FILE | -e TEXT  [--format text|latex|json|html] [-o OUT]
                           [--phase P,…] [--rule R,…] [--every K] [--color] [--ascii]
                           [--jacobian --at X,Y,… [--row P]] [--max-steps N]
    pullback-calc grad     FILE | -e TEXT  --at X,Y,…  [--json] [--trace] [--unknown error|zero]
    pullback-calc jvp      FILE | -e TEXT  --at X,Y,…  --tangent T,…  [--json] [--trace]
    pullback-calc tape     FILE | -e TEXT  [--at X,Y,… [--row P]] [--json]
    pullback-calc demo

(grad, jvp and tape live in cli_ad.py.)  Every mistake in the input (a missing file, a parse or type error, a bad
point, an exhausted step budget, …) is reported on stderr as
``pullback-calc: error: SOURCE:LINE:COLUMN: message`` (the position when it
is known) with exit status 1; a wrong command line exits with status 2.
"""
from __future__ import annotations

import argparse
import json
import math
import re
import sys
from pathlib import Path
from typing import Optional, Sequence

from .errors import PullbackCalcError, StepBudgetExceeded

# The engine (lark, the rules, the renderers: most of the start-up time) is
# imported by main() once it guards against interrupts; see _load.
DEFAULT_MAX_STEPS = 1_000_000  # reduction.machine's, which _load checks


def _load() -> None:
    global DEFAULT_MAX_STEPS, jacobian_row, parse, pretty, reduce, typecheck, trace_lines
    global show_num
    from . import DEFAULT_MAX_STEPS, jacobian_row, parse, pretty, reduce, typecheck
    from .rendering.text import trace_lines
    from .syntax.printer import show_num

PROG = "pullback-calc"

# The bundled running example (Example 3.1); examples/running_example.pb is a
# byte-for-byte copy (tests/test_examples.py checks), so that the demo needs
# no file at all.
DEMO_POINT = (1.5, 2.0)
DEMO_SOURCE = """\
# The running example of Mak & Ong (Example 3.1):
#
#     f(x, y) = ((x + 1)(2x + y^2))^2        f : R x R -> R
#
# Its Jacobian at (1.5, 2) is [420, 350]:
#     df/dx = 2(x+1)(2x+y^2) * ((2x+y^2) + 2(x+1)) = 2 * 2.5 * 7 * 12 = 420
#     df/dy = 2(x+1)(2x+y^2) * (x+1) * 2y          = 2 * 17.5 * 2.5 * 4 = 350
#
# Run it:
#     pullback-calc demo                                    (this example, explained)
#     pullback-calc jacobian examples/running_example.pb --at 1.5,2
#     pullback-calc jacobian examples/running_example.pb --at 1.5,2 --trace
#     pullback-calc check    examples/running_example.pb --at 1.5,2

λ⟨x, y⟩. ((x + 1) × (2 × x + y ^ 2)) ^ 2
"""

PHASES = {
    "A": "A-reduction: name every intermediate result (let series of elementary terms)",
    "decompose": "decompose: split the pullback along the let series (rules 7, 8)",
    "forward": "forward: evaluate at the point, building the dual maps (rules pb, 4, 1, ...)",
    "reverse": "reverse: differentiate and pull the covector back (rules 5, 15, 20b, ...)",
}


class UsageError(Exception):
    """A command line that makes no sense (exit status 2)."""


# ---- argument parsing -----------------------------------------------------------------

def parse_point(text: str) -> list[float]:
    """``1.5,2``, ``"1.5, 2"``, ``"[1.5, 2]"``, ``"-1 2"`` → [1.5, 2.0] etc."""
    body = text.strip()
    if body[:1] in "[(" and body[-1:] in "])":
        body = body[1:-1]
    parts = [p for p in re.split(r"[\s,;]+", body.strip()) if p]
    if not parts:
        raise argparse.ArgumentTypeError(f"expected a point like 1.5,2 — got {text!r}")
    out = []
    for p in parts:
        try:
            v = float(p)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{p!r} is not a number (expected a point like 1.5,2 or \"[1.5, 2]\")") from None
        if not math.isfinite(v):
            raise argparse.ArgumentTypeError(f"coordinates must be finite numbers, got {p!r}")
        out.append(v)
    return out


def _int_at_least(least: int, what: str):
    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if n < least:
            raise argparse.ArgumentTypeError(f"expected {what}, got {n}")
        return n
    return parse


_positive_int = _int_at_least(1, "a positive integer")
_count = _int_at_least(0, "a whole number, 0 or more")


def _width(text: str) -> Optional[int]:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of columns, got {text!r}") from None
    if n == 0:
        return None
    if n < 40:
        raise argparse.ArgumentTypeError(f"the width must be at least 40 (or 0: unlimited), "
                                         f"got {n}")
    return n


def _max_term(text: str) -> Optional[int]:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of characters, got {text!r}") from None
    if n == 0:
        return 0
    if n < 12:
        raise argparse.ArgumentTypeError(f"--max-term must be at least 12 (or 0: in full), got {n}")
    return n


def _row(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a row number, got {text!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"rows are counted from 0, got {n}")
    return n


TRACE_FORMATS = ("text", "latex", "json", "html")
_PHASE_NAMES = ("A", "decompose", "forward", "reverse")


def _phases(text: str) -> frozenset:
    from .rendering.text import parse_phases
    try:
        return parse_phases(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _rules(text: str) -> frozenset:
    from .rendering.text import parse_rules
    try:
        return parse_rules(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _seconds(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not (v > 0 and math.isfinite(v)):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {v}")
    return v


def _tolerance(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not (v >= 0 and math.isfinite(v)):
        raise argparse.ArgumentTypeError(f"the tolerance must be a finite number ≥ 0, got {v}")
    return v


# Options whose value may start with '-' (a negative coordinate, a term `-x`):
# ``--at -1,2`` is rewritten to ``--at=-1,2`` before argparse sees it.
_VALUED = ("--at", "-e", "--expr", "--tangent")


def _join_values(argv: Sequence[str]) -> list[str]:
    out: list[str] = []
    it = iter(argv)
    for a in it:
        if a == "--":
            out.append(a)
            out.extend(it)
            break
        if a in _VALUED:
            nxt = next(it, None)
            if nxt is None:
                out.append(a)
            else:
                out.append(f"{'--expr' if a == '-e' else a}={nxt}")
        else:
            out.append(a)
    return out


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # usage mistakes: exit status 2, one clear line
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _free_decl(text: str) -> list:
    """``'h : R -> R'`` or ``'a, b : R'`` → [(name, type)]."""
    from .syntax.parser import parse_type
    names, colon, ty = text.partition(":")
    names = [n.strip() for n in names.split(",")]
    if not colon or not all(re.fullmatch(r"[^\W\d]\w*'*", n) for n in names):
        raise argparse.ArgumentTypeError(f"expected NAME : TYPE, e.g. 'h : R -> R', "
                                         f"got {text!r}")
    try:
        t = parse_type(ty)
    except PullbackCalcError as e:
        raise argparse.ArgumentTypeError(f"in --free {text!r}: {e.message}") from None
    return [(n, t) for n in names]


def _source_args(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("file", nargs="?", metavar="FILE",
                     help="a file holding one term ('-': standard input)")
    src.add_argument("-e", "--expr", metavar="TEXT", help="the term itself, on the command line")
    p.add_argument("--free", type=_free_decl, action="append", default=[],
                   metavar="'NAME : TYPE'",
                   help="declare a free variable with its type, e.g. --free 'h : R -> R' "
                        "(as `free h : ℝ → ℝ` before the term does); repeatable")
    p.add_argument("--no-check", action="store_true",
                   help="do not type-check first (undeclared free variables are then "
                        "allowed)")


def _max_steps(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-steps", type=_positive_int, default=DEFAULT_MAX_STEPS, metavar="N",
                   help=f"give up after N reduction steps (default {DEFAULT_MAX_STEPS:,})")
    budget_args(p)


def _positive(what: str, unit: str):
    def parse(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number of {unit}, got {text!r}") from None
        if not (v > 0 and math.isfinite(v)):
            raise argparse.ArgumentTypeError(f"{what} must be a positive number of {unit}, "
                                             f"got {text}")
        return v
    return parse


_seconds = _positive("the timeout", "seconds")
_megabytes = _positive("the memory budget", "megabytes")


def budget_args(p: argparse.ArgumentParser) -> None:
    """--timeout and --max-memory (every command has them; see budgets.py)."""
    p.add_argument("--timeout", type=_seconds, default=None, metavar="SECONDS",
                   help="give up after SECONDS of wall-clock time (default: no limit)")
    p.add_argument("--max-memory", type=_megabytes, default=None, metavar="MB",
                   help="give up when the process uses more than MB megabytes (default: no "
                        "limit; a hard limit on POSIX)")


def _jobs(p: argparse.ArgumentParser) -> None:
    p.add_argument("--jobs", "-j", type=_count, default=1, metavar="N",
                   help="reduce the rows in N processes (0: one per CPU; default 1); "
                        "the same rows, steps and traces")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, allow_abbrev=False,
                     description="Mak & Ong's differential-form pullback calculus, by reduction.",
                     epilog="Terms use Unicode or ASCII spellings (λ or \\, ⟨⟩ or <>, Ω or "
                            "pullback, …); '#' starts a comment.")
    from . import __version__
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    p = sub.add_parser("reduce", help="reduce a term to normal form, showing every step",
                       allow_abbrev=False,
                       description="Parse, type-check and reduce a term (call-by-value); print "
                                   "the trace one step per line, the normal form and the number "
                                   "of steps.")
    _source_args(p)
    _max_steps(p)
    p.add_argument("--ascii", action="store_true", help="print ASCII spellings only")
    p.add_argument("--width", type=_width, default=100, metavar="N",
                   help="abbreviate each trace line to N columns (0: print terms in full; "
                        "default 100)")
    p.add_argument("--no-trace", action="store_true", help="print only the normal form")
    p.add_argument("--json", action="store_true",
                   help="print {normal_form, steps, trace} as JSON (terms in full)")
    p.add_argument("--depth", type=_count, default=None, metavar="N",
                   help="stop after N steps and show the state reached: the term, the next "
                        "redex marked in its context, and the rule that would fire")
    p.set_defaults(run=cmd_reduce)

    p = sub.add_parser("jacobian", help="the Jacobian of f : ℝⁿ → ℝᵐ at a point, by reduction",
                       allow_abbrev=False,
                       description="Row p of the Jacobian is the normal form of "
                                   "Ω(f) (λz. λw. πₚ w) V, one reduction per row.")
    _source_args(p)
    p.add_argument("--at", type=parse_point, required=True, metavar="POINT",
                   help="the point V, e.g. 1.5,2 or \"[1.5, 2]\" or -1,2")
    p.add_argument("--row", type=int, metavar="P", help="only row P (counting from 0)")
    p.add_argument("--trace", action="store_true", help="print each row's reduction trace")
    p.add_argument("--json", action="store_true", help="print {point, rows, steps} as JSON")
    p.add_argument("--ascii", action="store_true", help="print ASCII spellings only")
    p.add_argument("--width", type=_width, default=100, metavar="N",
                   help="trace line width (0: unlimited; default 100)")
    _max_steps(p)
    _jobs(p)
    from .cli_ad import _unknown
    _unknown(p)
    p.set_defaults(run=cmd_jacobian)

    p = sub.add_parser("check", help="cross-check a reduction against an independent reference",
                       allow_abbrev=False,
                       description="With --at: compute every row of the Jacobian by reduction "
                                   "and by sympy — or, where sympy cannot express the program "
                                   "(helpers outside the λ, nested pullbacks, function-typed "
                                   "data) or takes longer than --sympy-timeout, by the "
                                   "forward-mode oracle and central finite differences. "
                                   "Without --at: reduce a closed term and compare its value "
                                   "with the forward-mode oracle's (a function or covector is "
                                   "applied to sample arguments first). Says which reference "
                                   "was used; exit status 0 if they agree, 1 if not.")
    _source_args(p)
    p.add_argument("--at", type=parse_point, default=None, metavar="POINT",
                   help="the point, e.g. 1.5,2 (for a function ℝⁿ → ℝᵐ)")
    p.add_argument("--tol", type=_tolerance, default=1e-9, metavar="T",
                   help="relative and absolute tolerance (default 1e-9)")
    p.add_argument("--sympy-timeout", type=_seconds, default=None, metavar="S",
                   help="give sympy at most S seconds, then use the oracle (default 10)")
    _max_steps(p)
    _jobs(p)
    p.set_defaults(run=cmd_check)

    p = sub.add_parser("trace", help="a reduction trace as text, LaTeX, JSON or an HTML stepper",
                       allow_abbrev=False,
                       description="Reduce a term (or, with --jacobian, compute one row of a "
                                   "Jacobian) and render the trace: text (one step per line), "
                                   "LaTeX (a derivation for a paper), JSON (see the schema in "
                                   "pullback_calc/rendering/json_trace.py) or HTML (an "
                                   "interactive stepper, one self-contained page).")
    _source_args(p)
    p.add_argument("--format", "-f", choices=TRACE_FORMATS, default="text",
                   help="output format (default text)")
    p.add_argument("-o", "--output", metavar="OUT", help="write to OUT instead of standard output")
    p.add_argument("--phase", type=_phases, metavar="P,…",
                   help="only steps of these phases: " + ", ".join(_PHASE_NAMES))
    p.add_argument("--rule", type=_rules, metavar="R,…",
                   help="only steps of these rules, e.g. 5,15 (16 means 16a, 16b, 16c; "
                        "A the A-rules)")
    p.add_argument("--every", type=_positive_int, default=1, metavar="K",
                   help="only every K-th step (of those chosen)")
    p.add_argument("--color", nargs="?", const="always", default="auto",
                   choices=("auto", "always", "never"),
                   help="ANSI colours in text output (default: only on a terminal)")
    p.add_argument("--ascii", action="store_true", help="ASCII spellings only")
    p.add_argument("--width", type=_width, default=100, metavar="N",
                   help="text: abbreviate each line to N columns (0: terms in full; "
                        "default 100)")
    p.add_argument("--max-term", type=_max_term, default=None, metavar="N",
                   help="json/html/latex: abbreviate terms to about N characters (0: in full; "
                        "default 400 for json, 160 for html, 200 for latex)")
    p.add_argument("--no-premises", action="store_true", help="leave premises out")
    p.add_argument("--fragment", action="store_true",
                   help="latex: a fragment to paste into a document (default: a whole "
                        "document)")
    p.add_argument("--paths", choices=("delta", "full", "none"), default="delta",
                   help="json: how redex paths are written (default delta)")
    p.add_argument("--title", metavar="TEXT", help="html/latex: the title")
    p.add_argument("--jacobian", action="store_true",
                   help="trace row P of the Jacobian at --at instead of reducing the term")
    p.add_argument("--at", type=parse_point, metavar="POINT",
                   help="with --jacobian: the point, e.g. 1.5,2")
    p.add_argument("--row", type=_row, default=None, metavar="P",
                   help="with --jacobian: the row (counting from 0; default 0)")
    _max_steps(p)
    p.set_defaults(run=cmd_trace)

    p = sub.add_parser("step", help="an interactive terminal stepper over a reduction",
                       allow_abbrev=False,
                       description="Reduce a term (or, with --at, one row of its Jacobian) and "
                                   "step through the trace: next, back, goto N, run RULE, "
                                   "premise, context, term, latex, help, quit. Commands are "
                                   "read from standard input, one a line.")
    _source_args(p)
    p.add_argument("--at", type=parse_point, metavar="POINT",
                   help="step through row --row of the Jacobian at POINT instead")
    p.add_argument("--row", type=_row, default=None, metavar="P",
                   help="with --at: the row (counting from 0; default 0)")
    p.add_argument("--ascii", action="store_true", help="ASCII spellings only")
    p.add_argument("--width", type=_width, default=100, metavar="N",
                   help="abbreviate terms to fit N columns (0: in full; default 100)")
    _max_steps(p)
    p.set_defaults(run=cmd_step)

    sub.add_parser("graph", help="reduction graphs with graphviz (see: pullback-calc graph --help)",
                   add_help=False)
    from .engines.compare import add_compare_command  # issue 12: every engine side by side
    add_compare_command(sub)

    p = sub.add_parser("demo", help="the running example (Example 3.1), phase by phase",
                       allow_abbrev=False)
    _max_steps(p)
    p.add_argument("--ascii", action="store_true", help="print ASCII spellings only")
    p.add_argument("--width", type=_width, default=100, metavar="N",
                   help="trace line width (0: unlimited; default 100)")
    p.set_defaults(run=cmd_demo)

    from .cli_ad import add_commands  # grad, jvp, tape (issue 11)
    add_commands(sub)
    return parser


# ---- input ------------------------------------------------------------------------------

class Source:
    """The text of the term and a name for error messages."""

    def __init__(self, args):
        if args.expr is not None:
            self.name, self.text = "<-e>", args.expr
        elif args.file == "-":
            self.name = "<stdin>"
            if sys.stdin is None:
                raise PullbackCalcError("<stdin>: standard input is closed")
            data = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read()
            try:
                self.text = data.decode("utf-8") if isinstance(data, bytes) else data
            except UnicodeDecodeError as e:
                raise PullbackCalcError(f"<stdin>: not UTF-8 text ({e.reason} at byte "
                                        f"{e.start})") from None
        else:
            self.name = args.file
            try:
                self.text = Path(args.file).read_text(encoding="utf-8")
            except UnicodeDecodeError as e:
                raise PullbackCalcError(f"{args.file}: not UTF-8 text ({e.reason} at byte "
                                        f"{e.start})") from None

        self.program = None
        self.declared: dict = {}
        for group in getattr(args, "free", None) or ():
            self.declared.update(group)
        self.no_check = bool(getattr(args, "no_check", False))

    def term(self):
        from .syntax.parser import parse_program
        self.program = parse_program(self.text)
        return self.program.term

    @property
    def free(self) -> dict:
        """The declared free variables: the file's ``free`` lines, then --free."""
        out = dict(self.program.free) if self.program is not None else {}
        out.update(self.declared)
        return out

    def typecheck(self, term):
        """Type-check ``term`` as a closed term up to the declared free variables
        (an undeclared one is an error with a did-you-mean); --no-check skips it."""
        if self.no_check:
            return None
        return typecheck(term, self.free, closed=True)


def _where(source: Optional[Source], pos) -> str:
    if pos is None:
        return f"{source.name}: " if source is not None else ""
    line, col = getattr(pos, "line", None), getattr(pos, "column", None)
    if line is None:
        return f"{source.name}: " if source is not None else f"{pos}: "
    name = source.name if source is not None else "<input>"
    return f"{name}:{line}:{col}: "


def _excerpt(source: Optional[Source], pos) -> list[str]:
    """The offending source line with a caret under the column."""
    if source is None or pos is None or getattr(pos, "line", None) is None:
        return []
    lines = source.text.split("\n")
    if not 1 <= pos.line <= len(lines):
        return []
    text = lines[pos.line - 1].rstrip()
    if not text.strip() or len(text) > 200:
        return []
    col = max(pos.column, 1)
    return ["    " + text, "    " + " " * (col - 1) + "^"]


def _fmt_row(row: Sequence[float]) -> str:
    return "[" + ", ".join(show_num(v) for v in row) + "]"


def _fmt_point(pt: Sequence[float]) -> str:
    return "(" + ", ".join(show_num(v) for v in pt) + ")"


def _json_num(v: float):
    return int(v) if float(v).is_integer() and abs(v) < 2 ** 53 else v


# ---- reduce -------------------------------------------------------------------------------

def _json_trace(trace, term, value, unicode: bool, steps: int) -> dict:
    """A trace in the one JSON schema every command uses
    (``rendering.json_trace.TRACE_SCHEMA``), terms in full."""
    from .rendering.json_trace import trace_to_dict
    doc = trace_to_dict(trace, term=term, value=value,
                        spelling="unicode" if unicode else "ascii", max_term=None,
                        paths="none")
    doc["steps"] = steps  # also when the trace was not recorded (--no-trace)
    return doc


def state_lines(term, nxt, unicode: bool = True, width: Optional[int] = 100) -> list[str]:
    """The state a reduction stopped in: the term reached, and the next redex
    marked ⟪ ⟫ in its context with the rule that would fire."""
    from .rendering.text import abbreviate, context_around
    ob, cb = ("⟪", "⟫") if unicode else ("<<", ">>")
    left, right, more = context_around(nxt, unicode, frames=4, sibling=24)
    room = None if width is None else max(width - 8, 40)
    red = abbreviate(nxt.redex, unicode, None if room is None else max(room // 2, 20))
    dots = "… " if more else ""
    return [f"term: {pretty(term, unicode) if width is None else abbreviate(term, unicode, room)}",
            f"next: step {nxt.index}, rule [{nxt.rule}] ({nxt.phase}) on the redex marked "
            f"{ob} {cb}:",
            f"    {dots}{left}{ob}{red}{cb}{right}"]


def cmd_reduce(args, out) -> int:
    source = args.source = Source(args)
    term = source.term()
    source.typecheck(term)
    want_trace = args.json or not args.no_trace
    u = not args.ascii
    try:
        result = reduce(term, max_steps=args.max_steps, record=want_trace,
                        stop_after=args.depth)
    except StepBudgetExceeded as e:  # offer the state reached
        if getattr(e, "next_step", None) is not None and not args.json:
            lines = [f"state after {e.next_step.index} steps (the step budget ran out):",
                     *state_lines(e.term, e.next_step, u, args.width),
                     f"(to see the trace up to here: --depth {e.next_step.index})"]
            out.write("\n".join(lines) + "\n")
        raise
    if args.json:
        doc = _json_trace([] if args.no_trace else result.trace, term,
                          None if result.stopped else result.value, u, result.steps)
        if result.stopped:
            nxt = result.next_step
            doc["state"] = pretty(result.value, u)
            doc["next"] = {"index": nxt.index, "rule": nxt.rule,
                           "redex": pretty(nxt.redex, u),
                           "path": [list(f) for f in nxt.path()]}
        json.dump(doc, out, ensure_ascii=not u, indent=2)
        out.write("\n")
        return 0
    lines = [] if args.no_trace else trace_lines(result.trace, u, args.width)
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
    _note(_function_note(term, source))
    out.write("\n".join(lines) + "\n")
    return 0


# ---- jacobian / check -------------------------------------------------------------------

def _output_count(term, point, source: Optional[Source] = None) -> int:
    """m, for f : ℝⁿ → ℝᵐ (type-checks f against the point's dimension, as a
    closed term up to the source's declared free variables)."""
    from .results.jacobian import _function_type, _leaves
    if source is not None and not source.no_check:
        _, cod = _function_type(term, len(point), env=source.free, closed=True)
    else:
        _, cod = _function_type(term, len(point))
    return len(_leaves(cod, "output"))


def _rows(term, args):
    """[(p, JacobianRow)] for the requested rows (traces only if --trace asks;
    --jobs N: in N processes)."""
    from .results.jacobian import jacobian_rows
    m = _output_count(term, args.at, getattr(args, "source", None))
    if getattr(args, "row", None) is not None:
        ps = [args.row]
    else:
        ps = list(range(m))
    rows = jacobian_rows(term, args.at, ps, max_steps=args.max_steps,
                         record=bool(getattr(args, "trace", False)),
                         workers=getattr(args, "jobs", None),
                         on_unknown=getattr(args, "unknown", "error"))
    return list(zip(ps, rows))


def cmd_jacobian(args, out) -> int:
    source = args.source = Source(args)
    term = source.term()
    rows = _rows(term, args)
    u = not args.ascii
    if args.json:
        doc = {"point": [_json_num(v) for v in args.at],
               "rows": [[_json_num(v) for v in r.row] for _, r in rows],
               "steps": [r.steps for _, r in rows]}
        if args.row is not None:
            doc["row_index"] = args.row
        if args.trace:
            doc["traces"] = [_json_trace(r.trace, r.term, r.covector, u, r.steps)
                             for _, r in rows]
        json.dump(doc, out, ensure_ascii=not u)
        out.write("\n")
        return 0
    lines = [f"Jacobian at {_fmt_point(args.at)}, by reduction:"]
    for p, r in rows:
        if args.trace:
            lines.append(f"-- row {p}: {pretty(r.term, u)}")
            lines.extend(trace_lines(r.trace, u, args.width))
            lines.append(f"   covector: {pretty(r.covector, u)}")
        lines.append(f"row {p}: {_fmt_row(r.row)}    ({r.steps} steps)")
    out.write("\n".join(lines) + "\n")
    return 0


def _agree(a: float, b: float, tol: float) -> bool:
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


def _difference_ok(got: Sequence[float], fd: Sequence[float], tol: float) -> bool:
    """Central differences are accurate to about 1e-6 of the row's scale."""
    scale = max([1.0, *map(abs, got)])
    t = max(tol, 1e-6)
    return len(got) == len(fd) and all(math.isclose(a, b, rel_tol=t, abs_tol=t * scale)
                                       for a, b in zip(got, fd))


def _check_lines(term, point, tol: float, max_steps: int, jobs: Optional[int] = None,
                 timeout: Optional[float] = None,
                 source: Optional[Source] = None) -> tuple[list[str], bool, str]:
    """Rows by reduction against sympy, or — when sympy cannot express the
    program or runs out of time — the forward-mode oracle and central
    differences: (lines, all agree, the reference's name)."""
    from .results import crosscheck as X
    from .results.jacobian import _function_type, jacobian_rows
    m = _output_count(term, point, source)
    dom, cod = _function_type(term, len(point))
    # sympy works in a child process while the rows are reduced here
    job = X.SympyJob(term, point, X.SYMPY_TIMEOUT if timeout is None else timeout)
    try:
        rows = jacobian_rows(term, point, list(range(m)), max_steps=max_steps, record=False,
                             workers=jobs)
    except BaseException:
        job.cancel()
        raise
    expected, why = job.result()
    lines, ok = [], True
    if expected is not None:
        for p, r in enumerate(rows):
            s = expected[p]
            good = len(r.row) == len(s) and all(_agree(a, b, tol) for a, b in zip(r.row, s))
            ok = ok and good
            lines.append(f"row {p}: reduction {_fmt_row(r.row)}    ({r.steps} steps)")
            lines.append(f"       sympy     {_fmt_row(s)}    {'OK' if good else 'MISMATCH'}")
        return lines, ok, "sympy"
    try:
        oracle = X.oracle_rows(term, dom, cod, point)
        diffs = X.difference_rows(term, dom, cod, point)
    except (ArithmeticError, ValueError, TypeError) as e:  # e.g. log of a negative
        raise PullbackCalcError(f"no reference could check this program: {why}, and the "
                                f"forward-mode oracle failed ({e})") from None
    except Exception as e:  # the oracle's own errors (OracleError, …)
        raise PullbackCalcError(f"no reference could check this program: {why}, and the "
                                f"forward-mode oracle failed ({e})") from None
    lines.append(f"(not sympy: {why})")
    for p, r in enumerate(rows):
        good = len(r.row) == len(oracle[p]) and all(
            _agree(a, b, tol) for a, b in zip(r.row, oracle[p]))
        near = _difference_ok(r.row, diffs[p], tol)
        ok = ok and good and near
        lines.append(f"row {p}: reduction   {_fmt_row(r.row)}    ({r.steps} steps)")
        lines.append(f"       oracle      {_fmt_row(oracle[p])}    "
                     f"{'OK' if good else 'MISMATCH'}")
        lines.append(f"       differences {_fmt_row([round(v, 9) for v in diffs[p]])}    "
                     f"{'OK' if near else 'MISMATCH'}")
    return lines, ok, "the forward-mode oracle and central finite differences"


def _value_check_lines(term, ty, tol: float, max_steps: int) -> tuple[list[str], bool]:
    from .results import crosscheck as X
    try:
        vc = X.check_value(term, ty, max_steps)
    except ValueError as e:
        raise PullbackCalcError(f"cannot check this program: {e}") from None
    lines, ok = [], True
    for args, got, want in vc.probes:
        good = len(got) == len(want) and all(_agree(a, b, tol) for a, b in zip(got, want))
        ok = ok and good
        if args:
            shown = " ".join(f"({_abbrev_term(a)})" for a in args)
            lines.append(f"applied to {shown}:")
        lines.append(f"  reduction {_fmt_row(got)}")
        lines.append(f"  oracle    {_fmt_row(want)}    {'OK' if good else 'MISMATCH'}")
    lines.insert(0, f"({vc.steps} reduction steps)")
    return lines, ok


def _abbrev_term(t, n: int = 70) -> str:
    s = pretty(t)
    return s if len(s) <= n else s[:n - 1] + "…"


def _note(lines: list[str]) -> None:
    """Notes go to stderr, so that standard output keeps its documented shape."""
    if lines:
        sys.stderr.write(f"{PROG}: " + "\n".join(lines) + "\n")


def _function_note(term, source: Optional[Source]) -> list[str]:
    """The function-space note, when some Ω differentiates a function-typed input."""
    from .results.crosscheck import pullback_domains_note
    from .typing.check import pullback_domains
    try:
        return pullback_domains_note(pullback_domains(term, source.free if source else None))
    except PullbackCalcError:
        return []


def cmd_check(args, out) -> int:
    source = args.source = Source(args)
    term = source.term()
    given: list = []
    if source.free:  # an open program is checked with samples for its free variables
        from .results.crosscheck import bind_free
        (source.typecheck(term) if args.at is None else
         _output_count(term, args.at, source))
        original, (term, given) = term, bind_free(term, source.free)
    if args.at is None:
        ty = typecheck(term, source.free, closed=not source.no_check)
        from .syntax.types import Arrow, real_leaves
        if isinstance(ty, Arrow) and real_leaves(ty.dom) is not None \
                and real_leaves(ty.cod) is not None:
            raise UsageError("this is a function ℝⁿ → ℝᵐ: check its Jacobian at a point with "
                             "--at X,Y,… (see 'pullback-calc check --help')")
        lines, ok = _value_check_lines(term, ty, args.tol, args.max_steps)
        lines.insert(0, f"Value by reduction vs the forward-mode oracle (tolerance "
                        f"{args.tol:g})")
    else:
        lines, ok, ref = _check_lines(term, args.at, args.tol, args.max_steps, args.jobs,
                                      args.sympy_timeout, source)
        lines.insert(0, f"Jacobian at {_fmt_point(args.at)}: reduction vs {ref} "
                        f"(tolerance {args.tol:g})")
    if given:
        lines.insert(1, "free variables, for this check: " + ", ".join(
            f"{n} = {_abbrev_term(v, 50)}" for n, v in given))
    lines.append("all rows agree" if ok and args.at is not None else
                 "all values agree" if ok else
                 "MISMATCH: reduction and the reference disagree")
    out.write("\n".join(lines) + "\n")
    _note(_function_note(term, source))
    return 0 if ok else 1


# ---- trace --------------------------------------------------------------------------------

def _use_color(args, out) -> bool:
    import os
    if args.color == "always":
        return True
    if args.color == "never" or args.output is not None or os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(out, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


def cmd_trace(args, out) -> int:
    if args.at is not None:
        args.jacobian = True
    if args.jacobian and args.at is None:
        raise UsageError("--jacobian needs the point: --at X,Y,… (see 'pullback-calc trace --help')")
    if args.row is not None and not args.jacobian:
        raise UsageError("--row needs --jacobian and --at (see 'pullback-calc trace --help')")
    source = args.source = Source(args)
    term = source.term()
    if args.jacobian:
        _output_count(term, args.at, source)  # closed up to the declarations
        r = jacobian_row(term, args.at, args.row or 0, max_steps=args.max_steps)
        trace, start, value = r.trace, r.term, r.covector
        title = args.title or (f"Row {args.row or 0} of the Jacobian at "
                               f"{_fmt_point(args.at)}: {_fmt_row(r.row)}")
    else:
        source.typecheck(term)
        res = reduce(term, max_steps=args.max_steps)
        trace, start, value = res.trace, term, res.value
        title = args.title or f"Reduction of {source.name}"
    u = not args.ascii
    chosen = dict(phases=args.phase, rules=args.rule, every=args.every)
    limit = args.max_term
    fmt = args.format
    if fmt == "text":
        from .rendering.text import trace_lines
        color = _use_color(args, out)
        lines = trace_lines(trace, u, args.width, not args.no_premises, color=color, **chosen)
        text = "\n".join(lines) + ("\n" if lines else "")
    elif fmt == "latex":
        from .rendering.latex import trace_to_latex
        text = trace_to_latex(trace, standalone=not args.fragment, title=title, term=start,
                              value=value, max_term=200 if limit is None else (limit or None),
                              premises=not args.no_premises, **chosen)
    elif fmt == "json":
        from .rendering.json_trace import trace_to_json
        text = trace_to_json(trace, term=start, value=value,
                             spelling="unicode" if u else "ascii",
                             max_term=400 if limit is None else (limit or None),
                             paths=args.paths, premises=not args.no_premises, **chosen) + "\n"
    else:
        from .rendering.html import trace_to_html
        if args.no_premises:
            from .rendering.json_trace import _NoPremises
            trace = [_NoPremises(s) for s in trace]
        text = trace_to_html(trace, title=title, term=start, value=value, unicode=u,
                             max_term=160 if limit is None else (limit or None), **chosen)
    if args.output is not None:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        out.write(text)
    return 0


# ---- step ------------------------------------------------------------------------------

def cmd_step(args, out) -> int:
    from .stepper import run_stepper
    source = args.source = Source(args)
    term = source.term()
    if args.at is not None:
        _output_count(term, args.at, source)
        r = jacobian_row(term, args.at, args.row or 0, max_steps=args.max_steps)
        trace, start, value = r.trace, r.term, r.covector
    else:
        if args.row is not None:
            raise UsageError("--row needs --at (see 'pullback-calc step --help')")
        source.typecheck(term)
        if source.name == "<stdin>":
            raise UsageError("the stepper reads its commands from standard input: give the "
                             "term as FILE or -e TEXT")
        res = reduce(term, max_steps=args.max_steps)
        trace, start, value = res.trace, term, res.value
    return run_stepper(trace, start, value, unicode=not args.ascii, width=args.width,
                       out=out)


# ---- demo ------------------------------------------------------------------------------

def cmd_demo(args, out) -> int:
    u, width = not args.ascii, args.width
    term = parse(DEMO_SOURCE)
    ty = typecheck(term)
    r = jacobian_row(term, DEMO_POINT, 0, max_steps=args.max_steps)
    from .syntax.printer import pretty_type
    lines = [
        "The running example of Mak & Ong (Example 3.1), examples/running_example.pb:",
        "",
        f"    f = {pretty(term, u)}    : {pretty_type(ty, u)}",
        "",
        f"Row 0 of its Jacobian at V = {_fmt_point(DEMO_POINT)} is the normal form of "
        f"Ω(f) (λz. e₀*) V," if u else
        f"Row 0 of its Jacobian at V = {_fmt_point(DEMO_POINT)} is the normal form of "
        f"pullback(f) (\\z. e0*) V,",
        f"    {pretty(r.term, u)}",
        f"reached in {r.steps} steps, in four phases:",
    ]
    counts: dict = {}
    inner: dict = {}  # steps inside premises (rule 5's arithmetic, …), by the phase they serve

    def count_premises(step, phase):
        for d in step.premises:
            for s in d.steps:
                inner[phase] = inner.get(phase, 0) + 1
                count_premises(s, phase)
    for step in r.trace:
        counts[step.phase] = counts.get(step.phase, 0) + 1
        count_premises(step, step.phase)
    phase = None
    for step in r.trace:
        if step.phase != phase:
            phase = step.phase
            extra = f", and {inner[phase]} in premises" if inner.get(phase) else ""
            lines += ["", f"== {PHASES.get(phase, phase)}  [{counts[phase]} steps{extra}] =="]
        lines.extend(trace_lines([step], u, width))  # the step (and premises, if any)
    lines += ["", f"normal form (the covector): {pretty(r.covector, u)}",
              f"Jacobian at {_fmt_point(DEMO_POINT)}: {_fmt_row(r.row)}", ""]
    check, ok, ref = _check_lines(term, DEMO_POINT, 1e-9, args.max_steps)
    lines.append(f"Cross-check with {ref}:")
    lines += ["  " + s for s in check]
    lines.append("  all rows agree" if ok else "  MISMATCH: reduction and sympy disagree")
    out.write("\n".join(lines) + "\n")
    return 0 if ok else 1


# ---- main --------------------------------------------------------------------------------

def _fail(message: str, status: int, extra: Sequence[str] = ()) -> int:
    try:  # stderr may be closed, full or a broken pipe: the status still tells
        sys.stderr.write("\n".join([f"{PROG}: error: {message}", *extra]) + "\n")
        sys.stderr.flush()
    except (OSError, AttributeError, ValueError):
        pass
    return status


class Terminated(BaseException):
    """SIGTERM, raised like KeyboardInterrupt so that the clean-up runs."""


def _on_term(signum, frame):
    raise Terminated()


def _on_alarm(signum, frame):
    from . import budgets
    from .errors import TimeBudgetExceeded
    raise TimeBudgetExceeded(budgets.time_message())


class _Guards:
    """Signal handlers and hard backstops for the budgets, installed by main()
    and restored on the way out (main() also runs inside test processes)."""

    def __init__(self):
        self.saved: list = []

    def signal(self, signum, handler) -> None:
        import signal
        try:
            self.saved.append(("signal", signum, signal.signal(signum, handler)))
        except (ValueError, OSError, AttributeError):  # not the main thread / no such signal
            pass

    def budgets(self, timeout: Optional[float], max_memory: Optional[float]) -> None:
        import signal
        if timeout is not None and hasattr(signal, "setitimer"):
            # the machine checks the deadline itself (with the state reached); this
            # timer, a little later, stops the stages that do not reduce
            self.signal(signal.SIGALRM, _on_alarm)
            if self.saved and self.saved[-1][1] == signal.SIGALRM:
                signal.setitimer(signal.ITIMER_REAL, timeout + 0.5)
                self.saved.append(("timer",))
        if max_memory is not None:
            try:
                import resource
                soft, hard = resource.getrlimit(resource.RLIMIT_AS)
                # address space, not resident memory: leave room for the helper thread's
                # stack (deep.py), malloc's arenas and the mapped libraries
                from .budgets import address_space
                from .deep import _STACK
                want = address_space() + int(max_memory * 2 ** 20) + _STACK + 1024 * 2 ** 20
                if hard != resource.RLIM_INFINITY:
                    want = min(want, hard)
                if soft == resource.RLIM_INFINITY or want < soft:
                    resource.setrlimit(resource.RLIMIT_AS, (want, hard))
                    self.saved.append(("rlimit", soft, hard))
            except (ImportError, ValueError, OSError):  # not POSIX: the machine's checks only
                pass

    def restore(self) -> None:
        import signal
        for item in reversed(self.saved):
            try:
                if item[0] == "timer":
                    signal.setitimer(signal.ITIMER_REAL, 0)
                elif item[0] == "signal":
                    signal.signal(item[1], item[2])
                else:
                    import resource
                    resource.setrlimit(resource.RLIMIT_AS, (item[1], item[2]))
            except (ValueError, OSError):
                pass
        self.saved.clear()


def _peek_budgets(argv: Sequence[str]) -> tuple[Optional[float], Optional[float]]:
    """--timeout and --max-memory, wherever they are (graph parses its own options)."""
    p = _Parser(prog=PROG, add_help=False, allow_abbrev=False)
    budget_args(p)
    known, _ = p.parse_known_args(_join_values(argv))
    return known.timeout, known.max_memory


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line; returns the exit status (the console script exits with it).

    Whatever happens, the outcome is one line on stderr and a conventional status,
    never a traceback: 1 for bad input (and exhausted budgets), 2 for a bad command
    line, 130 for SIGINT, 143 for SIGTERM, 70 for an internal error (set
    PULLBACK_CALC_DEBUG=1 to see its traceback).
    """
    import signal
    guards = _Guards()
    guards.signal(signal.SIGTERM, _on_term)
    try:
        try:
            return _main(argv, guards)
        finally:
            guards.restore()
    except KeyboardInterrupt:
        return _fail("interrupted", 130)
    except Terminated:
        return _fail("terminated", 143)
    except Exception as e:  # an interrupt wrapped by Python (e.g. inside __set_name__)
        if _interrupted(e):
            return _fail("interrupted", 130)
        return _internal(e)


def _interrupted(e: BaseException) -> bool:
    seen = 0
    while e is not None and seen < 20:
        if isinstance(e, KeyboardInterrupt):
            return True
        e, seen = e.__cause__ or e.__context__, seen + 1
    return False


def _main(argv: Optional[Sequence[str]], guards: _Guards) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    _load()
    try:
        timeout, max_memory = _peek_budgets(argv)
    except UsageError as e:
        return _fail(str(e), 2)
    args = None
    try:
        guards.budgets(timeout, max_memory)
        from .budgets import budget
        with budget(timeout, max_memory):
            if argv[:1] == ["graph"]:  # reduction graphs parse their own options
                from .rendering.graph import graph_command
                status = graph_command(argv[1:])
            else:
                parser = build_parser()
                try:
                    args = parser.parse_args(_join_values(argv))
                except UsageError as e:
                    return _fail(str(e), 2)
                except SystemExit as e:  # --help
                    status = e.code if isinstance(e.code, int) else 0
                    _flush()
                    return status
                args.source = None
                if sys.stdout is None:
                    return _fail("standard output is closed: nowhere to write the output", 1)
                status = args.run(args, sys.stdout)
            _flush()
            return status
    except UsageError as e:
        return _fail(str(e), 2)
    except PullbackCalcError as e:
        source = getattr(args, "source", None)
        return _fail(_where(source, e.pos) + e.message, 1, _excerpt(source, e.pos))
    except (MemoryError, RuntimeError) as e:
        if isinstance(e, RuntimeError) and not (max_memory and "new thread" in str(e)):
            return _internal(e)
        _release(args)
        if max_memory is not None:
            return _fail(f"memory budget of {max_memory:g} MB exhausted; raise it with "
                         f"--max-memory", 1)
        return _fail("out of memory", 1)
    except RecursionError:  # a bug: nothing should recurse on the input's size
        return _fail("internal error: the input is nested too deeply for one of the stages "
                     "(please report it)", 70)
    except OSError as e:
        _silence_stdout()
        if isinstance(e, BrokenPipeError):  # e.g. `pullback-calc reduce … | head`
            return 1
        name = f"{e.filename}: " if e.filename else "cannot write the output: "
        return _fail(f"{name}{e.strerror or e}", 1)
    except (KeyboardInterrupt, Terminated):
        raise
    except Exception as e:  # noqa: BLE001 - last resort: one line, not a traceback
        if _interrupted(e):
            return _fail("interrupted", 130)
        return _internal(e)


def _internal(e: BaseException) -> int:
    import os
    if os.environ.get("PULLBACK_CALC_DEBUG"):
        raise e
    return _fail(f"internal error: {type(e).__name__}: {e} (please report it; "
                 f"PULLBACK_CALC_DEBUG=1 shows the traceback)", 70)


def _flush() -> None:
    """Write out what is buffered now, so that a full disk or a closed pipe is
    reported here (as an OSError) and not as a warning at exit."""
    if sys.stdout is not None:
        sys.stdout.flush()


def _silence_stdout() -> None:
    import os
    try:
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - the flush at exit must not fail
    except OSError:
        pass


def _release(args) -> None:
    """After a MemoryError: drop what the command held, so the message can be written."""
    import gc
    if args is not None:
        args.source = None
    gc.collect()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
