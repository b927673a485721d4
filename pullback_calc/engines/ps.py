"""The Pearlmutter–Siskind reverse transform (``method="ps"``).

"Reverse-mode AD in a functional framework: Lambda the ultimate
backpropagator" (Pearlmutter & Siskind 2008), as rackpropagator implements it
(``../shared/seeds/``), rendered on our terms:

1. the term is put in A-normal form (every intermediate result named; patterns
   become projections);
2. every λ is transformed into a λ that returns a pair ⟨primal, backpropagator⟩:

       𝒯(λp. let z₁ = e₁ … in r)
         = λp. let <forward bindings> in ⟨r, λr̀. let <reverse bindings> in ⟨ū, p̀⟩⟩

   where the backpropagator maps the sensitivity r̀ of the result to the pair of
   the *closure's* sensitivity ū (one sensitivity per free variable of the λ,
   in a fixed order — a closure's sensitivity is its environment's) and the
   argument's sensitivity p̀;
3. each primitive call is paired with its backpropagator, built from the
   partial derivatives in ``prims.PARTIALS`` (the table ``BACKPROPAGATORS``);
4. the reverse bindings run the forward ones backwards, accumulating
   sensitivities with the conformant ⊕ (a variable used twice receives two
   contributions; 𝟎 is the unit at every type), by the table ``REVERSE`` of
   one rule per kind of binding.

The transformed term is an ordinary term of the calculus (no Ω, J or ⋆), so it
prints, and it can be transformed again: a pullback written inside the
program is first expanded into core code that calls the transform of its
function (``desugar``), and an outer transform then differentiates that code
too — reverse over reverse, nesting as in the seed.  It is evaluated call by
value (``engines.evaluator``).

Not expressible here (``NotSupported``, with the construct named): J(λq.S)·P;
a pullback whose function's input or output is not ℝⁿ (a Church list, a
function: a closure's sensitivity is its free variables' sensitivities, so a
tangent that is an arbitrary function has no representation); a pullback along
a function with a free variable of function type (that needs the seed's
run-time ↔J of closures, lazily memoised, which this source transform does not
implement).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Optional, Union

from ..deep import deep
from ..syntax import prims
from ..syntax import terms as T
from ..syntax.subst import fv, subst
from ..syntax.types import Arrow, DualT, Prod, R, TVar, real_leaves
from .common import EngineResult, Measure, NotSupported
from .evaluator import (ZERO, Builtin, Closure, Env, Evaluator, checked,
                        mark_derivative)
from .tables import DerivedTable

__all__ = ["transform", "transform_program", "desugar", "jacobian", "value", "BACKPROPAGATORS",
           "REVERSE", "anf"]

_SUB = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


class _Names:
    """Fresh names, unique within one run, in the seed's notation: x₃ (a
    primal), x̃₃ (its backpropagator), x̀₃, x̀₃′, … (its sensitivity as
    contributions accumulate)."""

    def __init__(self):
        self.counter = itertools.count(1)
        self.versions: dict = {}
        self.constants: set = set()  # names bound to numerals

    def primal(self, stem: str) -> str:
        stem = stem.rstrip("₀₁₂₃₄₅₆₇₈₉′").replace("\u0300", "").replace("\u0303", "") or "v"
        return f"{stem}{str(next(self.counter)).translate(_SUB)}"

    @staticmethod
    def _accent(name: str, accent: str) -> str:
        i = len(name.rstrip("₀₁₂₃₄₅₆₇₈₉"))
        return f"{name[:i]}{accent}{name[i:]}"

    def backpropagator(self, name: str) -> str:
        return self._accent(name, "\u0303")

    def sensitivity(self, name: str) -> str:
        k = self.versions[name] = self.versions.get(name, -1) + 1
        return self._accent(name, "\u0300") + "′" * k


# ---- A-normal form ------------------------------------------------------------------

@dataclass(frozen=True)
class Bind:
    """z = e, e elementary over names; ``arity``: the tuple's length when a
    projection comes from a pattern (known), else None."""
    name: str
    expr: object  # a core Term over Vars, or a Fn
    arity: Optional[int] = None


@dataclass(frozen=True)
class Fn:
    """λparam. let binds in result, with the free variables it closes over."""
    param: str
    binds: tuple
    result: str
    free: tuple


def anf(t: T.Term, names: _Names, env: dict, out: list) -> str:
    """Name every intermediate result of t (appending to ``out``); returns the
    name of its value.  Binders are renamed apart (``env``: user name → name)."""
    if isinstance(t, T.Var):
        return str(env.get(t.name, t.name))
    if isinstance(t, T.Lam):
        fn = anf_fn(t, names, env)
        z = names.primal("fn")
        out.append(Bind(z, fn))
        return z
    if isinstance(t, T.Num):
        z = names.primal("c")
        names.constants.add(z)
        out.append(Bind(z, t))
        return z
    if isinstance(t, T.Zero):
        z = names.primal("zero")
        out.append(Bind(z, t))
        return z
    if isinstance(t, T.App) and isinstance(t.fun, T.Lam):
        # let q = S in L: a binding, not a closure, as in A-normal form
        x = anf(t.arg, names, env, out)
        inner = dict(env)
        if isinstance(t.fun.pat, T.Var):
            inner[t.fun.pat.name] = x
        else:
            _destructure(t.fun.pat, x, names, inner, out)
        return anf(t.fun.body, names, inner, out)
    if isinstance(t, T.Prim):
        args = tuple(T.Var(anf(a, names, env, out)) for a in t.args)
        z = names.primal(t.op)
        node: T.Term = T.Prim(t.op, args, t.pos)  # (its position: for an error's message)
        if t._flags & T.DERIVATIVE:
            mark_derivative(node)
        out.append(Bind(z, node))
        return z
    if isinstance(t, T.App):
        f = anf(t.fun, names, env, out)
        a = anf(t.arg, names, env, out)
        z = names.primal("app")
        out.append(Bind(z, T.App(T.Var(f), T.Var(a))))
        return z
    if isinstance(t, T.Tuple):
        items = tuple(T.Var(anf(a, names, env, out)) for a in t.items)
        z = names.primal("tup")
        out.append(Bind(z, T.Tuple(items)))
        return z
    if isinstance(t, T.Proj):
        a = anf(t.arg, names, env, out)
        z = names.primal(f"pi{t.index}")
        out.append(Bind(z, T.Proj(t.index, T.Var(a))))
        return z
    if isinstance(t, T.Sum):
        items = tuple(T.Var(anf(a, names, env, out)) for a in t.items)
        z = names.primal("sum")
        node = T.Sum(items)
        if t._flags & T.DERIVATIVE:
            mark_derivative(node)
        out.append(Bind(z, node))
        return z
    raise NotSupported(f"{_construct(t)} is not supported by the P–S engine "
                       "(it transforms core terms: λ, application, tuples, function symbols)")


def anf_fn(lam: T.Lam, names: _Names, env: dict) -> Fn:
    inner = dict(env)
    binds: list = []
    if isinstance(lam.pat, T.Var):
        p = names.primal(lam.pat.name)
        inner[lam.pat.name] = p
    else:
        p = names.primal("p")
        _destructure(lam.pat, p, names, inner, binds)
    r = anf(lam.body, names, inner, binds)
    bound = {p} | {b.name for b in binds}
    used = {n for b in binds for n in _uses(b.expr)} | {r}
    return Fn(p, tuple(binds), r, tuple(sorted(used - bound)))


def _destructure(pat: T.Term, p: str, names: _Names, env: dict, out: list) -> None:
    assert isinstance(pat, T.Tuple), pat  # (a pattern that is not a variable)
    for i, item in enumerate(pat.items, 1):
        z = names.primal(item.name if isinstance(item, T.Var) else "p")
        out.append(Bind(z, T.Proj(i, T.Var(p)), len(pat.items)))
        if isinstance(item, T.Var):
            env[item.name] = z
        else:
            _destructure(item, z, names, env, out)


def _uses(e) -> list:
    if isinstance(e, Fn):
        return list(e.free)
    return [u.name for u in T.subterms(e) if isinstance(u, T.Var)]


# ---- the transform -----------------------------------------------------------------

def _backpropagator(op: str):
    """λs. ⟨s × ∂₁op, …⟩ over the argument names, from ``prims.PARTIALS``; a
    numeral argument gets 𝟎 (its sensitivity goes nowhere, so its partial --
    e.g. log a for a constant exponent, undefined at a < 0 -- is not built)."""
    def build(args: tuple, s: T.Var, constant: tuple) -> T.Term:
        parts = prims.PARTIALS[op](*args)
        return _pack([T.ZERO if c else s if d is None else _derivative(T.Prim("mul", (s, d)))
                      for d, c in zip(parts, constant)])
    return build


#: op ↦ (argument Vars, sensitivity Var, which are numerals) ↦ the backpropagator's body
BACKPROPAGATORS = DerivedTable("P–S backpropagators", _backpropagator)


def _derivative(t: T.Term) -> T.Term:
    """Mark the arithmetic of t as derivative work (for the cost counters)."""
    for u in T.subterms(t):
        if isinstance(u, (T.Prim, T.Sum)):
            mark_derivative(u)
    return t


def _pack(items: list) -> T.Term:
    """0 items: 𝟎; one: itself; more: a tuple (a closure with no free
    variable has sensitivity 𝟎, with one the variable's)."""
    if not items:
        return T.ZERO
    return items[0] if len(items) == 1 else T.Tuple(tuple(items))


def _unpack(i: int, n: int, t: T.Term) -> T.Term:
    return t if n == 1 else T.Proj(i, t)


def _inject(k: int, n: Optional[int], s: T.Term) -> T.Term:
    """The sensitivity of a tuple from that of its k-th component: ⟨𝟎, …, s, …⟩
    (length n when known, else as long as needed: trailing 0s omitted)."""
    n = max(n or k, 2)
    return T.Tuple(tuple(s if i == k else T.ZERO for i in range(1, n + 1)))


class _Reverse:
    """The reverse bindings of one λ, built back to front: ``sens`` maps a
    name to the variable holding its sensitivity so far."""

    def __init__(self, names: _Names):
        self.names = names
        self.sens: dict = {}
        self.lets: list = []

    def let(self, stem: str, term: T.Term) -> T.Var:
        z = self.names.primal(stem)
        self.lets.append((z, term))
        return T.Var(z)

    def accumulate(self, name: str, contribution: T.Term) -> None:
        """name's sensitivity ⊕= contribution (the seed's conformant plus)."""
        z = self.names.sensitivity(name)
        old = self.sens.get(name)
        term = contribution if old is None else _derivative(T.Sum((old, contribution)))
        self.lets.append((z, term))
        self.sens[name] = T.Var(z)


def _rev_copy(b, s, rv, fn):
    rv.accumulate(b.expr.name, s)


def _rev_prim(b, s, rv, fn):
    c = rv.let("c", T.App(T.Var(fn.bp[b.name]), s))
    n = len(b.expr.args)
    for i, a in enumerate(b.expr.args, 1):
        rv.accumulate(a.name, _unpack(i, n, c))


def _rev_closure(b, s, rv, fn):
    free = b.expr.free
    for i, w in enumerate(free, 1):
        rv.accumulate(w, _unpack(i, len(free), s))


def _rev_app(b, s, rv, fn):
    c = rv.let("c", T.App(T.Var(fn.bp[b.name]), s))
    rv.accumulate(b.expr.fun.name, T.Proj(1, c))
    rv.accumulate(b.expr.arg.name, T.Proj(2, c))


def _rev_tuple(b, s, rv, fn):
    for i, a in enumerate(b.expr.items, 1):
        rv.accumulate(a.name, T.Proj(i, s))


def _rev_proj(b, s, rv, fn):
    rv.accumulate(b.expr.arg.name, _inject(b.expr.index, b.arity, s))


def _rev_sum(b, s, rv, fn):
    for a in b.expr.items:
        rv.accumulate(a.name, s)


def _rev_constant(b, s, rv, fn):
    pass  # a numeral or 𝟎: its sensitivity goes nowhere


#: kind of binding ↦ its reverse rule (b, its sensitivity, the reverse builder, the λ)
REVERSE = {"Var": _rev_copy, "Prim": _rev_prim, "Fn": _rev_closure, "App": _rev_app,
           "Tuple": _rev_tuple, "Proj": _rev_proj, "Sum": _rev_sum, "Num": _rev_constant,
           "Zero": _rev_constant}


def _kind(b: Bind) -> str:
    return "Fn" if isinstance(b.expr, Fn) else type(b.expr).__name__


def _lets(pairs: list, body: T.Term) -> T.Term:
    for name, term in reversed(pairs):
        body = T.App(T.Lam(T.Var(name), body), term)
    return body


class _Transformed:
    """A λ being transformed: the backpropagator name of each binding."""

    def __init__(self):
        self.bp: dict = {}


def transform_fn(fn: Fn, names: _Names) -> T.Lam:
    """𝒯(λp. …) = λp. … ⟨r, λr̀. … ⟨closure sensitivity, p̀⟩⟩."""
    here = _Transformed()
    forward: list = []
    for b in fn.binds:
        e = b.expr
        if isinstance(e, Fn):
            forward.append((b.name, transform_fn(e, names)))
        elif isinstance(e, T.Prim):
            forward.append((b.name, e))
            s = T.Var(names.sensitivity(b.name))
            here.bp[b.name] = names.backpropagator(b.name)
            constant = tuple(isinstance(a, T.Var) and a.name in names.constants
                             for a in e.args)  # (variables: the operands are named)
            if all(constant):  # arithmetic of numerals is a constant too (2 − 1 in x ^ (2 − 1))
                names.constants.add(b.name)
            forward.append((here.bp[b.name],  # (at e's position: an error in it points there)
                            T.Lam(s, BACKPROPAGATORS[e.op](e.args, s, constant), None, e.pos)))
        elif isinstance(e, T.App):
            pair = names.primal("pair")
            here.bp[b.name] = names.backpropagator(b.name)
            forward += [(pair, e), (b.name, T.Proj(1, T.Var(pair))),
                        (here.bp[b.name], T.Proj(2, T.Var(pair)))]
        else:
            forward.append((b.name, e))
    rv = _Reverse(names)
    seed = T.Var(names.sensitivity(fn.result))
    rv.sens[fn.result] = seed
    for b in reversed(fn.binds):
        sens = rv.sens.get(b.name)
        if sens is not None:  # a 0 sensitivity propagates nothing
            REVERSE[_kind(b)](b, sens, rv, here)
    closure = _pack([rv.sens.get(u, T.ZERO) for u in fn.free])
    backprop = T.Lam(seed, _lets(rv.lets, T.Tuple((closure, rv.sens.get(fn.param, T.ZERO)))))
    body = _lets(forward, T.Tuple((T.Var(fn.result), backprop)))
    return T.Lam(T.Var(fn.param), body)


def transform_program(t: T.Term, names: Optional[_Names] = None) -> T.Term:
    """The transformed program: its own bindings evaluated forward (nothing
    outside differentiates it), every λ in it transformed."""
    names = names or _Names()
    binds: list = []
    r = anf(t, names, {}, binds)
    forward: list = []
    for b in binds:
        if isinstance(b.expr, Fn):
            forward.append((b.name, transform_fn(b.expr, names)))
        elif isinstance(b.expr, T.App):  # a transformed function returns ⟨value, backpropagator⟩
            pair = names.primal("pair")
            forward += [(pair, b.expr), (b.name, T.Proj(1, T.Var(pair)))]
        else:
            forward.append((b.name, b.expr))
    return _lets(forward, T.Var(r))


# ---- pullbacks written in the term: expanded into core code -------------------------

def inline_functions(t: T.Term) -> T.Term:
    """let f = λ… in L ⟶ L[λ…/f] where f is free in a pullback's function (so
    that it becomes code the transform can see), and (λq.S)⋆P ⟶ λv. P ((λq.S) v)."""
    if isinstance(t, T.App) and isinstance(t.fun, T.Lam) and isinstance(t.fun.pat, T.Var) \
            and isinstance(t.arg, T.Lam) and _under_pullback(t.fun.pat.name, t.fun.body):
        return inline_functions(subst(t.fun.body, {t.fun.pat.name: inline_functions(t.arg)}))
    if isinstance(t, T.Dual):
        v = T.Var(T.fresh("v"))
        return T.Lam(v, T.App(inline_functions(t.functional),
                              T.App(inline_functions(t.lam), v)))
    kids = [inline_functions(c) for c in t.children()]
    return _rebuild(t, kids)


def _under_pullback(name: str, body: T.Term) -> bool:
    """Is ``name`` free in the function of a pullback in ``body``?  (Only
    then is a let-bound λ inlined: elsewhere the transform handles the closure.)"""
    return any(isinstance(u, T.Pullback) and name in fv(u.fun) for u in T.subterms(body))


def _rebuild(t: T.Term, kids: list) -> T.Term:
    if not kids:
        return t
    if isinstance(t, T.Lam):
        return T.Lam(t.pat, kids[1], t.ann, t.pos)
    if isinstance(t, T.App):
        return T.App(kids[0], kids[1], t.pos)
    if isinstance(t, T.Prim):
        return T.Prim(t.op, tuple(kids), t.pos)
    if isinstance(t, (T.Tuple, T.Sum)):
        return type(t)(tuple(kids), t.pos)
    if isinstance(t, T.Proj):
        return T.Proj(t.index, kids[0], t.pos)
    if isinstance(t, T.Jac):
        return T.Jac(kids[0], kids[1], t.pos)
    if isinstance(t, T.Pullback):
        return T.Pullback(kids[0], kids[1], t.pos)
    if isinstance(t, T.Dual):
        return T.Dual(kids[0], kids[1], t.pos)
    return t


def context_types(term: T.Term, expected=None) -> dict:
    """id(S) ↦ the type of S for the function S of every pullback in ``term``
    and the variables in it, as the whole term's type inference finds them
    (the function of Ω(λx. 1) ω ⟨1, 2⟩ has type ℝ × ℝ → ℝ only in context)."""
    from ..typing.check import subterm_types
    wanted = set()
    for u in T.subterms(term):
        if isinstance(u, T.Pullback):
            wanted.add(id(u.fun))
            wanted.update(id(v) for v in T.subterms(u.fun) if isinstance(v, T.Var))
    return subterm_types(term, wanted, expected) if wanted else {}


def desugar(t: T.Term, names: _Names, types: dict) -> T.Term:
    """Replace every Ω(f) ω by core code built on 𝒯(f), innermost first:

        λx. let r = 𝒯(f) x in let c = ω (π₁ r) in
            let g = π₂ (π₂ r ⟨c e₁, …, c eₘ⟩) in λv. g · v

    (⟨c e₁, …⟩: the covector c as a sensitivity -- its values on the output's
    basis; g · v: the gradient against the tangent).  ``types``: from
    ``context_types``."""
    if isinstance(t, T.Jac):
        raise NotSupported(f"J(λq.S)·P{_at(t)} is not supported by the P–S engine: it is a "
                           "forward (tangent) derivative, which the reverse transform "
                           "does not compute")
    if isinstance(t, T.Pullback):
        return _pullback(t, desugar(t.fun, names, types), desugar(t.form, names, types),
                         names, types)
    kids = [desugar(c, names, types) for c in t.children()]
    return _rebuild(t, kids)


def _pullback(t: T.Pullback, f: T.Term, omega: T.Term, names: _Names, types: dict) -> T.Term:
    ty = types.get(id(t.fun))
    if ty is None:
        raise NotSupported(f"Ω(S) P{_at(t)}: the type of its function is unknown")
    if isinstance(ty, DualT):
        ty = Arrow(ty.of, R)
    # a type inference leaves open even in context (λx. 1's output) is taken to be ℝ
    ty = _reals_for_unknowns(ty)
    dom = real_leaves(ty.dom) if isinstance(ty, Arrow) else None
    cod = real_leaves(ty.cod) if isinstance(ty, Arrow) else None
    if dom is None or cod is None:
        raise NotSupported(f"Ω(S) P{_at(t)} along a function of type {ty}: the P–S engine "
                           "differentiates functions ℝⁿ → ℝᵐ only (the sensitivity of a "
                           "function or Church list is its closure's, which cannot hold an "
                           "arbitrary tangent)")
    for v in T.subterms(t.fun):
        if isinstance(v, T.Var) and v.name in fv(t.fun) \
                and isinstance(types.get(id(v)), (Arrow, DualT)):
            raise NotSupported(f"Ω(S) P{_at(t)}: the function has a free variable {v.name} of "
                               f"type {types[id(v)]}; the P–S engine here transforms source "
                               "code and does not transform closures at run time")
    if not isinstance(f, T.Lam):
        x0 = T.Var(names.primal("x"))
        f = T.Lam(x0, T.App(f, x0))
    F = transform_fn(anf_fn(f, names, {}), names)
    x, v = T.Var(names.primal("x")), T.Var(names.primal("v"))
    r, c, g = (T.Var(names.primal(s)) for s in ("r", "c", "g"))
    riesz = _riesz(ty.cod, c)
    dot = _dot(dom, g, v)
    # the work is done once per point x; the covector only takes a dot product
    return T.Lam(x, _lets([(r.name, T.App(F, x)), (c.name, T.App(omega, T.Proj(1, r))),
                           (g.name, T.Proj(2, T.App(T.Proj(2, r), riesz)))], T.Lam(v, dot)))


def _reals_for_unknowns(ty):
    if isinstance(ty, TVar):
        return R
    if isinstance(ty, Prod):
        return Prod(tuple(_reals_for_unknowns(t) for t in ty.items))
    if isinstance(ty, Arrow):
        return Arrow(_reals_for_unknowns(ty.dom), _reals_for_unknowns(ty.cod))
    return ty


def _riesz(ty, c: T.Var) -> T.Term:
    """⟨c e₁, …⟩ shaped like ty: the covector c as a vector (its sensitivity)."""
    paths = real_leaves(ty)
    assert paths is not None  # (a covector's type is built from R)

    def basis(ty, path, here=()):
        if not hasattr(ty, "items"):
            return T.Num(1.0 if here == path else 0.0)
        return T.Tuple(tuple(basis(it, path, here + (i,)) for i, it in enumerate(ty.items, 1)))

    def build(ty, here=()):
        if not hasattr(ty, "items"):
            return T.App(c, basis_all[here])
        return T.Tuple(tuple(build(it, here + (i,)) for i, it in enumerate(ty.items, 1)))

    basis_all = {p: basis(ty, p) for p in paths}
    return build(ty)


def _dot(paths: list, g: T.Var, v: T.Var) -> T.Term:
    def at(t, path):
        for i in path:
            t = T.Proj(i, t)
        return t
    terms = [T.Prim("mul", (at(g, p), at(v, p))) for p in paths]
    out = terms[0]
    for u in terms[1:]:
        out = T.Prim("add", (out, u))
    return _derivative(out)


def _at(t: T.Term) -> str:
    pos = getattr(t, "pos", None)
    return f" (at {pos})" if pos else ""


def _construct(t: T.Term) -> str:
    return {"Jac": "J(λq.S)·P", "Dual": "(λq.S)⋆P", "Pullback": "Ω(S) P"}.get(
        type(t).__name__, type(t).__name__)


# ---- running it -----------------------------------------------------------------------

def _arith(measure: Measure):
    def prim(op: str, args: tuple, role: str):
        measure.op(role, op)
        return checked("Pearlmutter–Siskind", op, prims.EVAL[op], tuple(float(a) for a in args))
    return prim


def _evaluator(measure: Measure) -> Evaluator:
    return Evaluator(_arith(measure), measure, lambda v: isinstance(v, float))


def prepare(term: T.Term, names: Optional[_Names] = None, expected=None) -> T.Term:
    """The core term the engine runs: functions inlined, pullbacks expanded
    (``expected``: the term's type as far as it is known, e.g. from the point)."""
    names = names or _Names()
    inlined = inline_functions(term)
    return desugar(inlined, names, context_types(inlined, expected))


def transform(term: Union[str, T.Term]) -> T.Term:
    """The P–S transformed program of a closed term (for printing)."""
    if isinstance(term, str):
        from ..syntax.parser import parse
        term = parse(term)
    names = _Names()
    return transform_program(prepare(term, names), names)


@deep
def jacobian(f: T.Term, point, cotangents: Optional[list] = None) -> EngineResult:
    """The rows of the Jacobian of f : ℝⁿ → ℝᵐ at ``point``: one forward run of
    𝒯(f), then one backpropagator call per output, seeded with that output's
    basis sensitivity -- or, with ``cotangents`` (lists of m reals), one call
    per cotangent (vector-Jacobian products)."""
    from ..semantics.oracle import shape_point
    measure = Measure()
    names = _Names()
    program = transform_program(prepare(f, names, _expected(f, point)), names)
    ev = _evaluator(measure)
    F = ev.eval(program, Env({}))
    if not isinstance(F, Closure):
        raise NotSupported("the term is not a function")
    x = shape_point(f, point)
    y, backprop = ev.apply(F, x)
    rows = []
    for sens in seeds(y, cotangents, _function_leaf):
        _closure_sens, x_sens = ev.apply(backprop, sens)
        rows.append(leaves_like(x_sens, x))
    return EngineResult("ps", rows, measure.freeze("closures"), program)


def _expected(f: T.Term, point):
    """ℝⁿ → ? as the point says (a tuple pattern says it itself)."""
    from ..syntax.types import rn
    n = 1 if isinstance(point, (int, float)) else len(point)
    return Arrow(rn(n), TVar.new())


def _function_leaf(_leaf) -> None:
    raise NotSupported("the function's output is a function: the P–S engine reads rows of "
                       "functions ℝⁿ → ℝᵐ")


def seeds(y, cotangents: Optional[list], on_function) -> list:
    """Output sensitivities shaped like y: the basis (one per real of y), or
    the given cotangents (flat lists of reals)."""
    paths = _paths(y, on_function)
    if cotangents is None:
        cotangents = [[float(p == q) for q in paths] for p in paths]
    out = []
    for c in cotangents:
        if len(c) != len(paths):
            from ..errors import JacobianError
            raise JacobianError(f"the cotangent has {len(c)} coordinate(s) but the function "
                                f"has {len(paths)} output(s)")
        it = iter(float(v) for v in c)
        out.append(_shaped(y, it))
    return out


def _paths(y, on_function, here=()) -> list:
    if isinstance(y, tuple):
        return [p for i, it in enumerate(y, 1) for p in _paths(it, on_function, here + (i,))]
    if isinstance(y, (Closure, Builtin)):
        on_function(y)
    return [here]


def _shaped(y, it):
    if isinstance(y, tuple):
        return tuple(_shaped(v, it) for v in y)
    return next(it)


def leaves_like(sens, like) -> list:
    """The reals of a sensitivity, shaped like the value ``like`` (𝟎 parts and
    omitted trailing components are zeros)."""
    if isinstance(like, tuple):
        parts = sens if isinstance(sens, tuple) else ()
        parts = parts + (ZERO,) * (len(like) - len(parts))
        return [x for s, shape in zip(parts, like) for x in leaves_like(s, shape)]
    return [0.0 if sens is ZERO else float(sens)]


@deep
def value(term: T.Term):
    """The value of a closed term, its pullbacks run by the P–S transform;
    returns (value, costs, the core program run)."""
    measure = Measure()
    program = prepare(term)
    v = _evaluator(measure).eval(program, Env({}))
    return v, measure.freeze("closures"), program


def apply_value(v, arg, measure: Optional[Measure] = None):
    """A function value of this engine applied to an argument (to read a covector)."""
    return _evaluator(measure or Measure()).apply(v, arg)
