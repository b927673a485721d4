"""Divide: administrative reduction (→A) into let series of elementary terms.

    atoms        a ::= x | r | λq.S   (λq.S closed: a constant, like r)
    elementary   E ::= a | 𝟎 | f(a,…,a) | ⟨a,…,a⟩ | πᵢ a | a a | a ⊕ … ⊕ a
                     | λq.S | J(λq.S)·a | (λq.S)⋆a | Ω(a) a | Ω(λq.S) a
    let series   L ::= let q = E in L | let x = E in x

Abstraction bodies (including those of J, ⋆ and Ω) are left alone: they are
decomposed only when they are differentiated (the premises of 16b, 17, 18).
The body of the λ under a pullback or Jacobian is in A-normal form when it
is a let series or a single elementary term.

The three A-rules, each a small named unit (applied by the machine inside
A-contexts, so every one appears in traces):

    A-name  K[N] → let x = N in K[x]        N the first non-atomic operand
    A-lift  let q = (let r = N in M) in L → let r = N in let q = M in L
    A-tail  E → let x = E in x              E elementary, in the tail of a let
"""
from __future__ import annotations

from typing import Optional

from ..deep import bottom_up_shared
from ..syntax.subst import fv, rename_apart
from ..syntax.terms import (ANF, CALLS, COMPUTES, COMPUTES_K, ELEM, ELEM_K, FRESH, TREE,
                            TREE_K, App, Dual, Jac, Lam, Num, Prim, Proj, Pullback, Sum, Term,
                            Tuple, Var, Zero, fresh, is_let, pattern_vars, remake,
                            subterm_kids)


def is_atom(t: Term) -> bool:
    """x, r, or a closed abstraction: like a numeral, a constant that names
    nothing and costs nothing to copy, so A-name does not bind it to a
    variable (which would make it a coordinate of the environment that
    reverse mode computes an adjoint for, only to multiply it by 0)."""
    return isinstance(t, (Var, Num)) or (isinstance(t, Lam) and not fv(t))


def is_elementary(t: Term) -> bool:
    """(Cached on the node: terms are immutable, and the machine asks at
    every step about the same bodies.)"""
    f = t._flags
    if f & ELEM_K:
        return bool(f & ELEM)
    r = _is_elementary(t)
    t._flags = t._flags | (ELEM_K | ELEM if r else ELEM_K)
    return r


def _is_elementary(t: Term) -> bool:
    if isinstance(t, (Var, Num, Zero, Lam)):
        return True
    if isinstance(t, (Prim, Tuple, Sum)):
        return all(is_atom(a) for a in t.children())
    if isinstance(t, Proj):
        return is_atom(t.arg)
    if isinstance(t, App):  # (λq.S) a is a let, not an elementary application
        return isinstance(t.fun, (Var, Num)) and is_atom(t.arg)
    if isinstance(t, Jac):
        return is_atom(t.along)
    if isinstance(t, Dual):
        return is_atom(t.functional)
    if isinstance(t, Pullback):
        return is_atom(t.form) and (is_atom(t.fun) or isinstance(t.fun, Lam))
    return False


def is_let_series(t: Term) -> bool:
    """let q₁ = E₁ in … let x = Eₙ in x (iterative: series can be long).

    Every let of a series found so is marked A-normal (a suffix of a series is
    one), and the walk stops at a let so marked: a rule that rebuilds the top
    of a long series (8c substituting into it) has only the new part walked."""
    seen = []
    while True:
        if not isinstance(t, App) or not isinstance(t.fun, Lam) or not is_elementary(t.arg):
            return False  # (not a let)
        if t._flags & ANF:
            break
        seen.append(t)
        body, pat = t.fun.body, t.fun.pat
        if isinstance(body, Var) and isinstance(pat, Var) and body.name == pat.name:
            break
        t = body
    for u in seen:
        u._flags |= ANF
    return True


def is_a_normal(body: Term) -> bool:
    """Cached: the body of a λ under Ω or J needs no more A-reduction."""
    if body._flags & ANF:
        return True
    r = is_elementary(body) or is_let_series(body)
    if r:
        body._flags |= ANF
    return r


def computes(lam: Lam) -> bool:
    """Does lam's body compute with its free variables: call a primitive on
    them, or apply one (a function it does not know)?  If not, it only
    builds or passes closures over them (a Church list, a partial cons).

    The answer is kept on the node: a list's closures nest (each inlined one
    holds the one before), and an inner λ that does not compute with its own
    free variables -- a superset of what the outer one asks about there --
    is not walked again, so each check costs the new closure, not the list."""
    f = lam._flags
    if not f & COMPUTES_K:
        _classify(lam)
    return bool(lam._flags & COMPUTES)


def calls_unknown(lam: Lam) -> bool:
    """Does lam's body apply one of its free variables (a function it does not
    know)?  (A part of ``computes``, kept on the node with it.)"""
    if not lam._flags & COMPUTES_K:
        _classify(lam)
    return bool(lam._flags & CALLS)


def _classify(lam: Lam) -> None:
    out = calls = False
    names = fv(lam)  # (a closed λ computes with no free variable, whatever its body does)
    stack = [(lam.body, names)] if names else []
    while stack:
        u, names = stack.pop()  # names: lam's free variables not shadowed at u
        if isinstance(u, Prim):
            out = True
        elif isinstance(u, App) and isinstance(u.fun, Var) and u.fun.name in names:
            out = calls = True
            break
        if isinstance(u, Lam):
            if u._flags & COMPUTES_K and not u._flags & (COMPUTES | CALLS):
                continue  # computes with none of its free variables, so with none of ours
            names = names - frozenset(pattern_vars(u.pat))
        # (a closed part, like sum's λx. λacc. x + acc inlined by 8c, is a constant)
        stack.extend((c, names) for c in subterm_kids(u) if not names.isdisjoint(fv(c)))
    lam._flags |= COMPUTES_K | (COMPUTES if out else 0) | (CALLS if calls else 0)


# ---- the operands A-name may name, in evaluation order ---------------------------

def operands(t: Term) -> list[tuple[int, Term]]:
    """(slot, operand) pairs that must be atoms in an elementary term."""
    if isinstance(t, (Prim, Tuple, Sum)):
        return list(enumerate(t.children()))
    if isinstance(t, Proj):
        return [(0, t.arg)]
    if isinstance(t, App):
        return [(0, t.fun), (1, t.arg)]
    if isinstance(t, Jac):
        return [(1, t.along)]
    if isinstance(t, Dual):
        return [(1, t.functional)]
    if isinstance(t, Pullback):
        ops = [] if isinstance(t.fun, Lam) else [(0, t.fun)]
        return ops + [(1, t.form)]
    return []


def replace_operand(t: Term, slot: int, new: Term) -> Term:
    """``t`` with the operand in ``slot`` (as ``operands`` numbers them) replaced by ``new``."""
    if isinstance(t, Prim):
        a = list(t.args)
        a[slot] = new
        return Prim(t.op, tuple(a), t.pos)
    if isinstance(t, (Tuple, Sum)):
        a = list(t.items)
        a[slot] = new
        return type(t)(tuple(a), t.pos)
    if isinstance(t, Proj):
        return Proj(t.index, new, t.pos)
    if isinstance(t, App):
        return App(new, t.arg, t.pos) if slot == 0 else App(t.fun, new, t.pos)
    if isinstance(t, Jac):
        return Jac(t.lam, new, t.pos)
    if isinstance(t, Dual):
        return Dual(t.lam, new, t.pos)
    if isinstance(t, Pullback):
        return Pullback(new, t.form, t.pos) if slot == 0 else Pullback(t.fun, new, t.pos)
    raise TypeError(t)


def _base_name(t: Term) -> str:
    if isinstance(t, Prim):
        return t.op
    return {Tuple: "tup", Proj: "proj", App: "app", Sum: "sum", Jac: "jac", Dual: "dual",
            Pullback: "pb", Lam: "fn"}.get(type(t), "v")


# ---- the A-rules ---------------------------------------------------------------------

def a_name(t: Term) -> Term:
    """A-name: K[N] → let x = N in K[x], N the first non-atomic operand of t.

    A term built by the rules is a graph: a value substituted for several
    occurrences, a coefficient that several products share, is one node
    reached along several paths.  Named operand by operand, each path would
    get a let of its own, and a derivative of the result would differentiate
    every copy (issue 26: nested derivatives).  So a compound subterm that t
    holds more than once (the same node; outside abstractions, where its
    free variables mean what they mean at t) is named first, once, and every
    occurrence replaced -- K[N, …, N] → let x = N in K[x, …, x] -- innermost
    first, so that a shared node inside it is named before it."""
    shared = _innermost_shared(t)
    if shared is not None:
        x = Var(fresh(_base_name(shared)))
        lam = Lam(x, _replace_node(t, shared, x))
        lam._flags |= FRESH
        return App(lam, shared, t.pos)
    for slot, op in operands(t):
        if not is_atom(op):
            x = Var(fresh(_base_name(op)))
            rest = replace_operand(t, slot, x)
            rest._flags |= TREE_K | TREE  # (t is a tree: _innermost_shared found it one)
            lam = Lam(x, rest)
            lam._flags |= FRESH  # x occurs nowhere else: A-lift needs no check
            return App(lam, op, t.pos)
    raise ValueError("A-name: no operand to name")  # the machine never asks


#: the nodes the sharing walk goes into (an abstraction is not entered: its
#: body is left alone, and its binder could give a shared node's free
#: variables another meaning there)
_WALKED = (Prim, Tuple, Sum, Proj, App, Jac, Dual, Pullback)


def _innermost_shared(t: Term) -> Optional[Term]:
    """A compound node that t reaches along two paths or more (outside
    abstractions), none of whose own parts is one: the first such node in
    post-order (children before parents).  None when t is a tree.

    What is learnt is kept on the nodes (``TREE``): every part of a tree is
    one, and so is every node below which nothing is shared; A-name passes
    it on to the pieces it makes of a tree, so naming the operations of a
    long expression one by one walks it once, not once per operation."""
    if t._flags & TREE_K:
        return None
    parents: dict = {}
    order: list = []
    stack = [(t, False)]
    while stack:
        u, done = stack.pop()
        if done:
            order.append(u)
            continue
        n = parents.get(id(u), 0)
        parents[id(u)] = n + 1
        if n or not isinstance(u, _WALKED):
            continue  # (a tree's parts may be reached by another path too: walked)
        stack.append((u, True))
        stack.extend((c, False) for c in reversed(u.children()) if not isinstance(c, Lam))
    found = None
    spoilt: set = set()  # the nodes with a shared node below them
    for u in order:
        if found is None and u is not t and parents[id(u)] > 1:
            found = u
        if u._flags & TREE_K:
            continue
        kids = [c for c in u.children() if isinstance(c, _WALKED)]
        if any(parents[id(c)] > 1 or id(c) in spoilt for c in kids):
            spoilt.add(id(u))
        else:
            u._flags |= TREE_K | TREE
    return found


def _replace_node(t: Term, node: Term, x: Var) -> Term:
    """t with every occurrence of ``node`` (by identity, outside abstractions)
    replaced by x; parts without one are kept as they are."""
    def open_(u: Term):
        if u is node:
            return None, x
        if not isinstance(u, _WALKED):
            return None, u
        return u.children(), u

    def close(u: Term, kids: list) -> Term:
        if all(k is c for k, c in zip(kids, u.children())):
            return u
        return remake(u, kids)
    return bottom_up_shared(t, open_, close, id)


def a_lift(t: Term) -> Term:
    """A-lift: let q = (let r = N in M) in L → let r = N in let q = M in L,
    and, in function position, (let r = N in M) a → let r = N in M a.

    The second floats a let out of the function of an application instead of
    naming the function (A-name): call by value evaluates the function, N
    then M, before the argument either way.  A helper inlined with an
    argument that is no value, ``(λx. λl. B) (x × x)``, is such a let; named,
    its λ became a variable applied to the next argument, and the argument,
    bound earlier in the series, an operand that rule 8c cannot move; lifted,
    ``M a`` is the β-redex ``let l = a in B`` of the series."""
    assert isinstance(t, App)
    if not is_let(t):  # (let r = N in M) a
        head = t.fun
        assert isinstance(head, App) and isinstance(head.fun, Lam)
        f = head.fun
        if f._flags & FRESH:
            r, m = f.pat, f.body
        else:
            r, m = rename_apart(f.pat, f.body, fv(t.arg))
        return App(Lam(r, App(m, t.arg, t.pos)), head.arg, t.pos)
    # (the A-redex a_redex found: lets, one bound to the other; no check at each step)
    outer: Lam = t.fun  # type: ignore[assignment]
    inner: App = t.arg  # type: ignore[assignment]
    lam: Lam = inner.fun  # type: ignore[assignment]
    if lam._flags & FRESH:
        r, m = lam.pat, lam.body
    else:  # a let the user wrote: r must not capture a free variable of L
        r, m = rename_apart(lam.pat, lam.body, fv(outer.body))
    return App(Lam(r, App(Lam(outer.pat, outer.body, outer.ann), m)), inner.arg, t.pos)


def _head_closure(t: Term) -> bool:
    """Is t a let (series) ending in an abstraction that does not compute
    (``computes``): a closure builder, like a helper applied to a first
    argument that is no value?  Lifted out of the function position, the
    application is a β-redex of the series.  A function that computes is
    named (A-name) and stays one stage, as a let-bound helper does."""
    if not is_let(t):
        return False
    while is_let(t):
        t = t.fun.body  # type: ignore[attr-defined]
    return isinstance(t, Lam) and not computes(t)


def a_tail(t: Term) -> Term:
    """A-tail: E → let x = E in x, naming the result of a let series."""
    x = Var(fresh(_base_name(t) if not isinstance(t, (Var, Num)) else "r"))
    return App(Lam(x, x), t, t.pos)


def a_redex(t: Term, position: str, bound_var: Optional[str]) -> Optional[str]:
    """Which A-rule applies to t in an A-context hole, if any.

    ``position`` is "root" (the whole body), "bound" (the bound term of a let
    being normalised) or "tail" (the body of a let); ``bound_var`` is the
    variable the enclosing let binds, when it binds a single variable.
    """
    if is_let(t):
        return "A-lift" if is_let(t.arg) else None  # type: ignore[attr-defined]  # (an App)
    if isinstance(t, App) and _head_closure(t.fun):
        return "A-lift"  # (let r = N in M) a
    if is_elementary(t):
        if position == "tail" and not (isinstance(t, Var) and t.name == bound_var):
            return "A-tail"
        return None
    return "A-name"


A_RULES = {"A-name": a_name, "A-lift": a_lift, "A-tail": a_tail}
