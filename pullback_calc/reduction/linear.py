"""Linear normal forms: covectors whose coefficients are numerals.

A real-valued term T that is linear in some direction variables is, up to
the vector-space laws (sums are associative, commutative, with unit 0;
scalars distribute), a linear combination

    c₁ × A₁ ⊕ … ⊕ cₖ × Aₖ        (the Aᵢ distinct linear atoms)

where a linear atom is a direction variable, a projection of an atom, an
atom applied to a value, or a stuck linear term (e.g. a Jacobian of a free
function).  Rule 5 composes a covector with a linear map by substituting and
re-normalising; this module is that normalisation.  The combination is kept
beside the Sum node (``_lcobj``), in a persistent map (``PMap``): one
reverse-phase step does work only for the coefficients of the variables the
elementary term used -- no copy of the table, and the sum's items are built
only when someone reads them (``Sum.lazy``).

No arithmetic is done here behind the reduction's back: the normaliser
*builds* the coefficient of a touched atom as a term (``k × c``, ``c + d``),
and rule 5 reduces those terms by rule 4 in a premise, so every
multiplication and addition of back-propagation is a step of the trace
(``settle``).  Only the identities 1 × c = c and 0 + c = c are used silently:
they are not operations.  Readers of finished covectors (``to_lincomb`` with
``fold=True``, the default) still fold numerals, for terms written by hand.
"""
from __future__ import annotations

import math
from typing import Any, Optional, Union

from ..deep import bottom_up_shared
from ..syntax import prims
from ..syntax.subst import alpha_representative, bind_pattern, fv, subst
from ..syntax.terms import (App, Dual, Jac, Lam, Pullback, Num, Prim, Proj, ProjPath, Sum, Term,
                            Tuple, Var, Zero, ZERO, TERM_CLASSES, chain_of, fresh, remake,
                            subterm_kids)
from ..syntax.terms import ISZERO, ISZERO_K

from .env import PatVars

#: the variables a term is linear in: a set, or a pattern's (PatVars)
Names = Union[frozenset, PatVars]

LinComb = dict  # atom Term -> coefficient Term (usually a Num)

ONE = Num(1.0)


# ---- coefficient arithmetic: numerals fold, anything else stays symbolic ------------

def _fold(t: Term) -> Term:
    """Evaluate a closed coefficient built from numerals and function symbols."""
    if isinstance(t, Prim) and all(isinstance(a, Num) for a in t.args):
        try:
            v = prims.EVAL[t.op](*(a.value for a in t.args))  # type: ignore[attr-defined]
        except (ArithmeticError, ValueError):
            return t
        if math.isfinite(v):
            return Num(v)
    return t


def _is_one(t: Term) -> bool:
    """t == ONE, without the generic structural equality."""
    return type(t) is Num and t.value == 1.0


def cmul(a: Term, b: Term, fold: bool = True) -> Term:
    """a × b; with ``fold`` numerals are multiplied here, otherwise the
    product is left as a term for rule 4 (1 × c is c either way)."""
    if _is_one(a):
        return b
    if _is_one(b):
        return a
    if fold and isinstance(a, Num) and isinstance(b, Num):
        return Num(a.value * b.value)
    t = Prim("mul", (a, b))
    return _fold(t) if fold else t


def cadd(a: Term, b: Term, fold: bool = True) -> Term:
    """a + b, likewise (0 + c is c)."""
    if _is_zero(a):
        return b
    if _is_zero(b):
        return a
    if fold and isinstance(a, Num) and isinstance(b, Num):
        return Num(a.value + b.value)
    return Prim("add", (a, b))


def _is_zero(c: Term) -> bool:
    return isinstance(c, Num) and c.value == 0.0


def _scale(d: LinComb, c: Term, fold: bool = True) -> LinComb:
    if _is_one(c):
        return d
    return {a: cmul(c, k, fold) for a, k in d.items()}


def _merge_into(acc: LinComb, d: LinComb, fold: bool = True) -> None:
    for a, k in d.items():
        old = acc.get(a)
        acc[a] = k if old is None else cadd(old, k, fold)


def _add_into(acc: LinComb, a: Term, k: Term, fold: bool = True) -> None:
    """_merge_into(acc, {a: k}) without the one-entry dict."""
    old = acc.get(a)
    acc[a] = k if old is None else cadd(old, k, fold)


# ---- term → linear combination ------------------------------------------------------

def to_lincomb(t: Term, lin: Names, fold: bool = True) -> LinComb:
    """Read ``t`` (linear in the variables ``lin``) as a linear combination.
    Without ``fold`` the coefficients that need arithmetic are terms (rule 5
    then reduces them by rule 4, visibly).

    ``t`` may be a graph: a tangent that uses a shared intermediate's tangent
    twice, a let read by substitution (its value one node at every use).
    Each node is expanded once, with the sum of the multipliers of all the
    paths that reach it -- reverse accumulation over the linear graph: its
    parents first, then the node -- so the coefficients are graphs of the
    same size, not one product per path (issue 26: a nested derivative
    differentiates every copy).  On a tree every node has one parent and
    this is the usual top-down distribution, left to right."""
    cached = _cached_lc(t)
    if cached is not None:
        return cached.coeffs
    tree = _tree_lincomb(t, lin, fold)
    return tree if tree is not None else _graph_lincomb(t, lin, fold)


def _graph_lincomb(t: Term, lin: Names, fold: bool) -> LinComb:
    """``to_lincomb``'s reading of any term: each node of the graph once."""
    mul = (lambda a, b: cmul(a, b, fold))
    edges: dict = {}  # id(node) -> (node, [(child, factor or None)]) or (node, None): a leaf
    parents: dict = {}  # id(node) -> how many edges reach it
    made: dict = {}  # the Jacobian atoms J(λq.S)·Dᵢ V built for the parts Dᵢ of a direction
    stack = [t]
    while stack:  # the graph below t, each node expanded once
        u = stack.pop()
        if id(u) in edges:
            continue
        out = _expand(u, lin, fold, made)
        edges[id(u)] = (u, out)
        if out:
            for c, _ in out:
                parents[id(c)] = parents.get(id(c), 0) + 1
            stack.extend(c for c, _ in reversed(out))
    acc: LinComb = {}
    mult: dict = {id(t): ONE}
    ready = [t]
    while ready:  # a node is read once every edge into it has brought its multiplier
        u = ready.pop()
        c = mult.pop(id(u))
        out = edges[id(u)][1]
        if out is None:
            _leaf_into(acc, u, c, fold)
            continue
        for child, f in reversed(out):
            k = c if f is None else mul(c, f)
            old = mult.get(id(child))
            mult[id(child)] = k if old is None else cadd(old, k, fold)
            n = parents[id(child)] - 1
            parents[id(child)] = n
            if not n:
                ready.append(child)
    if not any(_is_zero(k) for k in acc.values()):
        return acc
    return {a: k for a, k in acc.items() if not _is_zero(k)}


def _tree_lincomb(t: Term, lin: Names, fold: bool) -> Optional[LinComb]:
    """``to_lincomb`` of a tree of sums, negations and products by constants over
    variables -- a stage's Jacobian image, ``c × dx``, the shape of nearly every
    reverse step -- without the graph's bookkeeping: the same combination, in the
    same order (a tree's nodes are reached once, left to right, as there).  None
    for anything else, or a node met twice (a graph: the general reading)."""
    acc: LinComb = {}
    seen: set = set()
    stack: list[tuple[Any, Term]] = [(t, ONE)]  # (classes tested by identity: Any)
    while stack:
        u, c = stack.pop()
        if id(u) in seen or u._lcobj is not None:
            return None
        seen.add(id(u))
        tu = type(u)
        if tu is Var:
            old = acc.get(u)  # (a variable is its own α-representative)
            acc[u] = c if old is None else cadd(old, c, fold)
        elif tu is Sum:
            stack.extend((i, c) for i in reversed(u.items))
        elif tu is Prim and u.op == "mul":
            a, b = u.args
            fa = fv(a)
            if not fa or not (fa & lin):
                stack.append((b, cmul(c, _fold(a) if fold else a, fold)))
            elif not (fv(b) & lin):
                stack.append((a, cmul(c, _fold(b) if fold else b, fold)))
            else:
                return None
        elif tu is Zero:
            pass
        else:
            return None
    for k in acc.values():
        if type(k) is Num and k.value == 0.0:  # (_is_zero)
            return {a: k for a, k in acc.items() if not _is_zero(k)}
    return acc


def _expand(u: Term, lin: Names, fold: bool, made: Optional[dict] = None):
    """How ``to_lincomb`` reads one node: None, a leaf (an atom, a numeral, a
    node with its combination cached); otherwise the parts it is linear in,
    each with the factor it is multiplied by (None: 1)."""
    if _cached_lc(u) is not None:
        return None
    if made is not None and type(u) is App and type(u.fun) is Jac:
        return _jacobian_parts(u, lin, fold, made)
    if isinstance(u, Zero):
        return []
    if isinstance(u, Sum):
        return [(i, None) for i in u.items]
    if isinstance(u, Prim) and u.op in ("mul", "div", "neg", "add", "sub"):
        a = u.args
        F = _fold if fold else (lambda v: v)
        if u.op == "mul":
            if not (fv(a[0]) & lin):
                return [(a[1], F(a[0]))]
            if not (fv(a[1]) & lin):
                return [(a[0], F(a[1]))]
            return None  # not linear: an atom
        if u.op == "div":
            return [(a[0], F(Prim("div", (ONE, a[1]))))] if not (fv(a[1]) & lin) else None
        if u.op == "neg":
            return [(a[0], Num(-1.0))]
        if u.op == "add":
            return [(a[0], None), (a[1], None)]
        return [(a[0], None), (a[1], Num(-1.0))]  # sub
    if isinstance(u, Proj):
        x = u.arg
        if isinstance(x, Tuple):
            return [(x.items[u.index - 1], None)]
        if isinstance(x, Sum):
            return [(Proj(u.index, i), None) for i in x.items]
        if isinstance(x, Zero):
            return []
        x2 = _reduce_atom(x, lin)
        return [(Proj(u.index, x2), None)] if x2 is not x else None
    if isinstance(u, App):
        f = _reduce_atom(u.fun, lin)
        if f is u.fun and type(f) is Lam and type(f.body) is App and type(f.body.fun) is Lam:
            return [(_beta_series(u), None)]
        if isinstance(f, Lam):
            return [(subst(f.body, bind_pattern(f.pat, u.arg)), None)]
        if isinstance(f, Sum):
            return [(App(g, u.arg), None) for g in f.items]
        if isinstance(f, Zero):
            return []
        if isinstance(f, Dual):
            inner = subst(f.lam.body, bind_pattern(f.lam.pat, u.arg))
            return [(App(f.functional, inner), None)]
        return [(App(f, u.arg), None)] if f is not u.fun else None
    return None


def _beta_series(u: App) -> Term:
    """β on every let of the series ``let x₁ = A₁ in … let xₖ = Aₖ in B`` at once:
    B under one simultaneous substitution, xᵢ ↦ Aᵢ with the earlier ones
    substituted in it -- the same term as k β-steps, each of which rebuilt the
    rest of the series (quadratic in k: a tangent's lets, 8J's shared directions,
    read into a covector's combination)."""
    env: dict = {}
    t: Term = u
    while type(t) is App and type(t.fun) is Lam:
        env.update(bind_pattern(t.fun.pat, subst(t.arg, env) if env else t.arg))
        t = t.fun.body
    return subst(t, env)


def _jacobian_parts(u: App, lin: Names, fold: bool, made: dict):
    """(J(λq.S)·D) V with only the direction D linear in ``lin``: a Jacobian is
    linear in its direction, so the atom is read through D's own linear
    structure -- J·(D₁ ⊕ D₂) V = J·D₁ V ⊕ J·D₂ V, J·(c × D) V = c × J·D V --
    down to the atoms J·d V of its variables.  Left whole, the atom would
    carry D as a term into the next composition, which substitutes each
    variable's image at every occurrence: a chain whose stages read their
    value twice (a × da ⊕ a × da) doubled D per stage (issue 26; the gradient
    of Ω(λg. g a_k) at an a_k computed by such a chain).  ``made`` keeps one
    atom per node of D, so a shared part is read once."""
    jac: Jac = u.fun  # type: ignore[assignment]
    D, V = jac.along, u.arg
    if not (fv(D) & lin) or fv(jac.lam) & lin or fv(V) & lin:
        return None
    if isinstance(D, Sum):
        parts = [(i, None) for i in D.items]
    elif isinstance(D, Zero):
        return []
    elif isinstance(D, Prim) and D.op in ("mul", "div", "neg", "add", "sub"):
        parts = _expand(D, lin, fold)
        if parts is None:
            return None
    else:
        return None
    out = []
    for d, f in parts:
        key = (id(jac.lam), id(V), id(d))
        atom = made.get(key)
        if atom is None:
            atom = made[key] = (App(Jac(jac.lam, d), V), d)  # (d: kept alive with its id)
        out.append((atom[0], f))
    return out


def _leaf_into(acc: LinComb, u: Term, c: Term, fold: bool) -> None:
    """Add c × u to ``acc`` for a leaf u of ``to_lincomb``'s graph."""
    lc = _cached_lc(u)
    if lc is not None:
        _merge_into(acc, _scale(lc.coeffs, c, fold), fold)
    elif isinstance(u, Num):
        if u.value != 0.0:
            _add_into(acc, ONE, cmul(c, u, fold), fold)  # affine part; linear terms have none
    else:
        _add_into(acc, alpha_representative(u), c, fold)


def _reduce_atom(x: Term, lin: Names) -> Term:
    """The head of a linear atom: projections of tuples, 0 absorbing in
    function and projection positions, β for an abstraction in the head.
    Unchanged parts are returned as they are (the same node).  Iterative: down
    the spine (projected term, function, the 1-form / direction of a pullback /
    Jacobian) to its head, then up through the ``frames`` rebuilding; a
    projected tuple or a β-redex restarts at its reduct, in the frames above."""
    frames: list = []
    while True:
        while isinstance(x, (Proj, App, Pullback, Jac)):  # down to the head
            frames.append(x)
            x = x.fun if isinstance(x, App) else x.children()[-1]
        r = x  # the reduced head
        while frames:
            u = frames.pop()
            if isinstance(u, Proj):
                if isinstance(r, Tuple):
                    x = r.items[u.index - 1]
                    break
                r = ZERO if isinstance(r, Zero) else (u if r is u.arg else Proj(u.index, r))
            elif isinstance(u, App):
                if isinstance(r, Lam):
                    x = subst(r.body, bind_pattern(r.pat, u.arg))
                    break
                r = ZERO if isinstance(r, Zero) else (u if r is u.fun else App(r, u.arg))
            elif is_zero(r):  # Pullback, Jac: linear in the last
                r = ZERO
            elif r is not u.children()[-1]:
                r = Pullback(u.fun, r) if isinstance(u, Pullback) else Jac(u.lam, r)
            else:
                r = u
        else:
            return r


def is_zero(v: Term) -> bool:
    """A zero vector: 𝟎, the numeral 0, a tuple of zeros, or an operator
    applied along / pulling back a zero (J(λq.S)·0, Ω(S)0, (λq.S)⋆0).

    The answer is cached on tuple and operator nodes (the ``ISZERO`` flag, like the
    machine's ``NF``): terms are immutable, and rule 8 nests pullbacks one
    level per let, so without the cache every step would walk the nest."""
    f = v._flags
    if f & ISZERO_K:
        return bool(f & ISZERO)
    if type(v) not in _ZERO_NODES:
        return _zero_known(v) is True  # a leaf (a direction variable, a numeral, …): no walk
    stack = [v]  # post-order without recursion
    while stack:
        u = stack.pop()
        if u._flags & ISZERO_K:
            continue
        kids = _zero_kids(u)
        if kids is None:
            continue  # a leaf: answered by _zero_known
        known = [_zero_known(k) for k in kids]
        if False in known:
            u._flags |= ISZERO_K  # a non-zero part: no need to look further
        elif None not in known:  # (so on the way back up)
            u._flags |= ISZERO_K | ISZERO
        else:
            stack.append(u)
            stack.extend(kids)
    return _zero_known(v) is True  # (known now)


_ZERO_NODES = (Tuple, Jac, Pullback, Dual)  # the nodes whose zeroness is their parts


def _zero_kids(u: Any):
    """The parts whose zeroness decides u's, or None for a leaf."""
    tu = type(u)  # (no class derives from a term class)
    if tu is Tuple:
        return u.items
    if tu is Jac:
        return (u.along,)
    if tu is Pullback:
        return (u.form,)
    if tu is Dual:
        return (u.functional,)
    return None


def _zero_known(u: Any) -> Optional[bool]:
    """Is u zero, if known without looking deeper (None: not yet cached)?"""
    tu = type(u)
    if tu is Zero:
        return True
    if tu is Num:
        return u.value == 0.0
    if tu in _ZERO_NODES:
        f = u._flags
        return bool(f & ISZERO) if f & ISZERO_K else None
    return False


_MISSING = object()


class PMap:
    """A persistent map by Baker's rerooting ("diff arrays"): every version
    is a node; the newest one reached holds the real dict, every other one
    the difference to the next version towards it (a key and its value
    there, or _MISSING).  Updating the newest version is O(1) and leaves the
    old one valid (it becomes a difference); reading an old version reroots
    the chain to it, O(its distance).  A reduction's covectors are used
    linearly -- each version is read once, to make the next -- so rule 5
    costs the changes it makes, not the width of the covector; a recorded
    trace keeps every version alive at O(1) memory each.  No version points
    back to an older one: an unused old version is freed by reference
    counting (no cycles: the cyclic collector is paused, gcpause.py)."""
    __slots__ = ("d", "key", "old", "next")
    d: Optional[dict]
    key: Any
    old: Any
    next: Optional[PMap]

    def __init__(self, d: Optional[dict] = None):
        self.d, self.key, self.old, self.next = ({} if d is None else d), None, None, None

    def dict(self) -> dict:
        """This version's dict (reroots the chain here; do not keep it)."""
        if self.d is not None:
            return self.d
        path = []
        u = self
        while u.d is None:
            path.append(u)
            u = u.next  # type: ignore[assignment]  # (the newest version has d)
        d = u.d
        for node in reversed(path):  # u is the root; node is the version before it
            k, old = node.key, node.old
            cur = d.get(k, _MISSING)
            if old is _MISSING:
                del d[k]
            else:
                d[k] = old
            u.d, u.key, u.old, u.next = None, k, cur, node
            node.d, node.key, node.old, node.next = d, None, None, None
            u = node
        return d

    def update(self, changes: list) -> "PMap":
        """The version with the (key, value or _MISSING) ``changes`` applied."""
        d = self.dict()
        u = self
        for k, v in changes:
            cur = d.get(k, _MISSING)
            if v is _MISSING:
                if cur is _MISSING:
                    continue
                del d[k]
            else:
                d[k] = v
            new = PMap.__new__(PMap)
            new.d, new.key, new.old, new.next = d, None, None, None
            u.d, u.key, u.old, u.next = None, k, cur, new
            u = new
        return u


class LC:
    """A linear combination: for each atom its coefficient, in order (the
    order of the summands of its term), and the variables occurring in
    non-variable atoms.  Kept in a persistent map (``PMap``) of atom ->
    (position, coefficient): an atom keeps its position while it stays, a
    new one comes last -- the order of a dict copied and updated -- and the
    ordered dict ``coeffs`` is built only when asked for."""
    __slots__ = ("pm", "cx", "n", "seq", "_coeffs")

    def __init__(self, pm: PMap, cx: frozenset, n: int, seq: int):
        self.pm, self.cx, self.n, self.seq = pm, cx, n, seq
        self._coeffs: Optional[dict] = None

    @staticmethod
    def of(d: LinComb, cx: frozenset) -> "LC":
        lc = LC(PMap({a: (i, k) for i, (a, k) in enumerate(d.items())}), cx, len(d), len(d))
        lc._coeffs = d
        return lc

    @property
    def coeffs(self) -> LinComb:
        """atom -> coefficient, in the order of the summands."""
        c = self._coeffs
        if c is None:
            items = sorted(self.pm.dict().items(), key=lambda e: e[1][0])
            c = self._coeffs = {a: e[1] for a, e in items}
        return c

    def summands(self) -> tuple:
        return tuple(_summand(a, k) for a, k in self.coeffs.items())


class _Single:
    """The cached combination of a term that is itself its only summand: the
    atom (coefficient 1) or the numeral (the atom 1).  A marker, not an LC
    holding the term, which would be a reference cycle."""
    __slots__ = ("const",)

    def __init__(self, const: bool):
        self.const = const


_SELF_ATOM, _SELF_CONST = _Single(False), _Single(True)
# the classes whose nodes keep a combination (a λ, tuple or application summand is rare:
# it is read again, not kept; syntax/terms.py)
_HAS_LC = frozenset(c for c in TERM_CLASSES if "_lcobj" in c.__slots__)


def reads(t: Term, names) -> bool:
    """Does the linear term t (a functional's body) mention one of ``names``?
    From its combination when it keeps one (a covector of the reverse phase:
    a look-up per name, however many coordinates it has), else by its free
    variables."""
    lc = _cached_lc(t)
    if lc is None:
        return not fv(t).isdisjoint(names)
    d, cx = lc.pm.dict(), lc.cx
    if any(Var(x) in d for x in names):
        return True
    inside = [x for x in names if x in cx]
    # (cx may keep the names of compound atoms that have cancelled since: the
    # answer decides a redex, so it must be the term's, asked of the atoms left)
    return bool(inside) and any(not isinstance(a, Var) and not fv(a).isdisjoint(inside)
                                for a in d)


def _cached_lc(t: Term) -> Optional[LC]:
    lc = t._lcobj
    if lc is None or isinstance(lc, LC):
        return lc
    return _lc_from_dict({ONE: t} if lc.const else {t: ONE})


def _summand(a: Term, k: Term) -> Term:
    return a if _is_one(k) else (k if _is_one(a) else Prim("mul", (k, a)))


def _lc_from_dict(d: LinComb) -> LC:
    cx: frozenset = frozenset()
    for a in d:
        if not isinstance(a, Var):
            cx |= fv(a)
    return LC.of(d, cx)


def lincomb_of(t: Term, lin: Names) -> LC:
    lc = _cached_lc(t)
    if lc is None:
        lc = _lc_from_dict(to_lincomb(t, lin))
    return lc


def term_of(lc: LC) -> Term:
    """Σ cᵢ × Aᵢ as a term, with the combination cached on it for the next step.
    A sum's items are built when first read (``Sum.lazy``): the reverse phase
    reads only the combination, so a step costs what it changes."""
    n = lc.n
    if n == 0:
        return ZERO
    if n == 1:
        a, k = next(iter(lc.coeffs.items()))
        t = _summand(a, k)
        if t._lcobj is None and type(t) in _HAS_LC:
            t._lcobj = _SELF_ATOM if t is a else _SELF_CONST if t is k else lc
        return t
    t = Sum.lazy(lc)
    t._lcobj = lc
    return t


def from_lincomb(d: LinComb) -> Term:
    return term_of(_lc_from_dict(d))


def normalize(t: Term, lin: Names) -> Term:
    return from_lincomb(to_lincomb(t, lin))


# ---- rule 3's formal sums: what normalising needs to know, beside the node ----------

#: how rule 3 tells a summand's atom from another: up to α
atom_key = alpha_representative


def split_summand(t: Term) -> tuple[Optional[Num], Term]:
    """A summand as (coefficient, atom); None for a bare atom A -- only an
    occurrence c × A shows that A is a real, which × needs (rule 3)."""
    if type(t) is Prim and t.op == "mul" and type(t.args[0]) is Num:
        return t.args[0], t.args[1]
    return None, t


class SumFacts:
    """Rule 3's facts about a formal sum's summands, cached beside the Sum
    node (``_s3``; terms are immutable).

    ``normal``: rule 3 has nothing to do -- no summand is a sum or 𝟎, at most
    one is a numeral, one a tuple, one an abstraction, and no atom occurs
    twice with an occurrence under × (``rules.sum_needs_normalizing``).
    ``plain``: moreover no numeral, tuple or abstraction, no atom twice, no
    coefficient 0 or 1 -- normalising a longer sum that contains this one
    leaves its summands as they are, in their order.  A plain sum's atoms
    are kept (``atoms``, built when first asked for) in a persistent map
    (``PMap``): the plain sum one summand longer -- a fold's tangent grows
    so, by rule 3, at each element -- is checked and built from it without
    a walk of the summands (``plain_concat``)."""
    __slots__ = ("normal", "plain", "_items", "_pm")

    def __init__(self, normal: bool, plain: bool, items: tuple = (), pm=None):
        self.normal, self.plain, self._items, self._pm = normal, plain, items, pm

    def atoms(self) -> PMap:
        """The atoms of a plain sum (a key per atom)."""
        pm = self._pm
        if pm is None:
            pm = self._pm = PMap({atom_key(split_summand(u)[1]): True for u in self._items})
            self._items = ()
        return pm


_NEEDS_NORMALIZING = SumFacts(False, False)
_NORMAL = SumFacts(True, False)


def sum_facts(t: Sum) -> SumFacts:
    """t's ``SumFacts``: cached, else read from its summands (once per node)."""
    f = t._s3
    if f is None:
        f = t._s3 = _facts_of(t.items)
    return f


def _facts_of(items: tuple) -> SumFacts:
    nums = tuples = lams = 0
    plain = True
    atoms: dict = {}  # atom -> is it known to be real (some occurrence under ×)?
    for u in items:
        tu = type(u)
        if tu is Sum or tu is Zero:
            return _NEEDS_NORMALIZING
        if tu is Num:
            nums += 1
        elif tu is Tuple:
            tuples += 1
        elif tu is Lam:
            lams += 1
        else:
            c, a = split_summand(u)
            a = atom_key(a)
            real = c is not None
            seen = atoms.get(a)
            if seen is not None:
                if real or seen:
                    return _NEEDS_NORMALIZING
                plain = False  # A ⊕ A stays (nothing shows that A is real)
            elif c is not None and (c.value == 0.0 or c.value == 1.0):  # (real)
                plain = False  # normalising would drop 0 × A or write 1 × A as A
            atoms[a] = seen or real
    if nums > 1 or tuples > 1 or lams > 1:
        return _NEEDS_NORMALIZING
    if plain and not (nums or tuples or lams):
        return SumFacts(True, True, items)
    return _NORMAL


def plain_concat(items: tuple) -> Optional[Term]:
    """Rule 3's normal form of the formal sum of ``items`` when they are one
    plain sum S (``SumFacts.plain``) and summands A or c × A (c a numeral
    other than 0 and 1) of atoms new to S and to each other: then nothing is
    collected, and the normal form is the summands flattened, in order.
    Built by one look-up per new summand in S's atoms (its facts are updated,
    persistently, for the result), not by a walk of S; None otherwise."""
    base = None
    for u in items:
        if type(u) is Sum:
            if base is not None:
                return None
            base = u
    if base is None:
        return None
    bf = sum_facts(base)
    if not bf.plain:
        return None
    others = [u for u in items if u is not base]
    new = []
    for u in others:
        tu = type(u)
        if tu is Zero or tu is Num or tu is Tuple or tu is Lam:
            return None
        c, a = split_summand(u)
        if c is not None and (c.value == 0.0 or c.value == 1.0):
            return None
        new.append(atom_key(a))
    pm = bf.atoms()
    known = pm.dict()
    if len(set(new)) != len(new) or any(a in known for a in new):
        return None
    out: list = []
    for u in items:
        if u is base:
            out.extend(base.items)
        else:
            out.append(u)
    t = Sum(tuple(out))
    t._s3 = SumFacts(True, True, pm=pm.update([(a, True) for a in new]))
    return t


# ---- rule 5's composition --------------------------------------------------------------

def _match(pat: Term, val: Term, out: dict) -> None:
    """[val/pat], skipping sub-patterns that ``val`` reproduces identically --
    the environment part ⟨p̂, …⟩ of a rule-8 stage maps to itself."""
    stack = [(pat, val)]
    while stack:
        p, v = stack.pop()
        if p is v:
            continue
        if isinstance(p, Var):
            if not (isinstance(v, Var) and v.name == p.name):
                out[p.name] = v
        elif isinstance(v, Tuple) and isinstance(p, Tuple) and len(v.items) == len(p.items):
            stack.extend(zip(p.items, v.items))
        else:
            bind_pattern(p, v, out)


def compose(functional: Lam, map_body: Term, map_lin: Names, reduce=None,
            settle=None, project=None) -> Term:
    """⟦T[S/w]⟧ for the functional λw.T and the linear map body S (linear in
    ``map_lin``): the body of the composite covector, in linear normal form.
    ``reduce`` reduces the image of a compound atom (rule 5's premise).
    ``settle`` reduces the coefficient terms that the composition built
    (``k × c``, ``c + d``) to values -- rule 5's arithmetic premise, by rule 4;
    without it the numerals are folded here (for callers outside a reduction).
    An atom that is a chain of projections of a re-bound variable is moved
    without its premise when that has no step to take (``_moved_chain``), or
    when ``project`` is given -- the premise's steps are not recorded -- which
    takes rule 2's steps πᵢ ⟨…⟩ → Vᵢ, counted.

    Only the atoms that mention a re-bound variable are touched: at a rule-8
    stage that is the one variable the stage introduced, so a reverse step
    costs the size of the elementary term, not the size of the covector.
    """
    fold = settle is None
    m: dict = {}
    _match(functional.pat, map_body, m)
    lc = _cached_lc(functional.body)  # (the covector of the previous step: cached)
    if lc is None:  # a functional as written: its own arithmetic is rule 4's too
        first = to_lincomb(functional.body, PatVars(functional.pat), fold)
        _settle(first, list(first), settle)
        lc = _lc_from_dict(first)
    if not m:
        return term_of(lc)
    if m.keys() & lc.cx:  # a re-bound variable inside a compound atom: general path
        out: LinComb = {}
        for atom, k in lc.coeffs.items():
            hit = fv(atom) & m.keys()
            if not hit:
                _merge_into(out, {atom: k}, fold)
            else:
                moved = _moved_chain(atom, m, project)
                if moved is not None and moved[0]:  # a chain of a variable: an atom
                    _add_into(out, moved[1], k, fold)
                    continue
                image = moved[1] if moved is not None else subst(atom, {x: m[x] for x in hit})
                if reduce is not None:  # substituting into a compound atom can make a redex
                    image = reduce(image)
                _merge_into(out, _scale(to_lincomb(image, map_lin, fold), k, fold), fold)
        cx2 = _lc_from_dict(out).cx  # (of every atom, also those that settle to 0)
        _settle(out, list(out), settle)
        return term_of(LC.of(out, cx2))
    base = lc.pm.dict()  # the current version (the changes are collected first)
    cx, n, seq = lc.cx, lc.n, lc.seq
    # simultaneous substitution: take every re-bound coordinate out first,
    # then add the images (which may mention the same names, meaning others)
    removed: list = []
    taken = []
    for x, image in m.items():
        a = Var(x)
        e = base.get(a)
        if e is not None:
            removed.append(a)
            n -= 1
            taken.append((e[1], image))
    touched: dict = {}  # atom -> [position, coefficient], in the order first touched
    for k, image in taken:
        for a, c in _scale(to_lincomb(image, map_lin, fold), k, fold).items():
            entry = touched.get(a)
            if entry is not None:
                entry[1] = cadd(entry[1], c, fold)
            else:
                e = base.get(a)
                if e is not None and not any(a == r for r in removed):
                    touched[a] = [e[0], cadd(e[1], c, fold)]  # an atom keeps its place
                else:
                    touched[a] = [seq, c]  # a new atom comes last
                    seq += 1
                    n += 1
            if not isinstance(a, Var):
                cx = cx | fv(a)
    entries = list(touched.values())
    pending = [e for e in entries if isinstance(e[1], (Prim, Sum))] if settle else []
    if pending:  # rule 5's arithmetic: the new coefficients, reduced together
        for e, v in zip(pending, settle([e[1] for e in pending])):
            e[1] = v
    changes = [(r, _MISSING) for r in removed if r not in touched]
    for a, e in touched.items():
        if _is_zero(e[1]):  # a zero coefficient drops its atom
            changes.append((a, _MISSING))
            n -= 1
        else:
            changes.append((a, (e[0], e[1])))
    return term_of(LC(lc.pm.update(changes), cx, n, seq))


def _moved_chain(atom: Term, m: dict, project) -> Optional[tuple]:
    """The image of the atom πₐₖ (… (πₐ₁ v)) under v ↦ m[v], as rule 5's premise
    would reduce it, without a walk of the chain: (True, the new atom) when the
    image is a chain of a variable again (v ↦ w, v ↦ π₁ w, v ↦ ⟨w, 𝟎⟩ -- the
    tuple projected by ``project``, rule 2's step), made in one node on the same
    path (``Proj.chain``); (False, the image) when rule 2 left a term the
    premise must reduce; None when the atom is no such chain, or when a tuple
    is to be projected and there is no ``project`` (a trace is kept: the
    premise runs, and records the step).  A premise with nothing to do is
    recorded by no one, so the first case is the same reduction either way.  So
    a covector π₁ (… (π₁ dv)) as deep as a nest of tuples is moved through each
    stage in constant work (tuple-proj; issue 30), not rebuilt."""
    c = chain_of(atom)
    if c is None:
        return None
    v, path = c
    img = m[v.name]
    if project is None and type(img) is Tuple:  # (a step the trace must show)
        return None
    while path is not None and type(img) is Tuple:
        img = project(path.index, img)  # (rule 2, counted: the premise's step)
        path = path.outer
    inner = chain_of(img)
    if inner is None and type(img) is not Var:  # nor a chain of one: the premise's work
        x = img
        while path is not None:  # innermost first
            x = Proj(path.index, x)
            path = path.outer
        return False, x
    if path is None:
        return True, img
    if inner is not None:  # img's projections go inside the chain's
        w, q = inner
        for i in reversed(list(q.indices())):
            path = ProjPath(i, path)
    else:
        w = img
    return True, Proj.chain(w, path)


def _settle(coeffs: dict, atoms: list, settle) -> None:
    """Give the touched ``atoms`` value coefficients in ``coeffs``: the ones
    that are arithmetic terms or formal sums are reduced together by ``settle``
    (one premise; a sum left as built was reduced later as a tree, a step per
    path of its graph); zero coefficients drop their atom."""
    pending = [a for a in atoms if isinstance(coeffs[a], (Prim, Sum))] if settle else []
    if pending:
        for a, v in zip(pending, settle([coeffs[a] for a in pending])):
            coeffs[a] = v
    for a in atoms:
        if _is_zero(coeffs[a]):
            del coeffs[a]


def share(coefficients: list) -> tuple[list, list]:
    """The coefficient terms as one term that computes every operation once:
    ``let k₁ = e₁ in … let kₘ = eₘ in ⟨c₁, …, cₙ⟩``, where the eᵢ are the
    compound sub-terms (operations, and formal sums: at an open point a
    coefficient can be a tangent in an outer direction, A ⊕ A′ read by two
    summands) that occur more than once among the coefficients -- shared as one node
    by the composition (a scalar k distributed over a nested combination is the
    same term in every product it enters) or equal -- each named once, children
    before parents.  Returns (the bindings, the tuple) for the caller to build
    the let series.

    Without this, reducing the tuple would redo a shared product in every
    coefficient it enters: distributing the nested tangent
    c₁ × (A₁ ⊕ c₂ × (A₂ ⊕ c₃ × …)) of a fold gives the coefficients c₁c₂,
    c₁c₂c₃, …, whose reduction as separate trees takes n²/2 rule-4 steps.

    Open operations are named too (the caller takes the lets that stay around
    the reduced tuple: rule 1 keeps an inert value used twice).  An inert
    coefficient at an open point is a graph -- the composition
    shares a node among the products it enters -- and evaluated as a tree,
    once its point is known, it would take a step per path: exponentially
    many for a derivative of a chain whose stages read their input twice,
    differentiated again (issue 26)."""
    if len(coefficients) == 1 and not (isinstance(coefficients[0], (Prim, Sum)) and any(
            isinstance(a, (Prim, Sum)) for a in coefficients[0].children())):
        return [], list(coefficients)  # one operation (or none): nothing to share
    keys = _structural_keys(coefficients)
    uses: dict = {}
    order: list = []  # compound sub-terms, children before parents
    stack = [(c, False) for c in reversed(coefficients)]
    while stack:
        u, done = stack.pop()
        if not isinstance(u, (Prim, Sum)):
            continue
        if done:
            order.append(u)
            continue
        k = keys[id(u)]
        n = uses.get(k, 0)
        uses[k] = n + 1
        if n == 0:  # first visit: count the children's uses once per distinct node
            stack.append((u, True))
            stack.extend((a, False) for a in reversed(u.children()))
    names: dict = {}
    bindings: list = []
    for u in order:  # children first: _rebuild finds their names
        k = keys[id(u)]
        if uses[k] > 1 and k not in names:
            bound = remake(u, [_rebuild(a, names, keys) for a in u.children()])
            x = Var(fresh("k"))
            bindings.append((x, bound))
            names[k] = x
    rebuilt = _rebuild(Tuple(tuple(coefficients)), names, keys)  # (shared across them too)
    return bindings, list(rebuilt.children())


def share_graph(u: Term) -> Term:
    """u, with each operation or sum that the graph u reaches by several paths
    named once by a let around u (children first), when u has far more paths
    than nodes (twice as many, and 64 more): rule 5's image of a compound atom
    at an open point (a Jacobian along a tangent that a forward premise built
    by substitution, each stage reading the one before twice) is such a graph,
    and reduced as a tree it took a step per path -- 3·2¹² rule-3 steps on
    ``cos(m) × 𝟎`` for a 6-stage chain.  Only nodes outside every λ of u are
    named (each is evaluated anyway, call by value: naming one first changes
    when, not whether)."""
    paths: dict = {}   # id -> number of paths from the node down (its tree size)
    parents: dict = {}  # id -> incoming edges
    nodes: dict = {}
    stack: list = [(u, False)]
    while stack:
        v, done = stack.pop()
        i = id(v)
        if done:
            paths[i] = 1 + sum(paths[id(k)] for k in subterm_kids(v))
            continue
        if i in nodes:
            continue
        nodes[i] = v
        stack.append((v, True))
        for k in subterm_kids(v):
            parents[id(k)] = parents.get(id(k), 0) + 1
            if id(k) not in nodes:
                stack.append((k, False))
    if paths[id(u)] <= 2 * len(nodes) + 64:
        return u
    bindings: list = []
    memo: dict = {}
    order: list = []  # post-order over the distinct nodes outside every λ
    stack = [(u, False)]
    seen: set = set()
    while stack:
        v, done = stack.pop()
        if done:
            order.append(v)
            continue
        if id(v) in seen:
            continue
        seen.add(id(v))
        stack.append((v, True))
        if not isinstance(v, Lam):  # (a λ's body is not evaluated: nothing is moved out of it)
            stack.extend((k, False) for k in subterm_kids(v))
    for v in order:
        kids = () if isinstance(v, Lam) else subterm_kids(v)
        new = remake(v, [memo[id(k)] for k in kids]) if any(
            memo[id(k)] is not k for k in kids) else v
        if isinstance(v, (Prim, Sum)) and parents.get(id(v), 0) > 1 and v is not u:
            x = Var(fresh("s"))
            bindings.append((x, new))
            new = x
        memo[id(v)] = new
    out = memo[id(u)]
    for x, e in reversed(bindings):
        out = App(Lam(x, out), e)
    return out


def _structural_keys(roots: list) -> dict:
    """How ``share`` tells operations apart: equal trees are one computation,
    whether or not they are one node.  Each distinct operation or sum node of the
    graph (by ``id``) gets a small integer, children first -- equal for equal
    operators on equal arguments (operations by their integers, other leaves
    by their own, cheap, equality) -- so that comparing two costs their arity.
    (Structural equality of terms walks both trees path by path: on the open
    coefficients of a nested derivative, graphs with exponentially many paths,
    the CI profile's run hung in it.)"""
    memo: dict = {}  # id(node) -> key
    table: dict = {}  # (op, argument keys) -> key
    stack = [(c, False) for c in roots]
    while stack:
        u, done = stack.pop()
        if not isinstance(u, (Prim, Sum)) or id(u) in memo:
            continue
        kids = u.children()
        if not done:
            stack.append((u, True))
            stack.extend((a, False) for a in kids if isinstance(a, (Prim, Sum))
                         and id(a) not in memo)
            continue
        op = u.op if isinstance(u, Prim) else "⊕"
        sig = (op, tuple(memo[id(a)] if isinstance(a, (Prim, Sum)) else a for a in kids))
        memo[id(u)] = table.setdefault(sig, len(table))
    return memo


def _rebuild(u: Term, names: dict, keys: dict) -> Term:
    """u with its named sub-terms replaced by their names; iterative, and no
    closure that calls itself (a reference cycle).  A node reached by several
    paths stays one node: rebuilt once
    (deep.bottom_up_shared), not once per path.  ``names``: the name of each
    named operation, by its key in ``keys`` (``_structural_keys``)."""
    def named(v: Term):
        if not isinstance(v, (Prim, Sum, Tuple)):
            return None, v
        x = names.get(keys.get(id(v)))
        return (None, x) if x is not None else (v.children(), v)
    return bottom_up_shared(u, named, remake, id)


def coefficient(d: LinComb, atom: Term) -> Optional[Term]:
    return d.get(atom)
