"""Typing: simple types with duals, inferred by unification."""
from .check import infer, infer_with_free, typecheck, types_equal

__all__ = ["infer", "infer_with_free", "typecheck", "types_equal"]
