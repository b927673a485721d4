"""The full reduction graph as a page to explore (``pullback-calc graph --full -o g.html``).

Redex's ``traces`` in a browser, with no graphviz: the page opens on the start term
and its one-step reducts, laid out by distance from the start.  Clicking a term
selects it (its whole text, its steps in and out); expanding it shows all its
reducts; a search finds the terms whose text matches a pattern (a piece of text,
or ``/a regular expression/``) and shows the way to each from the start; the
call-by-value path can be followed a step at a time or shown whole.

Graphs of a few thousand terms open at once: every term, redex and contractum is
embedded once as the printer's pieces (one ``table.TermTable``, shared subterms
written once) and the page prints only what it shows.

    explorer_data(term, node_budget=2000)  -> dict   what the page embeds
    graph_to_html(term, node_budget=2000)  -> str    the page
"""
from __future__ import annotations

from typing import Optional, Union

from ..deep import deep
from ..reduction.gcpause import paused
from ..syntax.printer import folding_env
from ..syntax.terms import Term
from .graph import _Labels, explore
from .html import embed, page
from .table import TermTable
from .text import rule_doc

__all__ = ["explorer_data", "graph_to_html", "NODE_BUDGET", "NORMAL", "MEETING", "ON_CBV"]

NODE_BUDGET = 2000  # terms by default: a page that opens at once, a graph that builds in seconds

# a node's flags
NORMAL, MEETING, ON_CBV = 1, 2, 4


@deep
def explorer_data(term: Union[Term, str], *, node_budget: int = NODE_BUDGET,
                  title: Optional[str] = None, unicode: bool = True, label_width: int = 30,
                  cbv_max_steps: int = 100_000) -> dict:
    """What the page embeds: the graph ``graph.explore`` finds (breadth-first, at
    most ``node_budget`` terms) with its terms in one table of printer pieces ``N``.
    ``nodes``: ``[term, depth, flags, hidden, via, left, mid, right]`` (``flags``:
    NORMAL, MEETING, ON_CBV; ``hidden``: reducts left out by the budget; ``via``: the
    edge it was first reached by, -1 for the start; its label: a window of about
    ``label_width`` characters on the term around ``mid``, what that step made);
    ``edges``: ``[source, target, rule, redex, contractum, on_cbv, position]`` (nodes
    as indexes into ``nodes``, rules into ``rules``, terms into ``N``); ``cbv``: the
    call-by-value path as node indexes, ``cbv_complete`` whether it reaches a normal
    form in the graph."""
    x = explore(term, node_budget, cbv_max_steps)
    number = {n.id: k for k, n in enumerate(x.nodes)}
    L = _Labels(unicode, label_width, None)
    with folding_env(True):  # a window on each term around what the step into it made
        windows = [(n.via is not None and L.focus_path(n.term, x.edges[n.via].path))
                   or (L.label(n.term), "", "") for n in x.nodes]
    rules: dict[str, int] = {}
    table = TermTable(unicode)
    with folding_env(False), paused():  # the table keeps unfolded pieces (the page folds)
        nodes = [[table.node(n.term), n.depth,
                  NORMAL * n.normal | MEETING * n.meeting | ON_CBV * n.on_cbv, n.hidden,
                  -1 if n.via is None else n.via, *w] for n, w in zip(x.nodes, windows)]
        edges = [[number[e.source], number[e.target], rules.setdefault(e.rule, len(rules)),
                  table.node(e.redex), table.node(e.contractum), int(e.on_cbv),
                  ".".join(map(str, e.path)) or "root"] for e in x.edges]
    labels = sorted(rules, key=lambda r: rules[r])
    return {"title": title or "All one-step reductions", "unicode": unicode,
            "label": label_width, "N": table.N, "nodes": nodes, "edges": edges,
            "rules": labels, "docs": {r: rule_doc(r) for r in labels},
            "cbv": [number[i] for i in x.cbv_path], "cbv_complete": x.cbv_complete,
            "cbv_left": x.left_graph, "budget": node_budget,
            "budget_reached": x.budget_reached}


def graph_to_html(term: Union[Term, str], *, node_budget: int = NODE_BUDGET,
                  title: Optional[str] = None, unicode: bool = True, label_width: int = 30,
                  cbv_max_steps: int = 100_000) -> str:
    """The explorer page of ``term``'s full reduction graph: one self-contained HTML
    page (no network, no graphviz); options as for ``explorer_data``."""
    doc = explorer_data(term, node_budget=node_budget, title=title, unicode=unicode,
                        label_width=label_width, cbv_max_steps=cbv_max_steps)
    return page("explorer.html", doc["title"], embed(doc))
