"""Terms of the pullback calculus: a few small immutable records.

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

import contextlib
import itertools
import math
import os
import re
import threading
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, ClassVar, Iterable, Iterator, Optional


@dataclass(frozen=True)
class Pos:
    line: int
    column: int

    def __str__(self) -> str:
        return f"line {self.line}, column {self.column}"


@dataclass(frozen=True)
class PartialPos(Pos):
    """The position of a function symbol f, on a term rule 15 built from f's partial
    derivatives: an operation there that cannot be done (∂sqrt at 0 divides by 0) is
    reported as the derivative of f, not as an operation the user never wrote."""
    symbol: str = ""


# ---- facts cached on a node ---------------------------------------------------
# Terms are immutable, so a fact learnt about a node stays true; the engine
# keeps such facts on the node itself, in slots (None or 0: not known yet).
# Every term has
#   _hash   its structural hash
#   _fv     its free variables (syntax.subst.fv)
#   _flags  yes/no facts, the bits below
# and a class adds to its ``__slots__`` the ones its nodes can get:
#   _fvc    the free variables a substitution would copy work into
#           (subst.fv_copied): not on Var, Num and 𝟎 (always none) nor on λ
#           (all of its free variables, ``Lam._fvc``)
#   _lcobj  its linear combination (reduction/linear.py): on the nodes that
#           are usually summands of covectors -- variables, numerals,
#           primitive applications (products), sums, projections; read as
#           None on the others, whose combination is worked out again
#   _pidx   a pattern's index (pattern_index): on tuples; a variable's is
#           one entry, made again when asked
#   _memo   on λ: what the analyses of rules 8 and 8c learnt of it -- a let's
#           λ the facts of the spine from that let down (reduction/spine.py),
#           an abstraction the names its body only calls (reduction/calls.py)
#   Prim, Tuple and Sum ``_scan`` (machine._scan), Var and Tuple ``_dir``
#   (direction_pattern), Tuple ``_vl`` (env.value_levels), Sum
#   ``_make_items`` (Sum.lazy) and ``_s3`` (linear.sum_facts, rule 3).
# Slots, not an instance dict, and only where used: a node takes ≈ 60 % of
# the memory, a slot is 8 bytes on every node of its class, and reading a
# fact is one slot load.  (The facts of the later stages are typed Any here:
# their types live in the layers above.)
# A fact that may be unknown yet has two bits, "known" (X_K) and the fact (X).
# The facts most nodes get fit in the low eight bits: CPython shares the int
# objects up to 256, so a node's flags then take no memory of their own.
NF = 1 << 0          # a value: the machine never looks inside again (machine.py)
ANF = 1 << 1         # A-normal (areduction/anf.py, machine.py)
ELEM_K, ELEM = 1 << 2, 1 << 3          # elementary (anf.is_elementary)
ISZERO_K, ISZERO = 1 << 4, 1 << 5      # a zero vector (linear.is_zero)
CLOSED_K, CLOSED = 1 << 6, 1 << 7      # no free variable (reduction/delayed.closed)
SPINE = 1 << 8       # the let spine binds no name twice (reduction/spine.py)
FRESH = 1 << 9       # an A-name's λ: its variable occurs nowhere else (anf.a_name)
GROUND_K, GROUND = 1 << 10, 1 << 11    # ω at a ground value (rules._ground_functional)
HASLAZY_K, HASLAZY = 1 << 12, 1 << 13  # holds a lazy node (delayed.has_lazy)
DERIVATIVE = 1 << 14  # a derivative term (engines/evaluator.py's role)
WRITTEN_APP = 1 << 15  # (λq.S) P written so, not as let (parser.py): printed as written
TREE_K, TREE = 1 << 16, 1 << 17      # no node reached twice below, outside λs (anf.a_name)
COMPUTES_K, COMPUTES = 1 << 18, 1 << 19  # a λ computes with its free variables (rules 8c)
DEAD_K, DEAD = 1 << 20, 1 << 21  # a let of a value that only dead code reads (rules.dead_let)
CALLS = 1 << 22  # a λ applies one of its free variables (anf.calls_unknown; with COMPUTES_K)
UNREAD_K, UNREAD = 1 << 23, 1 << 24  # a let of a stage only dead stages read (rules.dead_stage)
BINDER_K, BINDER = 1 << 25, 1 << 26  # an abstraction occurs in it (subst.has_binder)


class Term:
    """Base class of the twelve term classes below.

    Each class declares its fields (``__match_args__``: the constructor's
    parameters, in order), which of them are sub-terms (``_kids``), and writes
    out the structural methods the engine calls at every step: ``children``,
    ``_data`` (the non-term fields that take part in equality), ``_shape`` and
    ``_own_hash``.  Every class has a source position ``pos``, which takes no
    part in equality or hashing.

    Immutable by convention: the fields are never assigned after ``__init__``
    (not enforced -- a ``__setattr__`` would slow every store, and a reduction
    builds nodes at every step); the cache slots above are written freely."""

    __slots__ = ("pos", "_hash", "_fv", "_flags")
    __match_args__: ClassVar[tuple[str, ...]] = ()
    _kids: ClassVar[tuple[str, ...]] = ()
    pos: Optional[Pos]
    _hash: Optional[int]
    _fv: Any  # a frozenset or an FVSet of names (syntax/fvsets.py), None: not known yet
    _flags: int
    # read where a class has no slot for them (see above); never written there
    _fvc: Any = None
    _lcobj: Any = None
    _pidx: Optional[tuple] = None
    _dir: Any = None  # (the name supply it was made in, the direction pattern)

    # ---- structure (each class writes its own: these run at every step) -----
    def children(self) -> tuple[Term, ...]:
        raise NotImplementedError

    def _data(self) -> tuple:
        raise NotImplementedError

    def _shape(self) -> tuple:
        """Class, data and the children's arity: what must agree for two terms to
        match child by child (the number of items of a tuple, sum, application)."""
        raise NotImplementedError

    def _own_hash(self) -> int:
        """The hash from the data and the children's cached hashes."""
        raise NotImplementedError

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
            if type(a) is not type(b):
                return False
            ha, hb = a._hash, b._hash
            if ha is not None and hb is not None and ha != hb:
                return False
            if a._data() != b._data():
                return False
            ca, cb = a.children(), b.children()
            if len(ca) != len(cb):
                return False
            stack.extend(zip(ca, cb))
        return True

    def __ne__(self, other: object) -> bool:
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self) -> int:
        h = self._hash
        if h is not None:
            return h
        kids = self.children()
        if all(c._hash is not None for c in kids):  # (usual: children are hashed first)
            h = self._hash = self._own_hash()
            return h
        # post-order without recursion
        stack: list[tuple[Term, bool]] = [(self, False)]
        while stack:
            t, ready = stack.pop()
            if t._hash is not None:
                continue
            if ready:
                t._hash = t._own_hash()
            else:
                stack.append((t, True))
                stack.extend((c, False) for c in t.children() if c._hash is None)
        h = self._hash
        assert h is not None
        return h

    # __str__ and __repr__ print the concrete syntax: printer.py, a later stage, gives
    # them to Term (syntax/__init__.py loads it), so this module does not import it

    def _repr_html_(self) -> str:  # notebooks
        import html
        return f"<code>{html.escape(str(self))}</code>"


# The twelve classes.  A leaf (no sub-terms) also has its own __eq__ and __hash__,
# without the general walk: leaves are the usual dict keys and atoms.

class Var(Term):
    __slots__ = ("name", "_lcobj", "_dir")
    __match_args__ = ("name", "pos")
    name: str
    _dir: Any  # (name supply, direction pattern): direction_pattern
    _fvc = frozenset()  # a single occurrence, not under a λ

    def __init__(self, name: str, pos: Optional[Pos] = None) -> None:
        self.name = name
        self.pos = pos
        self._hash = self._fv = None
        self._flags = 0
        self._lcobj = None
        self._dir = None

    def children(self) -> tuple[Term, ...]:
        return ()

    def _data(self) -> tuple:
        return (self.name,)

    def _shape(self) -> tuple:
        return (Var, (self.name,), ())

    def _own_hash(self) -> int:
        return hash(("Var", (self.name,), ()))

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if type(other) is not Var:
            return False if isinstance(other, Term) else NotImplemented
        return self.name == other.name

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            h = self._hash = hash(("Var", (self.name,), ()))
        return h


class Num(Term):
    """A real numeral."""
    __slots__ = ("value", "_lcobj")
    __match_args__ = ("value", "pos")
    value: float
    _fvc = frozenset()

    def __init__(self, value: float, pos: Optional[Pos] = None) -> None:
        v = float(value)
        if not math.isfinite(v):  # so no formal sum (or anything else) holds ±inf or NaN
            raise ValueError(f"a numeral must be a finite real, got {v}")
        self.value = v
        self.pos = pos
        self._hash = self._fv = None
        self._flags = 0
        self._lcobj = None

    def children(self) -> tuple[Term, ...]:
        return ()

    def _data(self) -> tuple:
        return (self.value,)

    def _shape(self) -> tuple:
        return (Num, (self.value,), ())

    def _own_hash(self) -> int:
        return hash(("Num", (self.value,), ()))

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if type(other) is not Num:
            return False if isinstance(other, Term) else NotImplemented
        return self.value == other.value

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            h = self._hash = hash(("Num", (self.value,), ()))
        return h


class Zero(Term):
    """The formal 0, unit of the formal sum, at any type."""
    __slots__ = ()
    __match_args__ = ("pos",)
    _fvc = frozenset()

    def __init__(self, pos: Optional[Pos] = None) -> None:
        self.pos = pos
        self._hash = self._fv = None
        self._flags = 0

    def children(self) -> tuple[Term, ...]:
        return ()

    def _data(self) -> tuple:
        return ()

    def _shape(self) -> tuple:
        return (Zero, (), ())

    def _own_hash(self) -> int:
        return hash(("Zero", (), ()))

    def __eq__(self, other: object) -> bool:
        if self is other or type(other) is Zero:
            return True
        return False if isinstance(other, Term) else NotImplemented

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            h = self._hash = hash(("Zero", (), ()))
        return h


class Prim(Term):
    """A function symbol f ∈ F applied to its arguments: f(P₁,…,Pₖ)."""
    __slots__ = ("op", "args", "_fvc", "_lcobj", "_scan")
    __match_args__ = ("op", "args", "pos")
    _kids = ("args",)
    op: str
    args: tuple[Term, ...]
    _scan: int

    def __init__(self, op: str, args: tuple[Term, ...], pos: Optional[Pos] = None) -> None:
        self.op = op
        self.args = args
        self.pos = pos
        self._hash = self._fv = None
        self._flags = 0
        self._fvc = None
        self._lcobj = None
        self._scan = 0

    def children(self) -> tuple[Term, ...]:
        return self.args

    def _data(self) -> tuple:
        return (self.op,)

    def _shape(self) -> tuple:
        return (Prim, (self.op,), (len(self.args),))

    def _own_hash(self) -> int:
        return hash(("Prim", (self.op,), tuple([c._hash for c in self.args])))


class Lam(Term):
    """λq.S -- q is a pattern (Var or Tuple of patterns); ann its optional type."""
    __slots__ = ("pat", "body", "ann", "_memo")
    __match_args__ = ("pat", "body", "ann", "pos")
    _kids = ("pat", "body")
    pat: Term
    body: Term
    ann: Any  # a syntax.types.Type (the parser's annotation) or None
    _memo: Any  # a reduction.spine.Facts, a frozenset of names, or None

    def __init__(self, pat: Term, body: Term, ann: Any = None,
                 pos: Optional[Pos] = None) -> None:
        self.pat = pat
        self.body = body
        self.ann = ann
        self.pos = pos
        self._hash = self._fv = self._memo = None
        self._flags = 0

    @property  # (read-only here: computed, never stored)
    def _fvc(self) -> Any:  # a substitution under a λ copies work into every free variable
        return self._fv

    def children(self) -> tuple[Term, ...]:
        return (self.pat, self.body)

    def _data(self) -> tuple:
        return (self.ann,)

    def _shape(self) -> tuple:
        return (Lam, (self.ann,), (-1, -1))

    def _own_hash(self) -> int:
        return hash(("Lam", (self.ann,), (self.pat._hash, self.body._hash)))


class App(Term):
    __slots__ = ("fun", "arg", "_fvc")
    __match_args__ = ("fun", "arg", "pos")
    _kids = ("fun", "arg")
    fun: Term
    arg: Term

    def __init__(self, fun: Term, arg: Term, pos: Optional[Pos] = None) -> None:
        self.fun = fun
        self.arg = arg
        self.pos = pos
        self._hash = self._fv = None
        self._flags = 0
        self._fvc = None

    def children(self) -> tuple[Term, ...]:
        return (self.fun, self.arg)

    def _data(self) -> tuple:
        return ()

    def _shape(self) -> tuple:
        return (App, (), (-1, -1))

    def _own_hash(self) -> int:
        return hash(("App", (), (self.fun._hash, self.arg._hash)))


class Tuple(Term):
    """⟨P₁,…,Pₙ⟩, n ≥ 2."""
    __slots__ = ("items", "_fvc", "_scan", "_pidx", "_dir", "_vl")
    __match_args__ = ("items", "pos")
    _kids = ("items",)
    items: tuple[Term, ...]
    _scan: int
    _dir: Any  # (name supply, direction pattern): direction_pattern
    _vl: Any

    def __init__(self, items: tuple[Term, ...], pos: Optional[Pos] = None) -> None:
        self.items = items
        self.pos = pos
        self._hash = self._fv = None
        self._flags = 0
        self._fvc = None
        self._scan = 0
        self._pidx = None
        self._dir = None
        self._vl = None

    def children(self) -> tuple[Term, ...]:
        return self.items

    def _data(self) -> tuple:
        return ()

    def _shape(self) -> tuple:
        return (Tuple, (), (len(self.items),))

    def _own_hash(self) -> int:
        return hash(("Tuple", (), tuple([c._hash for c in self.items])))


#: Proj's hash is a polynomial in the projected term's: h(πᵢ S) = h(S)·P + i (mod M), so
#: that a chain πₐₖ … πₐ₁ v has the hash h(v)·Pᵏ + c, c from the indices alone -- a chain
#: built in one piece (``Proj.chain``) is hashed without its nodes
_PROJ_P, _PROJ_M = 1_000_003, (1 << 61) - 1


class ProjPath:
    """The indices a₁, …, aₖ of a chain of projections πₐₖ (… (πₐ₁ v)), innermost
    first, as a persistent list: ``outer`` is the path of the projections around
    πₐ₁.  Rule 5 composes a covector whose atom is such a chain with a stage that
    changes its innermost term (v ↦ π₁ w, v ↦ ⟨w, 𝟎⟩): the new chain is one node
    more or less on the same ``outer`` path, not a copy of the k projections
    (``Proj.chain``; reduction/linear.py).  Each node keeps its length, the
    outermost index and the part of the chain's hash the indices make."""
    __slots__ = ("index", "outer", "length", "outermost", "power", "poly")
    index: int
    outer: Optional[ProjPath]
    length: int
    outermost: int
    power: int  # P^length mod M
    poly: int   # Σ aⱼ·P^(length-j) mod M: the chain's hash is h(v)·power + poly

    def __init__(self, index: int, outer: Optional[ProjPath]) -> None:
        self.index, self.outer = index, outer
        if outer is None:
            self.length, self.outermost, self.power, self.poly = 1, index, _PROJ_P, index
        else:
            self.length, self.outermost = outer.length + 1, outer.outermost
            self.power = outer.power * _PROJ_P % _PROJ_M
            self.poly = (index * outer.power + outer.poly) % _PROJ_M

    def indices(self) -> Iterator[int]:
        """Innermost first."""
        p: Optional[ProjPath] = self
        while p is not None:
            yield p.index
            p = p.outer


class Proj(Term):
    """πᵢ S, i counting from 1 as in the paper."""
    __slots__ = ("index", "arg", "_fvc", "_lcobj", "_chain")
    __match_args__ = ("index", "arg", "pos")
    _kids = ("arg",)
    index: int
    arg: Term
    #: (v, path) when the node is the chain ``path`` of projections of the variable v,
    #: False when it is not (``chain_of``); a chain made by ``Proj.chain`` has its
    #: ``arg`` made when first read
    _chain: Any

    def __init__(self, index: int, arg: Term, pos: Optional[Pos] = None) -> None:
        self.index = index
        self.arg = arg
        self.pos = pos
        self._hash = self._fv = None
        self._flags = 0
        self._fvc = None
        self._lcobj = None
        self._chain = None

    @staticmethod
    def chain(v: Var, path: ProjPath) -> Proj:
        """πₐₖ (… (πₐ₁ v)) for ``path`` = a₁, …, aₖ, made in one node: its hash from
        the path's, its projections below the outermost made when ``arg`` is first
        read (Sum.lazy's device)."""
        t = Proj(path.outermost, v)
        del t.arg  # (unset until read: __getattr__)
        t._chain = (v, path)
        t._fv = v._fv if v._fv is not None else frozenset((v.name,))  # (v's, as subst.fv)
        t._hash = (hash(v) * path.power + path.poly) % _PROJ_M
        return t

    def __getattr__(self, name: str) -> Term:
        # only for a missing attribute: the projections under a chain made in one piece
        if name == "arg" and self._chain:
            v, path = self._chain
            x: Term = v
            p = path
            while p.outer is not None:  # innermost first, all but the outermost
                x = Proj(p.index, x)
                p = p.outer
            self.arg = x
            return x
        raise AttributeError(name)

    def children(self) -> tuple[Term, ...]:
        return (self.arg,)

    def _data(self) -> tuple:
        return (self.index,)

    def _shape(self) -> tuple:
        return (Proj, (self.index,), (-1,))

    def _own_hash(self) -> int:
        return (hash(self.arg) * _PROJ_P + self.index) % _PROJ_M


def chain_of(t: Term) -> Optional[tuple]:
    """(v, path) if t is a chain of projections πₐₖ (… (πₐ₁ v)) of a variable v
    (k ≥ 1), else None; learnt once per node (a walk down the chain)."""
    if type(t) is not Proj:
        return None
    c = t._chain
    if c is not None:
        return c or None
    indices = []  # outermost first
    u: Term = t
    while type(u) is Proj:
        indices.append(u.index)
        u = u.arg
    if type(u) is not Var:
        t._chain = False  # (known: not a chain of a variable)
        return None
    path: Optional[ProjPath] = None
    for i in indices:  # each one inside the ones before it
        path = ProjPath(i, path)
    t._chain = c = (u, path)
    return c


class Sum(Term):
    """The formal sum P₁ ⊕ … ⊕ Pₙ (vector addition at any type), n ≥ 2."""
    __slots__ = ("items", "_fvc", "_lcobj", "_scan", "_make_items", "_s3")
    __match_args__ = ("items", "pos")
    _kids = ("items",)
    items: tuple[Term, ...]
    _scan: int
    _make_items: Any  # a lazy sum's source (Sum.lazy), None once its items are made
    _s3: Any

    def __init__(self, items: tuple[Term, ...], pos: Optional[Pos] = None) -> None:
        self.items = items
        self.pos = pos
        self._hash = self._fv = None
        self._flags = 0
        self._fvc = None
        self._lcobj = None
        self._scan = 0
        self._make_items = None
        self._s3 = None

    @staticmethod
    def lazy(source: Any) -> Sum:
        """A sum whose items ``source.summands()`` builds when they are first
        read (rule 5's covectors: the reduction reads their linear combination,
        cached beside them, and a wide sum is built only to be printed).  The
        source itself is kept, not a bound method: 64 bytes a sum less."""
        t = Sum(())  # the constructor starts the caches; then the items slot is
        del t.items  # left unset until read (__getattr__)
        t._make_items = source
        return t

    def __getattr__(self, name: str) -> tuple[Term, ...]:
        # only for a missing attribute: the items of a lazy sum
        if name == "items" and self._make_items is not None:
            items = self.items = self._make_items.summands()
            self._make_items = None
            return items
        raise AttributeError(name)

    def children(self) -> tuple[Term, ...]:
        return self.items

    def _data(self) -> tuple:
        return ()

    def _shape(self) -> tuple:
        return (Sum, (), (len(self.items),))

    def _own_hash(self) -> int:
        return hash(("Sum", (), tuple([c._hash for c in self.items])))


class Jac(Term):
    """J(λq.S)·P -- the Jacobian of λq.S along P, a function of the point."""
    __slots__ = ("lam", "along", "_fvc")
    __match_args__ = ("lam", "along", "pos")
    _kids = ("lam", "along")
    lam: Lam
    along: Term

    def __init__(self, lam: Lam, along: Term, pos: Optional[Pos] = None) -> None:
        self.lam = lam
        self.along = along
        self.pos = pos
        self._hash = self._fv = None
        self._flags = 0
        self._fvc = None

    def children(self) -> tuple[Term, ...]:
        return (self.lam, self.along)

    def _data(self) -> tuple:
        return ()

    def _shape(self) -> tuple:
        return (Jac, (), (-1, -1))

    def _own_hash(self) -> int:
        return hash(("Jac", (), (self.lam._hash, self.along._hash)))


class Dual(Term):
    """(λq.S)⋆P -- the dual of the linear functional P along the linear map λq.S."""
    __slots__ = ("lam", "functional", "_fvc")
    __match_args__ = ("lam", "functional", "pos")
    _kids = ("lam", "functional")
    lam: Lam
    functional: Term

    def __init__(self, lam: Lam, functional: Term, pos: Optional[Pos] = None) -> None:
        self.lam = lam
        self.functional = functional
        self.pos = pos
        self._hash = self._fv = None
        self._flags = 0
        self._fvc = None

    def children(self) -> tuple[Term, ...]:
        return (self.lam, self.functional)

    def _data(self) -> tuple:
        return ()

    def _shape(self) -> tuple:
        return (Dual, (), (-1, -1))

    def _own_hash(self) -> int:
        return hash(("Dual", (), (self.lam._hash, self.functional._hash)))


class Pullback(Term):
    """Ω(S)P -- the pullback of the 1-form P along S."""
    __slots__ = ("fun", "form", "_fvc")
    __match_args__ = ("fun", "form", "pos")
    _kids = ("fun", "form")
    fun: Term
    form: Term

    def __init__(self, fun: Term, form: Term, pos: Optional[Pos] = None) -> None:
        self.fun = fun
        self.form = form
        self.pos = pos
        self._hash = self._fv = None
        self._flags = 0
        self._fvc = None

    def children(self) -> tuple[Term, ...]:
        return (self.fun, self.form)

    def _data(self) -> tuple:
        return ()

    def _shape(self) -> tuple:
        return (Pullback, (), (-1, -1))

    def _own_hash(self) -> int:
        return hash(("Pullback", (), (self.fun._hash, self.form._hash)))


TERM_CLASSES = (Var, Num, Prim, Lam, App, Tuple, Proj, Zero, Sum, Jac, Dual, Pullback)
ZERO = Zero()


# ---- one node with new sub-terms (for the iterative maps, deep.bottom_up) ---------

def subterm_kids(u: Term) -> tuple:
    """The sub-terms a structural map goes into: the children, but only the body
    of an abstraction (its pattern binds; it is not a term to map)."""
    return (u.body,) if isinstance(u, Lam) else u.children()


def any_below(t: Term, known: int, yes: int, own) -> bool:
    """Does some node of t (t included) have a property?  ``own(u)`` is u's answer
    when u's own class decides it (True or False; such a node is not written
    to: it may be a lazy node, outside the grammar), None when its sub-terms
    (``subterm_kids``) do; the answers of the latter are cached in the flag
    bits ``known`` and ``yes``.  Post-order with one stack: a node stays on it
    until its sub-terms are known, so each node is walked once over all calls."""
    o = own(t)
    if o is not None:
        return o
    stack = [t]
    while stack:
        u = stack[-1]
        if u._flags & known:
            stack.pop()
            continue
        ks = subterm_kids(u)
        waiting = [k for k in ks if own(k) is None and not k._flags & known]
        if waiting:
            stack.extend(waiting)
            continue
        stack.pop()
        u._flags |= known | (yes if any(own(k) or k._flags & yes for k in ks) else 0)
    return bool(t._flags & yes)


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
    return type(t) is App and type(t.fun) is Lam  # (no class derives from a term class)


def tup(*items: Term) -> Term:
    return items[0] if len(items) == 1 else Tuple(tuple(items))


def church_list(items) -> Term:
    """The Church list λc. λn. c a₁ (c a₂ (… n)) of the terms ``items``."""
    body: Term = Var("n")
    for a in reversed(list(items)):
        body = App(App(Var("c"), a), body)
    return Lam(Var("c"), Lam(Var("n"), body))


def formal_sum(items) -> Term:
    """Flattened formal sum; 0 is dropped; [] is 0, [P] is P (also when P is
    a sum of two or more summands: the same node, with the facts cached
    beside it)."""
    out: list[Term] = []
    whole = None  # the only summand so far, if it is a sum
    for t in items:
        if isinstance(t, Sum):
            whole = None if out else t
            out.extend(t.items)
        elif not isinstance(t, Zero):
            whole = None
            out.append(t)
    if whole is not None and len(out) > 1:
        return whole
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
    stack: list = [p]  # (a pattern: variables in tuples)
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


def _rebinds(names: dict, new: list, lvl: int) -> bool:
    for n, _ in new:  # (a loop, not any(): a new pattern at every rule-8 step)
        e = names.get(n)
        if e is not None and e[0] < lvl:
            return True
    return False


def pattern_index(p: Term) -> tuple[_Index, int]:
    """(index, level) of a pattern, built incrementally along its chain."""
    cached = p._pidx
    if cached is not None:
        return cached
    chain = []
    u = p
    while u._pidx is None and isinstance(u, Tuple) and len(u.items) == 2:
        chain.append(u)
        u = u.items[0]
    if u._pidx is not None:
        idx, lvl = u._pidx
    else:
        idx, lvl = _Index({n: (0, path) for n, path in _leaf_paths(u)}, 0), 0
        if type(u) is Tuple:  # (a variable's is made again: one entry, and rarely asked)
            u._pidx = (idx, 0)
        elif not chain:
            return idx, 0
    for node in reversed(chain):
        lvl += 1
        new = _leaf_paths(node.items[1])
        if idx.top != lvl - 1 or _rebinds(idx.names, new, lvl):
            # another chain extended this index already, or a name is re-bound
            idx = _Index({n: e for n, e in idx.names.items() if e[0] < lvl}, lvl - 1)
        for n, path in new:
            idx.names[n] = (lvl, path)
        idx.top = lvl
        node._pidx = (idx, lvl)
    return idx, lvl


def binds(p: Term, name: str) -> bool:
    """Does the pattern p bind ``name``?  O(1) after the first call."""
    idx, level = pattern_index(p)
    e = idx.names.get(name)
    return e is not None and e[0] <= level


# ---- fresh names -------------------------------------------------------------
# Each reduction draws its names from a supply of its own (``fresh_scope``), kept
# in a context variable: threads and asyncio tasks never share one (concurrent
# reductions would capture each other's variables), and no reduction inherits
# the names of those before it (its cost and its names do not depend on what
# ran before it in the process).  Outside every scope -- building a term for a
# reduction (the API's wrappers, the sympy bridge, tracing) -- names come from
# one process-wide supply, which remembers the identifiers parsed (note_name).

class _Names:
    """A supply of fresh names: a counter, the names to avoid, and the
    canonical direction name of each variable."""

    def __init__(self, used: Iterable[str] = ()) -> None:
        self.counter = itertools.count(1)
        self.used: set[str] = set(used)
        self.dirs: dict[str, str] = {}
        # the linear atoms with a binder met so far, by α-class (subst.alpha_representative)
        self.atoms: dict[int, list] = {}


_AMBIENT = _Names()  # (its counter and sets are safe to share: next() and add are atomic)
_SUPPLY: ContextVar[_Names] = ContextVar("pullback_calc_names")
_NAME_RE = re.compile(r"^(.*?)(_\d+)?$")


def alpha_classes() -> Optional[dict]:
    """The reduction's table of α-classes of linear atoms (``subst.alpha_representative``),
    None outside a reduction: kept in the context-local supply, so that no table
    outlives its reduction or is shared between two."""
    names = _SUPPLY.get(None)
    return None if names is None else names.atoms


def note_name(name: str) -> None:
    """Record a user's identifier so that generated names never collide with it."""
    _SUPPLY.get(_AMBIENT).used.add(name)


class fresh_scope:
    """Within the block, fresh names restart from 1, avoiding every name of
    ``term`` -- so one reduction's trace is the same every time it is run,
    whatever ran before it or beside it (the supply is context-local).  A scope
    inside another scope hands its names back to the outer one on exit (the
    inner reduction's terms flow into the outer one's); the outermost keeps
    nothing.

    The outermost scope of a context is also a reduction the function-symbol
    registry must not change under (``between_reductions``): it waits for a
    change under way, and finds every symbol of ``term`` registered."""

    def __init__(self, term: "Term"):
        self.term = term

    def __enter__(self):
        self.outer = _SUPPLY.get(None)
        if self.outer is None:
            _gate.enter()
        try:
            used, symbols = set(), _symbols()
            for u in subterms(self.term):
                if type(u) is Var:
                    used.add(u.name)
                elif type(u) is Prim and u.op not in symbols:
                    from ..errors import ReductionError
                    e = ReductionError(f"`{u.op}` is not a function symbol (any more: was it "
                                       f"unregistered?)")
                    e.pos = u.pos
                    raise e
        except BaseException:
            if self.outer is None:
                _gate.leave()
            raise
        self.names = _Names(used)
        self.token = _SUPPLY.set(self.names)
        return self

    def __exit__(self, *exc):
        _SUPPLY.reset(self.token)
        if self.outer is not None:
            self.outer.used |= self.names.used
        else:
            _gate.leave()
        return False


#: the function symbols' arities: prims.ARITY is this table (it lives here, below
#: prims.py, so that a scope can check a term's symbols without importing upwards)
SYMBOLS: dict[str, int] = {}


def _symbols():
    return SYMBOLS


class _Gate:
    """Reductions in, registry changes out: any number of reductions at once,
    or one change of the function-symbol tables and none (a readers-writer
    lock, the writer preferred so that reductions cannot starve it)."""

    def __init__(self):
        self.cond = threading.Condition(threading.Lock())
        self.running = 0
        self.changing = 0

    def enter(self) -> None:
        with self.cond:
            while self.changing:
                self.cond.wait()
            self.running += 1

    def leave(self) -> None:
        with self.cond:
            self.running -= 1
            if not self.running:
                self.cond.notify_all()

    @contextlib.contextmanager
    def change(self):
        if _SUPPLY.get(None) is not None:
            raise RuntimeError("the function-symbol tables cannot change during a reduction")
        with self.cond:
            self.changing += 1
            try:
                while self.running:
                    self.cond.wait()
            except BaseException:
                self.changing -= 1
                self.cond.notify_all()
                raise
        try:
            yield
        finally:
            with self.cond:
                self.changing -= 1
                self.cond.notify_all()


_gate = _Gate()
#: ``with between_reductions(): …`` changes the function-symbol tables (registry.py):
#: it waits for the running reductions to end and holds new ones off meanwhile
between_reductions = _gate.change
# a child forked while a thread waited or reduced has no such thread: start afresh
if hasattr(os, "register_at_fork"):  # (not in the browser playground: no fork there)
    os.register_at_fork(after_in_child=lambda: _Gate.__init__(_gate))


def fresh(base: str = "x", avoid=()) -> str:
    """A name ``base_N`` no term of the current reduction uses (nor ``avoid``)."""
    names = _SUPPLY.get(_AMBIENT)
    stem = _NAME_RE.match(base).group(1) or "x"  # type: ignore[union-attr]
    stem = stem.lstrip("_") or "x"
    while True:
        name = f"{stem}_{next(names.counter)}"
        if name not in names.used and name not in avoid:
            names.used.add(name)
            return name


def direction_name(name: str) -> str:
    """The canonical name ``dx`` of the direction (tangent/cotangent) of ``x``.

    Canonical, so that the covector built at one stage of the reverse phase
    has exactly the binder the next stage's Jacobian produces (rule 5).
    """
    names = _SUPPLY.get(_AMBIENT)
    d = names.dirs.get(name)
    if d is None:
        d = "d" + name
        while d in names.used:  # a user's name, or another variable's direction
            d = "d" + d
        names.used.add(d)
        names.dirs[name] = d
    return d


def direction_of(d: str) -> Optional[str]:
    """The name whose direction ``d`` is in the current reduction (``d`` is
    ``dx``, ``ddx``, … for x), or None.  Two variables of one name (a binder
    repeated in the program) share a direction name: a rule that substitutes
    the directions of a pattern asks this of the binders it goes under."""
    dirs = _SUPPLY.get(_AMBIENT).dirs
    base = d
    while base.startswith("d"):
        base = base[1:]
        if dirs.get(base) == d:
            return base
    return None


def direction_pattern(p: Term) -> Term:
    """The pattern of directions of ``p``; cached on the pattern node, so the
    direction of ⟨p, x⟩ shares the (identical) direction pattern of ``p``.

    The names are the reduction's (``direction_name``: another reduction may
    call the direction of ``x`` ``ddx``, its ``dx`` being a user's name), and a
    pattern node can outlive a reduction (a user's term reduced again, in this
    thread or another), so the cache holds the name supply it was made in and
    is read only in that one."""
    names = _SUPPLY.get(_AMBIENT)
    cached = p._dir
    if cached is not None and cached[0] is names:
        return cached[1]
    if isinstance(p, Var):
        d: Term = Var(direction_name(p.name))
        p._dir = (names, d)
    else:
        # iterative for deep environments
        order: list[Tuple] = []
        stack: list[Term] = [p]
        while stack:
            u = stack.pop()
            if isinstance(u, Tuple) and (u._dir is None or u._dir[0] is not names):
                order.append(u)
                stack.extend(u.items)
        for node in reversed(order):  # (children first, p's last: each item's is made)
            d = Tuple(tuple(
                direction_pattern(it) if isinstance(it, Var) else it._dir[1]
                for it in node.items))
            node._dir = (names, d)
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
