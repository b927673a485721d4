"""Free variables, lin(S), capture-avoiding substitution, α-equivalence."""
from __future__ import annotations

from typing import Mapping, Optional

from . import prims
from .terms import (App, Dual, Jac, Lam, Num, Prim, Proj, Pullback, Sum, Term, Tuple, Var,
                    Zero, binds, fresh, pattern_vars)

_EMPTY: frozenset = frozenset()


def fv(t: Term) -> frozenset:
    """Free variables, cached on each node; iterative (post-order)."""
    r = t.__dict__.get("_fv")
    if r is not None:
        return r
    stack: list[tuple[Term, bool]] = [(t, False)]
    while stack:
        u, ready = stack.pop()
        if "_fv" in u.__dict__:
            continue
        if isinstance(u, Var):
            object.__setattr__(u, "_fv", frozenset((u.name,)))
        elif isinstance(u, (Num, Zero)):
            object.__setattr__(u, "_fv", _EMPTY)
        elif not ready:
            stack.append((u, True))
            kids = u.children() if not isinstance(u, Lam) else (u.body,)
            stack.extend((c, False) for c in kids if "_fv" not in c.__dict__)
        else:
            if isinstance(u, Lam):  # via the pattern's index: no walk of a deep pattern
                s = frozenset(x for x in u.body.__dict__["_fv"] if not binds(u.pat, x))
            else:
                s = _EMPTY
                for c in u.children():
                    cf = c.__dict__["_fv"]
                    if cf:
                        s = cf if not s else s | cf
            object.__setattr__(u, "_fv", s)
    return t.__dict__["_fv"]


# ---- lin(S) ----------------------------------------------------------------------

def linear(t: Term, xs: frozenset) -> bool:
    """Is ``t`` linear, jointly, in the variables ``xs``?  (x ∈ lin(S) is
    ``linear(S, {x})``.)  The function of an application is a linear
    position, its argument is not -- except in ``let q = E in L``, linear
    when E is and L is, jointly in the variables and q; dual maps and J(λq.S)·P are bilinear (in
    the map and in the functional / direction); Ω(S)P is linear in P; 𝟎 and
    the numeral 0 (what rule 3 makes of 𝟎 at ℝ) are linear in everything, and
    so is a product with such a factor (c × 0 = 0); other constants are not.
    """
    if isinstance(t, Zero):
        return True
    if isinstance(t, Var):
        return t.name in xs
    if isinstance(t, Num):
        return t.value == 0.0
    if isinstance(t, Sum):
        return all(linear(i, xs) for i in t.items)
    if isinstance(t, Tuple):
        return all(linear(i, xs) for i in t.items)
    if isinstance(t, Proj):
        return linear(t.arg, xs)
    if isinstance(t, App):
        if not fv(t.arg) & xs:
            return linear(t.fun, xs)
        if isinstance(t.fun, Lam):  # let q = E in L: linear maps compose
            return linear(t.arg, xs) and linear(t.fun.body, xs | frozenset(pattern_vars(t.fun.pat)))
        return False
    if isinstance(t, Lam):
        inner = xs - frozenset(pattern_vars(t.pat))
        return bool(inner) and linear(t.body, inner)
    if isinstance(t, Jac):  # linear in the direction, and in the map (differentiation is linear)
        return ((not (fv(t.lam) & xs) and linear(t.along, xs))
                or (not (fv(t.along) & xs) and linear(t.lam, xs)))
    if isinstance(t, Pullback):
        return not (fv(t.fun) & xs) and linear(t.form, xs)
    if isinstance(t, Dual):
        return ((not (fv(t.lam) & xs) and linear(t.functional, xs))
                or (not (fv(t.functional) & xs) and linear(t.lam, xs)))
    if isinstance(t, Prim):
        kind = prims.LINEARITY[t.op]
        if kind == "joint":
            return all(linear(a, xs) for a in t.args)
        if kind == "each":
            hits = [i for i, a in enumerate(t.args) if fv(a) & xs]
            if not hits:  # constant: linear only if a factor is a zero vector (c × 0 = 0)
                return any(linear(a, xs) for a in t.args)
            return len(hits) == 1 and linear(t.args[hits[0]], xs)
        if kind == "first":
            return linear(t.args[0], xs) and not any(fv(a) & xs for a in t.args[1:])
        return False
    raise TypeError(t)


# ---- substitution ----------------------------------------------------------------

def bind_pattern(pat: Term, value: Term, out: Optional[dict] = None) -> dict:
    """The substitution [value/pat]: destructure tuples, project otherwise."""
    out = {} if out is None else out
    stack = [(pat, value)]
    while stack:
        p, v = stack.pop()
        if isinstance(p, Var):
            out[p.name] = v
        elif isinstance(v, Tuple) and len(v.items) == len(p.items):
            stack.extend(zip(p.items, v.items))
        else:
            stack.extend((pi, Proj(i, v)) for i, pi in enumerate(p.items, 1))
    return out


def subst(t: Term, m: Mapping[str, Term]) -> Term:
    """Capture-avoiding simultaneous substitution t[m]; shares untouched subterms."""
    if not m:
        return t
    keys = frozenset(m)

    def go(u: Term, m: Mapping[str, Term], keys: frozenset) -> Term:
        ufv = fv(u)
        if not (ufv & keys):
            return u
        if isinstance(u, Var):
            return m[u.name]
        if isinstance(u, Lam):
            names = pattern_vars(u.pat)
            inner_keys = keys - frozenset(names)
            if not (ufv & inner_keys):
                return u
            inner = {k: v for k, v in m.items() if k in inner_keys}
            # rename binders that would capture a free variable of the image
            img_fv = frozenset().union(*(fv(inner[k]) for k in inner_keys & fv(u.body)))
            clash = [n for n in names if n in img_fv]
            pat, body = u.pat, u.body
            if clash:
                ren = {n: Var(fresh(n)) for n in clash}
                pat = subst(pat, ren)
                body = subst(body, ren)
            return Lam(pat, go(body, inner, inner_keys), u.ann, u.pos)
        if isinstance(u, Jac):
            return Jac(go(u.lam, m, keys), go(u.along, m, keys), u.pos)
        if isinstance(u, Dual):
            return Dual(go(u.lam, m, keys), go(u.functional, m, keys), u.pos)
        if isinstance(u, Pullback):
            return Pullback(go(u.fun, m, keys), go(u.form, m, keys), u.pos)
        if isinstance(u, App):
            return App(go(u.fun, m, keys), go(u.arg, m, keys), u.pos)
        if isinstance(u, Proj):
            return Proj(u.index, go(u.arg, m, keys), u.pos)
        if isinstance(u, Prim):
            return Prim(u.op, tuple(go(a, m, keys) for a in u.args), u.pos)
        if isinstance(u, Tuple):
            return Tuple(tuple(go(a, m, keys) for a in u.items), u.pos)
        if isinstance(u, Sum):
            return Sum(tuple(go(a, m, keys) for a in u.items), u.pos)
        raise TypeError(u)

    return go(t, m, keys)


def subst_pattern(t: Term, pat: Term, value: Term) -> Term:
    return subst(t, bind_pattern(pat, value))


def rename_apart(pat: Term, body: Term, avoid: frozenset) -> tuple[Term, Term]:
    """α-rename the binder ``pat`` of ``body`` away from ``avoid``."""
    clash = [n for n in pattern_vars(pat) if n in avoid]
    if not clash:
        return pat, body
    ren = {n: Var(fresh(n)) for n in clash}
    return subst(pat, ren), subst(body, ren)


# ---- α-equivalence ----------------------------------------------------------------

def alpha_eq(a: Term, b: Term) -> bool:
    """Equality up to renaming of bound variables (iterative)."""
    stack = [(a, b, {}, {})]
    while stack:
        x, y, mx, my = stack.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, Var):
            bx, by = mx.get(x.name), my.get(y.name)
            if bx is None and by is None:
                if x.name != y.name:
                    return False
            elif bx != by:
                return False
            continue
        if isinstance(x, Lam):
            px, py = pattern_vars(x.pat), pattern_vars(y.pat)
            if len(px) != len(py) or x.ann != y.ann:
                return False
            if _pattern_shape(x.pat) != _pattern_shape(y.pat):
                return False
            k = object()
            nx, ny = dict(mx), dict(my)
            for i, (u, v) in enumerate(zip(px, py)):
                nx[u] = (k, i)
                ny[v] = (k, i)
            stack.append((x.body, y.body, nx, ny))
            continue
        if x._shape() != y._shape():
            return False
        stack.extend((c, d, mx, my) for c, d in zip(x.children(), y.children()))
    return True


def _pattern_shape(p: Term):
    if isinstance(p, Var):
        return 0
    return tuple(_pattern_shape(i) for i in p.items)
