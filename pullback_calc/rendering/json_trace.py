"""Traces as JSON, for other tools; ``TRACE_SCHEMA`` is the JSON Schema of the output.

    {"format": "pullback-calc-trace", "version": 1,
     "spelling": "unicode", "max_term": 400, "paths": "delta",
     "term": "…", "value": "…",                   (when given)
     "steps": 52,                                  (all steps, premises' included)
     "state": "…", "next": {"index", "rule", "redex", "path"},   (reduce --depth N only)
     "omitted": {"after": 9999, "count": 80000, "first": 10000, "last": 89999},
                                                   (show_steps=N only, when steps were left out)
     "trace": [ {"index": 0, "rule": "A-name", "phase": "A", "depth": 2,
                 "path_keep": 0, "path_add": [["app-fun", 0], ["a-root", 0]],
                 "redex": "…", "contractum": "…",
                 "premises": [ {"rule": "18", "start": "…", "result": "…",
                                "steps": [ …steps… ]} ]}, … ]}

Terms are pretty-printed, in Unicode (``spelling="unicode"``), ASCII, or
both (then ``redex`` is Unicode and ``redex_ascii`` ASCII; the same for
``contractum``, ``start``, ``result``, ``term`` and ``value``).  Terms longer
than ``max_term`` characters are abbreviated around an ellipsis (and the
object gets ``"abbreviated": true``); ``max_term=None`` prints them in full.

**A table of terms** (``terms="table"``; ``--terms table``): every term is
an integer instead, an index into ``"nodes"``, the table of
``rendering/table.py`` written after the steps: each node once, as the
printer's pieces, however many steps share it (``[prec, folds, piece, …]``,
a piece a string or a child as two integers, its index and the precedence
it is printed at).  Terms are then whole (``max_term`` is null) and the
output is written in time linear in the new nodes of each step rather than
in the characters printed: the lossless, fast form for tools.
``term_text(doc, k)`` prints node ``k``; ``spelling`` is "unicode" or
"ascii" (the pieces are spelt so).

**Paths.**  The path of the redex is the list of evaluation-context frames
``[kind, index]`` from the root of the term (of the premise's ``start``, for
a premise's steps) down to the redex; ``kind`` is one of ``FRAME_KINDS``.
Consecutive steps share most of it, and the whole path can be as long as the
term is deep, so by default (``paths="delta"``) each step lists only how
much of the previous step's path (the previous one in the same list) it
keeps, ``path_keep``, and the frames that follow, ``path_add``: its path is
``previous_path[:path_keep] + path_add`` (the first step of a list keeps 0).
That keeps the output linear in the number of steps; ``expand_paths(doc)``
rebuilds every ``path``.  ``paths="full"`` writes ``"path"`` itself (the output
grows with steps × depth), ``paths="none"`` neither.

**Streamed: JSON lines** (``JsonlTrace``; ``trace -f jsonl``).  The same
document, one JSON object per line, written while the term is reduced, so that
no step is kept once written (a long trace in memory that does not grow):

    {"format": "pullback-calc-trace", "version": 1, "stream": "jsonl",
     "spelling": …, "max_term": …, "paths": …, "term": …}      (the head: all but these)
    {"index": 0, "rule": "A-name", …}                           (a step, as in "trace")
    …
    {"end": true, "steps": 52, "value": "…"}                    (the last line)

``read_jsonl(lines)`` makes it the document ``trace_to_dict`` gives (``term``
may stand in the last line instead of the head, when it was known only after
the reduction; a stream without its last line did not finish).
"""
from __future__ import annotations

import json
from typing import Any, Iterable, Optional

from ..errors import ArgumentError
from ..reduction.gcpause import paused
from .table import TermTable
from .table import text as _table_text
from .text import PHASES, _Memo, bounded, cap_steps, paused_batches, select_steps, ticker

__all__ = ["TRACE_SCHEMA", "FRAME_KINDS", "trace_to_json", "trace_to_dict", "iter_trace_json",
           "expand_paths", "term_text", "JsonlTrace", "read_jsonl"]

FRAME_KINDS = {
    "prim": "argument `index` (from 0) of a function symbol f(…)",
    "app-fun": "the function of an application",
    "app-arg": "the argument of an application",
    "tuple": "item `index` (from 0) of a tuple",
    "sum": "summand `index` (from 0) of a formal sum",
    "proj": "the argument of a projection",
    "jac-along": "the direction P of J(λq.S)·P",
    "a-root": "the body of the λ under J or Ω (A-reduction)",
    "dual-fun": "the functional P of (λq.S)⋆P",
    "dual-body": "the body S of (λq.S)⋆P (the reverse phase)",
    "pb-fun": "the function S of Ω(S) P",
    "pb-form": "the 1-form P of Ω(S) P",
    "let-bound": "the bound term P of let q = P in S",
    "let-body": "the body S of let q = E in S (A-reduction)",
    "let-inert": "the body S of let q = I in S, I inert (kept by rule 1)",
}

_TERM = {"type": ["string", "integer"],
         "description": "the term printed, or (terms: table) its index in nodes"}
_FRAME = {"type": "array", "prefixItems": [{"enum": sorted(FRAME_KINDS)},
                                           {"type": "integer", "minimum": 0}],
          "minItems": 2, "maxItems": 2, "items": False}
_PATH = {"type": "array", "items": {"$ref": "#/$defs/frame"}}

TRACE_SCHEMA: dict = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "pullback-calc-trace-v1",
    "title": "A reduction trace of the pullback calculus (pullback-calc)",
    "type": "object",
    "required": ["format", "version", "spelling", "max_term", "paths", "steps", "trace"],
    "additionalProperties": False,
    "properties": {
        "format": {"const": "pullback-calc-trace"},
        "version": {"const": 1},
        "spelling": {"enum": ["unicode", "ascii", "both"]},
        "max_term": {"type": ["integer", "null"], "minimum": 1,
                     "description": "terms longer than this many characters are abbreviated"},
        "paths": {"enum": ["delta", "full", "none"]},
        "terms": {"const": "table", "description": "terms are indexes into nodes"},
        "nodes": {"type": "array", "items": {"type": "array", "minItems": 3,
                                             "items": {"type": ["string", "integer"]}},
                  "description": "terms: table -- each node [prec, folds, piece, …]"},
        "term": _TERM, "term_ascii": _TERM,
        "value": _TERM, "value_ascii": _TERM,
        "steps": {"type": "integer", "minimum": 0,
                  "description": "number of steps of the whole reduction, premises included"},
        "trace": {"type": "array", "items": {"$ref": "#/$defs/step"}},
        "omitted": {"type": "object", "required": ["after", "count", "first", "last"],
                    "additionalProperties": False,
                    "description": "show_steps=N: the main derivation's steps first…last "
                                   "(count of them) were left out, after the trace's item "
                                   "number `after` (from 0; -1: before the first)",
                    "properties": {"after": {"type": "integer", "minimum": -1},
                                   "count": {"type": "integer", "minimum": 1},
                                   "first": {"type": "integer", "minimum": 0},
                                   "last": {"type": "integer", "minimum": 0}}},
        "state": {"type": ["string", "integer"],
                  "description": "reduce --depth N: the term reached after N steps"},
        "next": {"type": "object", "required": ["index", "rule", "redex", "path"],
                 "additionalProperties": False,
                 "description": "reduce --depth N: the step not taken, in its context",
                 "properties": {"index": {"type": "integer", "minimum": 0},
                                "rule": {"type": "string"}, "redex": _TERM, "path": _PATH}},
    },
    "dependentRequired": {"terms": ["nodes"], "nodes": ["terms"]},
    "$defs": {
        "frame": _FRAME,
        "step": {
            "type": "object",
            "required": ["index", "rule", "phase", "depth", "redex", "contractum", "premises"],
            "additionalProperties": False,
            "properties": {
                "index": {"type": "integer", "minimum": 0,
                          "description": "position in its derivation, from 0"},
                "rule": {"type": "string", "description": "the rule's label: 1…20b, pb, …"},
                "phase": {"enum": list(PHASES)},
                "depth": {"type": "integer", "minimum": 0,
                          "description": "number of frames of the evaluation context"},
                "path": _PATH,
                "path_keep": {"type": "integer", "minimum": 0},
                "path_add": _PATH,
                "redex": _TERM, "redex_ascii": _TERM,
                "contractum": _TERM, "contractum_ascii": _TERM,
                "abbreviated": {"const": True},
                "premises": {"type": "array", "items": {"$ref": "#/$defs/premise"}},
            },
            "dependentRequired": {"path_keep": ["path_add"], "path_add": ["path_keep"]},
        },
        "premise": {
            "type": "object",
            "required": ["rule", "start", "result", "steps"],
            "additionalProperties": False,
            "properties": {
                "rule": {"type": "string"},
                "start": _TERM, "start_ascii": _TERM,
                "result": {"type": ["string", "integer", "null"],
                           "description": "null if the premise did not finish"},
                "result_ascii": {"type": ["string", "null"]},
                "abbreviated": {"const": True},
                "steps": {"type": "array", "items": {"$ref": "#/$defs/step"}},
            },
        },
    },
}


def _common(a, b):
    """The deepest context frame shared (as an object) by contexts a and b."""
    while a is not b:
        if a is None or b is None:
            return None
        if a.depth > b.depth:
            a = a.parent
        elif b.depth > a.depth:
            b = b.parent
        else:
            a, b = a.parent, b.parent
    return a


def _frames_down_to(ctx, stop) -> list:
    out = []
    while ctx is not None and ctx is not stop:
        out.append([ctx.kind, ctx.index])
        ctx = ctx.parent
    out.reverse()
    return out


class _Writer:
    def __init__(self, spelling: str, max_term: Optional[int], paths: str,
                 terms: str = "text", memo=None):
        if spelling not in ("unicode", "ascii", "both"):
            raise ArgumentError(f"spelling must be 'unicode', 'ascii' or 'both', not {spelling!r}")
        if paths not in ("delta", "full", "none"):
            raise ArgumentError(f"paths must be 'delta', 'full' or 'none', not {paths!r}")
        if terms not in ("text", "table"):
            raise ArgumentError(f"terms must be 'text' or 'table', not {terms!r}")
        if terms == "table" and spelling == "both":
            raise ArgumentError("terms='table' takes one spelling, 'unicode' or 'ascii'")
        self.spelling, self.max_term, self.paths = spelling, max_term, paths
        self.table = TermTable(spelling == "unicode") if terms == "table" else None
        self.memo = memo  # bounded printing's (None: the shared one)

    def put(self, out: dict, key: str, t) -> bool:
        """Set out[key] (and out[key_ascii]); False if abbreviated."""
        if t is None:
            out[key] = None
            if self.spelling == "both":
                out[key + "_ascii"] = None
            return True
        if self.table is not None:
            out[key] = self.table.node(t)
            return True
        s, ok = bounded(t, self.spelling != "ascii", self.max_term, self.memo)
        out[key] = s
        if self.spelling == "both":
            out[key + "_ascii"], ok2 = bounded(t, False, self.max_term, self.memo)
            ok = ok and ok2
        return ok

    def steps(self, steps: Iterable, tick=None, prev: Optional[list] = None) -> list:
        """Steps (with premises, nested) as dicts; an explicit stack, no recursion.
        ``prev`` holds the previous top-level step's context (delta paths), for a
        caller that writes the steps one by one."""
        top: list = []
        stack = [(iter(steps), top, [None] if prev is None else prev)]
        while stack:
            it, out, prev = stack[-1]
            s = next(it, None)
            if s is None:
                stack.pop()
                continue
            if tick is not None:
                tick()
            d: dict = {"index": s.index, "rule": s.rule, "phase": s.phase, "depth": s.depth}
            ctx = s.ctx
            if self.paths == "full":
                d["path"] = [list(f) for f in s.path()]
            elif self.paths == "delta":
                c = _common(prev[0], ctx)
                d["path_keep"] = 0 if c is None else c.depth
                d["path_add"] = _frames_down_to(ctx, c)
                prev[0] = ctx
            ok = self.put(d, "redex", s.redex)
            ok = self.put(d, "contractum", s.contractum) and ok
            if not ok:
                d["abbreviated"] = True
            prem: list = []
            d["premises"] = prem
            out.append(d)
            subs = []
            for p in s.premises:
                pd: dict = {"rule": p.rule}
                ok = self.put(pd, "start", p.start)
                ok = self.put(pd, "result", p.result) and ok
                if not ok:
                    pd["abbreviated"] = True
                pd["steps"] = []
                prem.append(pd)
                subs.append((iter(p.steps), pd["steps"], [None]))
            stack.extend(reversed(subs))
        return top


def _count(trace) -> int:
    from .text import count_steps
    return count_steps(trace)


def _document(trace, term, value, spelling, max_term, paths, phases, rules, every, premises,
              show_steps, terms="text"):
    """(writer, the document without its trace, the steps to write)."""
    w = _Writer(spelling, max_term, paths, terms)
    table = w.table is not None
    doc: dict = {"format": "pullback-calc-trace", "version": 1, "spelling": spelling,
                 "max_term": None if table else max_term, "paths": paths}
    if table:
        doc["terms"] = "table"
    if term is not None:
        w.put(doc, "term", term)
    if value is not None:
        w.put(doc, "value", value)
    trace = list(trace)
    doc["steps"] = _count(trace)
    chosen = list(select_steps(trace, phases, rules, every)) if (
        phases is not None or rules is not None or every != 1) else trace
    every_chosen = chosen
    chosen, gap, left_out = cap_steps(chosen, show_steps)
    if gap is not None:
        doc["omitted"] = {"after": gap - 1, "count": left_out,
                          "first": every_chosen[gap].index,
                          "last": every_chosen[gap + left_out - 1].index}
    if not premises:
        chosen = [_NoPremises(s) for s in chosen]
    return w, doc, chosen


def trace_to_dict(trace, *, term=None, value=None, spelling: str = "unicode",
                  max_term: Optional[int] = 400, paths: str = "delta", phases=None,
                  rules=None, every: int = 1, premises: bool = True,
                  show_steps: Optional[int] = None, progress=None,
                  terms: str = "text", state=None, next_step=None) -> dict:
    """The trace as a JSON-ready dict following ``TRACE_SCHEMA``.

    ``term``/``value``: the reduced term and its normal form, if wanted;
    ``phases``/``rules``/``every``: which steps of the main derivation to
    keep (``text.select_steps``); ``premises=False`` leaves premises out;
    ``show_steps``: at most that many of the main derivation's steps, the first
    and last (``omitted`` says which were left out); ``progress(done)`` is called
    as steps are rendered; ``terms="table"``: terms as indexes into ``nodes``
    (see the module's docstring); ``state``, ``next_step``: where a reduction
    stopped (``reduce --depth N``), the term reached and the step not taken."""
    with paused():  # see text.paused_batches
        w, doc, chosen = _document(trace, term, value, spelling, max_term, paths, phases,
                                   rules, every, premises, show_steps, terms)
        doc["trace"] = w.steps(chosen, ticker(progress))
        if state is not None:
            w.put(doc, "state", state)
        if next_step is not None:
            nxt = doc["next"] = {"index": next_step.index, "rule": next_step.rule}
            w.put(nxt, "redex", next_step.redex)
            nxt["path"] = [list(f) for f in next_step.path()]
        if w.table is not None:
            doc["nodes"] = w.table.N
    return doc


def term_text(doc: dict, k: int) -> str:
    """Node ``k`` of a ``terms="table"`` document, printed whole."""
    return _table_text(doc["nodes"], k)


class _NoPremises:
    """A step seen without its premises."""
    __slots__ = ("_s",)
    premises: list = []

    def __init__(self, s):
        self._s = s

    def __getattr__(self, name):
        return getattr(self._s, name)


def trace_to_json(trace, *, indent: Optional[int] = None, **options) -> str:
    """``trace_to_dict(trace, **options)`` as JSON text (non-ASCII characters
    kept as they are unless ``spelling="ascii"``)."""
    if indent is None:
        return "".join(iter_trace_json(trace, **options))
    doc = trace_to_dict(trace, **options)
    return json.dumps(doc, ensure_ascii=doc["spelling"] == "ascii", indent=indent)


def iter_trace_json(trace, *, term=None, value=None, spelling: str = "unicode",
                    max_term: Optional[int] = 400, paths: str = "delta", phases=None,
                    rules=None, every: int = 1, premises: bool = True,
                    show_steps: Optional[int] = None, progress=None, terms: str = "text"):
    """``trace_to_json(trace, …)`` (compact) in pieces, one per step of the main
    derivation (with its premises): a big trace is written as it is rendered, never
    held as one document (``terms="table"``: the table of nodes, last).  The pieces
    join to exactly ``trace_to_json``'s text."""
    return paused_batches(_chunks(trace, term, value, spelling, max_term, paths, phases, rules,
                                  every, premises, show_steps, progress, terms))


def _chunks(trace, term, value, spelling, max_term, paths, phases, rules, every, premises,
            show_steps, progress, terms):
    w, doc, chosen = _document(trace, term, value, spelling, max_term, paths, phases, rules,
                               every, premises, show_steps, terms)
    dumps = json.JSONEncoder(ensure_ascii=spelling == "ascii", separators=(",", ":")).encode
    head = dumps(doc)
    yield head[:-1] + ',"trace":['
    tick = ticker(progress)
    prev = [None]  # delta paths run on from step to step
    for k, s in enumerate(chosen):
        yield ("," if k else "") + dumps(w.steps([s], tick, prev)[0])
    yield "]}" if w.table is None else '],"nodes":' + dumps(w.table.N) + "}"


def expand_paths(doc: dict) -> dict:
    """Rebuild ``path`` on every step of a ``paths="delta"`` document (in place; returned)."""
    stack = [doc["trace"]]
    while stack:
        prev: list = []
        for s in stack.pop():
            if "path_keep" in s:
                prev = prev[:s.pop("path_keep")] + s.pop("path_add")
                s["path"] = prev
            for p in s["premises"]:
                stack.append(p["steps"])
    doc["paths"] = "full"
    return doc


# ---- streamed: JSON lines -----------------------------------------------------------------

# bounded printing's memo while streaming, in nodes (twice: two generations): it keeps
# the nodes it printed alive, so the shared one (20,000) would hold more than the trace
# itself; much smaller, and the walks along a long chain's spine find it emptied and
# start over (2,000: ×8 in time from a 2,000- to a 4,000-deep sin chain; 5,000: ×2
# up to 8,000)
STREAM_MEMO = 5_000


class JsonlTrace:
    """A trace written as JSON lines while it is reduced: pass the writer as
    ``on_step`` to ``reduce`` or ``jacobian_row``, which then keeps no step::

        with JsonlTrace("trace.jsonl", term=t) as w:
            r = pc.reduce(t, on_step=w)
            w.finish(r.value)

    ``out``: a path (written atomically: the file appears whole, when the block
    ends without an error, or not at all -- ``output.atomic_file``) or a text
    stream (written as the steps come).  The options are ``trace_to_dict``'s,
    but for ``show_steps`` and ``terms="table"``, which need the whole trace."""

    def __init__(self, out, *, term=None, spelling: str = "unicode",
                 max_term: Optional[int] = 400, paths: str = "delta", phases=None,
                 rules=None, every: int = 1, premises: bool = True):
        from .text import parse_phases, parse_rules
        if every < 1:
            raise ArgumentError("every must be at least 1")
        self.out = out
        self._file: Any = None
        # bounded printing's memo, its own and smaller than the shared one (STREAM_MEMO)
        self.w = _Writer(spelling, max_term, paths, memo=_Memo(STREAM_MEMO))
        self.phases = parse_phases(phases) if isinstance(phases, str) else phases
        self.rules = parse_rules(rules) if isinstance(rules, str) else rules
        self.every, self.premises = every, premises
        self.chosen = self.count = 0   # steps of the main derivation chosen; all steps
        self.prev: list = [None]       # delta paths run on from step to step
        self.dumps = json.JSONEncoder(ensure_ascii=spelling == "ascii",
                                      separators=(",", ":")).encode
        self.head: dict = {"format": "pullback-calc-trace", "version": 1, "stream": "jsonl",
                           "spelling": spelling, "max_term": max_term, "paths": paths}
        if term is not None:
            self.w.put(self.head, "term", term)
        self.sink: Any = None if isinstance(out, (str, bytes)) or hasattr(out, "__fspath__") \
            else out
        if self.sink is not None:
            self._line(self.head)

    def __enter__(self) -> "JsonlTrace":
        if self.sink is None:
            from .output import atomic_file
            self._file = atomic_file(self.out)
            self.sink = self._file.__enter__()
            self._line(self.head)
        return self

    def __exit__(self, *exc) -> None:
        if self._file is not None:
            self._file.__exit__(*exc)
            self._file = None

    def _line(self, obj: dict) -> None:
        self.sink.write(self.dumps(obj) + "\n")

    def __call__(self, step) -> None:
        """One step of the main derivation, as it is taken (``Machine.on_step``)."""
        from .text import count_steps
        if self.sink is None:
            raise RuntimeError("JsonlTrace(path): use it in a with block")
        self.count += count_steps([step])
        if (self.phases is not None and step.phase not in self.phases) or \
                (self.rules is not None and step.rule not in self.rules):
            return
        k, self.chosen = self.chosen, self.chosen + 1
        if k % self.every:
            return
        s = step if self.premises else _NoPremises(step)
        self._line(self.w.steps([s], None, self.prev)[0])

    def finish(self, value=None, term=None) -> None:
        """The last line: how many steps, the normal form (and the term, if the
        head could not say it)."""
        end: dict = {"end": True, "steps": self.count}
        if term is not None and "term" not in self.head:
            self.w.put(end, "term", term)
        if value is not None:
            self.w.put(end, "value", value)
        self._line(end)


def read_jsonl(lines: Iterable[str]) -> dict:
    """A JSON-lines trace (``JsonlTrace``) as the document of ``TRACE_SCHEMA``; an
    ArgumentError (a ValueError) names the line that is not one (or a stream that did
    not finish)."""
    doc: Optional[dict] = None
    steps: list = []
    end = None
    for k, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if end is not None:
            raise ArgumentError(f"line {k}: a line after the last one (the one with \"end\")")
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise ArgumentError(f"line {k}: not JSON ({e.msg}, column {e.colno})") from None
        if not isinstance(obj, dict):
            raise ArgumentError(f"line {k}: not a JSON object")
        if doc is None:
            if obj.get("format") != "pullback-calc-trace" or obj.get("stream") != "jsonl":
                raise ArgumentError(f"line {k}: not the head of a JSON-lines trace (its "
                                 "\"format\" is \"pullback-calc-trace\", \"stream\" \"jsonl\")")
            doc = {key: v for key, v in obj.items() if key != "stream"}
        elif obj.get("end") is True:
            end = obj
        else:
            steps.append(obj)
    if doc is None or end is None:
        raise ArgumentError("the trace did not finish: no last line (the one with \"end\")"
                         if doc is not None else "empty: no JSON-lines trace")
    doc.update((key, v) for key, v in end.items() if key != "end")
    doc["trace"] = steps
    return doc
