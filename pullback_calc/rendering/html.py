"""The interactive stepper: one self-contained HTML page per trace, and notebook display.

    trace_to_html(trace, title="…", term=None)  -> str     a whole page
    view(trace_or_result)                       -> TraceView  (shows itself in Jupyter)

The page needs no network: its CSS and JavaScript are inline, it uses the
system's fonts, and the trace is embedded as compact JSON: one short array
per step (rule, phase, and its redex, contractum and context as indexes into
one table of the printer's pieces for every node the steps show, written
once however many steps share it: ``table.TermTable``), so the page grows
linearly with the trace and is written in time linear in its new nodes.  The
script prints terms itself -- bounded, from either end, as ``text.bounded``
does -- and only for the current step and the rows of the step list that are
in view (a virtualised list), so traces of 10,000+ steps open and step at
once, and any term can be shown whole on demand.  Premise sub-derivations are
rendered when they are expanded, 200 steps at a time.

Controls: previous / next (← →, or k / j), first / last (Home / End), a
slider, a step number, a button per phase (jumps to its first step), a rule
menu with previous / next occurrence (p / n), and a bar of the phases to
click in.  The rule label shows the rule's statement (from its docstring)
below it, and the rule typeset (``reduction.typeset``, MathML) on hover.
"""
from __future__ import annotations

import html as _html
import json
from collections import deque
from functools import lru_cache
from importlib import resources
from typing import Optional

from ..errors import ArgumentError
from ..reduction.gcpause import paused
from ..reduction.typeset import TYPESET, rule_html
from ..syntax.printer import folding_env
from .table import TermTable
from .text import PHASES, bounded, cap_steps, omitted_note, rule_doc, select_steps, ticker

__all__ = ["trace_to_html", "trace_data", "TraceView", "view", "result_repr_html", "SUFFIXES"]


@lru_cache(maxsize=4)
def _static(name: str) -> str:
    return resources.files(__package__).joinpath(f"static/{name}").read_text("utf-8")


_HEAD = ('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
         '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
         '<meta name="generator" content="pullback-calc">\n<title>{title}</title>\n<style>\n')


def page(template: str, title: str, data: str) -> str:
    """One self-contained page: the head and the styles every page shares
    (``static/page.css``), then ``static/<template>`` -- its own styles and body --
    with the shared term printer (``static/terms.js``) and its data (``embed``) in
    their places (``/*TERMS*/``, then ``/*DATA*/``)."""
    before, rest = _static(template).split("/*TERMS*/", 1)
    middle, after = rest.split("/*DATA*/", 1)
    return "".join((_HEAD.format(title=_html.escape(title)), _static("page.css"), before,
                    _static("terms.js"), middle, data, after))


def trace_data(trace, *, title: str = "Reduction trace", term=None, value=None,
               unicode: bool = True, max_term: Optional[int] = 160, context: int = 3,
               phases=None, rules=None, every: int = 1, fold: bool = True,
               premises: bool = True, show_steps: Optional[int] = None,
               progress=None) -> dict:
    """What the page embeds.  The page prints the terms itself, from one table of
    the printer's pieces shared by every step (``table.TermTable``: ``N`` the
    nodes, ``F`` the context frames), so a step costs its new nodes, not the
    characters shown.  ``S`` the steps (the main derivation's first, then each
    premise's, contiguously) as ``[rule, phase, index, depth, redex, contractum,
    frame, premise_ids]`` (terms and the innermost frame as indexes into ``N``
    and ``F``, -1: no context); ``D`` the premises as ``[rule, start, result,
    first_step, count]`` (``result`` -1 if unfinished); ``top`` the number of
    main steps; rules and phases as indexes into ``rules`` and ``phases``.  How
    the page prints: ``unicode``; ``max_term`` (terms are abbreviated to about
    that many characters, None: in full); ``context`` (frames shown around the
    redex); ``fold`` (environment tuples print folded, ⟨…, c⟩, the whole term
    on hover).  ``term`` and ``value`` come printed.  ``show_steps``: at most
    that many main steps, the first and last, and ``note`` says what was left
    out; ``premises=False`` leaves premises out."""
    with folding_env(fold), paused():  # paused: see text.paused_batches
        return _trace_data(trace, title=title, term=term, value=value, unicode=unicode,
                           max_term=max_term, context=context, phases=phases, rules=rules,
                           every=every, fold=fold, premises=premises, show_steps=show_steps,
                           progress=progress)


def _trace_data(trace, *, title, term, value, unicode, max_term, context, phases, rules,
                every, fold, premises, show_steps, progress) -> dict:
    """The work of ``trace_data``, with folding set."""
    steps = list(trace)
    if phases is not None or rules is not None or every != 1:
        steps = list(select_steps(steps, phases, rules, every))
    chosen = steps
    steps, gap, left_out = cap_steps(steps, show_steps)
    note = None if gap is None else omitted_note(
        left_out, chosen[gap].index, chosen[gap + left_out - 1].index, unicode)
    tick = ticker(progress)
    rule_ids: dict[str, int] = {}
    phase_ids = {p: i for i, p in enumerate(PHASES)}
    table = TermTable(unicode)
    node, frame = table.node, table.frame

    def rid(label: str) -> int:
        k = rule_ids.get(label)
        if k is None:
            k = rule_ids[label] = len(rule_ids)
        return k

    S: list = []
    D: list = []
    todo: deque = deque()

    def add(step) -> None:
        S.append([rid(step.rule), phase_ids.get(step.phase, 0), step.index, step.depth,
                  node(step.redex), node(step.contractum), frame(step.ctx) if context else -1,
                  0])
        if tick is not None:
            tick()
        if premises and step.premises:
            todo.append((len(S) - 1, step))

    with folding_env(False):  # the table keeps unfolded pieces (the page folds)
        for s in steps:
            add(s)
        top = len(S)
        while todo:  # breadth first: each premise's steps are contiguous in S
            row, step = todo.popleft()
            ids = []
            for d in step.premises:
                ids.append(len(D))
                D.append([rid(d.rule), node(d.start),
                          -1 if d.result is None else node(d.result), len(S), len(d.steps)])
                for s in d.steps:
                    add(s)
            S[row][7] = ids

    def text(t) -> Optional[str]:
        return None if t is None else bounded(t, unicode, max_term)[0]

    labels = sorted(rule_ids, key=lambda r: rule_ids[r])
    doc = {"title": title, "term": text(term), "value": text(value), "top": top,
           "total": len(S), "rules": labels, "phases": list(PHASES),
           "docs": {r: rule_doc(r) for r in labels},
           "typeset": {r: rule_html(r) for r in labels if r in TYPESET},
           "unicode": unicode, "max_term": max_term, "context": context, "fold": fold,
           "N": table.N, "F": table.F, "S": S, "D": D}
    if note is not None:
        doc["note"] = note
        doc["gap"] = gap  # the step list marks where the left-out steps were
        doc["main"] = len(chosen)
    return doc


def embed(doc: dict) -> str:
    """``doc`` as compact JSON to put inside a page's ``<script>`` element."""
    # inside <script>: '<' only occurs in strings, where \u003c means the same
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def trace_to_html(trace, title: str = "Reduction trace", term=None, *, value=None,
                  unicode: bool = True, max_term: Optional[int] = 160, context: int = 3,
                  phases=None, rules=None, every: int = 1, fold: bool = True,
                  premises: bool = True, show_steps: Optional[int] = None,
                  progress=None) -> str:
    """The stepper page for ``trace`` (a list of ``Step``), as one HTML string.

    ``term``/``value``: the reduced term and its normal form, shown in the
    header; ``max_term``: terms are abbreviated to about that many characters
    (None: in full -- the page then grows with the terms); ``context``: how
    many frames of the evaluation context to show around the redex (0: none);
    ``phases``/``rules``/``every`` keep only some steps (``text.select_steps``);
    ``show_steps`` at most that many (the first and last: the page says how many it
    left out); ``premises=False`` leaves premises out."""
    with paused():  # one pause for both: the collector never walks the table
        doc = trace_data(trace, title=title, term=term, value=value, unicode=unicode,
                         max_term=max_term, context=context, phases=phases, rules=rules,
                         every=every, fold=fold, premises=premises, show_steps=show_steps,
                         progress=progress)
        text = embed(doc)
        del doc  # freed by reference counting, before the collector runs again
    return page("stepper.html", title, text)


# ---- notebooks -----------------------------------------------------------------------------

def _iframe(page: str, height: int) -> str:
    return (f'<iframe srcdoc="{_html.escape(page, quote=True)}" sandbox="allow-scripts" '
            f'style="width:100%;height:{height}px;border:1px solid #e5e7eb;border-radius:6px" '
            f'title="pullback-calc trace"></iframe>')


#: the trace formats a file's suffix names (``TraceView.save``, ``pullback-calc trace -o``)
SUFFIXES = {".txt": "text", ".text": "text", ".tex": "latex", ".latex": "latex",
            ".json": "json", ".jsonl": "jsonl", ".html": "html", ".htm": "html"}


class TraceView:
    """A trace that shows itself: the stepper in Jupyter (``_repr_html_``, in
    an iframe so that its styles and keys stay its own), text elsewhere.

    ``to_text()``, ``to_latex()``, ``to_json()``, ``to_html()`` render it;
    ``save(path)`` writes the format its suffix names (.txt .tex .json .jsonl .html)."""

    def __init__(self, trace, *, title: str = "Reduction trace", term=None, value=None,
                 height: int = 560):
        self.trace = list(trace)
        self.title, self.term, self.value, self.height = title, term, value, height

    def __len__(self) -> int:
        return len(self.trace)

    def to_text(self, **options) -> str:
        from .text import format_trace
        return format_trace(self.trace, **options)

    def to_latex(self, **options) -> str:
        from .latex import trace_to_latex
        options.setdefault("term", self.term)
        options.setdefault("value", self.value)
        return trace_to_latex(self.trace, **options)

    def to_json(self, **options) -> str:
        from .json_trace import trace_to_json
        options.setdefault("term", self.term)
        options.setdefault("value", self.value)
        return trace_to_json(self.trace, **options)

    def to_jsonl(self, **options) -> str:
        """The trace as JSON lines (``json_trace.JsonlTrace``: the stream a reduction
        with ``on_step=`` writes, here from the kept steps)."""
        import io
        from .json_trace import JsonlTrace
        out = io.StringIO()
        with JsonlTrace(out, term=self.term, **options) as w:
            for step in self.trace:
                w(step)
            w.finish(self.value)
        return out.getvalue()

    def to_html(self, **options) -> str:
        options.setdefault("term", self.term)
        options.setdefault("value", self.value)
        return trace_to_html(self.trace, title=options.pop("title", self.title), **options)

    def save(self, path) -> None:
        from pathlib import Path
        p = Path(path)
        render = {"text": self.to_text, "latex": lambda: self.to_latex(standalone=True),
                  "json": self.to_json, "jsonl": self.to_jsonl,
                  "html": self.to_html}.get(SUFFIXES.get(p.suffix.lower(), ""))
        if render is None:
            raise ArgumentError(f"unknown format {p.suffix!r}: use .txt, .tex, .json, .jsonl "
                             f"or .html")
        from .output import write_atomic
        write_atomic(p, render())  # whole or not at all

    def _repr_html_(self) -> str:
        return _iframe(self.to_html(), self.height)

    def __repr__(self) -> str:
        lines = self.to_text(width=100).splitlines()
        more = len(lines) - 20
        body = "\n".join(lines[:20]) + (f"\n… ({more} more lines)" if more > 0 else "")
        from .text import count_steps
        n, top = count_steps(self.trace), len(self.trace)
        steps = f"{n} steps" if n == top else f"{n} steps ({top} in the main derivation)"
        return f"<TraceView {self.title!r}: {steps}>\n{body}"

    def _repr_pretty_(self, p, cycle) -> None:
        p.text(repr(self))


def _normal_form(res):
    v = getattr(res, "covector", None)
    return getattr(res, "value", None) if v is None else v


def view(trace, *, title: Optional[str] = None, term=None, value=None,
         height: int = 560) -> TraceView:
    """A displayable trace.  ``trace`` is a list of steps, or a result of
    ``pullback_calc.reduce`` / ``jacobian_row`` (whose term and normal form
    are then shown too)."""
    if hasattr(trace, "trace"):  # ReductionResult / JacobianRow
        res = trace
        if value is None:
            value = _normal_form(res)
        if term is None:
            term = getattr(res, "term", None)
        if title is None:
            title = (f"Jacobian row {[round(v, 12) for v in res.row]}" if hasattr(res, "row")
                     else "Reduction trace")
        trace = res.trace
    return TraceView(trace, title=title or "Reduction trace", term=term, value=value,
                     height=height)


def result_repr_html(result) -> str:
    """``_repr_html_`` for ``ReductionResult`` and ``JacobianRow``: a summary
    line and the stepper."""
    v = view(result)
    parts = []
    if hasattr(result, "row"):
        parts.append(f"row <code>{_html.escape(str(result.row))}</code>")
    val = _normal_form(result)
    if val is not None:
        parts.append(f"normal form <code>{_html.escape(bounded(val, True, 300)[0])}</code>")
    parts.append(f"{result.steps} steps")
    head = f'<div style="font:13px sans-serif;margin:4px 0">{" · ".join(parts)}</div>'
    return head + v._repr_html_()
