"""Rule 8c's call analysis: is a helper bound by a let of the series only ever
called, so that copying it to its calls copies no work (``inlined_at_calls``)?

A walk of the series after the let, with the helpers bound on the way
(``Helper``): a use of the name is a call when it is applied to the end of the
helper's binders, directly, through an alias, a partial application, a tuple
taken apart, a helper that only calls its parameter, or a pullback applied at a
point and a direction.  papers/calculus.md §5.7 gives the cases with examples.
"""
from __future__ import annotations

from typing import NamedTuple, Optional

import immutables

from ..areduction.anf import calls_unknown
from ..syntax.subst import fv
from ..syntax.terms import (App, Jac, Lam, Proj, Pullback, Term, Tuple, Var, is_let,
                            pattern_vars, subterm_kids)


def inlined_at_calls(let_: App) -> bool:
    """Does 8c substitute let q = V in L, V an abstraction that applies none of
    its free variables (``calls_unknown``), because every use of
    q is a call: a let of the series applying q (``let r = q a``), an alias
    ``let r = q`` whose r is so used, or a call in the body of an abstraction
    bound by a let of the series that is so used in turn (``λa. q (q a)``, a
    Church numeral applied to q), not under a further λ, or an argument where
    another helper only calls it (``twice q a``; ``_passed_to_caller``,
    ``_passes_to_helper``), or the map of a pullback ``let b = Ω(q) ω`` whose b
    is applied at a point and a direction (rule pb runs q's body there)?  β_v at
    each call
    copies the abstraction, not work: each call is evaluated once, in the
    series, as the program evaluates it.  The calls become stages of the
    series, where a coordinate q made each one a D-eval premise that reads
    its argument whole -- the tail of a Church list the numeral builds, whose
    fold each premise then computed again (quadratic: church-numeral)."""
    V, q = let_.arg, let_.fun.pat  # (a variable V is an alias: _constant_let's)
    if not isinstance(q, Var) or not isinstance(V, Lam) or calls_unknown(V):
        return False
    return _calls_only(q.name, let_.fun.body)


class Helper(NamedTuple):
    """What a let of the series binds a name to, for ``inlined_at_calls``: an
    abstraction, the arguments its first binders are applied to (a partial
    application ``cons x l`` is cons with (x, l)), and the helpers in scope where
    it is bound (its free names are those, not later lets of the same name)."""
    lam: Lam
    args: tuple
    env: immutables.Map


_NO_HELPERS: immutables.Map = immutables.Map()


def _calls_only(x: str, t: Term, known: Optional[immutables.Map] = None,
                inner: bool = False, pulled: Optional[immutables.Map] = None) -> bool:
    """Is every use of x in the series t a call (``inlined_at_calls``), or the
    argument of a call of a helper the series binds (``_passed_to_caller``)?
    ``known``: the helpers bound before t; ``pulled``: the pullbacks
    (``_note_pullback``).  ``inner``: x is an abstraction that a
    helper's copy goes into (its body calls the helper), not the helper itself --
    it may be the 1-form of a pullback applied at a point and a direction, which
    rule pb applies once, there, or the point or the direction of a pullback the
    series binds (``let app = pb x``), which rule pb applies (the point where the
    map calls its variable, the direction by 19a) as it does one written in place
    (``_passes_to_pullback``); a helper itself is not copied there (the 1-form
    of a series' pullback is a name, so is an argument: A-name would name the copy
    again)."""
    helpers = _NO_HELPERS if known is None else known  # name -> Helper
    pulls = _NO_HELPERS if pulled is None else pulled  # name -> arguments still to pass
    while is_let(t) and x in fv(t):
        E = t.arg
        if x in fv(E):
            r = t.fun.pat
            if _passed_to_caller(x, E, helpers) and _applied_fully(
                    t.fun.pat, _binders_after(helpers[E.fun.name], 1), t.fun.body):
                pass
            elif isinstance(E, Var):
                if not isinstance(r, Var) or not _calls_only(r.name, t.fun.body, helpers,
                                                             inner, pulls):
                    return False
            elif isinstance(E, Lam):
                if not isinstance(r, Var) or not (
                        _direct_calls(x, E, helpers)
                        or _direct_calls(x, E, _bound_by_call(E, r.name, t.fun.body, helpers))) \
                        or not _calls_only(r.name, t.fun.body, helpers, True, pulls):
                    return False
            elif inner and isinstance(E, App) and isinstance(E.fun, Var) \
                    and E.fun.name in pulls and E.arg == Var(x):
                # the point or the direction of a pullback bound before (A-normal form
                # names both): applied where the pullback is applied to both
                if not _applied_fully(r, pulls[E.fun.name] - 1, t.fun.body):
                    return False
            elif isinstance(E, Pullback) and _runs(x, E.fun, helpers) and (
                    x not in fv(E.form) or inner and _runs(x, E.form, helpers)):
                # Ω(x) ω or Ω(λy. … x …) ω applied at a point and a direction: rule pb
                # runs the map's body as the pullback's let series, x called there; and
                # it applies the 1-form to the map's value: Ω(S) x, Ω(S) (λz. λw. … x …)
                # call x there (a 1-form bound by a let: its body calls helpers)
                if not _applied_fully(r, 2, t.fun.body):
                    return False
            elif isinstance(E, Jac) and _direct_calls(x, E.lam, helpers):
                # J(λy. … x …)·v applied at a point: forward mode runs the map's body
                # there, x called in it
                if x in fv(E.along) or not _applied_fully(r, 1, t.fun.body):
                    return False
            elif isinstance(E, Tuple) and projected_only(t):
                # a pair the series only projects: 8c takes it apart with x's copy
                # (``split_pairs``), and x's uses go on where it is taken out
                if not all(_calls_only(n, u, h, inner, pulls)
                           for n, u, h in _taken_out(x, t, helpers)):
                    return False
            elif not (isinstance(E, App) and isinstance(E.fun, Var) and E.fun.name == x
                      and x not in fv(E.arg)):
                return False
        if x in pattern_vars(t.fun.pat):
            return True
        helpers, pulls = _note_helper(t, helpers), _note_pullback(t, pulls)
        t = t.fun.body
    return x not in fv(t)


def _note_pullback(let_: App, pulls: immutables.Map) -> immutables.Map:
    """pulls (name -> arguments still to pass) with what let_ binds: a pullback
    Ω(S) ω (2: a point and a direction), one applied to its point (1), an alias."""
    E, r = let_.arg, let_.fun.pat
    n = 2 if isinstance(E, Pullback) else pulls.get(E.name) if isinstance(E, Var) else \
        1 if isinstance(E, App) and isinstance(E.fun, Var) and pulls.get(E.fun.name) == 2 \
        else None
    if not pulls and n is None:
        return pulls  # (nearly every let: no pullback bound, nothing to forget)
    m = pulls.mutate()
    for v in pattern_vars(r):
        m.pop(v, None)
    if isinstance(r, Var) and n is not None:
        m[r.name] = n
    return m.finish()


def _runs(x: str, S: Term, helpers: immutables.Map) -> bool:
    """Does a part of a pullback Ω(S) ω applied at a point and a direction (its map
    or its 1-form) only call x: x itself, an abstraction whose body only calls x, or
    no use of x?"""
    if x not in fv(S):
        return True
    return isinstance(S, Var) or isinstance(S, Lam) and _direct_calls(x, S, helpers)


def _taken_out(x: str, let_: App, helpers: immutables.Map) -> list:
    """let_ binds r to a tuple that x is an item of and that the rest only projects
    (``projected_only``): (s, the series after it, the helpers there) for each ``let
    s = πᵢ r`` taking x out -- where x's uses go on."""
    items, r = let_.arg.items, let_.fun.pat.name
    at = {i for i, a in enumerate(items, 1) if isinstance(a, Var) and a.name == x}
    outs = []
    helpers = _note_helper(let_, helpers)
    t = let_.fun.body
    while is_let(t) and r in fv(t):
        F = t.arg
        if r in fv(F) and F.index in at:
            s = t.fun.pat
            outs.append((s.name, t.fun.body, _note_helper(t, helpers)) if isinstance(s, Var)
                        else (x, Var(x), helpers))  # (a pattern: a use that is no call)
        if r in pattern_vars(t.fun.pat):
            break
        helpers = _note_helper(t, helpers)
        t = t.fun.body
    return outs


def split_pairs(x: str, t: Term) -> Term:
    """The series t with each pair holding x that it only projects taken apart
    (``projected_only``): 8c copying an abstraction to x's uses, one of them an
    item of such a pair, would leave an abstraction in the tuple, which A-name
    would name again, and 8c copy again, for ever."""
    path: list = []
    changed, series = False, t
    while is_let(t) and x in fv(t):
        E = t.arg
        if isinstance(E, Tuple) and any(isinstance(a, Var) and a.name == x for a in E.items) \
                and projected_only(t):
            t, changed = items_projected(t), True
            continue
        path.append(t)
        if x in pattern_vars(t.fun.pat):
            t = t.fun.body
            break
        t = t.fun.body
    return _relet([(let_, let_.arg) for let_ in path], t) if changed else series


def _relet(path: list, t: Term) -> Term:
    """The lets of ``path`` (each a let of a series and the term it is to bind now),
    top first, rebuilt over the series t."""
    for let_, E in reversed(path):
        t = App(Lam(let_.fun.pat, t, let_.fun.ann, let_.fun.pos), E, let_.pos)
    return t


def _bound_by_call(lam: Lam, r: str, t: Term, helpers: immutables.Map) -> immutables.Map:
    """helpers, and lam's first binders as the helpers they are bound to when r, the
    variable a let binds lam to, is used in the series t once, by a call ``let s =
    r a``, whose s is so used in turn, and so on (a chain of partial applications,
    each binder bound to a helper of the series or shadowing one), the last result
    applied to the end: map's partial application ``λl. λf. λd. l (λx. λacc. f (g x)
    acc) d`` applied to a list (its cells helpers too) calls its folding closure
    where the list calls f; so does foldl's ``λz. λl. l (…) (λacc. acc) z`` at its
    second binder.  (Otherwise helpers unchanged.)"""
    bound, f, found, ahead = helpers, lam, False, helpers
    k = _binders_after(Helper(lam, (), helpers), 0)
    while isinstance(f, Lam) and isinstance(f.pat, Var):
        call = _the_call(r, t, ahead)
        if call is None:
            break
        a, s, t, ahead = call
        h = ahead.get(a.name) if isinstance(a, Var) else None
        if h is not None:
            bound, found = bound.set(f.pat.name, h), True
        elif f.pat.name in bound:
            bound = bound.delete(f.pat.name)
        r, f, k = s, f.body, k - 1
    if found and _applied_fully(Var(r), k, t):
        return bound
    return helpers


def _the_call(r: str, t: Term, ahead: immutables.Map):
    """r's one use in the series t, a call ``let s = r a`` (r not in a): (a, s, the
    series after it, the helpers bound before it), or None."""
    while is_let(t) and r in fv(t):
        E = t.arg
        if r in fv(E):
            if isinstance(E, App) and isinstance(E.fun, Var) and E.fun.name == r \
                    and r not in fv(E.arg) and isinstance(t.fun.pat, Var) \
                    and r not in fv(t.fun.body):
                return E.arg, t.fun.pat.name, t.fun.body, ahead
            return None
        if r in pattern_vars(t.fun.pat):
            return None
        ahead = _note_helper(t, ahead)
        t = t.fun.body
    return None


def _binders_after(h: Helper, k: int) -> int:
    """How many curried binders h's abstraction has after its arguments and k more."""
    n, f = 0, h.lam
    while isinstance(f, Lam):
        n, f = n + 1, f.body
    return max(0, n - len(h.args) - k)


def _applied_fully(r: Term, k: int, t: Term) -> bool:
    """Is the function r names (if k > 0: a helper with k binders still to apply)
    applied k more times wherever the series t uses it -- by calls, through aliases
    -- so that its body runs in the series?  A partial application that is the
    program's output (map g l, a Church list returned) runs nothing there: the
    abstractions passed to it are differentiated in rule 18's premise instead,
    where one copied into it costs more than a coordinate (ho_list_map)."""
    if k <= 0:
        return True
    if not isinstance(r, Var):
        return False
    x = r.name
    while is_let(t) and x in fv(t):
        E = t.arg
        if x in fv(E):
            s = t.fun.pat
            if isinstance(E, Var):
                if not _applied_fully(s, k, t.fun.body):
                    return False
            elif isinstance(E, App) and isinstance(E.fun, Var) and E.fun.name == x \
                    and x not in fv(E.arg):
                if not _applied_fully(s, k - 1, t.fun.body):
                    return False
            elif isinstance(E, Tuple) and projected_only(t):  # (taken out where applied)
                if not all(_applied_fully(Var(n), k, u) for n, u, _ in
                           _taken_out(x, t, _NO_HELPERS)):
                    return False
            else:
                return False
        if x in pattern_vars(t.fun.pat):
            return True
        t = t.fun.body
    return x not in fv(t)


def _note_helper(let_: App, helpers: immutables.Map) -> immutables.Map:
    """helpers with what let_ binds: an abstraction, an alias of a helper, or a
    helper's partial application ``f a`` (f's Helper with a added to its
    arguments); a name bound to anything else is no helper from there on."""
    E, r = let_.arg, let_.fun.pat
    m = helpers.mutate()
    for n in pattern_vars(r):
        m.pop(n, None)
    if isinstance(r, Var) and isinstance(E, Lam):
        m[r.name] = Helper(E, (), helpers)
    elif isinstance(r, Var) and isinstance(E, Var) and E.name in helpers:  # an alias
        m[r.name] = helpers[E.name]
    elif isinstance(r, Var) and isinstance(E, App) and isinstance(E.fun, Var) \
            and E.fun.name in helpers:
        h = helpers[E.fun.name]
        m[r.name] = Helper(h.lam, h.args + (_resolve(E.arg, helpers),), h.env)
    return m.finish()


def _resolve(a: Term, helpers: immutables.Map) -> Optional[Helper]:
    """The Helper an argument names or is: an abstraction written in place, after
    lets (``let x = a in λl. …``, a cons cell 8c copied, its x bound), or
    an application of one (that cell applied to the rest of its list, a Church
    numeral applied to a cons closure and nil); or None."""
    if isinstance(a, Var):
        return helpers.get(a.name)
    env = helpers
    while is_let(a):  # (what the lets bind is walked where it is used, not here)
        env = _note_helper(a, env)
        a = a.fun.body
    if isinstance(a, Lam):
        return Helper(a, (), env)
    if isinstance(a, App) and not is_let(a):  # (a call of known code: ``_called_param``)
        h = _resolve(a.fun, env)
        if h is not None:
            return Helper(h.lam, h.args + (_resolve(a.arg, env),), h.env)
    return None


def _passed_to_caller(x: str, E: Term, helpers: immutables.Map) -> bool:
    """Is E the call ``f x`` of a helper f of the series (or a partial
    application of one) that applies no function it does not know and whose
    parameter x becomes is only ever called?  Copied to f's call, the
    abstraction x names is then called where f calls its parameter, and is
    copied there in turn (``twice h a``, ``h`` a helper over the map's
    variables: a coordinate, each call of h in twice's body was a D-eval
    premise evaluating h's body again, forwards, for its tangent)."""
    if not (isinstance(E, App) and isinstance(E.fun, Var) and isinstance(E.arg, Var)
            and E.arg.name == x and E.fun.name in helpers):
        return False
    h = helpers[E.fun.name]
    return x not in fv(h.lam) and _called_param(h, len(h.args))


def _direct_calls(x: str, lam: Lam, helpers: Optional[immutables.Map] = None) -> bool:
    """Is every free occurrence of x in lam's body the function of an
    application outside any abstraction of the body but the lets' (x (x a))
    and lam's own curried binders (λf. λd. x f d) -- or inside an abstraction
    passed to a helper that only calls that parameter (``_called_param``:
    ``twice (λt. sin(x t)) a``, twice a let of the series in ``helpers`` or
    written in place), which becomes a call of x when the helper is copied?"""
    if x in pattern_vars(lam.pat):
        return _calls_in(x, lam.body, helpers)
    return _calls_in(x, lam, helpers)  # (the same walk: lam is its own first tail)


def _calls_in(x: str, body: Term, helpers: Optional[immutables.Map]) -> bool:
    """``_direct_calls`` of the body of an abstraction: body's own curried
    binders are passed first, and so is an abstraction it returns after lets
    (``λm. let s = sin(m) in λt. x t``: called as a curried binder is, when the
    helper's result is applied).

    A tail λ whose walk took no branch that reads ``helpers`` (a helper's call, a
    let of a called abstraction, an alias, a pullback) keeps x as a name it only
    calls (in ``Lam._memo``), whatever the helpers: those branches only accept more
    (each turns a use the plain walk refuses into a call).  A Church list's cells
    nest, each holding the rest of the list, and each cell is asked about the
    folding function in turn: the cells already walked are not walked again."""
    tails = {id(body)}  # (the body's result: the lets' bodies from the top)
    stack: list = [body] if x in fv(body) else []  # (only terms x occurs in are pushed)
    read = 0  # (the branches taken that read helpers: a λ walked without one is noted)
    while stack:
        u = stack.pop()
        if type(u) is tuple:  # (a tail λ's walk is done)
            if u[1] == read:
                calls = u[0]._memo
                u[0]._memo = calls | {x} if type(calls) is frozenset else frozenset((x,))
            continue
        if isinstance(u, Lam) and id(u) in tails:
            if x not in pattern_vars(u.pat) and not (type(u._memo) is frozenset
                                                     and x in u._memo):
                tails.add(id(u.body))
                stack.append((u, read))
                stack.append(u.body)
            continue
        if isinstance(u, App):
            if isinstance(u.fun, Var) and u.fun.name == x:
                if x in fv(u.arg):
                    stack.append(u.arg)
                continue
            if is_let(u):  # let p = E in B: B is evaluated when the let is
                B = u.fun.body
                if id(u) in tails:
                    tails.add(id(B))
                if isinstance(u.arg, Lam) and x in fv(u.arg) and _called_param(
                        Helper(u.fun, (), helpers or _NO_HELPERS), 0, x):
                    read += 1
                    if not _calls_in(x, u.arg, helpers):
                        return False
                    if x in fv(B) and x not in pattern_vars(u.fun.pat):
                        stack.append(B)
                    continue
                if isinstance(u.arg, Var) and u.arg.name == x and isinstance(u.fun.pat, Var):
                    # an alias (β of a cons cell leaves let f = f): its uses are x's
                    p = u.fun.pat.name  # (p = x: B's x is the alias, as much x's use)
                    if p != x:
                        read += 1
                        if not _calls_in(p, B, helpers):
                            return False
                    if x in fv(B):
                        stack.append(B)
                    continue
                stack.extend(c for c in (B, u.arg) if x in fv(c)
                             and not (c is B and x in pattern_vars(u.fun.pat)))
                continue
            if helpers and _passes_to_helper(x, u, helpers, stack) \
                    or _passes_to_pullback(x, u, helpers, stack):
                read += 1
                continue
            applied = _applied_binders(u, helpers)  # (… in λz. λl. B) Z L: a copied fold
            if applied is None and is_let(u.fun):  # (let f = f in λd. B) d: the λ the lets
                tails.add(id(u.fun))                # end in is applied
                applied = _applied_binder(u, helpers)  # (… in λl. B) A, A a helper
            if applied is not None:  # each binder is its argument in the λs' bodies
                series, pairs, scope = applied
                tails.add(id(series))
                read += 1
                if not _calls_in(x, series, scope):
                    return False
                for a, end in pairs:
                    if x not in fv(a):
                        continue
                    if isinstance(a, Lam) and _direct_calls(end.pat.name, end, scope):
                        # a list whose body calls x: it runs where the λ calls its binder
                        if not _calls_in(x, a, helpers):
                            return False
                    else:
                        stack.append(a)
                continue
        if isinstance(u, (Pullback, Jac)):
            # Ω(x) ω, Ω(λt. … x …) ω: the map's body is the pullback's let series, run
            # where the pullback is applied at a point (grad1 = λf. λz. Ω(f) ω z 1); and
            # rule pb applies the 1-form ω to the map's value, so a call in it is one too.
            # J(λt. … x …)·v: forward mode runs the map's body where it is applied
            read += 1
            for c in u.children():
                if x in fv(c) and not (isinstance(c, Var) and c.name == x
                                       or isinstance(c, Lam) and _calls_in(x, c, helpers)):
                    stack.append(c)  # (walked on: a λ reached so is no call)
            continue
        if isinstance(u, (Var, Lam)):
            return False  # (reached only where x occurs: a use that is no direct call)
        stack.extend(c for c in subterm_kids(u) if x in fv(c))
    return True


def _applied_binder(u: App, helpers: Optional[immutables.Map]) -> Optional[tuple]:
    """u = (let g = G in … λl. B) A, A an abstraction or a helper, l no free name of
    the lets: (the lets, [(A, λl. B)], helpers with l bound to A), as
    ``_applied_binders`` answers for several arguments -- map written in a helper's body,
    ``(let g = G in λl. λf. λd. l (λx. λacc. f (g x) acc) d) list``: g is called where
    the list calls its folding function (and the list's body runs where l is called)
    -- or None."""
    f: Term = u.fun
    while is_let(f):
        f = f.fun.body
    if not (isinstance(f, Lam) and isinstance(f.pat, Var)) or f.pat.name in fv(u.fun):
        return None
    h = _resolve(u.arg, helpers or _NO_HELPERS)
    return None if h is None else (u.fun, [(u.arg, f)],
                                   (helpers or _NO_HELPERS).set(f.pat.name, h))


def _applied_binders(u: App, helpers: Optional[immutables.Map]) -> Optional[tuple]:
    """u = (let … in λb₁. … λbₖ. B) A₁ … Aₖ, k ≥ 2 -- ``foldr g z l`` once 8c has
    copied foldr to its call, ``(let f = g in λz. λl. l f z) Z L``: (the series, [(Aᵢ,
    λbᵢ. …)], helpers with bᵢ bound to Aᵢ where Aᵢ is an abstraction or a helper, and
    unbound where it is not); None if u is no such application (one argument:
    ``_applied_binder``) or a binder is a free name of the series."""
    args: list = []
    f: Term = u
    while isinstance(f, App) and not is_let(f):
        args.append(f.arg)
        f = f.fun
    if len(args) < 2 or not is_let(f):
        return None
    args.reverse()
    series, end = f, f
    while is_let(end):
        end = end.fun.body
    scope = helpers or _NO_HELPERS
    pairs = []
    for a in args:
        if not (isinstance(end, Lam) and isinstance(end.pat, Var)) \
                or end.pat.name in fv(series):
            return None
        b = end.pat.name
        h = _resolve(a, helpers or _NO_HELPERS)  # (an argument means what it does at u)
        scope = scope.set(b, h) if h is not None else scope.delete(b) if b in scope else scope
        pairs.append((a, end))
        end = end.body
    return series, pairs, scope


def _passes_to_pullback(x: str, u: App, helpers: Optional[immutables.Map],
                        stack: list) -> bool:
    """u a pullback applied to its point and direction, Ω(S) ω P D, an abstraction
    among P and D whose body only calls x (``_calls_in``): the pullback's rules
    apply the direction (19a: J(λg. g a)·dg is dg a) and the point, so x is called
    where it is -- a helper over the input used in a function direction.  The
    other arguments and the pullback itself are walked on (pushed on stack: a
    call in its map or its 1-form is one, as in any pullback's); False, and
    nothing pushed, if u is no such application or an abstraction calls x
    otherwise."""
    head, args, others = _applied_head(u)
    if not isinstance(head, Pullback) or len(args) > 2:
        return False
    lams = [a for a in args if isinstance(a, Lam) and x in fv(a)]
    if not lams or not all(_calls_in(x, a, helpers) for a in lams):
        return False
    rest = [a for a in args if all(a is not b for b in lams)]
    stack.extend(c for c in [head] + rest + others if x in fv(c))
    return True


def _applied_head(u: Term) -> tuple[Term, list, list]:
    """u = h a₁ … aₖ: (h, [a₁, …, aₖ], []) -- looking through a projection of a
    tuple written in place, (πᵢ ⟨…, h, …⟩) a₁ … aₖ, which rule 2 makes h a₁ … aₖ:
    then the tuple's other items are the third part (evaluated, not applied)."""
    args: list = []
    others: list = []
    head: Term = u
    while True:
        if isinstance(head, App) and not is_let(head):
            args.append(head.arg)
            head = head.fun
        elif args and isinstance(head, Proj) and isinstance(head.arg, Tuple) \
                and 1 <= head.index <= len(head.arg.items):
            items = head.arg.items
            others.extend(c for j, c in enumerate(items) if j != head.index - 1)
            head = items[head.index - 1]
        else:
            break
    args.reverse()
    return head, args, others


def _passes_to_helper(x: str, u: App, helpers: immutables.Map, stack: list) -> bool:
    """u a call f a₁ … aₖ of a helper of the series: each aᵢ reading x is x
    itself or an abstraction passed where f only calls its parameter (the
    abstraction's body is asked, ``_calls_in``), or no value, walked on (pushed
    on stack); a use that is no call pushes x alone, which the walk refuses.
    False, and nothing pushed, if f is no such helper or x is passed elsewhere."""
    head, args, others = _applied_head(u)
    if not (isinstance(head, Var) and head.name in helpers):
        return False
    h = helpers[head.name]
    if _binders_after(h, len(args)) > 0:
        return False  # (a partial application: the closures passed may never run here)
    called, walked = [], []
    for i, a in enumerate(args):
        if x not in fv(a):
            continue
        if isinstance(a, (Lam, Var)) and _called_param(h, len(h.args) + i):
            called.append(a)  # (x itself, or a closure over it, that f calls)
        elif isinstance(a, (Lam, Var)):
            return False
        else:
            walked.append(a)
    if not called and not walked:
        return False
    if not all(isinstance(a, Var) or _calls_in(x, a, helpers) for a in called):
        stack.append(Var(x))  # (a use that is no call: the walk answers False)
    stack.extend(walked)
    stack.extend(c for c in others if x in fv(c))
    return True


def _called_param(h: Helper, i: int, known: Optional[str] = None) -> bool:
    """Is h's abstraction one of at least i + 1 curried binders, the (i+1)-th a
    variable that its body only calls (``_direct_calls``) -- or passes where a
    helper in its scope, or one its first binders are applied to, only calls it
    (a cons cell passes the folding function on to its tail) -- and applying no
    function it does not know (a free variable it applies names a helper in its
    scope, or is ``known``: the helper whose calls are being checked, copied to
    them if they all are)?  A closure passed there is called, and copied to the
    calls when the helper is."""
    f: Term = h.lam
    if not isinstance(f, Lam) or calls_unknown(f) and not _applies_helpers_only(f, h.env,
                                                                               known):
        return False
    if _binders_after(h, 0) == 0:
        # a call of known code on known arguments (a Church numeral applied to a cons
        # closure and nil): its value, a closure of known code, is what is applied
        return all(a is not None for a in h.args)
    scope = h.env
    for j in range(i):
        if j < len(h.args) and isinstance(f.pat, Var):
            a = h.args[j]
            scope = scope.set(f.pat.name, a) if a is not None else scope.delete(f.pat.name) \
                if f.pat.name in scope else scope
        elif isinstance(f.pat, Var) and f.pat.name in scope:
            scope = scope.delete(f.pat.name)  # (shadowed by the binder)
        f = f.body
        if not isinstance(f, Lam):
            return False
    return isinstance(f.pat, Var) and _direct_calls(f.pat.name, f, scope)


def _applies_helpers_only(lam: Lam, helpers: immutables.Map, known: Optional[str] = None) -> bool:
    """Is every free variable lam's body applies a helper in scope (or ``known``)?"""
    if not helpers and known is None:
        return False
    stack: list = [(lam.body, frozenset(pattern_vars(lam.pat)))]
    while stack:
        u, bound = stack.pop()
        if isinstance(u, App) and isinstance(u.fun, Var) and u.fun.name not in bound \
                and u.fun.name not in helpers and u.fun.name != known:
            return False
        if isinstance(u, Lam):
            bound = bound | frozenset(pattern_vars(u.pat))
        stack.extend((c, bound) for c in subterm_kids(u))
    return True


def projected_only(let_: App) -> bool:
    """Does 8c take let q = ⟨a₁, …, aₙ⟩ in L apart, because L uses q only as
    ``let r = πᵢ q`` (and binds no variable of the aᵢ again before such a use)?
    Substituted, each projection is rule 2's πᵢ⟨a₁, …, aₙ⟩ → aᵢ, and ``let r =
    aᵢ`` binds an atom: a constant or an alias, which 8c substitutes in turn.
    Rule 8 would make q a coordinate, and r -- a closure taken out of a pair and
    applied, ``(π1 ⟨twice f, 0⟩) x`` -- one too: each call of r a D-eval
    premise that runs r's body forwards for its tangent, where the closure
    written in place runs in the series (the thorough profile, 2026-11-30:
    105,827 steps against 41,134)."""
    V, q = let_.arg, let_.fun.pat
    if not isinstance(q, Var) or not isinstance(V, Tuple):
        return False
    x, items_fv = q.name, fv(V)
    t = let_.fun.body
    while is_let(t):
        if x not in fv(t):
            return True
        E = t.arg
        if x in fv(E) and not (isinstance(E, Proj) and isinstance(E.arg, Var)
                               and 1 <= E.index <= len(V.items)):
            return False
        bound = pattern_vars(t.fun.pat)
        if x in bound:
            return True
        if any(n in items_fv for n in bound) and x in fv(t.fun.body):
            return False  # (an item's variable rebound before a use: aᵢ would be captured)
        t = t.fun.body
    return x not in fv(t)


def items_projected(let_: App) -> Term:
    """L of ``projected_only``'s let with each ``let r = πᵢ q`` made ``let r = aᵢ``:
    the lets down to q's last use rebuilt, the rest of the series shared."""
    items, x = let_.arg.items, let_.fun.pat.name
    path: list = []
    t = let_.fun.body
    while is_let(t) and x in fv(t):
        E = t.arg
        path.append((t, items[E.index - 1] if x in fv(E) else E))
        if x in pattern_vars(t.fun.pat):
            t = t.fun.body
            break
        t = t.fun.body
    return _relet(path, t)
