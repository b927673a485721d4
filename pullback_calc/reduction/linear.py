"""Linear normal forms: covectors whose coefficients are numerals.

A real-valued term T that is linear in some direction variables is, up to
the vector-space laws (sums are associative, commutative, with unit 0;
scalars distribute), a linear combination

    c₁ × A₁ ⊕ … ⊕ cₖ × Aₖ        (the Aᵢ distinct linear atoms)

where a linear atom is a direction variable, a projection of an atom, an
atom applied to a value, or a stuck linear term (e.g. a Jacobian of a free
function).  Rule 5 composes a covector with a linear map by substituting and
re-normalising; this module is that normalisation.  The combination is kept
as an ordered dict on the Sum node: one reverse-phase step does Python work
only for the coefficients of the variables the elementary term used, plus
one C-level copy of the coefficient table (a persistent map would remove
that copy; it has not been needed yet).
"""
from __future__ import annotations

import math
from typing import Optional

from ..syntax import prims
from ..syntax.subst import bind_pattern, fv, subst
from ..syntax.terms import (App, Dual, Jac, Lam, Pullback, Num, Prim, Proj, Sum, Term, Tuple, Var, Zero, ZERO)

from .env import PatVars

LinComb = dict  # atom Term -> coefficient Term (usually a Num)

ONE = Num(1.0)


# ---- coefficient arithmetic: numerals fold, anything else stays symbolic ------------

def _fold(t: Term) -> Term:
    """Evaluate a closed coefficient built from numerals and function symbols."""
    if isinstance(t, Prim) and all(isinstance(a, Num) for a in t.args):
        try:
            v = prims.EVAL[t.op](*(a.value for a in t.args))
        except (ArithmeticError, ValueError):
            return t
        if math.isfinite(v):
            return Num(v)
    return t


def cmul(a: Term, b: Term) -> Term:
    if isinstance(a, Num) and isinstance(b, Num):
        return Num(a.value * b.value)
    if a == ONE:
        return b
    if b == ONE:
        return a
    return _fold(Prim("mul", (a, b)))


def cadd(a: Term, b: Term) -> Term:
    if isinstance(a, Num) and isinstance(b, Num):
        return Num(a.value + b.value)
    return Prim("add", (a, b))


def _is_zero(c: Term) -> bool:
    return isinstance(c, Num) and c.value == 0.0


def _scale(d: LinComb, c: Term) -> LinComb:
    if c == ONE:
        return d
    return {a: cmul(c, k) for a, k in d.items()}


def _merge_into(acc: LinComb, d: LinComb) -> None:
    for a, k in d.items():
        old = acc.get(a)
        acc[a] = k if old is None else cadd(old, k)


# ---- term → linear combination ------------------------------------------------------

def to_lincomb(t: Term, lin: frozenset) -> LinComb:
    """Read ``t`` (linear in the variables ``lin``) as a linear combination."""
    cached = t.__dict__.get("_lcobj")
    if cached is not None:
        return cached.coeffs
    acc: LinComb = {}
    # worklist of (term, coefficient); avoids recursion on long sums
    work: list[tuple[Term, Term]] = [(t, ONE)]
    while work:
        u, c = work.pop()
        lc = u.__dict__.get("_lcobj")
        if lc is not None:
            _merge_into(acc, _scale(lc.coeffs, c))
        elif isinstance(u, Zero):
            pass
        elif isinstance(u, Sum):
            work.extend((i, c) for i in reversed(u.items))
        elif isinstance(u, Prim) and u.op in ("mul", "div", "neg", "add", "sub"):
            a = u.args
            if u.op == "mul":
                if not (fv(a[0]) & lin):
                    work.append((a[1], cmul(c, _fold(a[0]))))
                elif not (fv(a[1]) & lin):
                    work.append((a[0], cmul(c, _fold(a[1]))))
                else:
                    _merge_into(acc, {u: c})  # not linear: keep as an atom
            elif u.op == "div" and not (fv(a[1]) & lin):
                work.append((a[0], cmul(c, _fold(Prim("div", (ONE, a[1]))))))
            elif u.op == "neg":
                work.append((a[0], cmul(c, Num(-1.0))))
            elif u.op == "add":
                work.extend([(a[1], c), (a[0], c)])
            elif u.op == "sub":
                work.extend([(a[1], cmul(c, Num(-1.0))), (a[0], c)])
            else:
                _merge_into(acc, {u: c})
        elif isinstance(u, Proj):
            x = u.arg
            if isinstance(x, Tuple):
                work.append((x.items[u.index - 1], c))
            elif isinstance(x, Sum):
                work.extend((Proj(u.index, i), c) for i in reversed(x.items))
            elif isinstance(x, Zero):
                pass
            else:
                x2 = _reduce_atom(x, lin)
                if x2 is not x:
                    work.append((Proj(u.index, x2), c))
                else:
                    _merge_into(acc, {u: c})
        elif isinstance(u, App):
            f = _reduce_atom(u.fun, lin)
            if isinstance(f, Lam):
                work.append((subst(f.body, bind_pattern(f.pat, u.arg)), c))
            elif isinstance(f, Sum):
                work.extend((App(g, u.arg), c) for g in reversed(f.items))
            elif isinstance(f, Zero):
                pass
            elif isinstance(f, Dual):
                inner = subst(f.lam.body, bind_pattern(f.lam.pat, u.arg))
                work.append((App(f.functional, inner), c))
            elif f is not u.fun:
                work.append((App(f, u.arg), c))
            else:
                _merge_into(acc, {u: c})
        elif isinstance(u, Num):
            if u.value != 0.0:
                _merge_into(acc, {ONE: cmul(c, u)})  # affine part; linear terms have none
        else:
            _merge_into(acc, {u: c})
    return {a: k for a, k in acc.items() if not _is_zero(k)}


def _reduce_atom(x: Term, lin: frozenset) -> Term:
    """The head of a linear atom: projections of tuples, 0 absorbing in
    function and projection positions, β for an abstraction in the head."""
    if isinstance(x, Proj):
        inner = _reduce_atom(x.arg, lin)
        if isinstance(inner, Tuple):
            return _reduce_atom(inner.items[x.index - 1], lin)
        if isinstance(inner, Zero):
            return ZERO
        if inner is not x.arg:
            return Proj(x.index, inner)
    elif isinstance(x, (Pullback, Jac)):
        last = _reduce_atom(x.children()[-1], lin)  # the 1-form / the direction
        from .rules import is_zero  # (rules imports this module)
        if is_zero(last):
            return ZERO  # linear in it
        if last is not x.children()[-1]:
            return Pullback(x.fun, last) if isinstance(x, Pullback) else Jac(x.lam, last)
    elif isinstance(x, App):
        f = _reduce_atom(x.fun, lin)
        if isinstance(f, Zero):
            return ZERO
        if isinstance(f, Lam):
            return _reduce_atom(subst(f.body, bind_pattern(f.pat, x.arg)), lin)
        if f is not x.fun:
            return App(f, x.arg)
    return x


class LC:
    """A linear combination: coefficients and ready-made summands per atom (in
    the same order), and the variables occurring in non-variable atoms."""
    __slots__ = ("coeffs", "terms", "cx")

    def __init__(self, coeffs: LinComb, terms: dict, cx: frozenset):
        self.coeffs, self.terms, self.cx = coeffs, terms, cx


def _summand(a: Term, k: Term) -> Term:
    return a if k == ONE else (k if a == ONE else Prim("mul", (k, a)))


def _lc_from_dict(d: LinComb) -> LC:
    cx: frozenset = frozenset()
    for a in d:
        if not isinstance(a, Var):
            cx |= fv(a)
    return LC(d, {a: _summand(a, k) for a, k in d.items()}, cx)


def lincomb_of(t: Term, lin: frozenset) -> LC:
    lc = t.__dict__.get("_lcobj")
    if lc is None:
        lc = _lc_from_dict(to_lincomb(t, lin))
    return lc


def term_of(lc: LC) -> Term:
    """Σ cᵢ × Aᵢ as a term, with the combination cached on it for the next step."""
    n = len(lc.terms)
    if n == 0:
        return ZERO
    t = next(iter(lc.terms.values())) if n == 1 else Sum(tuple(lc.terms.values()))
    if "_lcobj" not in t.__dict__:
        object.__setattr__(t, "_lcobj", lc)
    return t


def from_lincomb(d: LinComb) -> Term:
    return term_of(_lc_from_dict(d))


def normalize(t: Term, lin: frozenset) -> Term:
    return from_lincomb(to_lincomb(t, lin))


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
        elif isinstance(v, Tuple) and len(v.items) == len(p.items):
            stack.extend(zip(p.items, v.items))
        else:
            bind_pattern(p, v, out)


def compose(functional: Lam, map_body: Term, map_lin: frozenset, reduce=None) -> Term:
    """⟦T[S/w]⟧ for the functional λw.T and the linear map body S (linear in
    ``map_lin``): the body of the composite covector, in linear normal form.
    ``reduce`` reduces the image of a compound atom (rule 5's premise).

    Only the atoms that mention a re-bound variable are touched: at a rule-8
    stage that is the one variable the stage introduced, so a reverse step
    costs the size of the elementary term, not the size of the covector.
    """
    m: dict = {}
    _match(functional.pat, map_body, m)
    lc = lincomb_of(functional.body, PatVars(functional.pat))
    if not m:
        return term_of(lc)
    if m.keys() & lc.cx:  # a re-bound variable inside a compound atom: general path
        out: LinComb = {}
        for atom, k in lc.coeffs.items():
            hit = fv(atom) & m.keys()
            if not hit:
                _merge_into(out, {atom: k})
            else:
                image = subst(atom, {x: m[x] for x in hit})
                if reduce is not None:  # substituting into a compound atom can make a redex
                    image = reduce(image)
                _merge_into(out, _scale(to_lincomb(image, map_lin), k))
        return from_lincomb({a: k for a, k in out.items() if not _is_zero(k)})
    coeffs, terms, cx = dict(lc.coeffs), dict(lc.terms), lc.cx
    # simultaneous substitution: take every re-bound coordinate out first,
    # then add the images (which may mention the same names, meaning others)
    taken = []
    for x, image in m.items():
        k = coeffs.pop(Var(x), None)
        if k is not None:
            del terms[Var(x)]
            taken.append((k, image))
    for k, image in taken:
        for a, c in _scale(to_lincomb(image, map_lin), k).items():
            old = coeffs.get(a)
            new = c if old is None else cadd(old, c)
            if _is_zero(new):
                coeffs.pop(a, None); terms.pop(a, None)
                continue
            coeffs[a] = new
            terms[a] = _summand(a, new)
            if not isinstance(a, Var):
                cx = cx | fv(a)
    return term_of(LC(coeffs, terms, cx))


def coefficient(d: LinComb, atom: Term) -> Optional[Term]:
    return d.get(atom)
