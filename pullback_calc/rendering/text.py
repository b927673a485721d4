"""Plain-text traces: one line per step, premises indented under their step.

Terms are pretty-printed *bounded*: only as much of a term as fits is
printed (its beginning and its end, with an ellipsis in the middle), so a
line costs O(width) however large the redex, and a whole trace is linear in
the number of steps.  ``width=None`` prints terms in full.
"""
from __future__ import annotations

from typing import Iterable, Optional

from ..syntax.printer import pretty
from ..syntax.terms import Term

__all__ = ["abbreviate", "format_step", "format_trace", "trace_lines"]

RULE_COLUMN = 10      # "[dual-app]" is the longest label
PHASE_COLUMN = 9      # "decompose"
INDENT = "    "
MIN_TERM = 12         # never abbreviate a term to fewer characters than this


def _printer(unicode: bool):
    """The pretty printer's task expander, or None if its internals changed."""
    try:
        from ..syntax.printer import LAM, _Printer
        return _Printer(unicode), LAM
    except ImportError:  # pragma: no cover - fall back to printing in full
        return None, None


def _pieces(t: Term, unicode: bool, limit: int, from_end: bool) -> tuple[str, bool]:
    """The first (or last) ``limit``+ characters of ``pretty(t)`` and whether
    that is all of it; walks only the part of the term that gets printed."""
    printer, top = _printer(unicode)
    if printer is None:  # pragma: no cover
        s = pretty(t, unicode)
        return (s[-limit:] if from_end else s), len(s) <= limit
    out: list[str] = []
    n = 0
    stack: list = [(t, top)]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            n += len(item)
            if n > limit:
                break
        else:
            parts = printer.task(*item)
            stack.extend(parts if from_end else reversed(parts))
    else:
        return ("".join(reversed(out)) if from_end else "".join(out)), True
    return ("".join(reversed(out)) if from_end else "".join(out)), False


def abbreviate(t: Term, unicode: bool = True, limit: Optional[int] = 60) -> str:
    """``pretty(t)``, or its beginning and end around an ellipsis if it is
    longer than ``limit`` characters (``limit=None``: the whole term)."""
    if limit is None:
        return pretty(t, unicode)
    limit = max(limit, MIN_TERM)
    head, complete = _pieces(t, unicode, limit, from_end=False)
    if complete:
        return head
    dots = "…" if unicode else "..."
    keep = limit - len(dots)
    tail, _ = _pieces(t, unicode, keep // 2, from_end=True)
    return head[:keep - keep // 2] + dots + tail[-(keep // 2):]


def _arrow(unicode: bool) -> str:
    return "  ⟶  " if unicode else "  -->  "


def _two_terms(a: Term, b: Term, sep: str, unicode: bool, room: Optional[int]) -> str:
    """``a sep b`` in ``room`` characters, sharing the room between a and b."""
    if room is None:
        return pretty(a, unicode) + sep + pretty(b, unicode)
    room = max(room - len(sep), 2 * MIN_TERM)
    half = room // 2
    sa = abbreviate(a, unicode, half)
    sb = abbreviate(b, unicode, room - len(sa))  # b gets what a left over
    if len(sb) < room - len(sa) and len(sa) >= half:
        sa = abbreviate(a, unicode, room - len(sb))  # and a what b left over
    return sa + sep + sb


def format_step(step, unicode: bool = True, width: Optional[int] = 100) -> str:
    """One line: index, ``[rule]``, phase, then ``redex ⟶ contractum``."""
    head = f"{step.index:>5} {'[' + step.rule + ']':<{RULE_COLUMN}} {step.phase:<{PHASE_COLUMN}} "
    room = None if width is None else width - len(head)
    return head + _two_terms(step.redex, step.contractum, _arrow(unicode), unicode, room)


def _format_premise(d, unicode: bool, width: Optional[int]) -> str:
    head = ("⊢ " if unicode else "|- ") + f"premise [{d.rule}]: "
    if d.result is None:  # the premise did not finish (an error inside it)
        room = None if width is None else width - len(head)
        return head + abbreviate(d.start, unicode, room)
    sep = "  ⇓  " if unicode else "  ==>  "
    room = None if width is None else width - len(head)
    return head + _two_terms(d.start, d.result, sep, unicode, room)


def trace_lines(trace: Iterable, unicode: bool = True, width: Optional[int] = 100,
                premises: bool = True) -> list[str]:
    """The lines of a trace; each premise is a ``⊢ premise [rule]`` line
    followed by its own steps, indented one level deeper (no recursion)."""
    lines: list[str] = []
    stack: list = [(iter(trace), 0)]
    while stack:
        it, depth = stack[-1]
        item = next(it, None)
        if item is None:
            stack.pop()
            continue
        pad = INDENT * depth
        w = None if width is None else max(width - len(pad), 40)
        if hasattr(item, "redex"):  # a Step
            lines.append(pad + format_step(item, unicode, w))
            if premises and item.premises:
                stack.append((iter(item.premises), depth + 1))
        else:  # a Derivation
            lines.append(pad + _format_premise(item, unicode, w))
            stack.append((iter(item.steps), depth + 1))
    return lines


def format_trace(trace: Iterable, unicode: bool = True, width: Optional[int] = 100,
                 premises: bool = True) -> str:
    """The whole trace as one string, one step per line (see ``trace_lines``)."""
    return "\n".join(trace_lines(trace, unicode, width, premises))
