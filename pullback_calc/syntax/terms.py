"""Terms of the pullback calculus: a few small frozen records.

Simple terms S and pullback terms P (formal sums of simple terms) share one
class hierarchy.  Binders take *patterns* (a variable or a tuple of
patterns), so that ``λ⟨p, x⟩.L`` -- the environment-extending abstraction
built by rule 8 -- is one node and ``let`` needs no special form:
``let q = P in S`` is ``App(Lam(q, S), P)``.

Source positions live in ``pos`` and take no part in equality or hashing.
Equality and hashing are iterative, so terms 10,000 levels deep compare
without touching Python's recursion limit.
"""
from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, field, fields
from typing import Iterator, Optional


@dataclass(frozen=True)
class Pos:
    line: int
    column: int

    def __str__(self) -> str:
        return f"line {self.line}, column {self.column}"


class Term:
    """Base class.  Subclasses list their sub-term fields in ``_kids``."""

    _kids: tuple[str, ...] = ()

    # ---- generic structure -------------------------------------------------
    def children(self) -> tuple["Term", ...]:
        out: list[Term] = []
        for name in self._kids:
            v = getattr(self, name)
            if isinstance(v, tuple):
                out.extend(v)
            else:
                out.append(v)
        return tuple(out)

    _data_names: dict = {}  # class -> names of its data fields (cached: fields() is slow)

    def _data(self) -> tuple:
        """The non-term fields that take part in equality."""
        names = Term._data_names.get(type(self))
        if names is None:
            names = Term._data_names[type(self)] = tuple(
                f.name for f in fields(self)  # type: ignore[arg-type]
                if f.name not in self._kids and f.name != "pos" and f.compare)
        return tuple(getattr(self, n) for n in names)

    def _shape(self) -> tuple:
        return (type(self), self._data(), tuple(
            len(v) if isinstance(v, tuple) else -1
            for v in (getattr(self, n) for n in self._kids)))

    # ---- iterative equality and hashing ------------------------------------
    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Term):
            return NotImplemented
        stack = [(self, other)]
        while stack:
            a, b = stack.pop()
            if a is b:
                continue
            if a._shape() != b._shape():
                return False
            ha, hb = a.__dict__.get("_hash"), b.__dict__.get("_hash")
            if ha is not None and hb is not None and ha != hb:
                return False
            stack.extend(zip(a.children(), b.children()))
        return True

    def __ne__(self, other: object) -> bool:
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self) -> int:
        h = self.__dict__.get("_hash")
        if h is not None:
            return h
        # post-order without recursion
        stack: list[tuple[Term, bool]] = [(self, False)]
        while stack:
            t, ready = stack.pop()
            if "_hash" in t.__dict__:
                continue
            if ready:
                hv = hash((t._shape(), tuple(c.__dict__["_hash"] for c in t.children())))
                object.__setattr__(t, "_hash", hv)
            else:
                stack.append((t, True))
                stack.extend((c, False) for c in t.children() if "_hash" not in c.__dict__)
        return self.__dict__["_hash"]

    def __repr__(self) -> str:  # readable in test failures; never recursive
        from .printer import pretty  # local: printing is a later stage
        try:
            return f"<{type(self).__name__} {pretty(self)}>"
        except Exception:  # pragma: no cover - repr must not raise
            return f"<{type(self).__name__}>"

    def __str__(self) -> str:
        from .printer import pretty
        return pretty(self)

    def _repr_html_(self) -> str:  # notebooks
        import html
        return f"<code>{html.escape(str(self))}</code>"


def _term(cls):
    """Decorator: a frozen, eq-less dataclass (Term supplies __eq__/__hash__)."""
    cls = dataclass(frozen=True, eq=False, repr=False)(cls)
    return cls


@_term
class Var(Term):
    name: str
    pos: Optional[Pos] = field(default=None, compare=False)


@_term
class Num(Term):
    """A real numeral."""
    value: float
    pos: Optional[Pos] = field(default=None, compare=False)

    def __post_init__(self):
        v = float(self.value)
        if not math.isfinite(v):  # so no formal sum (or anything else) holds ±inf or NaN
            raise ValueError(f"a numeral must be a finite real, got {v}")
        object.__setattr__(self, "value", v)


@_term
class Prim(Term):
    """A function symbol f ∈ F applied to its arguments: f(P₁,…,Pₖ)."""
    op: str
    args: tuple
    pos: Optional[Pos] = field(default=None, compare=False)
    _kids = ("args",)


@_term
class Lam(Term):
    """λq.S -- q is a pattern (Var or Tuple of patterns); ann its optional type."""
    pat: Term
    body: Term
    ann: Optional[object] = None
    pos: Optional[Pos] = field(default=None, compare=False)
    _kids = ("pat", "body")


@_term
class App(Term):
    fun: Term
    arg: Term
    pos: Optional[Pos] = field(default=None, compare=False)
    _kids = ("fun", "arg")


@_term
class Tuple(Term):
    """⟨P₁,…,Pₙ⟩, n ≥ 2."""
    items: tuple
    pos: Optional[Pos] = field(default=None, compare=False)
    _kids = ("items",)


@_term
class Proj(Term):
    """πᵢ S, i counting from 1 as in the paper."""
    index: int
    arg: Term
    pos: Optional[Pos] = field(default=None, compare=False)
    _kids = ("arg",)


@_term
class Zero(Term):
    """The formal 0, unit of the formal sum, at any type."""
    pos: Optional[Pos] = field(default=None, compare=False)


@_term
class Sum(Term):
    """The formal sum P₁ ⊕ … ⊕ Pₙ (vector addition at any type), n ≥ 2."""
    items: tuple
    pos: Optional[Pos] = field(default=None, compare=False)
    _kids = ("items",)


@_term
class Jac(Term):
    """J(λq.S)·P -- the Jacobian of λq.S along P, a function of the point."""
    lam: Lam
    along: Term
    pos: Optional[Pos] = field(default=None, compare=False)
    _kids = ("lam", "along")


@_term
class Dual(Term):
    """(λq.S)⋆P -- the dual of the linear functional P along the linear map λq.S."""
    lam: Lam
    functional: Term
    pos: Optional[Pos] = field(default=None, compare=False)
    _kids = ("lam", "functional")


@_term
class Pullback(Term):
    """Ω(S)P -- the pullback of the 1-form P along S."""
    fun: Term
    form: Term
    pos: Optional[Pos] = field(default=None, compare=False)
    _kids = ("fun", "form")


TERM_CLASSES = (Var, Num, Prim, Lam, App, Tuple, Proj, Zero, Sum, Jac, Dual, Pullback)
ZERO = Zero()


# ---- one node with new sub-terms (for the iterative maps, deep.bottom_up) ---------

def subterm_kids(u: Term) -> tuple:
    """The sub-terms a structural map goes into: the children, but only the body
    of an abstraction (its pattern binds; it is not a term to map)."""
    return (u.body,) if isinstance(u, Lam) else u.children()


def remake(u: Term, kids) -> Term:
    """``u`` with the sub-terms ``kids`` (as ``subterm_kids`` lists them) instead
    of its own, keeping its other fields and its position."""
    if isinstance(u, Prim):
        return Prim(u.op, tuple(kids), u.pos)
    if isinstance(u, App):
        return App(kids[0], kids[1], u.pos)
    if isinstance(u, Lam):
        return Lam(u.pat, kids[0], u.ann, u.pos)
    if isinstance(u, (Tuple, Sum)):
        return type(u)(tuple(kids), u.pos)
    if isinstance(u, Proj):
        return Proj(u.index, kids[0], u.pos)
    if isinstance(u, (Jac, Dual, Pullback)):
        return type(u)(kids[0], kids[1], u.pos)
    raise TypeError(u)


# ---- smart constructors ------------------------------------------------------

def let(pat: Term, bound: Term, body: Term) -> App:
    """``let q = P in S`` is sugar for ``(λq.S) P``."""
    return App(Lam(pat, body), bound)


def is_let(t: Term) -> bool:
    return isinstance(t, App) and isinstance(t.fun, Lam)


def tup(*items: Term) -> Term:
    return items[0] if len(items) == 1 else Tuple(tuple(items))


def church_list(items) -> Term:
    """The Church list λc. λn. c a₁ (c a₂ (… n)) of the terms ``items``."""
    body: Term = Var("n")
    for a in reversed(list(items)):
        body = App(App(Var("c"), a), body)
    return Lam(Var("c"), Lam(Var("n"), body))


def formal_sum(items) -> Term:
    """Flattened formal sum; 0 is dropped; [] is 0, [P] is P."""
    out: list[Term] = []
    for t in items:
        if isinstance(t, Sum):
            out.extend(t.items)
        elif not isinstance(t, Zero):
            out.append(t)
    if not out:
        return ZERO
    if len(out) == 1:
        return out[0]
    return Sum(tuple(out))


# ---- patterns ---------------------------------------------------------------

def is_pattern(t: Term) -> bool:
    stack = [t]
    while stack:
        u = stack.pop()
        if isinstance(u, Tuple):
            stack.extend(u.items)
        elif not isinstance(u, Var):
            return False
    return True


def pattern_vars(p: Term) -> list[str]:
    """Variables of a pattern, left to right."""
    out: list[str] = []
    stack = [p]
    while stack:
        u = stack.pop()
        if isinstance(u, Var):
            out.append(u.name)
        else:
            stack.extend(reversed(u.items))
    return out


# ---- pattern indices (see reduction/env.py for why) ------------------------

class _Index:
    __slots__ = ("names", "top")

    def __init__(self, names: dict, top: int):
        self.names, self.top = names, top


def _leaf_paths(p: Term) -> list[tuple[str, tuple]]:
    out = []
    stack: list = [(p, ())]
    while stack:
        u, path = stack.pop()
        if isinstance(u, Var):
            out.append((u.name, path))
        else:
            for i, it in enumerate(u.items, 1):
                stack.append((it, path + (i,)))
    return out


def pattern_index(p: Term) -> tuple[_Index, int]:
    """(index, level) of a pattern, built incrementally along its chain."""
    cached = p.__dict__.get("_pidx")
    if cached is not None:
        return cached
    chain = []
    u = p
    while "_pidx" not in u.__dict__ and isinstance(u, Tuple) and len(u.items) == 2:
        chain.append(u)
        u = u.items[0]
    if "_pidx" in u.__dict__:
        idx, lvl = u.__dict__["_pidx"]
    else:
        idx, lvl = _Index({n: (0, path) for n, path in _leaf_paths(u)}, 0), 0
        object.__setattr__(u, "_pidx", (idx, 0))
    for node in reversed(chain):
        lvl += 1
        new = _leaf_paths(node.items[1])
        if idx.top != lvl - 1 or any(n in idx.names and idx.names[n][0] < lvl for n, _ in new):
            # another chain extended this index already, or a name is re-bound
            idx = _Index({n: e for n, e in idx.names.items() if e[0] < lvl}, lvl - 1)
        for n, path in new:
            idx.names[n] = (lvl, path)
        idx.top = lvl
        object.__setattr__(node, "_pidx", (idx, lvl))
    return p.__dict__["_pidx"]



def binds(p: Term, name: str) -> bool:
    """Does the pattern p bind ``name``?  O(1) after the first call."""
    idx, level = pattern_index(p)
    e = idx.names.get(name)
    return e is not None and e[0] <= level


# ---- fresh names -------------------------------------------------------------

class _Names:
    """A supply of fresh names: a counter, the names to avoid, and the
    canonical direction name of each variable."""

    def __init__(self, used=()):
        self.counter = itertools.count(1)
        self.used: set[str] = set(used)
        self.dirs: dict[str, str] = {}


_names = _Names()
_NAME_RE = re.compile(r"^(.*?)(_\d+)?$")


def note_name(name: str) -> None:
    """Record a user's identifier so that generated names never collide with it."""
    _names.used.add(name)


class fresh_scope:
    """Within the block, fresh names restart from 1, avoiding every name of
    ``term`` -- so one reduction's trace is the same every time it is run."""

    def __init__(self, term: "Term"):
        self.term = term

    def __enter__(self):
        global _names
        self.saved = _names
        used = {u.name for u in subterms(self.term) if isinstance(u, Var)}
        _names = _Names(used | self.saved.used)
        _names.used = used  # names of earlier, unrelated terms need not be avoided
        return self

    def __exit__(self, *exc):
        global _names
        self.saved.used |= _names.used
        _names = self.saved
        return False


def fresh(base: str = "x") -> str:
    stem = _NAME_RE.match(base).group(1) or "x"  # type: ignore[union-attr]
    stem = stem.lstrip("_") or "x"
    while True:
        name = f"{stem}_{next(_names.counter)}"
        if name not in _names.used:
            _names.used.add(name)
            return name


def direction_name(name: str) -> str:
    """The canonical name ``dx`` of the direction (tangent/cotangent) of ``x``.

    Canonical, so that the covector built at one stage of the reverse phase
    has exactly the binder the next stage's Jacobian produces (rule 5).
    """
    d = _names.dirs.get(name)
    if d is None:
        d = "d" + name
        while d in _names.used:  # a user's name, or another variable's direction
            d = "d" + d
        _names.used.add(d)
        _names.dirs[name] = d
    return d


def direction_pattern(p: Term) -> Term:
    """The pattern of directions of ``p``; cached on the pattern node, so the
    direction of ⟨p, x⟩ shares the (identical) direction pattern of ``p``."""
    cached = p.__dict__.get("_dir")
    if cached is not None:
        return cached
    if isinstance(p, Var):
        d: Term = Var(direction_name(p.name))
    else:
        # iterative for deep environments
        order: list[Term] = []
        stack = [p]
        while stack:
            u = stack.pop()
            if isinstance(u, Tuple) and "_dir" not in u.__dict__:
                order.append(u)
                stack.extend(u.items)
        for u in reversed(order):
            items = tuple(direction_pattern(it) if isinstance(it, Var) else it.__dict__["_dir"]
                          for it in u.items)
            object.__setattr__(u, "_dir", Tuple(items))
        d = p.__dict__["_dir"]
    object.__setattr__(p, "_dir", d)
    return d


# ---- traversal helpers -------------------------------------------------------

def subterms(t: Term) -> Iterator[Term]:
    """All subterms, pre-order, iteratively."""
    stack = [t]
    while stack:
        u = stack.pop()
        yield u
        stack.extend(reversed(u.children()))


def size(t: Term) -> int:
    return sum(1 for _ in subterms(t))


def depth(t: Term) -> int:
    best = 0
    stack = [(t, 1)]
    while stack:
        u, d = stack.pop()
        best = max(best, d)
        stack.extend((c, d + 1) for c in u.children())
    return best
