"""The environment pattern p of rules 8–20: look-ups without walking it all.

Rule 8 nests environments as ⟨⟨p, x₁⟩, x₂⟩ …, so a variable's place is found
by a right-first search that stops at the first hit (recent variables are
near the top), and a value's component by following that path.
"""
from __future__ import annotations

from ..syntax.subst import fv, subst
from ..syntax.terms import Proj, Term, Tuple, pattern_path


class Env:
    """Look-ups of variables in the pattern p (memoised for one rule)."""

    def __init__(self, p: Term):
        self.p, self.memo = p, {}

    def path(self, x: str):
        if x not in self.memo:
            self.memo[x] = pattern_path(self.p, x)
        return self.memo[x]

    def occurs(self, t: Term) -> bool:
        return any(self.path(x) is not None for x in fv(t))

    def at(self, t: Term, V: Term) -> Term:
        """t[V/p], touching only the variables t uses."""
        if t is self.p:
            return V
        m = {}
        for x in fv(t):
            path = self.path(x)
            if path is not None:
                m[x] = component(V, path)
        return subst(t, m)


def component(v: Term, path) -> Term:
    for i in path:
        v = v.items[i - 1] if isinstance(v, Tuple) else Proj(i, v)
    return v


class PatVars:
    """The variables of a pattern as a lazy set (``frozenset & PatVars``)."""

    def __init__(self, p: Term):
        self.env = Env(p)

    def __rand__(self, names):
        return frozenset(x for x in names if self.env.path(x) is not None)

    __and__ = __rand__
