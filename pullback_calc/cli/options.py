"""What every subcommand's options share: value parsers, option groups, usage errors.

Light on purpose (argparse, re, math, budgets): ``main`` imports it before it guards
against interrupts and before the engine loads.
"""
from __future__ import annotations

import argparse
import math
import os
import re
import sys
from typing import Optional, Sequence

from .. import budgets

PROG = "pullback-calc"
DEFAULT_MAX_STEPS = 1_000_000  # reduction.machine's (tests/test_cli.py checks they agree)

TRACE_FORMATS = ("text", "latex", "json", "html")
PHASE_NAMES = ("A", "decompose", "forward", "reverse")


class UsageError(Exception):
    """A command line that makes no sense (exit status 2)."""


def check_output_is_not_input(args) -> None:
    """Refuse ``-o OUT`` when OUT is the input FILE itself (by another name too: a link,
    ``./``): the output would replace the program it was made from."""
    src, out = getattr(args, "file", None), getattr(args, "output", None)
    if not src or src == "-" or not out:
        return
    try:
        same = os.path.samefile(src, out)
    except OSError:  # one of them is not there (yet): no file to lose
        same = False
    if same:
        raise UsageError(f"-o {out} is the input file {src}: writing there would replace the "
                         "program; choose another output file")


_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")


def _hint(message: str, takes_point: bool, argv) -> str:
    """What a point or program given in the wrong place probably meant."""
    at = ", and a point after --at (--at 1,2)" if takes_point else ""
    if message.startswith("argument FILE: not allowed with argument -e"):
        return f"; give the program either as FILE or with -e{at}"
    if message.startswith("unrecognized arguments:") and any(
            a == "--at" or a.startswith("--at=") for a in argv) and any(
            _NUMBER.fullmatch(a) for a in message.split(":", 1)[1].split()):
        return "; a point is one argument after --at, its coordinates joined by commas (--at 1,2)"
    return ""


class Parser(argparse.ArgumentParser):
    argv: list = []  # the arguments being parsed (for the hints)

    def parse_known_args(self, args=None, namespace=None):
        self.argv = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def error(self, message):  # usage mistakes: exit status 2, one clear line
        hint = _hint(message, "--at" in self._option_string_actions, self.argv)
        raise UsageError(f"{message}{hint} (see '{self.prog} --help')")


# ---- values ------------------------------------------------------------------------------

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


def int_at_least(least: int, what: str):
    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if n < least:
            raise argparse.ArgumentTypeError(f"expected {what}, got {n}")
        return n
    return parse


positive_int = int_at_least(1, "a positive integer")
count = int_at_least(0, "a whole number, 0 or more")


def width(text: str) -> Optional[int]:
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


def max_term(text: str) -> Optional[int]:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of characters, got {text!r}") from None
    if n == 0:
        return 0
    if n < 12:
        raise argparse.ArgumentTypeError(f"--max-term must be at least 12 (or 0: in full), got {n}")
    return n


def row(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a row number, got {text!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"rows are counted from 0, got {n}")
    return n


def phases(text: str) -> frozenset:
    from ..rendering.text import parse_phases
    try:
        return parse_phases(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def rules(text: str) -> frozenset:
    from ..rendering.text import parse_rules
    try:
        return parse_rules(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def tolerance(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not (v >= 0 and math.isfinite(v)):
        raise argparse.ArgumentTypeError(f"the tolerance must be a finite number ≥ 0, got {v}")
    return v


def positive(what: str, unit: str, most: Optional[float] = None):
    def parse(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number of {unit}, got {text!r}") from None
        if not (v > 0 and math.isfinite(v)):
            raise argparse.ArgumentTypeError(f"{what} must be a positive number of {unit}, "
                                             f"got {text}")
        if most is not None and v > most:
            raise argparse.ArgumentTypeError(f"{what} must be at most {most:,} {unit}, "
                                             f"got {text}")
        return v
    return parse


seconds = positive("the timeout", "seconds", budgets.MAX_SECONDS)
megabytes = positive("the memory budget", "megabytes")


def free_decl(text: str) -> list:
    """``'h : R -> R'`` or ``'a, b : R'`` → [(name, type)]."""
    from ..errors import PullbackCalcError
    from ..syntax.parser import parse_type
    listed, colon, ty = text.partition(":")
    names = [n.strip() for n in listed.split(",")]
    if not colon or not all(re.fullmatch(r"[^\W\d]\w*'*", n) for n in names):
        raise argparse.ArgumentTypeError(f"expected NAME : TYPE, e.g. 'h : R -> R', "
                                         f"got {text!r}")
    try:
        t = parse_type(ty)
    except PullbackCalcError as e:
        raise argparse.ArgumentTypeError(f"in --free {text!r}: {e.message}") from None
    return [(n, t) for n in names]


# Options whose value may start with '-' (a negative coordinate, a term `-x`):
# ``--at -1,2`` is rewritten to ``--at=-1,2`` before argparse sees it.
VALUED = ("--at", "-e", "--expr", "--tangent")


def join_values(argv: Sequence[str]) -> list[str]:
    out: list[str] = []
    it = iter(argv)
    for a in it:
        if a == "--":
            out.append(a)
            out.extend(it)
            break
        name, eq, value = a.partition("=")
        if eq and value == "--" and name.startswith("-"):
            a, eq = name, ""  # (`--expr=--`: the same as `--expr --`, below)
        if a in VALUED:
            nxt = next(it, None) if not eq else value
            if nxt is None or nxt == "--":
                # argparse drops a value "--" and hands the option [] (a term, a point
                # of []): let it say instead that the option has no value
                out.append(a)
                if nxt == "--":
                    out.append(nxt)
                    out.extend(it)
                    break
            else:
                out.append(f"{'--expr' if a == '-e' else a}={nxt}")
        else:
            out.append(a)
    return out


# ---- option groups -----------------------------------------------------------------------

def source_args(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("file", nargs="?", metavar="FILE",
                     help="a file holding one term ('-': standard input)")
    src.add_argument("-e", "--expr", metavar="TEXT", help="the term itself, on the command line")
    p.add_argument("--free", type=free_decl, action="append", default=[],
                   metavar="'NAME : TYPE'",
                   help="declare a free variable with its type, e.g. --free 'h : R -> R' "
                        "(as `free h : ℝ → ℝ` before the term does); repeatable")
    p.add_argument("--no-check", action="store_true",
                   help="do not type-check first (undeclared free variables are then "
                        "allowed)")


def budget_args(p: argparse.ArgumentParser) -> None:
    """--timeout and --max-memory (every command has them; see budgets.py)."""
    p.add_argument("--timeout", type=seconds, default=None, metavar="SECONDS",
                   help="give up after SECONDS of wall-clock time (default: no limit)")
    p.add_argument("--max-memory", type=megabytes, default=None, metavar="MB",
                   help="give up when the process uses more than MB megabytes (default: no "
                        "limit; a hard limit on POSIX)")


def max_steps_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-steps", type=positive_int, default=DEFAULT_MAX_STEPS, metavar="N",
                   help=f"give up after N reduction steps (default {DEFAULT_MAX_STEPS:,})")
    budget_args(p)


def verify_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--verify", action="store_true",
                   help="check every step (premises included) with the independent oracle: "
                        "the term must mean the same before and after it; stop at the first "
                        "step that changes it, naming its rule (slow: for testing rules and "
                        "primitives)")


def terms_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--terms", choices=("text", "table"), default="text",
                   help="JSON traces: terms printed (text, default) or as indexes into one "
                        "table of nodes written once each (table: whole terms, linear time)")


def json_trace_options(args, trace_flag: Optional[str] = "--trace") -> None:
    """--terms table and --max-term shape a JSON trace: asked for where the
    command writes none, they would be silently ignored -- a usage error.
    ``trace_flag``: the option without which the JSON holds no trace (None:
    it always does)."""
    asked = [o for o, on in (("--terms table", getattr(args, "terms", "text") == "table"),
                             ("--max-term", getattr(args, "max_term", None) is not None)) if on]
    if not asked:
        return
    missing = [f for f, on in (("--json", args.json),
                               (trace_flag, trace_flag is None or getattr(args, "trace", False)))
               if f is not None and not on]
    if missing:
        raise UsageError(f"{' and '.join(asked)} {'shape' if len(asked) > 1 else 'shapes'} "
                         f"a JSON trace: add {' '.join(missing)} (or leave "
                         f"{'them' if len(asked) > 1 else 'it'} out)")


def jobs_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--jobs", "-j", type=count, default=1, metavar="N",
                   help="reduce the rows in N processes (0: one per CPU; default 1); "
                        "the same rows, steps and traces")


def width_args(p: argparse.ArgumentParser, what: str = "trace line width") -> None:
    p.add_argument("--width", type=width, default=100, metavar="N",
                   help=f"{what} (0: unlimited; default 100)")


def unknown_args(p) -> None:
    from ..results.unknown import POLICIES
    p.add_argument("--unknown", choices=POLICIES, default="error",
                   help="free function variables (unknown functions): 'error' if the result "
                        "depends on their derivative (default), 'zero': treat them as constant")


def peek_budgets(argv: Sequence[str]) -> tuple[Optional[float], Optional[float]]:
    """--timeout and --max-memory, wherever they are (before the subcommand's parser runs,
    so that the budgets cover parsing the term too)."""
    p = Parser(prog=PROG, add_help=False, allow_abbrev=False)
    budget_args(p)
    known, _ = p.parse_known_args(join_values(argv))
    return known.timeout, known.max_memory
