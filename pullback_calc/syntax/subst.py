"""Free variables, lin(S), capture-avoiding substitution, α-equivalence."""
from __future__ import annotations

from collections import deque
from typing import Any, Callable, Generator, Mapping, Optional

from . import prims
from ..deep import bottom_up_shared, trampoline
from .fvsets import FVSet, SMALL, meets, union as _union, union_all
from .terms import (App, Dual, Jac, Lam, Num, Prim, Proj, Pullback, Sum, Term, Tuple, Var,
                    Zero, BINDER, BINDER_K, TERM_CLASSES, alpha_classes, any_below, binds, fresh,
                    pattern_index, pattern_vars, remake)

_EMPTY: frozenset = frozenset()


def fv(t: Term) -> frozenset:
    """Free variables, cached on each node; iterative (post-order)."""
    r = t._fv
    if r is not None:
        return r
    stack: list[Term] = [t]
    while stack:  # a node's set is made once its children's are (post-order)
        u: Any = stack[-1]  # (its class is tested by identity: mypy cannot narrow)
        if u._fv is not None:
            stack.pop()
            continue
        tu = type(u)  # (no class derives from a term class: dispatch on the class)
        if tu is Var:
            stack.pop()
            u._fv = frozenset((u.name,))
            continue
        if tu is Num or tu is Zero:
            stack.pop()
            u._fv = _EMPTY
            continue
        kids = u.children() if tu is not Lam else (u.body,)
        missing = [c for c in kids if c._fv is None]
        if missing:
            stack.extend(missing)
            continue
        stack.pop()
        # (a set equal to a child's is that child's set: a long let chain or
        # a wide tuple over many free variables would copy them at each node)
        if tu is Lam and type(u.pat) is Var:
            s = u.body._fv
            if u.pat.name in s:
                s = s - {u.pat.name}
        elif tu is Lam:  # via the pattern's index: no walk of a deep pattern
            s = u.body._fv
            idx, level = pattern_index(u.pat)
            names = idx.names
            few, many = (names, s) if len(names) <= len(s) else (s, names)
            bound = [x for x in few if x in many and names[x][0] <= level]
            if bound:
                s = s - frozenset(bound)
        else:
            sets = [cf for cf in (c._fv for c in kids) if cf]
            if not sets:
                s = _EMPTY
            elif len(sets) == 1:
                s = sets[0]
            elif len(sets) == 2:
                s = _union(sets[0], sets[1])
            else:  # one union of them all (one child at a time copies a growing set)
                s = union_all(sets)
        u._fv = s
    return t._fv


def fv_copied(t: Term) -> frozenset:
    """The free variables of t that a substitution for them would copy work
    into: those occurring more than once, or inside an abstraction (the body
    of a let is not one: it is evaluated once).  Cached on each node like
    ``fv`` (post-order, iterative), so "is x used at most once, and not under
    a λ" is one look-up instead of a walk of a let chain (rule 1's kept lets)."""
    r = t._fvc
    if r is not None:
        return r
    fv(t)
    stack: list[tuple[Term, bool]] = [(t, False)]
    while stack:
        u, ready = stack.pop()
        if u._fvc is not None:  # (always known for a variable, numeral, 𝟎 or λ)
            continue
        if not u._fv:
            u._fvc = _EMPTY
        elif isinstance(u, App) and isinstance(u.fun, Lam):  # a let: its body runs once
            lam, a = u.fun, u.arg
            if not ready:
                stack.append((u, True))
                stack.append((lam.body, False))
                stack.append((a, False))
                continue
            bound = frozenset(pattern_vars(lam.pat))
            b = lam.body
            body_c = b._fvc  # (shared, not copied, where nothing changes it)
            if not bound.isdisjoint(body_c):
                body_c = body_c - bound
            u._fvc = _union(_union(body_c, a._fvc), (b._fv & a._fv) - bound)
        else:
            kids = u.children()
            if not ready:
                stack.append((u, True))
                stack.extend((c, False) for c in kids)
                continue
            open_kids = [c for c in kids if c._fv]
            if len(open_kids) == 1:  # one child with free variables: its set
                u._fvc = open_kids[0]._fvc
            elif len(open_kids) == 2:
                a, b = open_kids
                u._fvc = _union(_union(a._fvc, b._fvc), a._fv & b._fv)
            else:  # mutable: a wide node's sets are not copied per child
                seen: set[str] = set()
                acc: set[str] = set()
                for c in open_kids:
                    cf = c._fv
                    acc |= c._fvc
                    acc |= seen & cf
                    seen |= cf
                # (acc turns into an FVSet once a child's set is one)
                u._fvc = acc if type(acc) is FVSet else \
                    frozenset(acc) if len(acc) <= SMALL else FVSet.of(acc)
    return t._fvc


def free_names(t: Term) -> frozenset:
    """fv(t), by one walk that caches nothing (``fv`` caches a set on every
    node: on a long left-nested sum or let chain read once -- a whole
    program's free variables -- that is quadratic memory).  A node whose
    free variables are cached already is not entered."""
    c = t._fv
    if c is not None:
        return c
    out: set = set()
    bound: dict = {}
    stack: list = [(t, False)]
    while stack:
        u, leaving = stack.pop()
        if leaving:  # u is a Lam whose body has been walked
            for x in pattern_vars(u.pat):
                bound[x] -= 1
            continue
        c = u._fv
        if c is not None:
            out.update(x for x in c if not bound.get(x))
        elif isinstance(u, Var):
            if not bound.get(u.name):
                out.add(u.name)
        elif isinstance(u, Lam):
            for x in pattern_vars(u.pat):
                bound[x] = bound.get(x, 0) + 1
            stack.append((u, True))
            stack.append((u.body, False))
        else:
            stack.extend((k, False) for k in u.children())
    return frozenset(out)


# ---- lin(S) ----------------------------------------------------------------------

#: ``functional(name, k, binder)``: may the variable ``name``, applied to ``k``
#: arguments, be taken for a linear functional (a term of type σ⋆)?  ``binder`` is the
#: abstraction of the checked term that binds it, or None for a variable of the context.
#: The type checker answers from the types it has inferred.
Functional = Callable[[str, int, Optional[Term]], bool]

_YES: frozenset = frozenset()


def linear(t: Term, xs: frozenset, functional: Optional[Functional] = None) -> bool:
    """Is ``t`` linear, jointly, in the variables ``xs``?  (x ∈ lin(S) is
    ``linear(S, {x})``.)  §2.5 of papers/calculus.md has the cases: the function of
    an application is a linear position, and so is the argument of a functional
    (a dual map, a pullback at a point, or a variable that ``functional`` says is
    one); ``let q = E in L`` composes; dual maps and J(λq.S)·P are bilinear, and
    J(λq.S)·P V is linear through the point's components in which S is linear;
    Ω(S)P is linear in P; 𝟎, the numeral 0 and variables let-bound to them are
    linear in everything, other constants are not.
    """
    return linear_needs(t, xs, functional) is not None


def linear_needs(t: Term, xs: frozenset, functional: Optional[Functional] = None
                 ) -> Optional[frozenset]:
    """None if ``linear(t, xs, functional)`` fails; otherwise the triples (name, k,
    binder) of the variables the verdict took for functionals (applied to k
    arguments), which the type checker then types as such."""
    return trampoline(_Lin(functional).lin(t, frozenset(xs)))


#: a verdict of _Lin, computed by a generator (deep.trampoline runs it)
_Verdict = Generator[Any, Any, Optional[frozenset]]


_INLININGS = 8  # (the A-named Jacobian of the regressions needs 3)


class _Lin:
    """lin(S) proper.  ``scope`` maps each variable bound inside the checked term,
    where the walk is, to a stack of (its binder, whether its value is a zero, the
    Jacobian J(λq.S)·P it is let-bound to with the bindings of that Jacobian's free
    variables, or None): a bound variable is never one of ``xs``' outer namesakes,
    and is a functional only if ``ask`` says so for its binder.  Invariant, by
    induction on the cases: a term that does not mention ``xs`` is linear in them
    only if it is a zero (so the constant factor of a product, a let-bound value,
    … may be one).  The cases are generators run by deep.trampoline: ``(yield
    self.lin(u, xs))`` is the verdict on a sub-term, without Python recursion."""

    def __init__(self, ask: Optional[Functional]):
        self.ask = ask
        self.scope: dict[str, list] = {}
        # re-readings of a let with its value in place left (each re-reads a part of
        # the term once more: a fixed number keeps lin linear in the term's size,
        # where a nest of failing lets would otherwise double the work per let)
        self.inlinings = _INLININGS

    def enter(self, binder: Lam, zero: bool = False, value: Optional[Term] = None) -> list[str]:
        names = pattern_vars(binder.pat)
        jac = None
        if isinstance(binder.pat, Var) and value is not None \
                and _jacobian_tail(value) is not None:
            jac = (value, {n: self.top(n) for n in fv(value)})
        for n in names:
            self.scope.setdefault(n, []).append((binder, zero, jac))
        return names

    def top(self, name: str):
        b = self.scope.get(name)
        return b[-1] if b else None

    def let_bound_jacobian(self, f: Term, a: Term) -> Optional[Term]:
        """``f a`` with the variable ``f`` replaced by the Jacobian J(λq.S)·P (or let
        series ending in one) it is let-bound to, if none of the value's free
        variables has been bound again since and its lets do not capture ``a``:
        ``J(λq.S)·P a``, ``let q' = E' in J(λq.S)·P a``, … ; else None."""
        e = self.top(f.name) if isinstance(f, Var) else None
        if e is None or e[2] is None:
            return None
        value, snap = e[2]
        if any(self.top(n) is not b for n, b in snap.items()):
            return None
        lets = []
        while not isinstance(value, Jac):  # a let series: push the application inside
            if any(binds(value.fun.pat, n) for n in fv(a)):
                return None
            lets.append(value)
            value = value.fun.body
        out: Term = App(value, a)
        for let_ in reversed(lets):
            out = App(Lam(let_.fun.pat, out, let_.fun.ann), let_.arg)
        return out

    def leave(self, names) -> None:
        for n in names:
            stack = self.scope[n]
            stack.pop()
            if not stack:
                del self.scope[n]

    def under(self, binder: Lam, body: Term, xs: frozenset, zero: bool = False,
              value: Optional[Term] = None):
        """``body`` under ``binder`` (its variables shadow ``xs``' namesakes),
        bound to ``value`` if it is a let."""
        names = self.enter(binder, zero, value)
        try:
            return (yield self.lin(body, xs))
        finally:
            self.leave(names)

    def lin(self, t: Term, xs: frozenset) -> _Verdict:
        if isinstance(t, Zero):
            return _YES
        if isinstance(t, Var):
            if t.name in xs:
                return _YES
            b = self.scope.get(t.name)
            return _YES if b and b[-1][1] else None  # a variable let-bound to a zero
        if isinstance(t, Num):
            return _YES if t.value == 0.0 else None
        if isinstance(t, (Sum, Tuple)):
            return (yield self.every(t.items, xs))
        if isinstance(t, Proj):
            return (yield self.lin(t.arg, xs))
        if isinstance(t, App):
            return (yield self.app(t, xs))
        if isinstance(t, Lam):
            return (yield self.under(t, t.body, xs - frozenset(pattern_vars(t.pat))))
        if isinstance(t, (Jac, Dual)):  # bilinear: in the map, and in the direction / functional
            lam, other = t.lam, (t.along if isinstance(t, Jac) else t.functional)
            if not (fv(lam) & xs):
                r = (yield self.lin(other, xs))
                if r is not None:
                    return r
            if not (fv(other) & xs):
                return (yield self.lin(lam, xs))
            if isinstance(t, Jac) and isinstance(lam, Lam):  # xs in both
                return (yield self.jac_at(lam, other, None, xs))
            return None
        if isinstance(t, Pullback):
            return None if fv(t.fun) & xs else (yield self.lin(t.form, xs))
        if isinstance(t, Prim):
            kind = prims.LINEARITY[t.op]
            if kind == "joint":
                return (yield self.every(t.args, xs))
            if kind == "each":  # multilinear: one argument linear, the others constant
                hits = [a for a in t.args if fv(a) & xs]
                if len(hits) == 1:
                    return (yield self.lin(hits[0], xs))
                if hits:
                    return None
                for a in t.args:  # none mentions xs: linear iff a factor is a zero
                    r = (yield self.lin(a, xs))
                    if r is not None:
                        return r
                return None
            if kind == "first":
                if any(fv(a) & xs for a in t.args[1:]):
                    return None
                return (yield self.lin(t.args[0], xs))
            return None
        raise TypeError(t)

    def every(self, items, xs) -> _Verdict:
        out = _YES
        for i in items:
            r = (yield self.lin(i, xs))
            if r is None:
                return None
            out = out | r if r else out
        return out

    def functional(self, f: Term) -> Optional[frozenset]:
        """Is ``f`` (which mentions none of the variables) a linear functional: a
        dual map, a pullback at a point, or a variable of type σ⋆ (after k
        arguments)?  The triples it relies on, or None."""
        k, h = 0, f
        while isinstance(h, App):
            h, k = h.fun, k + 1
        if isinstance(h, Dual):
            return _YES if k == 0 else None
        if isinstance(h, Pullback):
            return _YES if k == 1 else None
        if isinstance(h, Var) and self.ask is not None:
            b = self.scope.get(h.name)
            binder = b[-1][0] if b else None
            if self.ask(h.name, k, binder):
                return frozenset(((h.name, k, binder),))
        return None

    def app(self, t: App, xs) -> _Verdict:
        f, a = t.fun, t.arg
        if not (fv(f) & xs):  # a functional is linear in its argument
            need = self.functional(f)
            if need is not None:
                r = (yield self.lin(a, xs))
                if r is not None:
                    return need | r
        if isinstance(f, Lam):  # let q = E in L
            r = (yield self.let(f, a, xs))
            if r is None and self.inlinings and isinstance(f.pat, Var) \
                    and f.pat.name in fv(f.body) \
                    and _named_value(a):
                self.inlinings -= 1
                # what A-name binds in a Jacobian linear only at its point
                # (J(λ⟨x, y⟩. 0)·⟨dx, 1⟩ ⟨0, 1⟩): its direction ⟨dx, 1⟩, its point
                # ⟨0, 1⟩, the Jacobian itself; or the function of an application
                # that is linear only once applied ((let c = λy. dl in λn. n) 𝟎)
                # -- read L with it in place, as the term before A-name was read
                return (yield self.lin(subst(f.body, {f.pat.name: a}), xs))
            return r
        if isinstance(f, App) and isinstance(f.fun, Lam) \
                and not any(binds(f.fun.pat, n) for n in fv(a)):
            # (let q = E in L) a is let q = E in L a: the application at its value
            return (yield self.lin(App(Lam(f.fun.pat, App(f.fun.body, a), f.fun.ann), f.arg), xs))
        jac = isinstance(f, Jac) and isinstance(f.lam, Lam)
        inlined = None if jac else self.let_bound_jacobian(f, a)
        if not (fv(a) & xs):  # the function position is linear (pointwise)
            r = (yield self.lin(f, xs))
            if r is not None or not (jac or inlined):
                return r
        if jac:
            assert isinstance(f, Jac)
            return (yield self.jac_at(f.lam, f.along, a, xs))
        if inlined is not None:  # f let-bound to a Jacobian: f V is J(λq.S)·P V
            return (yield self.lin(inlined, xs))
        return None

    def let(self, f: Lam, a: Term, xs) -> _Verdict:
        """let q = a in L (f = λq.L)."""
        names = frozenset(pattern_vars(f.pat))
        if fv(a) & xs:  # E linear, L linear in xs and q jointly: linear maps compose
            r = (yield self.lin(a, xs))
            if r is None:
                return None
            s = (yield self.under(f, f.body, xs | names, value=a))
            return None if s is None else r | s
        r = (yield self.lin(a, xs))  # E constant: is it a zero?  Then so are the variables of q
        s = (yield self.under(f, f.body, xs - names, zero=r is not None, value=a))
        if s is None:
            return None
        return s if r is None else r | s

    def jac_at(self, lam: Lam, along: Term, point: Optional[Term], xs) -> _Verdict:
        """J(λq.S)·P V through its point.  Q: the variables of q whose component in
        V or in P mentions xs; those components must be linear in xs, the others
        are constants.  If S is jointly linear in Q and the variables of xs it
        mentions, S = L(q_r)(xs, q_Q) with L(q_r) linear, and
        J(λq.S)·P V = L(V_r)(0, P_Q) + (DL(V_r)·P_r)(xs, V_Q): linear in xs.
        Without a point (J(λq.S)·P at any V, xs in the map and in P): Q is where
        P mentions xs, and P_r must be zeros, so that the second summand is 0."""
        names = pattern_vars(lam.pat)
        dir_ = bind_pattern(lam.pat, along)
        at = bind_pattern(lam.pat, point) if point is not None else None
        q_lin = [n for n in names if fv(dir_[n]) & xs or (at is not None and fv(at[n]) & xs)]
        if not q_lin:
            return None
        checked = ([at[n] for n in q_lin] + [dir_[n] for n in q_lin] if at is not None
                   else [dir_[n] for n in names])  # the point first: cheap fails
        out = _YES
        for c in checked:
            r = (yield self.lin(c, xs))
            if r is None:
                return None
            out = out | r
        s = (yield self.under(lam, lam.body, (xs - frozenset(names)) | frozenset(q_lin)))
        return None if s is None else out | s


def _let_tail(t: Term) -> Term:
    """The body a let series ends in (``t`` itself if it is no let)."""
    while isinstance(t, App) and isinstance(t.fun, Lam):
        t = t.fun.body
    return t


def _named_value(t: Term) -> bool:
    """Is ``t`` a tuple, a Jacobian or an abstraction, or a let series ending in
    one: a value A-name binds whose linearity may show only where it is used?"""
    t = _let_tail(t)
    return isinstance(t, (Tuple, Lam)) or (isinstance(t, Jac) and isinstance(t.lam, Lam))


def _jacobian_tail(t: Optional[Term]) -> Optional[Jac]:
    """The Jacobian J(λq.S)·P that ``t`` is, or that the let series ``t`` ends in."""
    t = _let_tail(t) if t is not None else None
    return t if isinstance(t, Jac) and isinstance(t.lam, Lam) else None


# ---- substitution ----------------------------------------------------------------

def bind_pattern(pat: Term, value: Term, out: Optional[dict] = None) -> dict:
    """The substitution [value/pat]: destructure tuples, project otherwise."""
    out = {} if out is None else out
    stack: list = [(pat, value)]  # (a pattern: variables in tuples)
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
    """Capture-avoiding simultaneous substitution t[m]; shares untouched subterms.
    Iterative (deep.bottom_up): the items are (term, substitution, its names)."""
    if not m:
        return t
    keys = frozenset(m)
    if not meets(fv(t), keys):
        return t
    # a wide substitution (every input's direction, say): the free variables of
    # all its images, once, when the first binder is met -- a binder that names
    # none of them captures nothing, and is passed without looking at the images
    # its body receives (a term with no binder never computes it: substituting a
    # point for a stage's environment pattern is most of them)
    images = [m, None] if len(m) > 4 else None
    # each shared node once (under the same map): a tangent's DAG is not a tree
    return bottom_up_shared((t, m, keys, images, None), _subst_open, remake, _subst_key)


def _subst_key(item) -> tuple:
    # under a binder that hides keys, the map is the outer one less those keys: a node
    # that reads none of them is substituted as under the outer map -- one image for
    # both, so that a node shared inside and outside the binder stays one node (else
    # a name the program binds again, λx. … let x = …, would unshare the graph)
    u, m, hidden = item[0], item[1], item[4]
    if hidden is not None and fv(u).isdisjoint(hidden[1]):
        return id(u), id(hidden[0])
    return id(u), id(m)


def _subst_open(item):
    u, m, keys, images, hidden = item
    ufv = fv(u)
    if not meets(ufv, keys):
        return None, u
    if isinstance(u, Var):
        return None, m[u.name]
    if isinstance(u, Lam):
        names = pattern_vars(u.pat)
        if keys.isdisjoint(names):  # the binder hides no key: the same map
            inner, inner_keys = m, keys
        else:
            inner_keys = keys - frozenset(names)
            if not meets(ufv, inner_keys):
                return None, u
            inner = {k: v for k, v in m.items() if k in inner_keys}
            hidden = (m, keys & frozenset(names)) if hidden is None else \
                (hidden[0], hidden[1] | (keys & frozenset(names)))
        if images is not None and images[1] is None:
            images[1] = frozenset().union(*(fv(v) for v in images[0].values()))
        if images is None or not images[1].isdisjoint(names):
            # rename binders that would capture a free variable of the image
            img_fv = frozenset().union(*(fv(inner[k]) for k in inner_keys & fv(u.body)))
            clash = [n for n in names if n in img_fv]
            if clash:
                ren = {n: Var(fresh(n)) for n in clash}
                u = Lam(subst(u.pat, ren), subst(u.body, ren), u.ann, u.pos)
        return ((u.body, inner, inner_keys, images, hidden),), u
    return tuple((c, m, keys, images, hidden) for c in u.children()), u


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
    stack: list[tuple[Term, Term, dict, dict]] = [(a, b, {}, {})]
    while stack:
        x, y, mx, my = stack.pop()
        if x is y and not mx and not my:  # one node, outside every binder compared
            continue
        if type(x) is not type(y):
            return False
        if isinstance(x, Var):
            assert isinstance(y, Var)
            bx, by = mx.get(x.name), my.get(y.name)
            if bx is None and by is None:
                if x.name != y.name:
                    return False
            elif bx != by:
                return False
            continue
        if isinstance(x, Lam):
            assert isinstance(y, Lam)
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


def has_binder(t: Term) -> bool:
    """Does an abstraction occur in t?  (Only then can a term be α-equal to
    another without being equal.)  Cached on nodes (``BINDER``); a node of a
    class outside the grammar (a lazy one, reduction/delayed.py) counts as none."""
    f = t._flags
    if f & BINDER_K:
        return bool(f & BINDER)
    return any_below(t, BINDER_K, BINDER, _binder_here)


def _binder_here(u: Term) -> Optional[bool]:
    c = u.__class__
    return True if c is Lam else False if c not in _GRAMMAR else None


_GRAMMAR = frozenset(TERM_CLASSES)
SKETCH = 32  # the nodes of a term an α-sketch reads


def alpha_sketch(t: Term) -> int:
    """A hash of t's first ``SKETCH`` nodes, level by level, that α-equal terms
    share: a bound variable is hashed by its binder's position, a binder by its
    pattern's shape.  Bounded, so O(1) however large t is; equal sketches are
    then compared by ``alpha_eq``.  Level by level, not depth first: the atoms
    J(λq.S)·d V that differ only in their direction d, after a large S, get
    different sketches."""
    out: list = []
    queue: deque = deque([(t, None, 0)])  # (node, its binders: name -> (depth, i), depth)
    while queue and len(out) < SKETCH:
        u, env, depth = queue.popleft()
        c = u.__class__
        if c is Var:
            out.append(env.get(u.name, u.name) if env else u.name)
        elif c is Lam:
            inner = dict(env) if env else {}
            for i, x in enumerate(pattern_vars(u.pat)):
                inner[x] = (depth, i)
            out.append((Lam, tuple(_pattern_shape(u.pat)), u.ann))
            queue.append((u.body, inner, depth + 1))
        elif c not in _GRAMMAR:
            out.append(id(u))  # (no sketch of a lazy node: only itself is α-equal to it)
        else:
            out.append(u._shape())
            queue.extend((k, env, depth) for k in u.children())
    return hash(tuple(out))


def alpha_representative(t: Term) -> Term:
    """The first term α-equal to t that the reduction met here, else t (now
    the first): the key of t as a linear atom.  Terms are identified up to
    α (the paper's convention), so rule 5's normal form adds the coefficients
    of ``x (λy. 1)`` and ``x (λz. 1)``, and rule 3's of ``c × A`` and an A
    written with other bound names, as it does for two equal atoms -- else
    renaming binders apart would change the reduction's steps.  Only terms
    with a binder are looked up; outside a reduction t is its own."""
    f = t._flags
    if f & BINDER_K and not f & BINDER or not has_binder(t):
        return t
    table = alpha_classes()
    if table is None:
        return t
    bucket = table.setdefault(alpha_sketch(t), [])
    for u in bucket:
        if u is t or alpha_eq(u, t):
            return u
    bucket.append(t)
    return t


def _pattern_shape(p: Term) -> list:
    """The nesting of a pattern, flat: the number of items of each node in
    pre-order (0 for a variable) -- no nested containers, compared without recursion."""
    out, stack = [], [p]
    while stack:
        q = stack.pop()
        if isinstance(q, Var):
            out.append(0)
        else:
            assert isinstance(q, Tuple), q
            out.append(len(q.items))
            stack.extend(reversed(q.items))
    return out
