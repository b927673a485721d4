"""Delayed substitution for rule 1: β on a let chain in O(1).

Rule 1 contracts ``(λq.S) V`` to ``S[V/q]``.  Done eagerly, on a chain
``let x₁ = E₁ in … let xₙ = Eₙ in B`` every β rebuilds the path from the
chain's head to every occurrence of its variable -- the whole rest of the
chain -- and recomputes the free variables of the rebuilt spine: O(n²) nodes
and O(n³) set work for the whole chain.

Here, when the abstraction and the value are *closed* (always so when a
closed program is evaluated), the machine builds the contractum lazily:

* ``Closure(S, e)`` stands for ``S[e]``, where the environment ``e`` binds
  every free variable of S to a closed value.  It is *pushed* one node down
  when the machine reaches it (``push``, memoised): a let ``let q = E in L``
  becomes ``let q = E[e] in (L under e)`` -- the bound term substituted
  (``instantiate``, exactly ``subst``), the body kept as a ``LetBody`` --
  and any other term is substituted at once (``instantiate``).
* ``LetBody(L, e, q)`` is the body of a let whose substitution waits: the
  let's β extends ``e`` by q's value (``Env.extend``, in place when no other
  term shares ``e``) -- O(1) instead of a walk of L.

Because the environment covers every free variable of the term it is applied
to, "does the substitution touch u" is "is u open" (``closed``, one integer
pass per term instead of free-variable sets), so ``instantiate`` shares the
same untouched subterms as ``subst`` and the machine sees the same nodes
(with the same marks) as with eager substitution.  The images are closed, so
no binder is ever renamed and no fresh name is drawn: the delayed term is
the eager one, built later.

In premises, terms are open (the free directions of a tangent), and a let
chain's abstractions with them; its values are still closed.  There a β whose
value is closed is delayed too, as a closure that is not ``total``: its
environment leaves the term's other free variables alone, a let keeps its
body waiting without asking whether the rest of the chain is touched, and a
subterm is touched when one of its free variables is bound (``touched``, by
the cached free-variable sets).

A lazy node never reaches a rule: it lives only where the machine is about
to look (a ``Closure`` in the hole) or in the body of a let the machine is
evaluating (a ``LetBody``), and rule 1 on such a let is done here.  Traces
record the lazy terms; ``materialise`` builds the eager ones when a step is
printed (``Step.redex``, ``.contractum``, ``.ctx``), so a run without a
trace never pays for it.
"""
from __future__ import annotations

from typing import Optional

from ..deep import bottom_up
from ..syntax.subst import bind_pattern, fv, subst
from ..syntax.terms import (CLOSED, CLOSED_K, HASLAZY, HASLAZY_K, App, Dual, Jac, Lam, Num,
                            Prim, Proj, Pullback, Sum, Term, Tuple, Var, Zero, pattern_vars,
                            any_below, remake)

_BIG = 1 << 60


# ---- environments ---------------------------------------------------------------------

class Env:
    """Closed values for names: the first ``n`` entries of a shared, append-only
    store ({name: (position, value)}).  Extending the newest environment of a
    store appends in place (O(size of the extension)); any other extension
    copies.  Old environments -- held by recorded steps -- never change."""
    __slots__ = ("store", "n")

    def __init__(self, store: dict, n: int):
        self.store, self.n = store, n

    @staticmethod
    def of(bindings: dict) -> "Env":
        store = {k: (i, v) for i, (k, v) in enumerate(bindings.items())}
        return Env(store, len(store))

    def get(self, x: str) -> Optional[Term]:
        r = self.store.get(x)
        return r[1] if r is not None and r[0] < self.n else None

    def __contains__(self, x: str) -> bool:
        r = self.store.get(x)
        return r is not None and r[0] < self.n

    def as_dict(self) -> dict:
        n = self.n
        return {k: r[1] for k, r in self.store.items() if r[0] < n}

    def extend(self, bindings: dict) -> "Env":
        s = self.store
        if self.n == len(s) and not any(k in s for k in bindings):
            for k, v in bindings.items():
                s[k] = (len(s), v)
            return Env(s, len(s))
        d = self.as_dict()
        d.update(bindings)
        return Env.of(d)

    def without(self, names) -> "Env":
        if not any(x in self for x in names):
            return self
        d = self.as_dict()
        for x in names:
            d.pop(x, None)
        return Env.of(d)


# ---- lazy nodes -------------------------------------------------------------------------

class Closure:
    """``term[env]``.  ``total``: env covers every free variable of term (a
    closed term), so "touched by env" is "open".  Otherwise (in premises, open
    terms: ``beta``) term may have other free variables, which env leaves
    alone, and "touched" is read off the free-variable sets (``touched``)."""

    _flags = 0  # (the machine reads a term's flags on whatever is in a hole)

    def __init__(self, term: Term, env: Env, total: bool = True):
        self.term, self.env, self.total = term, env, total
        self.pushed: Optional[Term] = None


class LetBody:
    """The body ``term[env]`` of a let whose variables ``names`` stay free
    (``total`` as for a Closure: then only they)."""

    _flags = 0  # (as Closure's)

    def __init__(self, term: Term, env: Env, names: list, total: bool = True):
        self.term, self.env, self.names, self.total = term, env, names, total
        self.forced: Optional[Term] = None


LAZY = (Closure, LetBody)


def _flag_closed(t: Term) -> Term:
    t._flags |= CLOSED_K | CLOSED
    if t._fv is None:
        t._fv = frozenset()
    return t


# ---- closedness -----------------------------------------------------------------------

def closed(t: Term) -> bool:
    """Has t no free variable?  Cached on every node visited (``CLOSED``); one
    pass with binder depths, no free-variable sets."""
    c = t._flags
    if c & CLOSED_K:
        return bool(c & CLOSED)
    f = t._fv
    if f is not None:
        return not f
    _closedness(t)
    return bool(t._flags & CLOSED)


def _closedness(root: Term) -> None:
    """Post-order, iterative.  A variable's level is the depth of its binder
    (0: free in root); a node at depth d is closed iff all its variables'
    levels exceed d."""
    scope: dict[str, list] = {}
    top = [_BIG]
    stack: list = [(root, 0, top, None)]
    while stack:
        u, depth, acc, own = stack.pop()
        if own is not None:  # exit of u
            if isinstance(u, Lam):
                for x in pattern_vars(u.pat):
                    scope[x].pop()
            m = own[0]
            u._flags = (u._flags & ~CLOSED) | (CLOSED_K | CLOSED if m > depth else CLOSED_K)
            if m < acc[0]:
                acc[0] = m
            continue
        if u._flags & CLOSED:
            continue
        if isinstance(u, Var):
            lv = scope.get(u.name)
            m = lv[-1] if lv else 0
            u._flags |= CLOSED_K  # (a variable is open)
            if m < acc[0]:
                acc[0] = m
            continue
        if isinstance(u, (Num, Zero)):
            u._flags |= CLOSED_K | CLOSED
            continue
        f = u._fv
        if f is None and u._flags & CLOSED_K:
            # known open: a node reached again (a shared one -- the point a tangent
            # mentions twice): its free variables, not another walk of it
            f = fv(u)
        if f is not None:  # free variables known: their levels here
            if not f:
                u._flags |= CLOSED_K | CLOSED
                continue
            # the least level of its variables: 0 if one is free in root, else
            # the least binder depth -- read from the smaller of f and scope (a
            # tangent's wide sets of free directions are mostly free in root)
            if len(f) <= len(scope):
                m = _BIG
                for x in f:
                    lv = scope.get(x)
                    m = min(m, lv[-1] if lv else 0)
            else:
                levels = [lv[-1] for x, lv in scope.items() if lv and x in f]
                m = min(levels) if len(levels) == len(f) else 0
            if m < acc[0]:
                acc[0] = m
            continue
        own = [_BIG]
        stack.append((u, depth, acc, own))
        if isinstance(u, Lam):
            for x in pattern_vars(u.pat):
                scope.setdefault(x, []).append(depth + 1)
            stack.append((u.body, depth + 1, own, None))
        else:
            for c in u.children():
                stack.append((c, depth, own, None))


# ---- rule 1, delayed --------------------------------------------------------------------

def beta(t: App, by_sets: bool = False) -> Optional[Closure]:
    """Rule 1's contractum S[V/q] as a Closure, when λq.S and V are closed
    (None otherwise: the machine substitutes eagerly).  ``by_sets``: decide
    closedness by free-variable sets (``fv``, cached) rather than by a walk
    -- in premises, where terms are mostly open and the eager substitution
    that follows needs those sets anyway, so the walk would be redone."""
    lam, v = t.fun, t.arg
    # the value first: it is usually small, and when it is open (an inert
    # value in a premise) the abstraction -- maybe a long chain -- is not walked
    if by_sets:
        if fv(v):
            return None
        body = lam.body
        if isinstance(body, LetBody):  # the next let of a chain whose β was delayed
            binding = bind_pattern(lam.pat, v)
            if body.forced is None:
                return Closure(body.term, body.env.extend(binding), body.total)
            return Closure(body.forced, Env.of(binding), False)
        # An open abstraction (a let chain over the free directions of a
        # tangent premise) is delayed too, its other free variables left
        # alone: eager substitution would rebuild the rest of the chain at
        # every let, quadratic in its length (a Church list's tangent).
        return Closure(body, Env.of(bind_pattern(lam.pat, v)), closed(lam))
    if not (closed(v) and closed(lam)):
        return None
    body, binding = lam.body, bind_pattern(lam.pat, v)
    if isinstance(body, LetBody):
        if body.forced is None:
            return Closure(body.term, body.env.extend(binding))
        body = body.forced
    return Closure(body, Env.of(binding))


def push(c: Closure) -> Term:
    """One node of c: a let keeps its body waiting; anything else is
    substituted.  Memoised, so a shared Closure gives one node."""
    r = c.pushed
    if r is None:
        r = c.pushed = _push(c.term, c.env) if c.total else _push_open(c.term, c.env)
    return r


def _push_open(u: Term, env: Env) -> Term:
    """_push for an open term: a let keeps its body waiting without asking
    whether env touches the rest of the chain (that would read the free
    variables of every suffix of the chain: quadratic)."""
    if isinstance(u, App) and isinstance(u.fun, Lam) and not isinstance(u.fun.body, LAZY):
        lam = u.fun
        names = pattern_vars(lam.pat)
        fun = Lam(lam.pat, LetBody(lam.body, env.without(names), names, False), lam.ann,
                  lam.pos)
        return App(fun, instantiate(u.arg, env, False), u.pos)
    return instantiate(u, env, False)


def touched(u: Term, env: Env) -> bool:
    """Does substituting env change u (some free variable of u bound in env)?"""
    if u._flags & CLOSED:
        return False
    f = fv(u)
    store, n = env.store, env.n
    if len(store) < len(f):  # (a few bound names against a tangent's wide set)
        return any(r[0] < n and x in f for x, r in store.items())
    return any(x in env for x in f)


def _push(u: Term, env: Env) -> Term:
    if closed(u):
        return u
    if isinstance(u, App) and isinstance(u.fun, Lam) and not isinstance(u.fun.body, LAZY):
        lam = u.fun
        if closed(lam):
            fun = lam
        else:
            names = pattern_vars(lam.pat)
            fun = _flag_closed(Lam(lam.pat, LetBody(lam.body, env.without(names), names),
                                   lam.ann, lam.pos))
        return _flag_closed(App(fun, instantiate(u.arg, env), u.pos))
    return instantiate(u, env)


def force(b: LetBody) -> Term:
    """The let body itself, substituted eagerly (memoised)."""
    if b.forced is None:
        t = b.term
        if isinstance(t, LAZY):
            t = _resolve(t)
        b.forced = subst(t, {x: b.env.get(x) for x in fv(t) if x in b.env})  # type: ignore[misc]
    return b.forced


def _resolve(t):
    return push(t) if isinstance(t, Closure) else force(t)


def forced_let(t: App) -> App:
    """A let whose body waits, with its body substituted (for the rules that
    look inside it)."""
    lam = t.fun
    return App(Lam(lam.pat, force(lam.body), lam.ann, lam.pos), t.arg, t.pos)


def instantiate(u: Term, env: Env, total: bool = True) -> Term:
    """u[env], exactly as ``subst`` builds it (the same subterms shared).
    ``total``: env covers fv(u), so a subterm is touched iff it is open (no
    free-variable sets outside abstractions); otherwise env may leave free
    variables of u alone and ``touched`` decides.  The images are closed
    either way (no capture).  Iterative (deep.bottom_up)."""
    if isinstance(u, LAZY):
        u = _resolve(u)
    untouched = closed if total else (lambda v: not touched(v, env))
    if untouched(u):
        return u

    def open_(u):
        if isinstance(u, LAZY):
            u = _resolve(u)
        if untouched(u):
            return None, u
        if isinstance(u, Var):
            return None, env.get(u.name)
        if isinstance(u, Lam):  # binders: the general substitution
            return None, subst(u, {x: env.get(x) for x in fv(u) if x in env})
        return u.children(), u

    return bottom_up(u, open_, _remake_closed if total else remake)


def _remake_closed(u: Term, kids: list) -> Term:
    return _flag_closed(remake(u, kids))


# ---- materialisation (for printing) ----------------------------------------------------

def _rebuild(u: Term, kids: list) -> Term:
    if isinstance(u, Lam):
        return Lam(u.pat, kids[0], u.ann, u.pos)
    if isinstance(u, Prim):
        return Prim(u.op, tuple(kids), u.pos)
    if isinstance(u, (Tuple, Sum)):
        return type(u)(tuple(kids), u.pos)
    if isinstance(u, App):
        return App(kids[0], kids[1], u.pos)
    if isinstance(u, Proj):
        return Proj(u.index, kids[0], u.pos)
    if isinstance(u, Jac):
        return Jac(kids[0], kids[1], u.pos)
    if isinstance(u, Dual):
        return Dual(kids[0], kids[1], u.pos)
    if isinstance(u, Pullback):
        return Pullback(kids[0], kids[1], u.pos)
    raise TypeError(u)


def _kids(u: Term) -> tuple:
    return (u.body,) if isinstance(u, Lam) else u.children()


def has_lazy(t) -> bool:
    """Does t contain a lazy node?  Cached on nodes (``HASLAZY``).  Post-order
    with one stack: a node stays on it until its children are known (each node
    is walked once over all calls; renderers ask for every step's terms)."""
    if t.__class__ in _LAZY:
        return True
    f = t._flags
    if f & HASLAZY_K:
        return bool(f & HASLAZY)
    return any_below(t, HASLAZY_K, HASLAZY, _lazy_here)


def _lazy_here(u) -> Optional[bool]:
    return True if u.__class__ in _LAZY else None


_LAZY = frozenset(LAZY)


def materialise(t):
    """The term that eager substitution would have built (structurally equal)."""
    if t is None or not has_lazy(t):
        return t
    return _expand(t, None, frozenset())


def _expand(root, env: Optional[Env], bound: frozenset) -> Term:
    """root with its lazy nodes expanded and, if env, env substituted for the
    variables not in ``bound`` (images closed: no capture).  Iterative."""
    out: list = []
    stack: list = [(root, env, bound, False)]
    while stack:
        u, e, b, ready = stack.pop()
        if ready:
            n = len(_kids(u))
            kids = out[len(out) - n:]
            del out[len(out) - n:]
            out.append(u if all(k is o for k, o in zip(kids, _kids(u))) else _rebuild(u, kids))
            continue
        if isinstance(u, Closure):  # closed: an outer env does not touch it
            stack.append((u.term, u.env, frozenset(), False))
            continue
        if isinstance(u, LetBody):  # free only in its own binder's names
            stack.append((u.term, u.env, frozenset(u.names), False))
            continue
        if e is None and not has_lazy(u):
            out.append(u)
            continue
        if isinstance(u, Var):
            v = e.get(u.name) if (e is not None and u.name not in b) else None
            out.append(u if v is None else v)
            continue
        if isinstance(u, (Num, Zero)):
            out.append(u)
            continue
        if e is not None and closed(u) and not has_lazy(u):
            out.append(u)
            continue
        stack.append((u, e, b, True))
        if isinstance(u, Lam):
            stack.append((u.body, e, b | frozenset(pattern_vars(u.pat)) if e is not None else b,
                          False))
        else:
            stack.extend((k, e, b, False) for k in reversed(u.children()))
    return out[0]

