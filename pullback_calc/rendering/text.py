"""Plain-text and coloured traces: one line per step, premises indented under their step.

Terms are pretty-printed *bounded*: only as much of a term as fits is
printed (its beginning and its end, with an ellipsis in the middle), so a
line costs O(width) however large the redex, and a whole trace is linear in
the number of steps.  ``width=None`` prints terms in full.

This module also holds what every trace renderer shares (the LaTeX, JSON and
HTML renderers import it): choosing steps (``select_steps``: by phase, by
rule, every k-th), bounded printing (``bounded``), the evaluation context
around a redex, abbreviated to its innermost frames (``context_around``), and
the rules' one-paragraph descriptions (``rule_doc``).
"""
from __future__ import annotations

import re
from itertools import islice
from typing import Any, Iterable, Iterator, Optional

from ..errors import ArgumentError
from ..reduction.gcpause import paused
from ..syntax.printer import folding, folding_env, folds, precedence, pretty
from ..syntax.terms import Dual, Jac, Num, Term, Var, Zero

__all__ = ["abbreviate", "bounded", "format_step", "format_trace", "trace_lines",
           "select_steps", "cap_steps", "count_steps", "iter_trace_lines", "parse_rules",
           "parse_phases", "rule_doc", "rule_labels",
           "context_around", "walk", "state_lines", "paused_batches", "PHASES", "arrow",
           "two_terms"]

RULE_COLUMN = 10      # "[dual-app]" is the longest label
PHASE_COLUMN = 9      # "decompose"
INDENT = "    "
MIN_TERM = 12         # never abbreviate a term to fewer characters than this

PHASES = ("A", "decompose", "forward", "reverse")


# ---- bounded printing --------------------------------------------------------------------

_PRINTERS: dict = {}


def _printer(unicode: bool):
    """The pretty printer's task expander, or None if its internals changed."""
    got = _PRINTERS.get(unicode)
    if got is None:
        try:
            from ..syntax.printer import LAM, Printer
            got = _PRINTERS[unicode] = (Printer(unicode), LAM)
        except ImportError:  # pragma: no cover - fall back to printing in full
            return None, None
    return got


class _Memo:
    """What was printed of a node (its beginning or its end; whole or cut), and the
    printer's pieces for it, kept for the next step of a trace, which shares most of
    its terms with this one.

    Bounded, so that a 100,000-step trace does not keep a string per node it ever
    printed: two generations of at most ``cap`` nodes each; a full young generation
    becomes the old one, and what is used again from the old one moves back.  Keyed
    by ``id`` with the node kept alongside, so a key is never a recycled id.  A node's
    entry is a dict: key → ``(text, complete)``, and (``_pieces``) negative int key →
    the printer's pieces."""

    def __init__(self, cap: int = 20_000):
        self.cap = cap
        self.young: dict = {}
        self.old: dict = {}

    def entry(self, node) -> dict:
        """The node's dict (made if there is none), moved to the young generation."""
        k = id(node)
        e = self.young.get(k)
        if e is not None and e[0] is node:
            return e[1]
        e = self.old.get(k)
        if e is None or e[0] is not node:
            e = (node, {})
        if len(self.young) >= self.cap:
            self.old, self.young = self.young, {}
        self.young[k] = e
        return e[1]

    def clear(self) -> None:
        self.young, self.old = {}, {}


_MEMO = _Memo()
_LEAVES = (Var, Num, Zero)
PARTIAL_MEMO = 4
# A cut walk goes on this many characters past its limit: two for the token cut's
# context, the rest so that what it keeps of a node still serves the next step's
# walk, which often meets that node a few levels higher (sin(sin(…)) from its end:
# one character a level); a kept text serves a walk if it has 2 past its limit.
MEMO_SLACK = 24


def _pieces(t: Term, unicode: bool, limit: int, from_end: bool,
            memo: Optional[_Memo] = None) -> tuple[str, bool]:
    """The first (or last) ``limit``+ characters of ``pretty(t)`` and whether
    that is all of it; walks only the part of the term that gets printed.

    Consecutive steps of a trace share most of their subterms, so every node
    printed here keeps what was printed of it in ``_MEMO`` (whole, or as far as
    the walk went), and the next step that prints it takes that text in one
    piece: a step costs about its new nodes, not the ``limit`` characters of
    its terms.  A finished node's pieces are joined into one string right away,
    so each node's join costs its own pieces, not its subterm's.  The printer's
    pieces of a node are kept too (a walk meets most nodes again: from the other
    end, or from a step whose text of it was too short)."""
    printer, top = _printer(unicode)
    if printer is None:  # pragma: no cover
        s = pretty(t, unicode)
        return (s[-limit:] if from_end else s), len(s) <= limit
    # memo keys are ints, need + 128 × (spelling, folding, end): the text of a node;
    # -1 - need - 128 × (spelling, folding): its pieces (the same from either end)
    mode = 2 * unicode + folding()
    tkey = (2 * mode + from_end) * 128
    pkey = -1 - mode * 128
    memo = memo or _MEMO
    young = memo.young
    out: list[str] = []
    n = 0
    open_marks: list = []  # [node's dict, key, start] of nodes being printed
    stack: list = [(t, top)]
    complete = True
    while stack:
        item = stack.pop()
        cls = item.__class__
        if cls is str:
            out.append(item)
            n += len(item)
            if n >= limit + MEMO_SLACK:  # more than asked, see MEMO_SLACK
                complete = False
                break
        elif cls is list:  # the end of a node: keep its text, as one piece
            kept, key, start = item
            if len(out) - start > 1:
                text = "".join(reversed(out[start:])) if from_end else "".join(out[start:])
                del out[start:]
                out.append(text)
            else:
                text = out[start] if start < len(out) else ""
            kept[key] = (text, True)
            open_marks.pop()
        else:
            sub, need = item
            if sub.__class__ is Var:  # its name, whatever the context
                stack.append(sub.name)
                continue
            if sub.__class__ in _LEAVES:  # one piece (or three, in parentheses): no memo
                parts = printer.task(sub, need)
                stack.extend(parts if from_end else reversed(parts))
                continue
            code = 127 if need is None else need
            e = young.get(id(sub))
            if e is not None and e[0] is sub:
                kept = e[1]
            else:
                kept = memo.entry(sub)
                young = memo.young
            hit = kept.get(tkey + code)
            if hit is not None and (hit[1] or len(hit[0]) >= limit - n + 2):
                # only as much as this walk can use: every text kept stays about
                # `limit` long (else texts of texts would grow from step to step)
                text, room = hit[0], limit - n + MEMO_SLACK
                if len(text) > room:
                    text = text[-room:] if from_end else text[:room]
                if not hit[1]:  # a cut text: the walk ends with it (nothing may follow it)
                    out.append(text)
                    n += len(text)
                    complete = False
                    break
                stack.append(text)
                continue
            parts = kept.get(pkey - code)
            if parts is None:
                parts = kept[pkey - code] = printer.task(sub, need)
            if len(parts) > 1:  # a leaf prints one piece: nothing to save
                mark = [kept, tkey + code, len(out)]
                open_marks.append(mark)
                stack.append(mark)
            stack.extend(parts if from_end else reversed(parts))
    if not complete:
        # what was printed of the unfinished nodes: a prefix (suffix) of their text.
        # Nodes of a spine that prints nothing share a start: one join for all of them.
        # Every PARTIAL_MEMO-th of them is enough for the next step to skip most of
        # the walk, at a fraction of the cost.
        texts: dict = {}
        last = len(open_marks) - 1
        for i, (kept, key, start) in enumerate(open_marks):
            if i % PARTIAL_MEMO and i != last:
                continue
            part = texts.get(start)
            if part is None:
                part = texts[start] = ("".join(reversed(out[start:])) if from_end
                                       else "".join(out[start:]))
            old = kept.get(key)
            if old is None or (not old[1] and len(old[0]) < len(part)):
                kept[key] = (part, False)
    return ("".join(reversed(out)) if from_end else "".join(out)), complete and n <= limit


def bounded(t: Term, unicode: bool = True, limit: Optional[int] = 60,
            memo: Optional[_Memo] = None) -> tuple[str, bool]:
    """``(text, complete)``: ``pretty(t)`` if it has at most ``limit``
    characters (``complete`` is True), else its beginning and end around an
    ellipsis (False).  Costs O(limit), whatever the size of ``t``; kept in
    ``_MEMO`` (the siblings in a context are the same from step to step), or in
    ``memo``."""
    if limit is None:
        return pretty(t, unicode), True
    limit = max(limit, MIN_TERM)
    kept = (memo or _MEMO).entry(t)
    key = BOUNDED_KEY + 4 * limit + 2 * unicode + folding()
    got = kept.get(key)
    if got is None:
        got = kept[key] = _bounded(t, unicode, limit, memo)
    return got


BOUNDED_KEY = 1 << 20  # memo keys of bounded's results (see _pieces for the others)


def _bounded(t: Term, unicode: bool, limit: int,
             memo: Optional[_Memo] = None) -> tuple[str, bool]:
    head, complete = _pieces(t, unicode, limit, False, memo)
    if complete:
        return head, True
    dots = "…" if unicode else "..."
    keep = limit - len(dots)
    tail, _ = _pieces(t, unicode, keep // 2, True, memo)
    head = _cut_head(head, keep - keep // 2)
    tail = _cut_tail(tail, keep // 2)
    return head + dots + tail, False


_SLACK = 12  # give up at most this many characters to cut between tokens


def _words(s: str, lo: int, hi: int) -> list:
    """For each of s[lo:hi]: is it part of a name or a numeral (so that no cut may
    fall next to it inside one)?  A point is, between two digits."""
    w = [c.isalnum() or c in "_'" for c in s[lo:hi]]
    if "." in s[lo:hi]:
        last = len(s) - 1
        for i in range(lo, hi):
            if s[i] == "." and 0 < i < last and s[i - 1].isdigit() and s[i + 1].isdigit():
                w[i - lo] = True
    return w


def _cut_head(s: str, n: int) -> str:
    """s[:n], moved back to a token boundary (not inside a name or a number)."""
    if n >= len(s):
        return s
    lo = max(n - _SLACK, 1) - 1
    w = _words(s, lo, n + 1)
    for k in range(n, lo, -1):
        if not (w[k - 1 - lo] and w[k - lo]):
            return s[:k].rstrip() + (" " if s[k - 1] == " " else "")
    return s[:n]


def _cut_tail(s: str, n: int) -> str:
    """s[-n:], moved forward to a token boundary."""
    if n <= 0:
        return ""
    if n >= len(s):
        return s
    start = len(s) - n
    hi = min(start + _SLACK, len(s) - 1)
    w = _words(s, start - 1, hi + 1)
    for k in range(start, hi + 1):
        if not (w[k - start] and w[k - start + 1]):
            return s[k:]
    return s[start:]


def abbreviate(t: Term, unicode: bool = True, limit: Optional[int] = 60) -> str:
    """``pretty(t)``, or its beginning and end around an ellipsis if it is
    longer than ``limit`` characters (``limit=None``: the whole term)."""
    return bounded(t, unicode, limit)[0]


def paused_batches(items: Iterable, size: int = 256) -> Iterator:
    """The items, made ``size`` at a time with the cyclic garbage collector paused
    (as a reduction pauses it: terms and their texts are never cycles, and every
    collection would rescan what rendering keeps), handed out with it running: a
    streaming renderer never leaves it paused in its consumer."""
    it = iter(items)
    while True:
        with paused():
            batch = list(islice(it, size))
        if not batch:
            return
        yield from batch


# ---- choosing steps ------------------------------------------------------------------------

def rule_labels() -> list[str]:
    """Every rule label, in the paper's order, then the extra ones."""
    from ..reduction.rules import EXTRA, NUMBERED
    return list(NUMBERED) + list(EXTRA)


def parse_rules(spec) -> frozenset:
    """``"5,15"`` (or an iterable of labels) → the set of labels it names.
    A number names its lettered variants too (``16`` is 16a, 16b and 16c) and
    ``A`` the three A-rules; an unknown label raises ArgumentError (a ValueError)."""
    items = re.split(r"[\s,]+", spec.strip()) if isinstance(spec, str) else list(spec)
    known = rule_labels()
    out: set[str] = set()
    for raw in items:
        if not raw:
            continue
        tok = str(raw).strip().strip("()")
        low = tok.lower()
        hit = [k for k in known if k.lower() == low]
        if not hit:
            hit = [k for k in known
                   if re.fullmatch(re.escape(low) + r"[a-z]|" + re.escape(low) + r"-.*", k.lower())]
        if not hit:
            raise ArgumentError(f"unknown rule {tok!r} (rules: {', '.join(known)})")
        out.update(hit)
    if not out:
        raise ArgumentError("no rule given")
    return frozenset(out)


def parse_phases(spec) -> frozenset:
    """``"forward,reverse"`` (or an iterable) → the set of phases; ArgumentError if unknown."""
    items = re.split(r"[\s,]+", spec.strip()) if isinstance(spec, str) else list(spec)
    out = set()
    for raw in items:
        if not raw:
            continue
        hit = [p for p in PHASES if p.lower() == str(raw).strip().lower()]
        if not hit:
            raise ArgumentError(f"unknown phase {raw!r} (phases: {', '.join(PHASES)})")
        out.update(hit)
    if not out:
        raise ArgumentError("no phase given")
    return frozenset(out)


def select_steps(trace: Iterable, phases=None, rules=None, every: int = 1) -> Iterator:
    """The steps of the main derivation to show: those of the given phases
    and rules (None: all), then every ``every``-th of them (the first, the
    (k+1)-th, …).  Premises are not filtered: a chosen step keeps them all."""
    if isinstance(phases, str):
        phases = parse_phases(phases)
    if isinstance(rules, str):
        rules = parse_rules(rules)
    if every < 1:
        raise ArgumentError("every must be at least 1")
    k = 0
    for s in trace:
        if phases is not None and s.phase not in phases:
            continue
        if rules is not None and s.rule not in rules:
            continue
        if k % every == 0:
            yield s
        k += 1


def count_steps(trace: Iterable) -> int:
    """How many steps a trace has, its premises' included (no recursion)."""
    n, stack = 0, [trace]
    while stack:
        for s in stack.pop():
            n += 1
            for d in s.premises:
                stack.append(d.steps)
    return n


def cap_steps(steps: list, show: Optional[int]) -> tuple[list, Optional[int], int]:
    """``(shown, gap, left_out)``: at most ``show`` of ``steps`` (None: all), the
    first half and the last; ``gap`` is where in ``shown`` the left-out middle was
    (None if nothing was left out).  Big traces render in bounded size this way,
    and each renderer says at ``gap`` how many steps it left out."""
    if show is None or len(steps) <= show:
        return steps, None, 0
    head = (show + 1) // 2
    tail = show - head
    return steps[:head] + (steps[len(steps) - tail:] if tail else []), head, len(steps) - show


def omitted_note(n: int, first: int, last: int, unicode: bool = True) -> str:
    """What a capped render says where the steps it left out were."""
    dots = "⋯" if unicode else "..."
    return (f"{dots} {n:,} steps not shown (steps {first:,} to {last:,}): --show-steps 0 "
            f"shows all, --every K, --phase or --rule fewer {dots}")


def ticker(progress, every: int = 256):
    """A counter that calls ``progress(done)`` every ``every`` steps (None: no-op)."""
    if progress is None:
        return None
    n = [0]

    def tick() -> None:
        n[0] += 1
        if not n[0] % every:
            progress(n[0])
    return tick


def walk(trace: Iterable, premises: bool = True) -> Iterator[tuple[int, Any]]:
    """``(depth, item)`` for every step and premise, in reading order: each
    premise (a ``Derivation``) follows the step that needed it, then its own
    steps one level deeper (an explicit stack: no recursion)."""
    stack: list = [(iter(trace), 0)]
    while stack:
        it, depth = stack[-1]
        item = next(it, None)
        if item is None:
            stack.pop()
            continue
        yield depth, item
        if hasattr(item, "redex"):  # a Step
            if premises and item.premises:
                stack.append((iter(item.premises), depth + 1))
        else:  # a Derivation
            stack.append((iter(item.steps), depth + 1))


# ---- rule descriptions ---------------------------------------------------------------------

_DOCS: dict[str, str] = {}


def rule_doc(label: str) -> str:
    """The first paragraph of the rule's docstring, on one line ('' if none)."""
    if label not in _DOCS:
        from ..reduction.rules import RULES
        fn = RULES.get(label)
        doc = (getattr(fn, "__doc__", None) or "").strip()
        _DOCS[label] = " ".join(doc.split("\n\n")[0].split())
    return _DOCS[label]


# ---- the context around a redex --------------------------------------------------------------

def frame_parts(frame, unicode: bool,
                printer=None) -> Optional[tuple[list, list, Optional[int]]]:
    """(pieces left of the hole, pieces right of it, precedence needed at the hole)
    of one frame of an evaluation context: strings and the other children as
    ``(term, need)`` (``need`` None: a pattern), or None if the hole cannot be
    found.  The frame's own node prints unfolded (a folded tuple would hide the
    item the hole is in); its other children are printed by the caller.
    ``printer``: the pretty printer's layout by default, or one with its
    precedences and other pieces (LaTeX's)."""
    if printer is None:
        printer, _ = _printer(unicode)
    if printer is None:  # pragma: no cover
        return None
    node, kind = frame.node, frame.kind
    hole = frame.hole()
    if folding():
        if folds_at_hole(frame):  # ⟨…, □⟩: what folding shows of the tuple
            opening, (_, need), *closing = printer.node(node)
            return [opening], closing, need
        with folding_env(False):  # ⟨□, c⟩ folded would hide the hole
            return frame_parts(frame, unicode, printer)
    parts = list(printer.node(node))
    if kind in ("a-root", "dual-body"):  # the hole is the body of a λ inside the node
        lam = node.lam if isinstance(node, (Jac, Dual)) else node.fun
        j = next((k for k, x in enumerate(parts) if isinstance(x, tuple) and x[0] is lam),
                 None)
        if j is None:
            return None
        need = parts[j][1]
        inner = list(printer.node(lam))
        if need is not None and precedence(lam) < need:
            inner = ["(", *inner, ")"]
        parts[j:j + 1] = inner
    # the hole: the frame's index-th child (prim, tuple, sum), else the child it held
    by_index = kind in ("prim", "tuple", "sum")
    n = -1
    for i, x in enumerate(parts):
        if x.__class__ is tuple and x[1] is not None:
            n += 1
            if (n == frame.index) if by_index else (x[0] is hole):
                return parts[:i], parts[i + 1:], x[1]
    return None


def folds_at_hole(frame) -> bool:
    """Is the frame's node an environment tuple that folds (⟨…, c⟩) with the hole
    at its last item, which folding shows?"""
    return frame.kind == "tuple" and folds(frame.node) and \
        frame.index == len(frame.node.items) - 1


def _frame_text(frame, unicode: bool,
                sibling: int) -> Optional[tuple[list, list, Optional[int]]]:
    """``frame_parts`` with the other children abbreviated to ``sibling`` characters."""
    got = frame_parts(frame, unicode)
    if got is None:
        return None
    left, right, need = got

    def show(x) -> str:
        if isinstance(x, str):
            return x
        t, need = x
        if need is None:  # a pattern (it prints as the tuple term it is)
            return abbreviate(t, unicode, sibling)
        s = abbreviate(t, unicode, sibling)
        return f"({s})" if precedence(t) < need else s
    return [show(x) for x in left], [show(x) for x in right], need


def context_around(step, unicode: bool = True, frames: int = 3,
                   sibling: int = 16) -> tuple[str, str, bool]:
    """``(left, right, more)``: the innermost ``frames`` frames of the step's
    evaluation context printed around its hole, siblings abbreviated to
    ``sibling`` characters; ``more`` is True if outer frames were left out.
    ``left + redex + right`` reads as that part of the whole term.  Costs
    O(frames × sibling), whatever the size of the term."""
    ctx = getattr(step, "ctx", None)
    left: list[str] = []
    right: list[str] = []
    inner = step.redex
    k = 0
    key = ("frame", unicode, sibling, folding())  # steps share their outer frames
    while ctx is not None and k < frames:
        kept = _MEMO.entry(ctx)
        got = kept.get(key, kept)
        if got is kept:
            got = kept[key] = _frame_text(ctx, unicode, sibling)
        if got is None:
            break
        lp, rp, need = got
        if need is not None and precedence(inner) < need:
            lp, rp = lp + ["("], [")"] + rp
        left = lp + left
        right = right + rp
        inner = ctx.node
        ctx = ctx.parent
        k += 1
    return "".join(left), "".join(right), ctx is not None


# ---- colour ------------------------------------------------------------------------------------

RESET = "\x1b[0m"
STYLE = {
    "index": "\x1b[2m", "arrow": "\x1b[2m", "redex": "\x1b[31m", "contractum": "\x1b[32m",
    "premise": "\x1b[1;34m", "A": "\x1b[35m", "decompose": "\x1b[34m",
    "forward": "\x1b[36m", "reverse": "\x1b[33m", "rule": "\x1b[1m",
}


def _paint(s: str, style: str, color: bool) -> str:
    return f"{STYLE[style]}{s}{RESET}" if color and s else s


# ---- lines --------------------------------------------------------------------------------------

def arrow(unicode: bool) -> str:
    """The arrow between a redex and its contractum in a line (spaces included)."""
    return "  ⟶  " if unicode else "  -->  "


def two_terms(a: Term, b: Term, sep: str, unicode: bool, room: Optional[int],
              color: bool = False, styles=("redex", "contractum")) -> str:
    """``a sep b`` in ``room`` characters, sharing the room between a and b."""
    if room is None:
        sa, sb = pretty(a, unicode), pretty(b, unicode)
    else:
        room = max(room - len(sep), 2 * MIN_TERM)
        half = room // 2
        sa = abbreviate(a, unicode, half)
        sb = abbreviate(b, unicode, room - len(sa))  # b gets what a left over
        if len(sb) < room - len(sa) and len(sa) >= half:
            sa = abbreviate(a, unicode, room - len(sb))  # and a what b left over
    if not color:
        return sa + sep + sb
    return (_paint(sa, styles[0], True) + _paint(sep, "arrow", True)
            + _paint(sb, styles[1], True))


def format_step(step, unicode: bool = True, width: Optional[int] = 100,
                color: bool = False) -> str:
    """One line: index, ``[rule]``, phase, then ``redex ⟶ contractum``
    (with ``color``: ANSI colours, the redex red and the contractum green)."""
    if width is not None and not folding():  # abbreviated lines fold env tuples
        with folding_env():
            return format_step(step, unicode, width, color)
    idx = f"{step.index:>5} "
    rule = f"{'[' + step.rule + ']':<{RULE_COLUMN}} "
    phase = f"{step.phase:<{PHASE_COLUMN}} "
    room = None if width is None else width - len(idx) - len(rule) - len(phase)
    terms = two_terms(step.redex, step.contractum, arrow(unicode), unicode, room, color)
    if not color:
        return idx + rule + phase + terms
    ph = step.phase if step.phase in STYLE else "rule"
    return (_paint(idx, "index", True) + STYLE["rule"] + STYLE[ph] + rule + RESET
            + _paint(phase, ph, True) + terms)


def _format_premise(d, unicode: bool, width: Optional[int], color: bool = False) -> str:
    if width is not None and not folding():
        with folding_env():
            return _format_premise(d, unicode, width, color)
    head = ("⊢ " if unicode else "|- ") + f"premise [{d.rule}]: "
    room = None if width is None else width - len(head)
    if d.result is None:  # the premise did not finish (an error inside it)
        body = abbreviate(d.start, unicode, room)
        return _paint(head, "premise", color) + _paint(body, "redex", color)
    sep = "  ⇓  " if unicode else "  ==>  "
    return _paint(head, "premise", color) + two_terms(d.start, d.result, sep, unicode, room,
                                                       color)


def trace_lines(trace: Iterable, unicode: bool = True, width: Optional[int] = 100,
                premises: bool = True, *, color: bool = False, phases=None, rules=None,
                every: int = 1, show_steps: Optional[int] = None, progress=None) -> list[str]:
    """The lines of a trace; each premise is a ``⊢ premise [rule]`` line
    followed by its own steps, indented one level deeper (no recursion).

    ``phases``/``rules``/``every`` choose the steps of the main derivation
    shown (see ``select_steps``; e.g. ``phases={"reverse"}``, ``rules="5,15"``,
    ``every=10``); ``show_steps`` keeps at most that many of them (the first and
    last, see ``cap_steps``); ``color`` adds ANSI colours; ``progress(done)`` is
    called as steps are rendered."""
    return list(iter_trace_lines(trace, unicode, width, premises, color=color, phases=phases,
                                 rules=rules, every=every, show_steps=show_steps,
                                 progress=progress))


def iter_trace_lines(trace: Iterable, unicode: bool = True, width: Optional[int] = 100,
                     premises: bool = True, *, color: bool = False, phases=None, rules=None,
                     every: int = 1, show_steps: Optional[int] = None,
                     progress=None) -> Iterator[str]:
    """``trace_lines`` one line at a time (a big trace is written as it is rendered)."""
    return paused_batches(_lines(trace, unicode, width, premises, color, phases, rules, every,
                                 show_steps, progress))


def _lines(trace, unicode, width, premises, color, phases, rules, every, show_steps,
           progress) -> Iterator[str]:
    if phases is not None or rules is not None or every != 1:
        trace = select_steps(trace, phases, rules, every)
    gap = None
    if show_steps is not None:
        trace = list(trace)
        whole = trace
        trace, gap, left_out = cap_steps(trace, show_steps)
    # abbreviated lines fold the environment tuples of rule 8 (⟨⟨⟨p, a⟩, b⟩, c⟩ as
    # ⟨…, c⟩): otherwise every line of a decomposed pullback starts alike.  Set around
    # each line, not the loop: a generator must not leave it set in its consumer.
    fold = width is not None or folding()
    tick = ticker(progress)
    k = 0  # main-derivation steps so far
    for depth, item in walk(trace, premises):
        pad = INDENT * depth
        w = None if width is None else max(width - len(pad), 40)
        if hasattr(item, "redex"):  # a Step
            if depth == 0:
                if k == gap:
                    yield f"{'':>5} " + omitted_note(left_out, whole[gap].index,
                                                     whole[gap + left_out - 1].index, unicode)
                k += 1
            if tick is not None:
                tick()
            with folding_env(fold):
                line = pad + format_step(item, unicode, w, color)
        else:  # a Derivation
            with folding_env(fold):
                line = pad + _format_premise(item, unicode, w, color)
        yield line


def format_trace(trace: Iterable, unicode: bool = True, width: Optional[int] = 100,
                 premises: bool = True, *, color: bool = False, phases=None, rules=None,
                 every: int = 1, show_steps: Optional[int] = None, progress=None) -> str:
    """The whole trace as one string, one step per line (see ``trace_lines``)."""
    return "\n".join(iter_trace_lines(trace, unicode, width, premises, color=color,
                                      phases=phases, rules=rules, every=every,
                                      show_steps=show_steps, progress=progress))


# ---- a stopped reduction ---------------------------------------------------------------------

def state_lines(term, nxt, unicode: bool = True, width: Optional[int] = 100) -> list[str]:
    """The state a reduction stopped in (``reduce --depth N``, the stepper): the term
    reached, and the next redex marked ⟪ ⟫ in its context with the rule that would fire."""
    ob, cb = ("⟪", "⟫") if unicode else ("<<", ">>")
    left, right, more = context_around(nxt, unicode, frames=4, sibling=24)
    room = None if width is None else max(width - 8, 40)
    red = abbreviate(nxt.redex, unicode, None if room is None else max(room // 2, 20))
    dots = "… " if more else ""
    return [f"term: {pretty(term, unicode) if width is None else abbreviate(term, unicode, room)}",
            f"next: step {nxt.index}, rule [{nxt.rule}] ({nxt.phase}) on the redex marked "
            f"{ob} {cb}:",
            f"    {dots}{left}{ob}{red}{cb}{right}"]
