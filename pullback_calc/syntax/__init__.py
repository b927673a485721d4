"""Syntax: terms, types, function symbols, the parser and the printer."""
from . import printer  # noqa: F401  (it gives terms their __str__ and __repr__)
