"""Typing: simple types with duals, inferred by unification."""
from .check import check, infer, infer_with_free, typecheck, types_equal

__all__ = ["check", "infer", "infer_with_free", "typecheck", "types_equal"]
