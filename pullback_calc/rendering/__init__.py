"""Rendering traces, terms and reduction graphs for people.

The headless core (syntax → typing → A-reduction → reduction → results)
never imports this package; it imports the core.
"""
from .graph import Graph, full_graph, strategy_graph
from .html import TraceView, trace_to_html, view
from .json_trace import TRACE_SCHEMA, trace_to_json
from .latex import trace_to_latex
from .text import abbreviate, format_step, format_trace, trace_lines

__all__ = ["abbreviate", "format_step", "format_trace", "trace_lines", "TraceView",
           "trace_to_html", "view", "TRACE_SCHEMA", "trace_to_json", "trace_to_latex",
           "Graph", "full_graph", "strategy_graph"]
