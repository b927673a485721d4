"""Rule tables derived, entry by entry, from the function symbols' table.

Every engine interprets a function symbol by rules *computed from*
``syntax.prims`` (``ARITY``, ``EVAL``, ``PARTIALS``), never by a second copy
of the derivatives: a ``DerivedTable`` is a live view keyed by the symbols
``prims`` knows at the moment it is read, so a symbol registered there later
has an entry here too.  An entry may be overridden (the mutants of
``testing.engine_mutants`` do, as ``testing.mutants`` does for the reduction
rules); assigning the derived rule back removes the override.
"""
from __future__ import annotations

from collections.abc import MutableMapping
from typing import Callable, Iterator

from ..syntax import prims

__all__ = ["DerivedTable"]


class DerivedTable(MutableMapping):
    """op ↦ ``derive(op)`` for every op of ``prims.ARITY``, unless overridden."""

    def __init__(self, name: str, derive: Callable[[str], Callable]):
        self.name, self.derive = name, derive
        self.overrides: dict[str, Callable] = {}

    def __getitem__(self, op: str) -> Callable:
        if op in self.overrides:
            return self.overrides[op]
        if op not in prims.ARITY:
            raise KeyError(op)
        rule = self.derive(op)
        rule.derived_for = op  # type: ignore[attr-defined]
        return rule

    def __setitem__(self, op: str, rule: Callable) -> None:
        if getattr(rule, "derived_for", None) == op:
            self.overrides.pop(op, None)
        else:
            self.overrides[op] = rule

    def __delitem__(self, op: str) -> None:
        del self.overrides[op]

    def __iter__(self) -> Iterator[str]:
        return iter(prims.ARITY)

    def __len__(self) -> int:
        return len(prims.ARITY)

    def __repr__(self) -> str:
        return f"<rule table {self.name}: {', '.join(self)}>"
