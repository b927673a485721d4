"""The environment pattern p of rules 8–20: look-ups in O(1).

Rule 8 nests environments as p₀, ⟨p₀, q₁⟩, ⟨⟨p₀, q₁⟩, q₂⟩, …: the pattern at
*level* L is ⟨pattern at L−1, q_L⟩, and its value is ⟨value at L−1, v_L⟩.
Walking down such a pattern to find a variable (or down the value to find
its component) costs the age of the variable, so a program that keeps using
its inputs would be quadratic.  Instead:

- every pattern node caches (index, level); the index maps a name to the
  level that binds it and its path inside that level's q.  One index is
  shared along a chain of extensions -- an entry is valid for a node whose
  level is at least the entry's -- and is copied only where two chains
  branch or a name is re-bound;
- every environment value caches the list of its levels' values, shared and
  copied the same way.

Any left-nested pair is read this way (a 2-tuple ⟨a, b⟩ is level(a) + 1);
anything else is a level-0 base.
"""
from __future__ import annotations

from typing import Optional

from ..syntax.subst import fv, subst
from ..syntax.terms import Num, Prim, Proj, Term, Tuple, Var, pattern_index


def value_levels(v: Term, level: int) -> Optional[list]:
    """The values of the levels 0..level of an environment value, or None
    if v is not left-nested pairs that deep (e.g. a symbolic point)."""
    c = v._vl if type(v) is Tuple else None
    if c is not None and c[1] == level:
        return c[0]
    chain = []
    u, lv = v, level
    while lv > 0:
        c = u._vl if type(u) is Tuple else None
        if c is not None and c[1] == lv:
            break
        if not (isinstance(u, Tuple) and len(u.items) == 2):
            return None
        chain.append(u)
        u, lv = u.items[0], lv - 1
    c = u._vl if type(u) is Tuple else None
    if c is not None and c[1] == lv:
        levels = c[0]
    else:
        levels = [u]
        if type(u) is Tuple and u._vl is None:  # (a base of another class keeps none)
            u._vl = (levels, lv)
    for node in reversed(chain):
        lv += 1
        if len(levels) != lv:  # another chain extended this list: branch off
            levels = levels[:lv]
        levels.append(node.items[1])
        if node._vl is None:
            node._vl = (levels, lv)
    return levels


def component(v: Term, path) -> Term:
    for i in path:
        v = v.items[i - 1] if isinstance(v, Tuple) else Proj(i, v)
    return v


class Env:
    """Look-ups of variables in the pattern p and of their values."""

    def __init__(self, p: Term):
        self.p = p
        self.index, self.level = pattern_index(p)

    def entry(self, x: str):
        """(level, path in that level's pattern) of x, or None if p does not bind x."""
        e = self.index.names.get(x)
        return e if e is not None and e[0] <= self.level else None

    def path(self, x: str):
        e = self.entry(x)
        if e is None:
            return None
        j, inner = e
        return (1,) * (self.level - j) + ((2,) + inner if j > 0 else inner)

    def occurs(self, t: Term) -> bool:
        names, level = self.index.names, self.level
        for x in fv(t):  # (a loop, not any(): asked at every Jacobian step)
            e = names.get(x)
            if e is not None and e[0] <= level:
                return True
        return False

    def value(self, x: str, V: Term, levels) -> Term:
        j, inner = self.entry(x)
        if levels is not None:
            return component(levels[j], inner)
        return component(V, self.path(x))

    def at(self, t: Term, V: Term) -> Term:
        """t[V/p], touching only the variables t uses."""
        if t is self.p:
            return V
        tt = type(t)
        if tt is Var or (tt is Prim and all(type(a) in _ATOMS for a in t.args)):  # type: ignore[attr-defined]
            return self._at_atoms(t, V)
        names = [x for x in fv(t) if self.entry(x) is not None]
        if not names:
            return t
        levels = value_levels(V, self.level)
        return subst(t, {x: self.value(x, V, levels) for x in names})

    def _at_atoms(self, t: Term, V: Term) -> Term:
        """``at`` for a variable, or a function symbol applied to variables and
        numerals (the usual elementary term and its operands): the node
        ``subst`` would build, without the general substitution's walk."""
        if type(t) is Var:
            if self.entry(t.name) is None:
                return t
            return self.value(t.name, V, value_levels(V, self.level))
        vals: dict = {}  # one image per variable, shared as subst shares it
        args = []
        for a in t.args:  # type: ignore[attr-defined]  # (a Prim: see at)
            if type(a) is Var and self.entry(a.name) is not None:
                x = a.name
                if x not in vals:
                    if not vals:
                        levels = value_levels(V, self.level)
                    vals[x] = self.value(x, V, levels)
                a = vals[x]
            args.append(a)
        return Prim(t.op, tuple(args), t.pos) if vals else t  # type: ignore[attr-defined]


_ATOMS = (Var, Num)


class PatVars:
    """The variables of a pattern as a lazy set (``frozenset & PatVars``)."""

    def __init__(self, p: Term):
        self.env = Env(p)

    def __rand__(self, names):
        return frozenset(x for x in names if self.env.entry(x) is not None)

    __and__ = __rand__
