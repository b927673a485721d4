"""Small output helpers the subcommands share: numbers, points, JSON traces, notes."""
from __future__ import annotations

import sys
from typing import Optional, Sequence

from .options import PROG


def fmt_row(row: Sequence[float]) -> str:
    from ..syntax.printer import show_num
    return "[" + ", ".join(show_num(v) for v in row) + "]"


def fmt_point(pt: Sequence[float]) -> str:
    from ..syntax.printer import show_num
    return "(" + ", ".join(show_num(v) for v in pt) + ")"


def json_num(v: float):
    return int(v) if float(v).is_integer() and abs(v) < 2 ** 53 else v


# JSON traces abbreviate terms to this many characters by default (``trace -f json`` and
# every command's --json): in full, the terms of a deep trace are each as large as the
# program, and the output grows with steps × size (cubically, for a deep gradient).
JSON_MAX_TERM = 400


def term_limit(option: Optional[int], default: int = JSON_MAX_TERM) -> Optional[int]:
    """The abbreviation a ``--max-term`` option asks for: ``default`` if it is
    not given, None (terms in full) for 0."""
    return default if option is None else (option or None)


def json_trace(trace, term, value, unicode: bool, steps: int, progress=None,
               max_term: Optional[int] = JSON_MAX_TERM, terms: str = "text", state=None,
               next_step=None) -> dict:
    """A trace in the one JSON schema every command uses
    (``rendering.json_trace.TRACE_SCHEMA``), terms abbreviated to ``max_term``
    characters (None: in full), or (``terms="table"``) indexes into one table of
    nodes; ``state``/``next_step``: where ``--depth N`` stopped."""
    from ..rendering.json_trace import trace_to_dict
    doc = trace_to_dict(trace, term=term, value=value,
                        spelling="unicode" if unicode else "ascii", max_term=max_term,
                        paths="none", progress=progress, terms=terms, state=state,
                        next_step=next_step)
    doc["steps"] = steps  # also when the trace was not recorded (--no-trace)
    return doc


def abbrev_term(t, n: int = 70) -> str:
    from ..syntax.printer import pretty
    s = pretty(t)
    return s if len(s) <= n else s[:n - 1] + "…"


_quiet = False


def configure(args) -> None:
    """Notes for this command: none under -q/--quiet (``main`` calls this once)."""
    global _quiet
    _quiet = bool(getattr(args, "quiet", False))


def note(lines: list[str]) -> None:
    """Notes go to stderr, so that standard output keeps its documented shape;
    -q/--quiet silences them (errors are not notes: ``main`` writes those)."""
    if lines and not _quiet:
        sys.stderr.write(f"{PROG}: " + "\n".join(lines) + "\n")


def function_note(term, source) -> list[str]:
    """The function-space note, when some Ω differentiates a function-typed input."""
    from ..errors import PullbackCalcError
    from ..results.crosscheck import pullback_domains_note
    from ..typing.check import pullback_domains
    try:
        return pullback_domains_note(pullback_domains(term, source.free if source else None))
    except PullbackCalcError:
        return []


def write_text(text: str, output: Optional[str], out) -> None:
    """``text`` to the file ``output``, or to ``out`` (standard output)."""
    if output is not None:
        from ..rendering.output import write_atomic
        write_atomic(output, text)
    else:
        out.write(text)


def settle() -> None:
    """Take what exists now -- above all a finished trace, millions of immutable term
    nodes -- out of the garbage collector's reach: rendering allocates heavily, and
    every full collection would rescan the whole trace (it was most of the time of
    rendering a 13,500-step trace).  A command line runs one command and exits."""
    import gc
    gc.freeze()
