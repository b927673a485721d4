"""Reduction graphs, drawn with graphviz.

Two kinds of graph, both with terms as nodes (α-equivalent terms are one
node: the key of a node is ``alpha_key(term)``, equal exactly when the
``reduction.closure.canonical`` forms are) and steps as edges labelled with
their rule:

``strategy_graph(trace)``
    the path the call-by-value strategy took.  Its steps are coloured by
    phase (A-reduction, decompose, forward, reverse), and each run of steps
    in one phase is a cluster; long runs are folded into columns of at most
    ``column_height`` terms, read top to bottom, left to right.  Premise
    sub-derivations are clusters of their own, linked by dashed edges to
    the step that needed them.

``full_graph(term, node_budget=…)``
    every one-step reduct at every redex position (the compatible closure,
    ``reduction.closure.one_step_reducts``), breadth-first up to a node
    budget.  The call-by-value path is drawn bold and blue, nodes reached
    from two or more different terms (where different orders meet again)
    have a double border, normal forms are green, and nodes with reducts
    left out by the budget are dashed.

Both return a :class:`Graph`: its ``.dot`` is the DOT source (deterministic:
node ids follow the order of the trace or of the breadth-first search, so
golden files stay stable), ``.render(path)`` writes DOT, SVG, PNG or PDF
(graphviz's ``dot`` program does the layout), and in Jupyter it shows itself
as SVG (``_repr_svg_``).  A node's label is a window of about
``label_width`` characters on its term, around the redex of the step leaving
it (strategy graphs) or the contractum of the step that first reached it
(full graphs), in bold, with ellipses where the term goes on; the full term
is the node's tooltip (in SVG, the ``xlink:title`` of the node's link, which
browsers show on hover), and a step label's tooltip is its redex and
contractum.

The ``pullback-calc graph`` command line is ``cli/graph.py``.
"""
from __future__ import annotations

import math
import shutil
import subprocess
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

from ..deep import deep
from ..errors import ArgumentError, PullbackCalcError
from ..reduction.closure import one_step_reducts
from ..reduction.machine import Machine, plug_all
from ..syntax.printer import folding_env
from ..syntax.terms import Lam, Num, Term, Tuple, Var, fresh_scope
from .output import write_atomic
from .text import _cut_head, _cut_tail, abbreviate

__all__ = ["Graph", "GraphNode", "GraphEdge", "RenderError", "FORMATS", "PHASES",
           "strategy_graph", "whole_graph", "full_graph", "explore", "Explored", "alpha_key",
           "render_dot", "dot_available"]

FORMATS = ("dot", "svg", "png", "pdf")

FONT = "DejaVu Sans Mono,monospace"      # covers λ ⟨⟩ Ω ⊕ ⋆ π; any monospace will do
TITLE_FONT = "DejaVu Sans,sans-serif"


@dataclass(frozen=True)
class PhaseStyle:
    title: str
    blurb: str
    color: str      # edges, borders, text
    fill: str       # the cluster's background


# Colours from ColorBrewer's Dark2 (distinguishable with the common colour-vision
# deficiencies), with pale tints of them as cluster backgrounds.
PHASES = {
    "A": PhaseStyle("A-reduction", "name every intermediate result (A-name, A-lift, A-tail)",
                    "#7570b3", "#f1f0f8"),
    "decompose": PhaseStyle("decompose", "split Ω along the let series (rules 7, 8)",
                            "#d95f02", "#fdf1e6"),
    "forward": PhaseStyle("forward phase", "evaluate at the point, build the dual maps",
                          "#1b7f62", "#e8f5f0"),
    "reverse": PhaseStyle("reverse phase", "pull the covector back (rule 5, Jacobians)",
                          "#c7237a", "#fcebf3"),
}
PREMISE_COLOR, PREMISE_FILL = "#555555", "#f4f4f4"
CBV_COLOR = "#1f5fbf"
OTHER_COLOR = "#8a8a8a"
NORMAL_FILL = "#dff3d8"
NORMAL_EDGE = "#4d9a3a"     # the legend's swatch for the normal-form fill
MEET_FILL = "#fff2bf"
MEET_EDGE = "#d9a400"
CHANGED_COLOR = "#a34700"   # full graphs: the contractum in a node's label
EDGE_TIP = 300              # characters of a redex or contractum in an edge's tooltip
MIN_TIP = 40
UNEXPANDED_FILL = "#eeeeee"


class RenderError(PullbackCalcError):
    """graphviz could not render a graph (``dot`` missing, or it failed)."""


# ---- node keys ----------------------------------------------------------------------------

def alpha_key(t: Term) -> str:
    """A string that two terms share exactly when they are α-equivalent: the term
    written with every bound variable replaced by the number of its binder (binders
    numbered in order of appearance, as ``reduction.closure.canonical`` does) and free
    variables by name.  One pass over the term, without recursion -- the same
    equivalence as comparing ``canonical`` forms, at a fraction of the cost, so it is
    the key of graph nodes."""
    out: list[str] = []
    counter = 0
    stack: list = [(t, {})]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        u, env = item
        if isinstance(u, Var):
            n = env.get(u.name)
            out.append(f"${u.name} " if n is None else f"#{n} ")
        elif isinstance(u, Num):
            out.append(f"N{float(u.value)!r} ")
        elif isinstance(u, Lam):
            inner = dict(env)
            pat: list[str] = []
            pstack: list = [u.pat]
            while pstack:
                q = pstack.pop()
                if isinstance(q, str):
                    pat.append(q)
                elif isinstance(q, Var):
                    inner[q.name] = counter
                    pat.append(f"#{counter} ")
                    counter += 1
                else:  # a tuple pattern
                    assert isinstance(q, Tuple), q
                    pat.append("<")
                    pstack.append(">")
                    pstack.extend(reversed(q.items))
            out.append(f"λ{''.join(pat)}{u.ann!r}(")
            stack.append(")")
            stack.append((u.body, inner))
        else:
            out.append(f"{type(u).__name__}{u._data()!r}(")
            stack.append(")")
            stack.extend((c, env) for c in reversed(u.children()))
    return "".join(out)


# ---- the graph object ---------------------------------------------------------------------

@dataclass
class GraphNode:
    """A node: one term up to α-equivalence."""
    id: str
    term: Optional[Term]          # None for the "… steps not shown …" node of a long trace
    key: Optional[str] = None     # alpha_key(term): α-equivalent terms, one key
    depth: int = 0                # breadth-first distance from the start (full graphs)
    phase: Optional[str] = None   # strategy graphs: the phase of the step leaving it
    on_cbv: bool = False          # full graphs: on the call-by-value path
    meeting: bool = False         # full graphs: reached from ≥ 2 different terms
    normal: bool = False          # no reduct at all
    expanded: bool = False        # full graphs: its reducts were computed
    hidden: int = 0               # full graphs: reducts left out by the node budget
    cluster: Optional[str] = None  # strategy graphs: "main" or a premise cluster id
    via: Optional[int] = None     # full graphs: the edge it was first reached by


@dataclass
class GraphEdge:
    """An edge: one step (a rule at a position)."""
    source: str
    target: str
    rule: str
    path: tuple = ()
    redex: Optional[Term] = None
    contractum: Optional[Term] = None
    index: Optional[int] = None   # strategy graphs: the step's index in its derivation
    phase: Optional[str] = None
    on_cbv: bool = False
    strategy_only: bool = False   # a strategy step the closure did not list (should not occur)
    kind: str = "step"            # "step", "premise" (to a premise), "result" (back), "elided"


class Graph:
    """A reduction graph: DOT source plus the nodes and edges it was drawn from.

    ``.dot`` is the DOT text; ``.pipe(format)`` returns the rendered bytes;
    ``.render(path, format=None)`` writes a file (format from the suffix by
    default); Jupyter displays it through ``_repr_svg_``.
    """

    def __init__(self, dot: str, kind: str, nodes: list, edges: list, **info):
        self.dot = dot
        self.kind = kind              # "strategy" or "full"
        self.nodes: list[GraphNode] = nodes
        self.edges: list[GraphEdge] = edges
        self.info = info
        self._svg: Optional[str] = None

    @property
    def source(self) -> str:
        return self.dot

    def node(self, node_id: str) -> GraphNode:
        for n in self.nodes:
            if n.id == node_id:
                return n
        raise KeyError(node_id)

    def node_of(self, term: Union[Term, str]) -> Optional[GraphNode]:
        """The node of ``term`` (up to α-equivalence), or None."""
        if isinstance(term, str):
            from ..syntax.parser import parse
            term = parse(term)
        key = alpha_key(term)
        for n in self.nodes:
            if n.key is not None and n.key == key:
                return n
        return None

    def pipe(self, format: str = "svg", dpi: Optional[int] = None) -> bytes:
        """The graph rendered by ``dot`` as ``format`` (dot, svg, png or pdf)."""
        return render_dot(self.dot, format, dpi=dpi)

    def render(self, path: Union[str, Path], format: Optional[str] = None,
               dpi: Optional[int] = None) -> Path:
        """Write the graph to ``path``; the format defaults to the path's suffix."""
        path = Path(path)
        fmt = format or format_from_suffix(path) or "svg"
        data = self.pipe(fmt, dpi=dpi)
        write_atomic(path, data)  # whole or not at all
        return path

    def svg(self) -> str:
        if self._svg is None:
            self._svg = self.pipe("svg").decode("utf-8")
        return self._svg

    def _repr_svg_(self) -> Optional[str]:
        """Jupyter's SVG display (None, i.e. fall back to repr, without graphviz)."""
        try:
            return self.svg()
        except RenderError:
            return None

    def __str__(self) -> str:
        return self.dot

    def __repr__(self) -> str:
        return (f"<{self.kind} reduction graph: {len(self.nodes)} nodes, "
                f"{len(self.edges)} edges>")


def format_from_suffix(path: Union[str, Path]) -> Optional[str]:
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix == "gv":
        return "dot"
    return suffix if suffix in FORMATS else None


def dot_available() -> bool:
    return shutil.which("dot") is not None


def render_dot(source: str, format: str = "svg", dpi: Optional[int] = None) -> bytes:
    """Lay out and render DOT source with graphviz's ``dot`` program.  Some
    cluster layouts trip dot's ranking with newrank ("trouble in init_rank");
    those are laid out again without it."""
    try:
        return _render_dot(source, format, dpi)
    except RenderError as e:
        msg = str(e)
        if "init_rank" in msg and "newrank=true" in source:
            return render_dot(source.replace(", newrank=true", "").replace("newrank=true, ", ""),
                              format, dpi)
        if any(k in msg for k in _SPLINE_FAILURES) and "splines=line" not in source:
            # dot's spline router fails on some cluster layouts ("triangulation
            # failed"); straight edges need no routing
            head, sep, rest = source.partition("{\n")
            return render_dot(f"{head}{sep}  splines=line;\n{rest}", format, dpi)
        raise


#: what graphviz says when its spline router, not the graph, is at fault
_SPLINE_FAILURES = ("triangulation failed", "Pshortestpath failed", "routesplines")


def _render_dot(source: str, format: str, dpi: Optional[int]) -> bytes:
    if format not in FORMATS:
        raise RenderError(f"unknown graph format {format!r} (expected one of "
                          f"{', '.join(FORMATS)})")
    if format == "dot":
        return source.encode("utf-8")
    exe = shutil.which("dot")
    if exe is None:
        raise RenderError("graphviz's `dot` program was not found: install graphviz "
                          "(e.g. `apt-get install graphviz`) or ask for --format dot")
    if dpi is not None:  # a graph attribute, only for this rendering
        head, sep, rest = source.partition("{\n")
        source = f"{head}{sep}  dpi={int(dpi)};\n{rest}"
    try:
        import graphviz  # the PyPI package: a thin wrapper over the same program
    except ImportError:
        graphviz = None
    if graphviz is not None:
        try:
            return graphviz.pipe("dot", format, source.encode("utf-8"), quiet=True)
        except graphviz.ExecutableNotFound as e:  # pragma: no cover - checked above
            raise RenderError(f"graphviz's `dot` program was not found ({e})") from None
        except graphviz.CalledProcessError as e:
            err = (e.stderr or b"").decode("utf-8", "replace").strip()
            raise RenderError(f"graphviz failed to render the graph: {err}") from None
    proc = subprocess.run([exe, f"-T{format}"], input=source.encode("utf-8"),
                          capture_output=True)
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip()
        raise RenderError(f"graphviz failed to render the graph: {err}")
    return proc.stdout


# ---- writing DOT --------------------------------------------------------------------------

class _Html(str):
    """An HTML-like label, written <…> instead of "…"."""


class _Raw(str):
    """An escString already escaped (e.g. with ``\\l`` line ends), written "…" as is."""


def _left(lines: list, pad: int = 3) -> _Raw:
    """Left-justified lines (each ended by ``\\l``), one space in from the edge; ``pad``
    spaces after each line, as dot underestimates how far such labels reach."""
    tail = " " * pad + "\\l"
    return _Raw("".join(" " + ln.replace("\\", "\\\\").replace('"', '\\"') + tail
                        for ln in lines))


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _esc(s: str) -> str:
    """Text inside an HTML-like label.  Spaces become no-break spaces: graphviz's
    SVG writes each font run (bold redex, plain context) as its own <text>, and
    browsers drop the spaces at the ends of a <text> ("A-reductionname every…")."""
    return (s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace(" ", "&#160;"))


def _attrs(attrs: dict) -> str:
    out = []
    for k, v in attrs.items():
        if v is None:
            continue
        if isinstance(v, _Html):
            out.append(f"{k}=<{v}>")
        elif isinstance(v, _Raw):
            out.append(f'{k}="{v}"')
        elif isinstance(v, bool):
            out.append(f"{k}={'true' if v else 'false'}")
        elif isinstance(v, int):
            out.append(f"{k}={v}")
        else:
            out.append(f"{k}={_quote(str(v))}")
    return ", ".join(out)


class _Dot:
    """A tiny DOT writer: statements in the order they are given."""

    def __init__(self, name: str):
        self.lines = [f"digraph {name} {{"]
        self.depth = 1

    def _put(self, s: str) -> None:
        self.lines.append("  " * self.depth + s)

    def attrs(self, what: str, **attrs) -> None:
        self._put(f"{what} [{_attrs(attrs)}];")

    def set(self, **attrs) -> None:
        for k, v in attrs.items():
            self._put(_attrs({k: v}) + ";")

    def node(self, node_id: str, **attrs) -> None:
        a = _attrs(attrs)
        self._put(f"{node_id} [{a}];" if a else f"{node_id};")

    def edge(self, a: str, b: str, **attrs) -> None:
        at = _attrs(attrs)
        self._put(f"{a} -> {b} [{at}];" if at else f"{a} -> {b};")

    def open(self, name: str, **attrs) -> None:
        self._put(f"subgraph {name} {{")
        self.depth += 1
        self.set(**attrs)

    def same_rank(self, ids: list) -> None:
        """Put ``ids`` on one rank, in this order from left to right."""
        if len(ids) > 1:
            self._put("{ rank=same; " + " -> ".join(ids) + " [style=invis]; }")

    def close(self) -> None:
        self.depth -= 1
        self._put("}")

    def source(self) -> str:
        return "\n".join(self.lines + ["}"]) + "\n"


def _graph_defaults(d: _Dot, rankdir: str = "TB") -> None:
    d.attrs("graph", rankdir=rankdir, fontname=TITLE_FONT, fontsize="12", labelloc="t",
            labeljust="l", nodesep="0.3", ranksep="0.35", newrank=True, pad="0.3")
    d.attrs("node", shape="box", style="rounded,filled", fillcolor="white", fontname=FONT,
            fontsize="10", margin="0.12,0.05", height="0.3")
    d.attrs("edge", fontname=FONT, fontsize="9", arrowsize="0.7")


TIP_HARD_CAP = 4000  # graphviz rejects quoted strings longer than 16384 bytes


class _Labels:
    """Abbreviated labels and (possibly capped) tooltips, printed once per term."""

    def __init__(self, unicode: bool, label_width: int, tooltip_width: Optional[int]):
        self.unicode, self.width, self.tip_width = unicode, label_width, tooltip_width

    def label(self, t: Term, width: Optional[int] = None) -> str:
        return abbreviate(t, self.unicode, width or self.width)

    def tooltip(self, t: Term, cap: Optional[int] = None) -> str:
        width = self.tip_width if cap is None else min(cap, self.tip_width or cap)
        if width is not None and width < MIN_TIP:
            width = MIN_TIP
        if width is None:  # whole terms, within graphviz's 16 KiB limit on a string
            width = TIP_HARD_CAP
        with folding_env(False):  # the tooltip: the whole term, tuples unfolded
            return abbreviate(t, self.unicode, width)

    def step_tooltip(self, rule: str, redex: Term, contractum: Term) -> str:
        """``rule: redex ⟶ contractum``, each abbreviated to EDGE_TIP characters (or a
        third of ``tooltip_width``): the whole terms are the nodes' tooltips."""
        cap = EDGE_TIP if self.tip_width is None else min(EDGE_TIP, self.tip_width // 3)
        return (f"{rule}: {self.tooltip(redex, cap)}{self.arrow()}"
                f"{self.tooltip(contractum, cap)}")

    def arrow(self) -> str:
        return " ⟶ " if self.unicode else " --> "

    @property
    def dots(self) -> str:
        return "…" if self.unicode else "..."

    def focus(self, step) -> Optional[tuple[str, str, str]]:
        """The term before ``step`` seen through a window of about ``width`` characters
        around its redex: (left context, redex, right context), with ellipses.  Costs
        O(width), whatever the size of the term (the innermost frames of the context,
        siblings abbreviated)."""
        try:
            from .text import bounded, context_around
        except ImportError:  # pragma: no cover - print the whole term instead
            hole = Var("\u2047")  # a fresh object, found by identity, never printed
            return self._marked_window(plug_all(step.ctx, hole), hole, step.redex)
        left, right, more = context_around(step, self.unicode, frames=8,
                                           sibling=max(self.width // 2, 12))
        mid, _ = bounded(step.redex, self.unicode, max(self.width * 3 // 5, 12))
        return _window(left, mid, right, self.width, self.dots, more)

    def focus_path(self, term: Term, path: tuple) -> Optional[tuple[str, str, str]]:
        """``term`` seen through a window around its subterm at ``path``."""
        u = term
        for i in path:
            kids = u.children()
            if not 0 <= i < len(kids):
                return None
            u = kids[i]
        return self._marked_window(term, u, u)

    def _marked_window(self, root: Term, target: Term, shown: Term):
        """Print ``root`` with ``shown`` in place of (the first occurrence, by identity,
        of) ``target``, and cut a window around it; None if the printer's internals are
        not what we expect."""
        try:
            from ..syntax.printer import LAM, Printer
        except ImportError:  # pragma: no cover
            return None
        printer = Printer(self.unicode)
        out: list[str] = []
        n, start, end = 0, None, None
        stack: list = [(root, LAM)]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                out.append(item)
                n += len(item)
            elif item is _END:
                end = n
            elif start is None and item[0] is target and item[1] is not None:
                start = n
                stack.append(_END)
                stack.extend(reversed(printer.task(shown, item[1])))
            else:
                stack.extend(reversed(printer.task(*item)))
        if start is None or end is None:
            return None
        text = "".join(out)
        return _window(text[:start], text[start:end], text[end:], self.width, self.dots)

    def html(self, focus: tuple[str, str, str], color: str) -> _Html:
        left, mid, right = focus
        return _Html(f'{_esc(left)}<font color="{color}"><b>{_esc(mid)}</b></font>'
                     f'{_esc(right)}')


_END = object()


def _window(left: str, mid: str, right: str, width: int, dots: str,
            more: bool = False) -> tuple[str, str, str]:
    """Cut ``left + mid + right`` to about ``width`` characters around ``mid``
    (``more``: the term goes on beyond ``left`` and ``right``)."""
    width = max(width, 12)
    max_mid = max(width * 3 // 5, 8)
    if len(mid) > max_mid:
        keep = max_mid - len(dots)
        mid = _cut_head(mid, keep - keep // 2) + dots + _cut_tail(mid, keep // 2)
    room = max(width - len(mid), 0)
    lw = room // 2
    rw = room - lw
    if len(left) < lw:
        rw += lw - len(left)
        lw = len(left)
    if len(right) < rw:
        lw = min(len(left), lw + rw - len(right))
        rw = len(right)
    if len(left) > lw or (more and left and not left.startswith(dots)):
        rest = _cut_tail(left, max(min(lw, len(left)) - len(dots), 0))
        if dots in rest[:4]:  # an abbreviated sibling right at the cut: one ellipsis
            rest = rest[rest.index(dots) + len(dots):]
        left = dots + rest
    if len(right) > rw or (more and right and not right.endswith(dots)):
        rest = _cut_head(right, max(min(rw, len(right)) - len(dots), 0))
        if dots in rest[-4:]:
            rest = rest[:rest.rindex(dots)]
        right = rest + dots
    return left, mid, right


def _legend_table(rows: list[str], title: str, subtitle: str) -> _Html:
    """The graph's label: a title, a line of explanation and one row per legend entry
    (single cells, so that no column is stretched by the title's width)."""
    return _Html(
        '<table border="0" cellborder="0" cellspacing="1" cellpadding="1">'
        f'<tr><td align="left"><font point-size="16"><b>{_esc(title)}</b></font></td></tr>'
        f'<tr><td align="left"><font point-size="11">{_esc(subtitle)}</font></td></tr>'
        f'{"".join(rows)}</table>')


def _legend_row(swatch: str, text: str, bold: Optional[str] = None) -> str:
    b = f"<b>{_esc(bold)}</b>&#160;" if bold else ""  # no-break: see _esc
    return (f'<tr><td align="left"><font point-size="11">{swatch}&#160;&#160;{b}'
            f'{_esc(text)}</font></td></tr>')


def _swatch(color: str, glyph: str = "■■") -> str:
    """A coloured glyph standing for a colour, a line style or an arrow."""
    return f'<font color="{color}" face="{TITLE_FONT}"><b>{_esc(glyph)}</b></font>'


# ---- the strategy graph -------------------------------------------------------------------

def _steps_of(trace) -> tuple[list, Optional[Term]]:
    """(steps, start term) from a trace list or a result object with ``.trace``."""
    term = None
    if hasattr(trace, "trace"):
        term = getattr(trace, "term", None)
        trace = trace.trace
    return list(trace), term


def _visible(n: int, max_steps: Optional[int]) -> tuple[list[int], Optional[int]]:
    """Indices of the steps to draw and where the elision goes (None: none)."""
    if max_steps is None or n <= max_steps:
        return list(range(n)), None
    head = max(max_steps // 2, 1)
    tail = max(max_steps - head, 1)
    return list(range(head)) + list(range(n - tail, n)), head


class _StrategyBuilder:
    max_alternatives = 2000  # (whole_graph's: the terms whose other reducts are found)
    alternatives_cut: Optional[int] = None  # where that search stopped, if it did
    def __init__(self, labels: _Labels, detail: bool, max_steps: Optional[int],
                 column_height: Optional[int], premises: bool):
        self.L = labels
        self.detail = detail
        self.max_steps = max_steps
        self.column_height = column_height
        self.premises = premises
        self.nodes: list[GraphNode] = []
        self.edges: list[GraphEdge] = []
        self.edge_attrs: list[dict] = []
        self.clusters: list[tuple[str, dict, list]] = []  # (name, attrs, [(node, attrs)])
        self.phase_counts: dict[str, int] = {}
        self.n_premises = 0
        self.pending: list = []   # (source id, target id, step, depth) with premises
        self.column_heads: list[str] = []  # the main derivation's columns, left to right
        self.elided: dict[str, int] = {}   # "⋯" node → how many steps it stands for
        self.elided_count = 0

    # one derivation (the main one, or a premise's) as a chain of nodes
    def chain(self, prefix: str, steps: list, start: Optional[Term], cluster: str, depth: int,
              premise_of: Optional[str] = None) -> tuple[str, str]:
        """Add the nodes, clusters and edges of one derivation and queue its steps'
        premises; returns the ids of its first and last node."""
        n = len(steps)
        visible, gap = _visible(n, self.max_steps)
        tail_start = n - (len(visible) - gap) if gap is not None else None
        items: list[tuple[str, Optional[Term]]] = []        # (node id, term)
        links: list[tuple[int, int, Any]] = []               # (from, to, step or elision)
        index: dict = {}

        def add(term: Optional[Term]) -> int:
            key = alpha_key(term) if term is not None else None
            if key is not None and key in index:
                return index[key]
            i = len(items)
            items.append((f"{prefix}{i}", term))
            self.nodes.append(GraphNode(f"{prefix}{i}", term, key, cluster=cluster))
            if key is not None:
                index[key] = i
            return i

        prev: Optional[int] = None
        for si in visible:
            s = steps[si]
            if si == tail_start:  # the elided middle: a "⋯" node between the two halves
                e = add(None)
                assert prev is not None  # (the head comes first)
                self.elided[items[e][0]] = n - len(visible)
                links.append((prev, e, ("elided", n - len(visible))))
                prev = add(s.term_before())
                links.append((e, prev, ("elided", 0)))
            if prev is None:
                prev = add(start if start is not None and si == 0 else s.term_before())
            nxt = add(s.term_after())
            links.append((prev, nxt, s))
            prev = nxt
        if prev is None:  # no step: the start is already a value
            prev = add(start)
        first_node = len(self.nodes) - len(items)
        # a node's phase is that of the step leaving it (the last one's: the step into it)
        node_phase: dict[int, str] = {}
        last_phase = steps[visible[-1]].phase if visible else "forward"
        for a, _b, s in links:
            if not isinstance(s, tuple):
                node_phase.setdefault(a, s.phase)
        for i in range(len(items)):
            if i not in node_phase:
                into = [s for a, b, s in links if b == i and not isinstance(s, tuple)]
                node_phase[i] = into[-1].phase if into else last_phase
        for i in range(len(items)):
            self.nodes[first_node + i].phase = node_phase[i]
        self.nodes[first_node + prev].normal = True

        # segments: maximal runs of nodes in one phase, each folded into columns
        groups: list[tuple[str, list[int]]] = []
        for i in range(len(items)):
            if groups and groups[-1][0] == node_phase[i]:
                groups[-1][1].append(i)
            else:
                groups.append((node_phase[i], [i]))
        column_of: dict[int, tuple[int, int]] = {}
        h = self.column_height if depth == 0 else None
        for g, (_, members) in enumerate(groups):
            cols = -(-len(members) // h) if h else 1          # as few columns as fit,
            per = -(-len(members) // cols)                     # of balanced heights
            for k, i in enumerate(members):
                column_of[i] = (g, k // per)
                if depth == 0 and k % per == 0:
                    self.column_heads.append(items[i][0])
        leaving: dict[int, object] = {}   # node → the step leaving it (its redex is marked)
        for a, _b, s in links:
            if not isinstance(s, tuple):
                leaving.setdefault(a, s)
        self._clusters_for(prefix, items, groups, depth, premise_of, prev, leaving)

        for a, b, s in links:
            same_column = column_of[a] == column_of[b]
            if isinstance(s, tuple):
                self._edge(GraphEdge(items[a][0], items[b][0], "…", kind="elided"),
                           style="dotted", color=PREMISE_COLOR, constraint=same_column)
                continue
            ph = PHASES.get(s.phase, PHASES["forward"])
            lines = [f"{s.index} [{s.rule}]"]
            tip = self.L.step_tooltip(f"step {s.index}, rule {s.rule} ({s.phase})", s.redex,
                                      s.contractum)
            if self.detail:
                lines.append(self.L.arrow().strip() + " "
                             + self.L.label(s.contractum, max(self.L.width * 3 // 5, 12)))
            label = _left(lines)
            ports: dict = {}
            self._edge(GraphEdge(items[a][0], items[b][0], s.rule, redex=s.redex,
                                 contractum=s.contractum, index=s.index, phase=s.phase),
                       color=ph.color, fontcolor=ph.color, penwidth="1.6", label=label,
                       labeltooltip=tip, constraint=same_column, **ports)
            if self.premises and s.premises:
                self.pending.append((items[a][0], items[b][0], s, depth + 1))
        return items[0][0], items[prev][0]

    def _clusters_for(self, prefix, items, groups, depth, premise_of, last, leaving):
        blocks = []
        for g, (ph, members) in enumerate(groups):
            style = PHASES.get(ph, PHASES["forward"])
            specs = []
            for i in members:
                self.elided_count = self.elided.get(items[i][0], 0)
                specs.append((items[i][0], self._node_attrs(items[i][1], style, i == last,
                                                            leaving.get(i),
                                                            depth == 0 and i == 0)))
            blocks.append((f"cluster_{prefix}g{g}", style, specs))
        if depth == 0:
            for name, style, specs in blocks:
                self.clusters.append((name, dict(label=style.title, style="filled,rounded",
                                                 color=style.color, fillcolor=style.fill,
                                                 fontcolor=style.color, fontsize="14",
                                                 penwidth="1.2"), specs))
        else:
            # a premise: one cluster (its phases still colour its edges and borders)
            specs = [sp for b in blocks for sp in b[2]]
            self.clusters.append((f"cluster_{prefix.rstrip('_')}", dict(
                label=premise_of, style="filled,rounded,dashed", color=PREMISE_COLOR,
                fillcolor=PREMISE_FILL, fontcolor=PREMISE_COLOR, fontsize="11"), specs))

    def _node_attrs(self, term: Optional[Term], style: PhaseStyle, last: bool,
                    step=None, first: bool = False) -> dict:
        if term is None:
            return dict(label=f"⋯ {self.elided_count} steps not shown ⋯", shape="plaintext",
                        style="", fontsize="12", fontcolor=PREMISE_COLOR)
        a = dict(label=self.L.label(term), tooltip=self.L.tooltip(term), color=style.color)
        focus = self.L.focus(step) if step is not None else None
        if focus is not None:
            a["label"] = self.L.html(focus, style.color)
        if first:  # the start: a thick border
            a["penwidth"] = "2.5"
        if last:
            a.update(penwidth="2.5", fillcolor=NORMAL_FILL, fontsize="11")
        return a

    def _edge(self, e: GraphEdge, **attrs) -> None:
        self.edges.append(e)
        self.edge_attrs.append(attrs)


def _folded(fn):
    """Run ``fn`` with environment tuples folded (⟨…, c⟩) in labels; inside @deep,
    since its thread does not inherit the caller's context."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with folding_env():
            return fn(*args, **kwargs)
    return wrapper


@_folded
def strategy_graph(trace, *, term: Optional[Term] = None, title: Optional[str] = None,
                   unicode: bool = True, label_width: int = 40, detail: bool = False,
                   premises: bool = True, max_steps: Optional[int] = 400,
                   column_height: Optional[int] = 16, max_premises: Optional[int] = 60,
                   max_nodes: Optional[int] = None,
                   tooltip_width: Optional[int] = None, _whole: bool = False,
                   _max_alternatives: int = 2000) -> Graph:
    """The strategy's path through a recorded trace, as a :class:`Graph`.

    ``trace`` is a list of steps (``reduce(t).trace``) or a result with
    ``.trace`` (a ``ReductionResult`` or ``JacobianRow``; the latter also gives
    the start term).  ``detail`` adds ``redex ⟶ contractum`` under each edge's
    rule; ``max_steps`` draws at most that many steps of each derivation (its
    beginning and end, with a "… steps not shown" node between); each phase
    run is folded into columns of ``column_height`` terms (None: one column);
    at most ``max_premises`` premise sub-derivations are drawn (breadth-first: the main
    derivation's first; None: all), and none once the graph has ``max_nodes`` nodes;
    ``tooltip_width`` caps tooltips (None: full terms).
    """
    steps, given = _steps_of(trace)
    term = term if term is not None else given
    if not steps and term is None:
        raise ArgumentError("an empty trace: pass the term (term=…) to draw its single node")
    L = _Labels(unicode, label_width, tooltip_width)
    b = _StrategyBuilder(L, detail, max_steps, column_height, premises)
    b.max_alternatives = _max_alternatives
    b.alternatives_cut = None
    start = term if term is not None else steps[0].term_before()
    b.chain("s", steps, start, "main", 0)
    # premises, breadth-first (no recursion): a cluster per sub-derivation, linked to
    # the source and target of the step that needed it
    links = []
    queue = deque(b.pending)
    b.pending = []
    skipped = 0
    while queue:
        src, dst, step, depth = queue.popleft()
        for d in step.premises:
            if ((max_premises is not None and b.n_premises >= max_premises)
                    or (max_nodes is not None and len(b.nodes) >= max_nodes)):
                skipped += 1
                continue
            prefix = f"p{b.n_premises}_"
            b.n_premises += 1
            what = (f"premise [{d.rule}] of step {step.index}"
                    + ("" if depth == 1 else f" (nested: depth {depth})"))
            p_first, p_last = b.chain(prefix, list(d.steps), d.start, prefix, depth,
                                      premise_of=what)
            links.append((src, p_first, p_last, dst, d))
            queue.extend(b.pending)
            b.pending = []
    for s in steps:
        b.phase_counts[s.phase] = b.phase_counts.get(s.phase, 0) + 1
    premise_phases = {e.phase for e in b.edges if e.phase is not None}

    d = _Dot("strategy")
    _graph_defaults(d)
    main_term = start
    heading = title or ("Call-by-value reduction of " + L.label(main_term, 70))
    n_main = len(steps)
    total = _count_steps(steps)
    sub = f"{n_main} steps" + (f" ({total - n_main} more in premises)" if total > n_main else "")
    if skipped:
        sub += f"; {skipped} premises not drawn"
    sub += "; read each coloured box top to bottom, boxes left to right;" \
           " hover over a term for all of it"
    rows = []
    for ph, st in PHASES.items():
        if ph in b.phase_counts or ph in premise_phases:
            count = b.phase_counts.get(ph, 0)
            rows.append(_legend_row(_swatch(st.color), f"{st.blurb} "
                                    f"({count} step{'s' if count != 1 else ''})", st.title))
    rows.append(_legend_row(_swatch(NORMAL_EDGE), "the normal form (result)",
                            None))
    if b.n_premises:
        rows.append(_legend_row(_swatch(PREMISE_COLOR, "┅┅▷"),
                                "a premise: the sub-derivation a rule needs, linked to its "
                                "step by dashed arrows", None))
    rows.append(_legend_row(_swatch("#333333", "n [r]"),
                            "step n, by rule r, contracts the redex in bold in the term above "
                            "it" + (f" ({L.arrow().strip()} what it becomes)" if detail else ""),
                            None))
    # the other reducts come from the rules' compatible closure (reduction/), which may
    # recurse on the term: it gets the big-stack thread; drawing needs none
    side = deep(_alternatives)(b, L) if _whole else {}
    if _whole:
        n_alt = sum(len(v[1]) for v in side.values())
        n_back = sum(len(v[0]) for v in side.values())
        cut = b.alternatives_cut
        sub = sub.replace("; read each", f"; {n_alt} other one-step reducts off the path, "
                                          f"{n_back} other orders that rejoin it"
                          + ("" if cut is None else
                             f" (of its first {cut} terms: the larger ones would take too "
                             f"long)") + "; read each")
        rows.insert(-1, _legend_row(_swatch(OTHER_COLOR, "──▶"),
                                    "another redex contracted instead: grey arrows rejoin "
                                    "the path; a grey box lists the reducts that leave it "
                                    "([rule]×count)", None))
        heading = title or ("Every step of the call-by-value reduction of "
                            + L.label(main_term, 70) + ", and the other orders beside it")
    d.set(label=_legend_table(rows, heading, sub))
    for name, attrs, specs in b.clusters:
        d.open(name, **attrs)
        for node_id, a in specs:
            d.node(node_id, **a)
            back, away = side.get(node_id, ((), ()))
            if away:
                d.node(node_id + "_alt", **_away_attrs(away, L))
                d.same_rank([node_id, node_id + "_alt"])
        d.close()
    for e, a in zip(b.edges, b.edge_attrs):
        d.edge(e.source, e.target, **a)
    for node_id, (back, away) in side.items():
        if away:
            d.edge(node_id, node_id + "_alt", color=OTHER_COLOR, style="dotted",
                   arrowhead="none", constraint=False)
        for target, r in back:
            d.edge(node_id, target, label=f"[{r.rule}]", color=OTHER_COLOR,
                   fontcolor="#666666", constraint=False, style="dashed",
                   labeltooltip=L.step_tooltip(f"rule {r.rule} (another order)", r.redex,
                                               r.contractum))
            b.edges.append(GraphEdge(node_id, target, r.rule, tuple(r.path), r.redex,
                                     r.contractum, kind="other"))
    d.same_rank(b.column_heads)  # columns left to right, in the order of the steps
    for src, p_first, p_last, dst, der in links:
        d.edge(src, p_first, style="dashed", color=PREMISE_COLOR, fontcolor=PREMISE_COLOR,
               label=f"premise [{der.rule}]", arrowhead="empty")
        b.edges.append(GraphEdge(src, p_first, der.rule, kind="premise"))
        d.edge(p_last, dst, style="dashed", color=PREMISE_COLOR, fontcolor=PREMISE_COLOR,
               label="⇓ its value" if unicode else "==> its value", constraint=False,
               arrowhead="empty")
        b.edges.append(GraphEdge(p_last, dst, der.rule, kind="result"))
    return Graph(d.source(), "whole" if _whole else "strategy", b.nodes, b.edges,
                 steps=n_main, total_steps=total, phases=dict(b.phase_counts),
                 premises=b.n_premises, premises_skipped=skipped,
                 alternatives={k: (len(v[0]), len(v[1])) for k, v in side.items()},
                 alternatives_cut=b.alternatives_cut)


def whole_graph(trace, *, max_alternatives: int = 2000, **options) -> Graph:
    """The whole call-by-value reduction, every step (as ``strategy_graph`` draws it,
    without premise clusters), and beside each term its other one-step reducts: a
    dashed grey arrow where another order rejoins the path, and a small grey box
    listing the rules of the reducts that leave it.  This is the full reduction
    graph restricted to one step off the strategy's path: it covers a whole small
    reduction (the running example's 57 steps) at a readable size, where
    ``full_graph`` breadth-first reaches only its first dozen steps.  The other
    reducts are computed for at most ``max_alternatives`` terms of the path."""
    options.setdefault("premises", False)
    options["_whole"] = True
    return strategy_graph(trace, _max_alternatives=max_alternatives, **options)


#: the work of finding the other reducts, in all: a term of n nodes costs n² (each of
#: its redex positions gives a reduct of its size, to key).  The gallery's largest
#: whole graph (examples/shared.pb, 78 steps) takes 6.7 million; a 20-deep π1 ⟨…⟩
#: nest, whose terms grow with the square of its depth, took a minute and more.
ALTERNATIVES_WORK = 30_000_000


def _tree_size(t: Term, limit: int) -> int:
    """The number of nodes of ``t`` (as a tree), counted up to ``limit`` + 1 only."""
    n, stack = 0, [t]
    while stack and n <= limit:
        u = stack.pop()
        n += 1
        stack.extend(u.children())
    return n


def _alternatives(b: "_StrategyBuilder", L: "_Labels") -> dict:
    """For each term of the main path: ([(node id, reduct)] rejoining the path,
    [reduct] leaving it) -- its one-step reducts other than the strategy's step.
    Within ALTERNATIVES_WORK: past it, ``b.alternatives_cut`` says for how many
    terms of the path they were found."""
    main = [n for n in b.nodes if n.cluster == "main" and n.term is not None]
    at = {n.key: n.id for n in main}
    taken = {(e.source, e.target) for e in b.edges if e.kind == "step"}
    out: dict = {}
    work = ALTERNATIVES_WORK
    for k, n in enumerate(main[:b.max_alternatives]):
        assert n.term is not None  # (main holds the nodes with a term)
        size = _tree_size(n.term, math.isqrt(work))
        if size * size > work:
            b.alternatives_cut = k
            break
        work -= size * size
        back, away = [], []
        for r in one_step_reducts(n.term):
            target = at.get(alpha_key(r.term))
            if target is None:
                away.append(r)
            elif (n.id, target) not in taken:
                back.append((target, r))
        if back or away:
            out[n.id] = (back, away)
    return out


def _away_attrs(away: list, L: "_Labels") -> dict:
    counts: dict = {}
    for r in away:
        counts[r.rule] = counts.get(r.rule, 0) + 1
    text = " ".join(f"[{k}]" + (f"×{v}" if v > 1 else "") for k, v in counts.items())
    tips = [L.step_tooltip(f"rule {r.rule}", r.redex, r.contractum) for r in away[:12]]
    if len(away) > 12:
        tips.append(f"… and {len(away) - 12} more")
    return dict(label=f"+{len(away)}: {text}", shape="box", style="rounded,dashed",
                color=OTHER_COLOR, fontcolor="#666666", fontsize="8", height="0.2",
                margin="0.1,0.02", tooltip="other redexes:\n" + "\n".join(tips))


def _count_steps(steps) -> int:
    n, stack = 0, [steps]
    while stack:
        for s in stack.pop():
            n += 1
            for d in s.premises:
                stack.append(d.steps)
    return n


# ---- the full reduction graph ---------------------------------------------------------------

def _cbv_terms(term: Term, max_steps: int) -> tuple[list, bool]:
    """The strategy's steps from ``term`` (at most ``max_steps``, premises counted), and
    whether it reached a normal form."""
    m = Machine(max_steps=max_steps, record=True)
    trace: list = []
    try:
        with fresh_scope(term):
            m._run(term, trace)
    except PullbackCalcError:
        return trace, False
    return trace, True


@dataclass
class Explored:
    """The full reduction graph of ``term`` as ``explore`` found it: ``nodes`` in
    breadth-first order (``nodes[0]`` the start), ``edges`` (every step between them),
    ``preds`` (a node's id → the ids of the other nodes with a step into it), the
    call-by-value path as node ids (as far as it stays in the graph), whether it
    reached a normal form there, and whether it left the graph (the budget)."""
    term: Term
    nodes: list
    edges: list
    preds: dict
    cbv_path: list
    cbv_complete: bool
    left_graph: bool
    node_budget: int

    @property
    def budget_reached(self) -> bool:
        return any(n.hidden for n in self.nodes)


def explore(term: Union[Term, str], node_budget: int = 60,
            cbv_max_steps: int = 100_000) -> Explored:
    """Every one-step reduct of ``term`` at every redex position, breadth-first, up to
    ``node_budget`` nodes (α-equivalent terms are one node), and the call-by-value
    path through them.  Every node within the budget is expanded: edges between nodes
    already in the graph are all kept, and a node whose other reducts did not fit
    counts them (``hidden``)."""
    if isinstance(term, str):
        from ..syntax.parser import parse
        term = parse(term)
    if node_budget < 1:
        raise ArgumentError("node_budget must be at least 1")
    nodes: list[GraphNode] = []
    edges: list[GraphEdge] = []
    index: dict = {}
    hidden: dict[str, set] = {}

    def add(t: Term, depth: int, via: Optional[int] = None) -> GraphNode:
        node = GraphNode(f"n{len(nodes)}", t, alpha_key(t), depth=depth, via=via)
        nodes.append(node)
        index[node.key] = node
        return node

    queue = deque([add(term, 0)])
    while queue:
        u = queue.popleft()
        assert u.term is not None  # (every node of the search has its term)
        reducts = one_step_reducts(u.term)
        u.expanded = True
        u.normal = not reducts
        for r in reducts:
            k = alpha_key(r.term)
            v = index.get(k)
            if v is None:
                if len(nodes) >= node_budget:
                    hidden.setdefault(u.id, set()).add(k)
                    continue
                v = add(r.term, u.depth + 1, via=len(edges))
                queue.append(v)
            edges.append(GraphEdge(u.id, v.id, r.rule, tuple(r.path), r.redex, r.contractum))
    for n in nodes:
        n.hidden = len(hidden.get(n.id, ()))

    # the call-by-value path, as far as it stays in the graph
    trace, finished = _cbv_terms(term, min(cbv_max_steps, max(node_budget, 1) * 200 + 1000))
    cbv_path = [nodes[0].id]
    nodes[0].on_cbv = True
    left_graph = False
    out_of: dict[str, list] = {}
    for e in edges:
        out_of.setdefault(e.source, []).append(e)
    for s in trace:
        v = index.get(alpha_key(s.term_after()))
        if v is None:
            left_graph = True
            break
        u_id = cbv_path[-1]
        match = [e for e in out_of.get(u_id, ()) if e.target == v.id and e.rule == s.rule]
        match = match or [e for e in out_of.get(u_id, ()) if e.target == v.id]
        if match:
            match[0].on_cbv = True
        else:  # the closure should always contain the strategy's step
            edges.append(GraphEdge(u_id, v.id, s.rule, (), s.redex, s.contractum, on_cbv=True,
                                   strategy_only=True))
            out_of.setdefault(u_id, []).append(edges[-1])
        v.on_cbv = True
        cbv_path.append(v.id)
    cbv_complete = finished and not left_graph and len(cbv_path) == len(trace) + 1

    preds: dict[str, set] = {}
    for e in edges:
        if e.source != e.target:
            preds.setdefault(e.target, set()).add(e.source)
    for n in nodes:
        n.meeting = len(preds.get(n.id, ())) >= 2
    return Explored(term, nodes, edges, preds, cbv_path, cbv_complete, left_graph, node_budget)


@deep
@_folded
def full_graph(term: Union[Term, str], *, node_budget: int = 60, title: Optional[str] = None,
               unicode: bool = True, label_width: int = 40, detail: bool = True,
               tooltip_width: Optional[int] = None, cbv_max_steps: int = 100_000) -> Graph:
    """Every one-step reduct of ``term`` at every redex position, breadth-first, up to
    ``node_budget`` nodes, with the call-by-value path highlighted.

    Every node within the budget is expanded: edges between nodes already in the graph
    are all drawn, and a node whose other reducts did not fit is marked (dashed, "+k
    not shown").  ``detail`` adds the redex under each edge's rule.
    """
    x = explore(term, node_budget, cbv_max_steps)
    term, nodes, edges, preds = x.term, x.nodes, x.edges, x.preds
    cbv_path, cbv_complete, left_graph = x.cbv_path, x.cbv_complete, x.left_graph
    L = _Labels(unicode, label_width, tooltip_width)
    d = _Dot("full")
    _graph_defaults(d)
    heading = title or ("All one-step reductions of " + L.label(term, 70))
    n_meet = sum(n.meeting for n in nodes)
    n_open = sum(1 for n in nodes if n.hidden)
    sub = (f"{len(nodes)} terms, {len(edges)} steps (breadth-first, budget {node_budget} "
           f"terms); call-by-value path: {len(cbv_path) - 1} steps"
           + (" to the normal form" if cbv_complete else
              ", continuing beyond the budget" if left_graph else ""))
    rows = [
        _legend_row(_swatch(CBV_COLOR, "━━▶"), "the call-by-value strategy's path",
                    "blue, bold:"),
        _legend_row(_swatch(OTHER_COLOR, "──▶"), "another redex contracted: another "
                    "order of reduction (label: [rule] redex)", "grey:"),
        _legend_row(_swatch(CHANGED_COLOR, "ab"), "in a term: what the step into it produced "
                    "(its contractum); rows: distance from the start", "bold:"),
        _legend_row(_swatch(MEET_EDGE, "◎■"),
                    f"a meeting point: reached from two or more different terms "
                    f"({n_meet} here; double border)", None),
        _legend_row(_swatch(NORMAL_EDGE), "a normal form: no rule applies", None),
    ]
    if n_open:
        rows.append(_legend_row(_swatch(OTHER_COLOR, "┅┅"),
                                f"has reducts left out by the node budget ({n_open} such "
                                f"terms; dashed)", None))
    d.set(label=_legend_table(rows, heading, sub + "; hover over a term for all of it"))
    for n in nodes:
        a: dict = dict(label=L.label(n.term), tooltip=L.tooltip(n.term), color=OTHER_COLOR)
        focus = L.focus_path(n.term, edges[n.via].path) if n.via is not None else None
        if focus is not None:  # a window on the term around what the step into it changed
            a["label"] = L.html(focus, CBV_COLOR if n.on_cbv else CHANGED_COLOR)
        notes = []
        if n.on_cbv:
            a.update(color=CBV_COLOR, penwidth="2.2")
        if n.normal:
            a["fillcolor"] = NORMAL_FILL
            notes.append("normal form")
        if n.meeting:
            a.update(peripheries=2, fillcolor=MEET_FILL if not n.normal else NORMAL_FILL)
            notes.append(f"meeting point: reached from {len(preds[n.id])} terms")
        if n.hidden:
            a.update(style="rounded,filled,dashed", fillcolor=UNEXPANDED_FILL)
            more = f"(+{n.hidden} not shown)"
            a["label"] = (_Html(f'{a["label"]}<br/><font point-size="8">{more}</font>')
                          if isinstance(a["label"], _Html) else a["label"] + "\n" + more)
            notes.append(f"{n.hidden} reduct(s) not shown: node budget reached")
        if n.id == nodes[0].id:
            a["penwidth"] = "2.8"
            notes.insert(0, "the start")
        if notes:
            a["tooltip"] = "[" + "; ".join(notes) + "]\n" + a["tooltip"]
        d.node(n.id, **a)
    tree = {n.via for n in nodes if n.via is not None}
    for k, e in enumerate(edges):
        # breadth-first tree edges set the ranks (rank = distance from the start); the
        # others (to terms met before: meeting points, cycles) do not
        constraint = None if k in tree or e.on_cbv else False
        path = ".".join(str(i) for i in e.path) or "root"
        label = f"[{e.rule}]"
        if detail and e.redex is not None:
            label += " " + L.label(e.redex, max(label_width // 2, 12))
        tip = (L.step_tooltip(f"rule {e.rule} at position {path}", e.redex, e.contractum)
               if e.redex is not None else f"rule {e.rule}")
        if e.on_cbv:
            tip = "[call-by-value] " + tip
            d.edge(e.source, e.target, label=label, color=CBV_COLOR, fontcolor=CBV_COLOR,
                   penwidth="2.8", labeltooltip=tip, weight=3)
        else:
            d.edge(e.source, e.target, label=label, color=OTHER_COLOR, fontcolor="#666666",
                   labeltooltip=tip, constraint=constraint)
    return Graph(d.source(), "full", nodes, edges, cbv_path=cbv_path,
                 cbv_complete=cbv_complete, cbv_left_graph=left_graph,
                 budget_reached=x.budget_reached, node_budget=node_budget)
