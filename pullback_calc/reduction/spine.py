"""The let spine of a pullback's map binds no name twice (rules 8 and 8J).

Rule 8 moves the spine's first binder into the environment pattern, ⟨p, q⟩,
so a binder repeated further down would bind a name twice.  Binders are
renamed apart once per pullback (``ensure_spine_unique``); a map rebuilt at
the top since (8c substituting a helper, the A-rules lifting a copied
helper's lets onto the spine) is checked again.

The check costs the new lets, not the spine: each let's λ keeps the names its
spine binds from there down (a persistent map, shared with the let below)
and whether they are all distinct; and the pattern it was last found apart
from.  Rule 8 extends that pattern by one binder, ⟨p, q⟩, so the next check
reads only the binders added since.
"""
from __future__ import annotations

from typing import Optional

import immutables

from ..syntax.subst import subst
from ..syntax.terms import (ANF, SPINE, App, Lam, Term, Tuple, Var, binds, fresh, is_let,
                            pattern_index, pattern_vars)

#: how many environment extensions ⟨p, q⟩ a check walks back to find the
#: pattern a spine was last found apart from (further: all its names are read)
PATTERN_REACH = 64

_EMPTY: immutables.Map = immutables.Map()


class Facts:
    """What a let's λ, λq.B, knows of the spine from its let down."""
    __slots__ = ("names", "distinct", "apart_from")

    def __init__(self, names: immutables.Map, distinct: bool) -> None:
        self.names = names            # every binder of the spine, q's and B's
        self.distinct = distinct      # no two lets of the spine bind one name
        self.apart_from: Optional[Term] = None  # a pattern none of them is bound by


#: a let a check walked once, whose facts are not kept: most spines are checked
#: once (the facts would be memory spent for nothing); a second check of it keeps them
_WALKED = Facts(_EMPTY, False)

#: how many lets below the first one a check finds known it marks apart from the
#: pattern too (their names are among its): rule 8 takes the next check's base from
#: there, a let or a few further down
APART_REACH = 8


def _known(f: object) -> bool:
    # (a λ's memo is the spine's facts on a let's λ only: anything else is not known)
    return type(f) is Facts and f is not _WALKED


def spine_facts(let_lam: Lam) -> Facts:
    """The facts of the spine from the let whose λ is let_lam, computed for
    the lets not yet known (from the bottom up: a spine can be long)."""
    chain = []
    u: Lam = let_lam
    while not _known(u._memo):
        chain.append(u)
        if not is_let(u.body):
            below = Facts(_EMPTY, True)
            break
        u = u.body.fun
    else:
        below = u._memo
    names, distinct = below.names, below.distinct
    for lam in reversed(chain):
        vs = pattern_vars(lam.pat)
        if distinct and any(v in names for v in vs):
            distinct, names = False, _EMPTY  # (then the full walk renames: no names needed)
        if distinct:
            with names.mutate() as m:
                for v in vs:
                    m[v] = None
                names = m.finish()
        lam._memo = below = Facts(names, distinct)
    return below


def _apart(pat: Term, f: Facts) -> bool:
    """Does pat bind none of the spine's names?  Walks pat's environment
    extensions back to the pattern the spine was found apart from last."""
    added = []
    u = pat
    for _ in range(PATTERN_REACH):
        if u is f.apart_from:
            break
        if type(u) is not Tuple or len(u.items) != 2:
            break
        added.append(u.items[1])
        u = u.items[0]
    if u is f.apart_from:
        return not any(v in f.names for q in added for v in pattern_vars(q))
    if len(f.names) <= len(pattern_index(pat)[0].names):
        return not any(binds(pat, n) for n in f.names)
    return not any(v in f.names for v in pattern_vars(pat))


def spine_unique(lam: Lam) -> Optional[bool]:
    """Does the spine of λp.L bind no name twice, nor one of p's?  None: not
    known (a spine no check has walked yet)."""
    if not is_let(lam.body):
        return True
    top = []  # the lets above the first known apart from a pattern
    u: Optional[Lam] = lam.body.fun
    while u is not None:
        f = u._memo
        if f is _WALKED or type(f) is Facts and f.apart_from is not None:
            break
        top.append(u)
        u = u.body.fun if is_let(u.body) else None
    if u is None and not any(_known(w._memo) for w in top[-1:]):
        return None  # (the first check of this spine)
    facts = spine_facts(lam.body.fun)
    if not facts.distinct:
        return False
    pat = lam.pat
    if u is None or u._memo is _WALKED:  # the second: every name is read, once
        if not _apart(pat, facts):
            return False
        reach = -1  # (and every let is marked: their names are among the first's)
        below: Optional[Lam] = lam.body.fun
    else:
        if any(binds(pat, v) for w in top for v in pattern_vars(w.pat)):
            return False
        if not _apart(pat, u._memo):
            return False
        reach = len(top) + APART_REACH + 1
        below = lam.body.fun
    while below is not None and reach != 0:  # (a race only makes a check read more names)
        below._memo.apart_from = pat
        below = below.body.fun if is_let(below.body) else None
        reach -= 1
    return True


def ensure_spine_unique(lam: Lam) -> Lam:
    """α-rename let binders on the spine of λp.L that repeat a variable of p
    or of an earlier let, so that rule 8's ⟨p, x⟩ never binds a name twice.
    Done once per pullback (rules 8 and 8J pass the flag on)."""
    if lam._flags & SPINE:
        return lam
    if spine_unique(lam):
        lam._flags |= SPINE
        return lam
    seen = set(pattern_vars(lam.pat))
    spine: list[tuple[Term, Term, object]] = []  # (pattern, bound, ann)
    t = lam.body
    changed = False
    while is_let(t):
        t.fun._memo = _WALKED
        q, body = t.fun.pat, t.fun.body
        clash = [n for n in pattern_vars(q) if n in seen]
        if clash:
            ren = {n: Var(fresh(n)) for n in clash}
            q, body = subst(q, ren), subst(body, ren)
            changed = True
        seen.update(pattern_vars(q))
        spine.append((q, t.arg, t.fun.ann))
        t = body
    if changed:
        for q, bound, ann in reversed(spine):
            t = App(Lam(q, t, ann), bound)
            t.fun._memo = _WALKED
        t._flags |= ANF
        lam = Lam(lam.pat, t, lam.ann, lam.pos)
    lam._flags |= SPINE
    return lam
