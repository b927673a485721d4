"""A mutant: one entry of a rule table replaced by a broken one (``mutants.py`` has the
reduction rules' mutants and installs them, ``engine_mutants.py`` the other engines')."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

__all__ = ["Mutant"]


@dataclass(frozen=True)
class Mutant:
    name: str
    label: str                   # the rule it breaks
    description: str
    make: Callable               # the original rule function → the broken one
    fires: tuple = ()            # the labels its steps show, if not ``label`` alone
    table: Callable | None = None  # the table it breaks an entry of (default: RULES)
