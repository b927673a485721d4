"""Simple types for the pullback calculus, inferred by unification.

Annotations are optional; open terms are allowed (a free variable not in the
environment gets a fresh type variable, shared by all its occurrences).

Design choices:

- Type variables live in a union-find: ``parent`` links variables to
  variables (with path compression) and ``value`` holds the structure a root
  variable stands for.  Unification is an explicit work list; the occurs
  check is one walk of the type graph at the end (``_solved``), and on an
  error the inference runs again checking at each binding, for the message.
  Types are only zonked (fully resolved) once, at the end, or for an error
  message.
- Duals and functions: σ⋆ is usable wherever σ → ℝ is, and a λ-abstraction
  with body of type ℝ is accepted where σ⋆ is expected (``λz. λw. π₁ w`` is a
  1-form τ → τ⋆).  Unification therefore treats ``DualT(σ)`` and
  ``Arrow(σ, ℝ)`` as compatible: unifying DualT(a) with Arrow(b, c) unifies a
  with b and c with ℝ, and a variable that stood for the arrow is rebound to
  the dual, so DualT is the representative.  ``types_equal`` identifies the
  two as well.
- ``(λq.S) P`` (a ``let``) is checked value first: the pattern is matched
  against P's type, so the body sees concrete types (projections resolve at
  once, errors point into the body where the use is).
- πᵢ S with S's type still an unknown variable is postponed; pending
  projections are retried once the whole term has been seen, and one that is
  still unknown then is an error asking for an annotation.
- No let-polymorphism: these are simple types.
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Union

from ..deep import deep, trampoline
from ..errors import TypeError_
from ..syntax import prims
from ..syntax.subst import linear_needs
from ..syntax.terms import (App, Dual, Jac, Lam, Num, Prim, Proj, Pullback, Sum, Term, Tuple,
                            Var, Zero, pattern_vars)
from ..syntax.types import DualT, Prod, R, Arrow, Real, TVar, Type, show_type

__all__ = ["infer", "typecheck", "infer_with_free", "types_equal", "pullback_domains",
           "unbound_message"]

_ABBREV = 60
_MISSING = object()
What = Union[str, Callable[[], str]]  # error context, computed only on error


def _show(t: Term) -> str:
    """The term, pretty-printed on one line and abbreviated."""
    try:
        from ..syntax.printer import as_written  # written concurrently; optional here
        s = " ".join(as_written(t).split())
    except Exception:
        s = t.name if isinstance(t, Var) else f"{t.value:g}" if isinstance(t, Num) \
            else f"a {type(t).__name__} term"
    return s if len(s) <= _ABBREV else s[:_ABBREV - 1] + "…"


class _Clash(Exception):
    """Unification failed; ``occurs`` = (variable, type) for an infinite type."""

    def __init__(self, occurs=None):
        self.occurs = occurs


class _Cyclic(Exception):
    """An error's message was asked for while the occurs check was deferred."""


class _Checker:
    #: check for an infinite type at each binding (the error where it arises), or
    #: once, at the end, over the whole graph (``_solved``: linear in the types)
    eager_occurs = True

    def __init__(self, env: Optional[dict], closed: bool = False):
        self.env = dict(env or {})
        self.closed = closed               # an undeclared free variable is an error
        self.scope: dict[str, Type] = {}   # λ-bound variables in scope
        self.free: dict[str, Type] = {}    # free variables met so far
        self.parent: dict[int, TVar] = {}
        self.value: dict[int, Type] = {}
        self.pending: list = []            # postponed projections
        self.binders: dict[int, list] = {}  # id(λ) → its variables' types, per occurrence
        self.pb_domains: list[Type] = []    # the domain of each Ω(S)P, for notes

    # ---- union-find ----------------------------------------------------------
    def root(self, v: TVar) -> TVar:
        path = []
        while v.id in self.parent:
            path.append(v)
            v = self.parent[v.id]
        for u in path[:-1]:  # path compression
            self.parent[u.id] = v
        return v

    def resolve(self, t: Type) -> tuple[Optional[TVar], Type]:
        """(root variable or None, the structure it stands for or the root itself)."""
        if not isinstance(t, TVar):
            return None, t
        r = self.root(t)
        return r, self.value.get(r.id, r)

    def occurs(self, v: TVar, t: Type) -> bool:
        seen: set = set()
        stack = [t]
        while stack:
            r, h = self.resolve(stack.pop())
            if r is not None:
                if r.id == v.id:
                    return True
                if r.id in seen:
                    continue
                seen.add(r.id)
            if isinstance(h, Prod):
                stack.extend(h.items)
            elif isinstance(h, Arrow):
                stack += [h.dom, h.cod]
            elif isinstance(h, DualT):
                stack.append(h.of)
        return False

    def bind(self, v: TVar, t: Type) -> None:
        if self.eager_occurs and self.occurs(v, t):
            raise _Clash(occurs=(v, t))
        self.value[v.id] = t

    def acyclic(self) -> bool:
        """No bound variable's structure reaches the variable again: one
        depth-first walk of the whole type graph (each root variable once)."""
        state: dict[int, int] = {}  # root id -> 1 on the walk's path, 2 done
        for vid in list(self.value):
            if state.get(vid):
                continue
            stack: list = [(TVar(vid), False)]
            while stack:
                t, leaving = stack.pop()
                r, h = self.resolve(t)
                if r is not None:
                    if leaving:
                        state[r.id] = 2
                        continue
                    seen = state.get(r.id)
                    if seen == 1:
                        return False
                    if seen == 2:
                        continue
                    state[r.id] = 1
                    stack.append((r, True))
                if isinstance(h, Prod):
                    stack.extend((i, False) for i in h.items)
                elif isinstance(h, Arrow):
                    stack += [(h.dom, False), (h.cod, False)]
                elif isinstance(h, DualT):
                    stack.append((h.of, False))
        return True

    def unify(self, a: Type, b: Type) -> None:
        stack = [(a, b)]
        while stack:
            x, y = stack.pop()
            (ra, a), (rb, b) = self.resolve(x), self.resolve(y)
            if a is b:
                continue
            if not self.eager_occurs and ra is not None and rb is not None \
                    and type(a) is type(b) and not isinstance(a, TVar) \
                    and (not isinstance(a, Prod)
                         or (isinstance(b, Prod) and len(a.items) == len(b.items))):
                # one structure now: met again -- in a cyclic graph, the occurs check
                # deferred -- the pair is equal at once, and unification ends.  (Not
                # when checking eagerly: an error's message shows both types as given)
                self.parent[ra.id] = rb
            if isinstance(a, TVar) and isinstance(b, TVar):
                if a.id != b.id:
                    self.parent[a.id] = b
            elif isinstance(a, TVar):
                self.bind(a, b)
            elif isinstance(b, TVar):
                self.bind(b, a)
            elif isinstance(a, Real) and isinstance(b, Real):
                pass
            elif isinstance(a, Prod) and isinstance(b, Prod) and len(a.items) == len(b.items):
                stack.extend(zip(a.items, b.items))
            elif isinstance(a, Arrow) and isinstance(b, Arrow):
                stack += [(a.dom, b.dom), (a.cod, b.cod)]
            elif isinstance(a, DualT) and isinstance(b, DualT):
                stack.append((a.of, b.of))
            elif isinstance(a, DualT) and isinstance(b, Arrow):
                self.dual_arrow(a, b, rb, stack)
            elif isinstance(a, Arrow) and isinstance(b, DualT):
                self.dual_arrow(b, a, ra, stack)
            else:
                raise _Clash()

    def dual_arrow(self, d: DualT, f: Arrow, rf: Optional[TVar], stack: list) -> None:
        """σ⋆ ~ σ' → τ: σ = σ' and τ = ℝ; the dual stays the representative."""
        stack += [(d.of, f.dom), (f.cod, R)]
        if rf is not None and not self.occurs(rf, d):
            self.value[rf.id] = d

    def zonk(self, t: Type, memo: dict) -> Type:
        if not self.eager_occurs:  # (an error's message, its types perhaps cyclic)
            raise _Cyclic
        return trampoline(self._zonk(t, memo))

    def _zonk(self, t: Type, memo: dict):
        r, h = self.resolve(t)
        key = ("v", r.id) if r is not None else id(h)
        if key in memo:  # shared subtypes are resolved once
            return memo[key]
        if isinstance(h, Prod):
            items = []
            for i in h.items:
                items.append((yield self._zonk(i, memo)))
            out: Type = Prod(tuple(items))
        elif isinstance(h, Arrow):
            out = Arrow((yield self._zonk(h.dom, memo)), (yield self._zonk(h.cod, memo)))
        elif isinstance(h, DualT):
            out = DualT((yield self._zonk(h.of, memo)))
        else:
            out = h
        memo[key] = out
        return out

    # ---- errors ---------------------------------------------------------------
    def expect(self, actual: Type, expected: Type, term: Term, what: What, pos) -> None:
        try:
            self.unify(actual, expected)
        except _Clash as c:
            what = what() if callable(what) else what
            memo: dict = {}
            names: dict = {}
            if c.occurs:
                v, t = (self.zonk(x, memo) for x in c.occurs)
                # (a name used at two types: ML's let would generalise it, the paper's
                # simply typed let, (λx. N) M, does not)
                hint = (f"; `{term.name}` would need two types here, and a name has one "
                        f"(let-bound ones too: bind a second copy under another name)"
                        if isinstance(term, Var) else "")
                raise TypeError_(
                    f"cannot construct infinite type {show_type(v, names=names)} = "
                    f"{show_type(t, names=names)} in {what}: `{_show(term)}`{hint}",
                    pos, term, v, t) from None
            e, a = self.zonk(expected, memo), self.zonk(actual, memo)
            raise TypeError_(
                f"type mismatch in {what}: expected {show_type(e, names=names)}, "
                f"found {show_type(a, names=names)} in `{_show(term)}`",
                pos, term, e, a) from None

    # ---- environments and patterns --------------------------------------------
    def lookup(self, name: str, pos=None, term: Optional[Term] = None,
               applied: bool = False) -> Type:
        t = self.scope.get(name)
        if t is None:
            t = self.free.get(name)
            if t is None:
                t = self.env.get(name)
                if t is None and self.closed:
                    raise TypeError_(unbound_message(name, list(self.scope) + list(self.env),
                                                     applied), pos, term)
                self.free[name] = t = TVar.new() if t is None else t
        return t

    def pattern(self, pat: Term, t: Type, term: Term, what: What, pos) -> list:
        """Match pattern ``pat`` against type ``t``; the variables' bindings."""
        out: list = []
        seen: set = set()
        stack = [(pat, t)]  # left to right, without recursion (patterns may be deep)
        while stack:
            p, t = stack.pop()
            if isinstance(p, Var):
                if p.name in seen:  # it would be typed by one binding, reduced by another
                    raise TypeError_(f"the pattern `{_show(pat)}` binds {p.name} twice",
                                     p.pos or pos, p)
                seen.add(p.name)
                out.append((p.name, t))
                continue
            if not isinstance(p, Tuple):
                raise TypeError_(f"`{_show(p)}` is not a pattern", p.pos or pos, p)
            _, h = self.resolve(t)
            if isinstance(h, TVar):  # fresh parts: no occurs check needed
                self.value[h.id] = Prod(tuple(TVar.new() for _ in p.items))
                h = self.value[h.id]
            if not (isinstance(h, Prod) and len(h.items) == len(p.items)):
                self.expect(t, _shape(p), term, what, pos)  # raises
            assert isinstance(h, Prod)
            stack.extend(reversed(list(zip(p.items, h.items))))
        return out

    def enter(self, binds: list, binder: Term) -> list:
        self.binders.setdefault(id(binder), []).append(dict(binds))
        saved = [(n, self.scope.get(n, _MISSING)) for n, _ in binds]
        self.scope.update(binds)
        return saved

    def leave(self, saved: list) -> None:
        for n, old in reversed(saved):
            if old is _MISSING:
                self.scope.pop(n, None)  # twice if the pattern binds n twice
            else:
                self.scope[n] = old

    def fun_parts(self, tf: Type, term: Term, what: What, pos) -> tuple[Type, Type]:
        """Domain and codomain of a function type (a dual σ⋆ is σ → ℝ)."""
        _, h = self.resolve(tf)
        if isinstance(h, Arrow):
            return h.dom, h.cod
        if isinstance(h, DualT):
            return h.of, R
        a, b = TVar.new(), TVar.new()
        self.expect(tf, Arrow(a, b), term, what, pos)
        return a, b

    # ---- the rules ------------------------------------------------------------
    def infer(self, t: Term, pos) -> Type:
        return trampoline(self._infer(t, pos))

    def _infer(self, t: Term, pos):
        """The rules, as a generator: ``(yield self._infer(u, pos))`` is the type
        of a subterm, computed on deep.trampoline's explicit stack (terms may be
        a million levels deep)."""
        pos = t.pos or pos
        if isinstance(t, Var):
            return self.lookup(t.name, pos, t)
        if isinstance(t, Num):
            return R
        if isinstance(t, Prim):
            k = prims.ARITY.get(t.op)
            if k is None:  # (a term built by hand, or a symbol unregistered since)
                raise TypeError_(f"`{t.op}` is not a function symbol (any more: was it "
                                 f"unregistered?)", pos, t)
            if len(t.args) != k:
                raise TypeError_(f"{t.op} takes {k} arguments, "
                                 f"given {len(t.args)} in `{_show(t)}`", pos, t)
            for i, a in enumerate(t.args, 1):
                self.expect((yield self._infer(a, pos)), R, a, _arg_name(t.op, i, len(t.args)),
                            a.pos or pos)
            return R
        if isinstance(t, Lam):
            dom = TVar.new() if t.ann is None else t.ann
            saved = self.enter(self.pattern(
                t.pat, dom, t.pat, lambda: f"the annotated pattern of `{_show(t)}`", pos), t)
            cod = (yield self._infer(t.body, pos))
            self.leave(saved)
            return Arrow(dom, cod)
        if isinstance(t, App):
            if isinstance(t.fun, Lam):  # let q = P in S: the value first
                lam, arg = t.fun, t.arg
                what = lambda: f"the value bound to `{_show(lam.pat)}`"
                ta = (yield self._infer(arg, pos))
                if lam.ann is not None:
                    self.expect(ta, lam.ann, arg, what, arg.pos or pos)
                saved = self.enter(self.pattern(lam.pat, ta, arg, what, arg.pos or pos), lam)
                tb = (yield self._infer(lam.body, pos))
                self.leave(saved)
                return tb
            if isinstance(t.fun, Var):  # an unbound function name gets its own hint
                tf = self.lookup(t.fun.name, t.fun.pos or pos, t.fun, applied=True)
            else:
                tf = (yield self._infer(t.fun, pos))
            if isinstance(self.resolve(tf)[1], Real):
                raise TypeError_(_applied_real(t), t.fun.pos or pos, t, None, R)
            dom, cod = self.fun_parts(tf, t.fun,
                                      "the function of an application", t.fun.pos or pos)
            self.expect((yield self._infer(t.arg, pos)), dom, t.arg,
                        lambda: f"the argument of `{_show(t.fun)}`", t.arg.pos or pos)
            return cod
        if isinstance(t, Tuple):
            items = []
            for it in t.items:
                items.append((yield self._infer(it, pos)))
            return Prod(tuple(items))
        if isinstance(t, Proj):
            return self.project(t, (yield self._infer(t.arg, pos)), pos)
        if isinstance(t, Zero):
            return TVar.new()
        if isinstance(t, Sum):
            first = (yield self._infer(t.items[0], pos))
            for it in t.items[1:]:
                self.expect((yield self._infer(it, pos)), first, it, "a summand of a formal sum",
                            it.pos or pos)
            return first
        if isinstance(t, Jac):
            dom, cod = self.fun_parts((yield self._infer(t.lam, pos)), t.lam,
                                      "the map of a Jacobian J(λq.S)·P", t.lam.pos or pos)
            self.expect((yield self._infer(t.along, pos)), dom, t.along,
                        "the direction of a Jacobian J(λq.S)·P", t.along.pos or pos)
            return Arrow(dom, cod)
        if isinstance(t, Dual):
            if not isinstance(t.lam, Lam):
                raise TypeError_(f"the map of a dual map must be a λ-abstraction: "
                                 f"`{_show(t)}`", pos, t)
            dom, cod = self.fun_parts((yield self._infer(t.lam, pos)), t.lam,
                                      "the map of a dual map (λq.S)⋆P", t.lam.pos or pos)
            self.expect((yield self._infer(t.functional, pos)), DualT(cod), t.functional,
                        "the functional of a dual map (λq.S)⋆P", t.functional.pos or pos)
            if isinstance(t.functional, Lam):
                self.linear_functional(t.functional, "the functional of the dual map",
                                       t.functional.pos or pos)
            xs = pattern_vars(t.lam.pat)
            if not self.linear(t.lam.body, xs):
                raise TypeError_(f"the body of the dual map `{_show(t)}` is not linear in "
                                 f"the bound variable(s) {', '.join(xs)}", pos, t)
            return DualT(dom)
        if isinstance(t, Pullback):
            dom, cod = self.fun_parts((yield self._infer(t.fun, pos)), t.fun,
                                      "the function of a pullback Ω(S)P", t.fun.pos or pos)
            self.pb_domains.append(dom)
            self.expect((yield self._infer(t.form, pos)), Arrow(cod, DualT(cod)), t.form,
                        "the 1-form of a pullback Ω(S)P", t.form.pos or pos)
            if isinstance(t.form, Lam) and isinstance(t.form.body, Lam):
                self.linear_functional(t.form.body, "the 1-form of the pullback",
                                       t.form.pos or pos)
            return Arrow(dom, DualT(dom))
        raise TypeError_(f"not a term: {type(t).__name__}", pos, t)

    # ---- linearity (§2.5) --------------------------------------------------------
    def linear(self, body: Term, xs) -> bool:
        """lin(S): is ``body`` jointly linear in ``xs``?  A variable applied to a
        linear argument counts as a functional when its type is σ⋆ or can still
        become one; the verdict then types it σ⋆ (being a covector is what makes
        the application linear)."""
        need = linear_needs(body, frozenset(xs), self.may_be_functional)
        if need is None:
            return False
        for name, k, binder in sorted(need, key=lambda n: (n[0], n[1])):
            slots = self.functional_slots(name, k, binder)  # again: a commit may change it
            if slots is None:
                return False
            for r, h in slots:
                if isinstance(h, TVar):
                    self.value[h.id] = DualT(TVar.new())
                elif isinstance(h, Arrow):  # σ → ℝ becomes σ⋆ (the dual is the representative)
                    try:
                        self.unify(h.cod, R)
                    except _Clash:
                        return False
                    self.value[r.id] = DualT(h.dom)
        return True

    def may_be_functional(self, name: str, k: int, binder: Optional[Term]) -> bool:
        return self.functional_slots(name, k, binder) is not None

    def functional_slots(self, name: str, k: int, binder: Optional[Term]):
        """The types of ``name`` (of the context, or bound by ``binder`` in each of
        its occurrences) after k arguments, as (root, structure), if each is a dual
        σ⋆, an unknown, or an arrow σ → ℝ that is still a type variable (so not
        a λ literal's, an annotation's or the environment's); else None."""
        if binder is None:
            types = [self.lookup(name)]
        else:
            types = [b[name] for b in self.binders.get(id(binder), ()) if name in b]
        out = []
        for t in types:
            for _ in range(k):
                _, h = self.resolve(t)
                if not isinstance(h, Arrow):
                    return None
                t = h.cod
            r, h = self.resolve(t)
            if not (isinstance(h, (DualT, TVar)) or (
                    isinstance(h, Arrow) and r is not None and not self.occurs(r, h.dom)
                    and isinstance(self.resolve(h.cod)[1], (Real, TVar)))):
                return None
            out.append((r, h))
        return out or None

    def linear_functional(self, f: Lam, what: str, pos) -> None:
        """σ⋆ is compatible with σ → ℝ in inference, so a λ written where a
        covector is required gets the linearity side condition here."""
        xs = pattern_vars(f.pat)
        if not self.linear(f.body, xs):
            raise TypeError_(f"{what}, `{_show(f)}`, is not linear in {', '.join(xs)}: "
                             f"a covector must be a linear functional", pos, f)

    def project(self, t: Proj, ta: Type, pos, final: bool = False) -> Type:
        _, h = self.resolve(ta)
        if isinstance(h, TVar):
            if final:
                where = f" at {pos}" if pos is not None else ""
                raise TypeError_(
                    f"cannot tell which tuple type the projection `{_show(t)}`{where} "
                    f"takes apart; add a type annotation (e.g. `λy : ℝ × ℝ. …`)", pos, t)
            r = TVar.new()
            self.pending.append((t, ta, r, pos))
            return r
        if isinstance(h, Prod) and 1 <= t.index <= len(h.items):
            return h.items[t.index - 1]
        a = self.zonk(ta, {})
        if isinstance(h, Prod):
            raise TypeError_(f"projection π{t.index} out of range: `{_show(t.arg)}` has type "
                             f"{show_type(a)} with {len(h.items)} components", pos, t, None, a)
        raise TypeError_(f"type mismatch in the projection `{_show(t)}`: expected a product "
                         f"type, found {show_type(a)} in `{_show(t.arg)}`", pos, t, None, a)

    def solve_pending(self) -> None:
        """Retry postponed projections until none is left or none progresses.
        Each pass after the first goes the other way: a projection solved in a
        pass may let the next one in it be solved, so a chain of them that
        wait on each other (``λt. π1 t`` helpers applied to each other's
        results) is solved in one pass whichever way it runs, not one per pass
        (quadratic in its length: tests/test_typing.py)."""
        backwards = False
        while self.pending:
            todo, self.pending = self.pending, []
            stuck = []
            for t, ta, r, pos in (reversed(todo) if backwards else todo):
                if isinstance(self.resolve(ta)[1], TVar):
                    stuck.append((t, ta, r, pos))
                else:
                    self.expect(self.project(t, ta, pos), r, t,
                                lambda: f"the projection `{_show(t)}`", pos)  # noqa: B023
            if backwards:
                stuck.reverse()  # (the order they were met in)
            if len(stuck) == len(todo):
                t, ta, _, pos = stuck[0]
                self.project(t, ta, pos, final=True)  # raises
            self.pending += stuck
            backwards = not backwards


def unbound_message(name: str, in_scope, applied: bool = False) -> str:
    """'unbound variable `sni`; did you mean `sin`?' and how to declare it."""
    import difflib
    from ..syntax.parser import KEYWORDS
    words = list(dict.fromkeys([*in_scope, *prims.ARITY, *KEYWORDS]))
    close = difflib.get_close_matches(name, words, n=2, cutoff=0.6)
    hint = (f"; did you mean {' or '.join(f'`{c}`' for c in close)}?" if close else "")
    if applied and not close:
        fns = " ".join(n for n, sp in prims.SPELLING.items() if sp[2] is None)
        hint = f"; it is not a function symbol (those are: {fns})"
    uni, asc = ("ℝ → ℝ", "R -> R") if applied else ("ℝ", "R")
    return (f"unbound variable `{name}`{hint} (to leave it free on purpose, declare it "
            f"with its type: `free {name} : {uni}` before the term, or "
            f"--free '{name} : {asc}' on the command line, free={{'{name}': '{asc}'}} "
            f"in the Python API)")


def _applied_real(t: App) -> str:
    """`2x`, `x y`, `2(x + 1)`: a real is not a function; say how to multiply."""
    f, a = _show(t.fun), _show(t.arg)
    if isinstance(t.arg, (Var, Num, Tuple)) or a.startswith("(") or (
            isinstance(t.arg, Prim) and prims.SPELLING[t.arg.op][2] is None):
        mul = f"`{f} × {a}`"
    else:
        mul = f"`{f} × ({a})`"
    return (f"type mismatch in the function of an application: `{f}` is a real number "
            f"and cannot be applied to `{a}`; to multiply, "
            f"write {mul} (ASCII `*`)")


def _shape(p: Term) -> Type:
    """The type a tuple pattern needs, with fresh variables for its leaves."""
    return trampoline(_shape_gen(p))


def _shape_gen(p: Term):
    if isinstance(p, Tuple):
        items = []
        for i in p.items:
            items.append((yield _shape_gen(i)))
        return Prod(tuple(items))
    return TVar.new()


def _arg_name(op: str, i: int, n: int) -> str:
    sym, _, infix = prims.SPELLING.get(op, (op, op, None))
    if n == 1:
        return f"the argument of {sym}"
    if infix is not None and n == 2:
        return f"the {'left' if i == 1 else 'right'} operand of {sym}"
    return f"argument {i} of {sym}"


# ---- public API ------------------------------------------------------------------

def _solved(make: Callable[[], _Checker], run: Callable[[_Checker], Any]) -> tuple:
    """(checker, run(checker)) for the inference ``run`` does, with the occurs
    check deferred to one walk of the type graph at the end.  Checked at each
    binding it walks the type bound, and a program whose types nest k deep, each
    holding the one before (a helper per level of a nest of tuples, x's type
    not known until the end), took O(k²) (tests/test_typing.py).  On a type
    error or an infinite type it runs again with the check at each binding, so
    that the error is the one found where it arises, with its message."""
    c = make()
    c.eager_occurs = False
    try:
        out = run(c)
        if c.acyclic():
            c.eager_occurs = True  # (acyclic: its types can be resolved)
            return c, out
    except (TypeError_, _Cyclic):
        pass
    c = make()
    return c, run(c)


def _inferred(c: _Checker, term: Term) -> Type:
    t = c.infer(term, None)
    c.solve_pending()
    return t


@deep
def infer_with_free(term: Term, env: Optional[dict] = None,
                    closed: bool = False) -> tuple[Type, dict[str, Type]]:
    """The type of ``term`` and of each of its free variables, fully resolved.
    ``closed=True``: a free variable not given a type by ``env`` is an error
    (with a did-you-mean suggestion)."""
    c, t = _solved(lambda: _Checker(env, closed), lambda c: _inferred(c, term))
    memo: dict = {}
    return c.zonk(t, memo), {n: c.zonk(u, memo) for n, u in c.free.items()}


@deep
def infer(term: Term, env: Optional[dict] = None, closed: bool = False) -> Type:
    """The type of ``term`` in ``env``; raises TypeError_ if it has none."""
    return infer_with_free(term, env, closed)[0]


@deep
def check(term: Term, expected: Type, env: Optional[dict] = None,
          closed: bool = False) -> Type:
    """Check ``term`` against ``expected`` (which may contain type variables):
    the expected type is imposed before postponed projections are solved, so
    e.g. a covector ``λdy. 3 × π1 dy`` checks against (ℝ × ℝ)⋆."""
    def run(c: _Checker) -> Type:
        t = c.infer(term, None)
        c.expect(t, expected, term, lambda: "the term", getattr(term, "pos", None))
        c.solve_pending()
        return t
    c, t = _solved(lambda: _Checker(env, closed), run)
    return c.zonk(t, {})


@deep
def pullback_domains(term: Term, env: Optional[dict] = None) -> list[Type]:
    """The domain type of every pullback Ω(S)P in ``term`` (to tell users when
    a derivative is taken along a function-typed input)."""
    c, _ = _solved(lambda: _Checker(env), lambda c: _inferred(c, term))
    memo: dict = {}
    return [c.zonk(d, memo) for d in c.pb_domains]


class _Recording(_Checker):
    """A checker that keeps the type it infers for each sub-term it is asked
    about (by identity: equal sub-terms may have different types in context)."""

    def __init__(self, env: Optional[dict], wanted: set):
        super().__init__(env)
        self.wanted = wanted
        self.seen: dict = {}

    def _infer(self, t, pos):  # the checker's rules run as generators (deep.trampoline)
        ty = yield super()._infer(t, pos)
        if id(t) in self.wanted:
            self.seen[id(t)] = ty
        return ty


@deep
def subterm_types(term: Term, wanted: set, expected: Optional[Type] = None,
                  env: Optional[dict] = None) -> dict[int, Type]:
    """id(S) ↦ the type of S, fully resolved, for each sub-term S of ``term``
    whose id is in ``wanted``, as the inference of the whole term (checked
    against ``expected``, if given) finds it: the function of Ω(λx. 1) ω ⟨1, 2⟩
    has type ℝ × ℝ → ℝ only in its context."""
    def run(c: _Checker) -> None:
        ty = c.infer(term, None)
        if expected is not None:
            c.expect(ty, expected, term, lambda: "the term", getattr(term, "pos", None))
        c.solve_pending()
    c, _ = _solved(lambda: _Recording(env, wanted), run)
    assert isinstance(c, _Recording)
    memo: dict = {}
    return {k: c.zonk(v, memo) for k, v in c.seen.items()}


def typecheck(term: Term, env: Optional[dict] = None, closed: bool = False) -> Type:
    """Public name of ``infer``.  Open terms are allowed unless ``closed=True``,
    where every free variable must be given a type by ``env`` (declared)."""
    return infer(term, env, closed)


def types_equal(a: Type, b: Type) -> bool:
    """Equal up to a renaming of type variables, with σ⋆ = σ → ℝ."""
    ren_a: dict[int, int] = {}
    ren_b: dict[int, int] = {}
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if isinstance(x, DualT):
            x = Arrow(x.of, R)
        if isinstance(y, DualT):
            y = Arrow(y.of, R)
        if isinstance(x, TVar) and isinstance(y, TVar):
            if ren_a.setdefault(x.id, y.id) != y.id or ren_b.setdefault(y.id, x.id) != x.id:
                return False
        elif isinstance(x, Real) and isinstance(y, Real):
            pass
        elif isinstance(x, Prod) and isinstance(y, Prod) and len(x.items) == len(y.items):
            stack.extend(zip(x.items, y.items))
        elif isinstance(x, Arrow) and isinstance(y, Arrow):
            stack += [(x.dom, y.dom), (x.cod, y.cod)]
        else:
            return False
    return True
