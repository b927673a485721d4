"""Rendering traces and terms for people: plain text now, richer renderers later."""
from .text import abbreviate, format_step, format_trace, trace_lines

__all__ = ["abbreviate", "format_step", "format_trace", "trace_lines"]
