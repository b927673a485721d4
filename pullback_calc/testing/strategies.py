"""Hypothesis strategies for the pullback calculus: well-typed terms and their data.

The generators are *type-directed*: ``terms(ty, ctx)`` builds a term of type
``ty`` in the typing context ``ctx`` (a dict name → Type) by choosing, at
each node, one of the constructs that can produce that type, and generating
its sub-terms at the types the construct's typing rule asks for.  Every
choice is a Hypothesis draw whose simplest value comes first (a numeral
before a variable before a compound term, ``add`` before ``pow`` …), so a
failing example shrinks to a small, readable term.

    from hypothesis import given
    from pullback_calc.syntax.types import R, Arrow, Prod
    from pullback_calc.testing.strategies import terms, points, tangents, one_forms

    @given(terms(R))                                   # closed terms of type ℝ
    def test_my_extension_preserves_meaning(t): ...

    @given(terms(Arrow(R, R), {"x": R}))               # open: x free
    def test_...(f): ...

What is generated
-----------------
Every construct of the calculus occurs: numerals, variables, all thirteen
function symbols, λ (variable and tuple patterns, sometimes annotated),
application and ``let``, tuples and projections, formal sums ``⊕`` and
``𝟎``, Jacobians ``J(λq.S)·P`` (unapplied and applied to a point), dual maps
``(λq.S)⋆P`` whose body is linear in ``q`` (``linear_terms``), pullbacks
``Ω(S) P`` whose 1-form ``λz. λw. B`` is linear in ``w`` (``one_forms``),
nested pullbacks (inside the body of the pulled-back function and inside
1-forms), and applications of variables of the context to spines of
arguments (so library functions such as Church-list ``map`` get used).

The generated terms avoid, by construction, the calculus' documented
partiality (papers/calculus.md §9), so that a closed term of type ℝ reduces
to a numeral:

* function symbols stay in their domains: ``log(1 + a × a)``,
  ``sqrt(1 + a × a)``, ``a / (2 + b × b)``, ``a ^ 2``, ``a ^ 3``,
  ``exp(B(b)) ^ B'(c)``, and ``exp``/``tan`` only of ``sin``, ``cos`` or
  ``tanh`` of something (no overflow, no pole);
* the function of ``Ω(S)`` is always a λ-abstraction (a pullback along a
  non-λ is stuck);
* ``𝟎`` is generated only at first-order types (ℝ and products of them), and
  sums at function types only of λ-abstractions (a Jacobian of ``g x`` is
  stuck when the value of ``g`` is not an abstraction, pullback, Jacobian or
  dual map);
* λ-binders whose variables have a product somewhere in their type carry a
  type annotation, and ``𝟎`` at a product type is written
  ``let v : τ = 𝟎 in v``: projections of a value whose type only the context
  could fix are otherwise a type error (§2.4, "postponed projections");
* functionals (values of dual type, the bodies of 1-forms and of dual maps)
  are linear, as the checker requires for the literal ones; variables of a
  function type ``σ → ℝ`` are never used where a functional ``σ⋆`` is needed.

Derivatives of random terms are mostly 0 (a constant body, a 1-form or a
tangent that is 0), which tests little.  So the bodies of the functions that
get differentiated prefer their parameters at the leaves and are drawn again
(up to three times) while they do not mention them; 1-forms mostly observe
all of their argument; points and tangents are never 0.

Testing an extension
--------------------
Say you add a function symbol ``softplus`` (a row in each table of
``syntax/prims.py``).  Extend the generator by passing it among the
``extra_prims`` of ``terms`` (a map name → a function building the guarded
application from argument terms), then state the properties of
``tests/properties`` for the new terms::

    from pullback_calc.testing.strategies import terms, first_order_functions, points
    from pullback_calc.syntax.terms import Prim

    SOFTPLUS = {"softplus": lambda a: Prim("softplus", (a,))}

    @given(terms(R, extra_prims=SOFTPLUS))
    def test_softplus_reduces_to_the_oracle_value(t):
        assert float(reduce(t).value.value) == pytest.approx(evaluate(t))

A new construct is tested the same way: write a strategy for it with
``terms`` for its sub-terms (at the types its typing rule asks for), and mix
it into a ``st.one_of`` with ``terms(ty)``.  The coverage collector
(``pullback_calc.testing.coverage``) tells you which rules your generated
terms reached.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from typing import Callable, Mapping, Optional

from hypothesis import strategies as st

from ..syntax.subst import fv, subst
from ..syntax.terms import (App, Dual, Jac, Lam, Num, Prim, Proj, Pullback, Sum, Term, Tuple, Var,
                            ZERO, church_list, pattern_vars)
from ..syntax.types import Arrow, DualT, Prod, R, Real, Type

__all__ = [
    "NAMES", "NUMERALS", "R2", "R3", "RR", "CHURCH", "library",
    "types", "patterns", "terms", "functions", "linear_terms",
    "one_forms", "functionals", "points", "tangents", "first_order_functions",
    "higher_order_functions", "higher_order_programs", "church_list", "library_context",
    "with_library", "linear_combination", "Program", "DIFFERENTIATION_WEIGHTS",
    "pullback_applications",
]

# ---- vocabulary ------------------------------------------------------------------------

#: binder names, simplest first; ``dx`` and ``x_1`` collide on purpose with the
#: engine's canonical direction names and fresh names
NAMES = ("x", "y", "z", "u", "v", "a", "b", "c", "f", "g", "h", "k", "s", "w", "ω", "dx", "x_1")
#: numerals of leaves, simplest first
NUMERALS = (1.0, 2.0, 0.5, 0.0, -1.0, 3.0, -2.0, 0.25, 1.5, -0.5)

R2 = Prod((R, R))
R3 = Prod((R, R, R))
RR = Arrow(R, R)
#: Church lists of reals: ∀β. (ℝ → β → β) → β → β at β = ℝ
CHURCH = Arrow(Arrow(R, Arrow(R, R)), Arrow(R, R))

_FO_POOL = (R, R2, R, R3, Prod((R2, R)))
_HO_POOL = (R, R2, RR, R, Arrow(R, RR), Arrow(RR, R), DualT(R), Arrow(R, DualT(R)),
            Prod((R, RR)), R3, Arrow(R2, R), DualT(R2))
_SMALL = (R, R2, RR)
_SMALL_FO = (R, R2)

Ctx = tuple  # ((name, type), …): later bindings shadow earlier ones


@dataclass(frozen=True)
class _Cfg:
    first_order: bool = False         # only ℝ, ×, let, tuples, projections, ⊕, 𝟎, prims
    pool: tuple = _HO_POOL            # the types of intermediate values (let, app, proj)
    extra_prims: tuple = ()           # ((name, builder), …) from the user
    zero: bool = True                 # generate 𝟎 (at first-order types)
    weights: tuple = ()               # ((kind, extra copies), …): bias the choice of construct
    budget: int = 40                  # compound constructs per term, at most (then leaves)
    product_vectors: bool = True      # ⊕ and 𝟎 also at product types (sympy reads neither)


def _cfg(first_order: bool, extra_prims=None, pool=None, weights=None, budget=None) -> _Cfg:
    return _Cfg(first_order=first_order,
                pool=tuple(pool) if pool else (_FO_POOL if first_order else _HO_POOL),
                extra_prims=tuple((extra_prims or {}).items()),
                weights=tuple((weights or {}).items()),
                budget=_Cfg.budget if budget is None else budget)


#: weights that make differentiation of higher-order code (duals, Jacobians and
#: pullbacks inside the differentiated body, coefficients from the context) common
DIFFERENTIATION_WEIGHTS = {"dual": 3, "dualapp": 3, "pbapp": 2, "pbat": 2, "pb": 2, "jac": 2,
                           "jacapp": 2, "scalevar": 4, "lam": 1, "spine": 1}


# ---- types -----------------------------------------------------------------------------

def is_first_order(ty: Type) -> bool:
    if isinstance(ty, Real):
        return True
    return isinstance(ty, Prod) and all(is_first_order(i) for i in ty.items)


def _has_product(ty: Type) -> bool:
    if isinstance(ty, Prod):
        return True
    if isinstance(ty, Arrow):
        return _has_product(ty.dom) or _has_product(ty.cod)
    if isinstance(ty, DualT):
        return _has_product(ty.of)
    return False


def _fits(have: Type, want: Type) -> bool:
    """Can a variable of type ``have`` stand where ``want`` is needed?  A
    functional (σ⋆) is a function σ → ℝ, but not the other way round: a
    function variable might be bound to a non-linear function."""
    return have == want or (isinstance(have, DualT) and want == Arrow(have.of, R))


def _spines(t: Type, limit: int = 4):
    """(argument types, result type) for each way of applying a value of type t."""
    out: list[tuple[tuple[Type, ...], Type]] = [((), t)]
    args: list[Type] = []
    while len(args) < limit:
        if isinstance(t, Arrow):
            args.append(t.dom)
            t = t.cod
        elif isinstance(t, DualT):
            args.append(t.of)
            t = R
        else:
            break
        out.append((tuple(args), t))
    return out


def types(max_depth: int = 2, first_order: bool = False) -> st.SearchStrategy[Type]:
    """Simple types: ℝ, products (2–3 factors), and unless ``first_order``,
    arrows and duals.  Shrinks towards ℝ."""
    base = st.just(R)

    def extend(inner):
        parts = [st.lists(inner, min_size=2, max_size=3).map(lambda xs: Prod(tuple(xs)))]
        if not first_order:
            parts.append(st.tuples(inner, inner).map(lambda p: Arrow(*p)))
            parts.append(st.lists(st.just(R), min_size=1, max_size=2).map(
                lambda xs: DualT(R if len(xs) == 1 else Prod(tuple(xs)))))
        return st.one_of(*parts)

    return st.recursive(base, extend, max_leaves=max(1, 2 ** max_depth))


# ---- contexts --------------------------------------------------------------------------

def _ctx(ctx: Optional[Mapping[str, Type]]) -> Ctx:
    return tuple((ctx or {}).items())


def _visible(ctx: Ctx) -> dict:
    out: dict = {}
    for n, t in ctx:
        out.pop(n, None)
        out[n] = t
    return out


def _bind(ctx: Ctx, pat: Term, ty: Type) -> Ctx:
    if isinstance(pat, Var):
        return ctx + ((pat.name, ty),)
    assert isinstance(pat, Tuple) and isinstance(ty, Prod)
    for p, t in zip(pat.items, ty.items):
        ctx = _bind(ctx, p, t)
    return ctx


def _drop(ctx: Ctx, names) -> Ctx:
    return tuple((n, t) for n, t in ctx if n not in names)


def _pattern_types(pat: Term, ty: Type, out: list) -> list:
    if isinstance(pat, Var):
        out.append(ty)
    else:
        assert isinstance(pat, Tuple) and isinstance(ty, Prod)
        for p, t in zip(pat.items, ty.items):
            _pattern_types(p, t, out)
    return out


def _needs_annotation(pat: Term, ty: Type) -> bool:
    """A binder variable whose type has a product could be projected before
    the context fixes its type (§2.4): annotate such binders."""
    return any(_has_product(t) for t in _pattern_types(pat, ty, []))


def _proj_paths(ty: Type, want: Type, depth: int = 3):
    """Projection paths (1-based) from a value of type ty to a component of type want."""
    out = []
    if isinstance(ty, Prod) and depth > 0:
        for i, it in enumerate(ty.items, 1):
            if _fits(it, want):
                out.append((i,))
            out.extend((i,) + p for p in _proj_paths(it, want, depth - 1))
    return out


def _observable(ty: Type, want: Type, depth: int = 4) -> bool:
    """Can ``want`` be reached from ``ty`` by projections and applications?"""
    if _fits(ty, want):
        return True
    if depth == 0:
        return False
    if isinstance(ty, Prod):
        return any(_observable(i, want, depth - 1) for i in ty.items)
    if isinstance(ty, Arrow):
        return _observable(ty.cod, want, depth - 1)
    if isinstance(ty, DualT):
        return _fits(R, want)
    return False


def _sq(a: Term) -> Term:
    return Prim("mul", (a, a))


def _plus(c: float, a: Term) -> Term:
    return Prim("add", (Num(c), a))


# ---- the generator -----------------------------------------------------------------------

_INDEX: dict = {}


def _index(n: int) -> st.SearchStrategy[int]:
    """st.integers(0, n - 1), one object per n (validated once: drawing is the
    generator's inner loop)."""
    s = _INDEX.get(n)
    if s is None:
        s = _INDEX[n] = st.integers(0, n - 1)
        s.validate()
    return s


class _Gen:
    """One generation run: ``draw`` is Hypothesis' draw, ``cfg`` the options."""

    def __init__(self, draw, cfg: _Cfg):
        self.draw, self.cfg = draw, cfg
        self.budget = cfg.budget
        self.hot: frozenset = frozenset()   # the variables being differentiated: preferred

    def spend(self, d: int) -> int:
        """The depth to generate at: 0 (leaves only) once the budget is spent."""
        if d <= 0 or self.budget <= 0:
            return 0
        self.budget -= 1
        return d

    # choices ------------------------------------------------------------------------------
    def pick(self, seq):
        """One of seq; shrinks towards the first."""
        seq = list(seq)
        return seq[0] if len(seq) == 1 else seq[self.draw(_index(len(seq)))]

    def flip(self, one_in: int = 2) -> bool:
        """True with probability 1/one_in; shrinks to False."""
        return self.draw(_index(one_in)) == one_in - 1

    def pool(self):
        return self.cfg.pool

    # names and patterns -------------------------------------------------------------------
    def pattern(self, ty: Type, avoid=frozenset(), used: Optional[set] = None) -> Term:
        used = set() if used is None else used
        if isinstance(ty, Prod) and self.flip(2):
            return Tuple(tuple(self.pattern(t, avoid, used) for t in ty.items))
        names = [n for n in NAMES if n not in avoid and n not in used]
        common = names[:6]
        # mostly the common names (shadowing is frequent), sometimes the odd ones
        n = self.pick(names if self.flip(5) or not common else common)
        used.add(n)
        return Var(n)

    def annotation(self, pat: Term, ty: Type):
        if _needs_annotation(pat, ty) or self.flip(8):
            return ty
        return None

    # variables ----------------------------------------------------------------------------
    def vars_of(self, ctx: Ctx, ty: Type) -> list:
        return [n for n, t in _visible(ctx).items() if _fits(t, ty)]

    def proj_vars(self, ctx: Ctx, ty: Type) -> list:
        return [(n, p) for n, t in _visible(ctx).items() for p in _proj_paths(t, ty)]

    def heads(self, ctx: Ctx, ty: Type) -> list:
        out = []
        for n, t in _visible(ctx).items():
            for args, res in _spines(t):
                if args and _fits(res, ty):
                    out.append((n, args))
        return out

    # terms ----------------------------------------------------------------------------------
    def term(self, ty: Type, ctx: Ctx, d: int) -> Term:
        d = self.spend(d)
        fo = self.cfg.first_order
        kinds: list = []
        has_vars = bool(self.vars_of(ctx, ty))
        if isinstance(ty, Real):
            kinds.append("num")
        elif isinstance(ty, Prod):
            kinds.append("tuple")
        elif isinstance(ty, DualT):
            kinds.append("linlam")
        elif isinstance(ty, Arrow):
            kinds.append("lam")
        else:
            raise TypeError(f"cannot generate a term of type {ty}")
        if has_vars:
            kinds += ["var"] * (3 if self.hot_ones(self.vars_of(ctx, ty)) else 1)
        if self.proj_vars(ctx, ty):
            kinds += ["projvar"] * (3 if self.hot_ones(self.proj_vars(ctx, ty)) else 1)
        if self.cfg.zero and is_first_order(ty) and self.flip(4) and (
                self.cfg.product_vectors or isinstance(ty, Real)):
            kinds.append("zero")
        if d > 0:
            if isinstance(ty, Real):
                kinds += ["prim", "prim", "prim"]
            if self.heads(ctx, ty):
                kinds += ["spine", "spine"]
            kinds.append("let")
            if is_first_order(ty) and (self.cfg.product_vectors or isinstance(ty, Real)):
                kinds.append("sum")
            kinds.append("proj")
            if not fo:
                kinds.append("app")
                if isinstance(ty, Real):
                    kinds += ["pbapp", "jacapp", "dualapp", "dualapp"]
                elif isinstance(ty, DualT):
                    kinds += ["dual", "pbat", "linlamsum", "jacapp"]
                elif isinstance(ty, Arrow):
                    kinds += ["jac", "lamsum"]
                    if ty.cod == DualT(ty.dom):
                        kinds.append("pb")
                    if ty.cod == R:
                        kinds.append("dual")
                else:
                    kinds.append("jacapp")
        kind = self.pick(self.weighted(kinds))
        return getattr(self, "k_" + kind)(ty, ctx, d)

    def weighted(self, kinds: list) -> list:
        if not self.cfg.weights:
            return kinds
        w = dict(self.cfg.weights)
        out = list(kinds)
        for k in dict.fromkeys(kinds):
            out += [k] * w.get(k, 0)
        return out

    def sub(self, d: int) -> int:
        return max(d - 1, 0)

    # leaves
    def k_num(self, ty, ctx, d):
        return Num(self.pick(NUMERALS))

    def hot_ones(self, choices: list) -> list:
        """The choices (names, or (name, path) pairs) that are hot variables."""
        return [c for c in choices if (c if isinstance(c, str) else c[0]) in self.hot]

    def pick_hot(self, choices: list):
        """One of the choices, mostly a hot one if there is one."""
        hot = self.hot_ones(choices)
        return self.pick(hot if hot and not self.flip(4) else choices)

    def k_var(self, ty, ctx, d):
        return Var(self.pick_hot(self.vars_of(ctx, ty)))

    def k_projvar(self, ty, ctx, d):
        n, path = self.pick_hot(self.proj_vars(ctx, ty))
        t: Term = Var(n)
        for i in path:
            t = Proj(i, t)
        return t

    def k_zero(self, ty, ctx, d):
        if isinstance(ty, Real):
            return ZERO
        return App(Lam(Var("v"), Var("v"), ty), ZERO)  # let v : τ = 𝟎 in v

    def k_tuple(self, ty, ctx, d):
        return Tuple(tuple(self.term(t, ctx, self.sub(d)) for t in ty.items))

    def lam(self, ty: Arrow, ctx: Ctx, d: int) -> Lam:
        q = self.pattern(ty.dom)
        body = self.term(ty.cod, _bind(ctx, q, ty.dom), self.sub(d))
        return Lam(q, body, self.annotation(q, ty.dom))

    def k_lam(self, ty, ctx, d):
        return self.lam(ty, ctx, d)

    def linlam(self, ty: DualT, ctx: Ctx, d: int) -> Lam:
        q = self.pattern(ty.of)
        xs = frozenset(pattern_vars(q))
        body = self.lin(R, _bind(ctx, q, ty.of), xs, self.sub(d))
        return Lam(q, body, self.annotation(q, ty.of))

    def k_linlam(self, ty, ctx, d):
        return self.linlam(ty, ctx, d)

    # compound
    def k_prim(self, ty, ctx, d):
        e = self.sub(d)
        from ..registry import GENERATORS  # symbols registered at run time
        names = ["add", "mul", "sub", "neg", "sin", "cos", "tanh", "exp", "tan", "log", "sqrt",
                 "div", "pow", "powe"] + [n for n, _ in self.cfg.extra_prims] + [
                     n for n in GENERATORS if n not in dict(self.cfg.extra_prims)]
        op = self.pick(names)
        a = self.term(R, ctx, e)
        bounded = lambda t: Prim(self.pick(["sin", "cos", "tanh"]), (t,))  # noqa: E731
        if op in ("add", "mul", "sub"):
            return Prim(op, (a, self.term(R, ctx, e)))
        if op in ("neg", "sin", "cos", "tanh"):
            return Prim(op, (a,))
        if op in ("exp", "tan"):
            return Prim(op, (bounded(a),))
        if op in ("log", "sqrt"):
            return Prim(op, (_plus(1.0, _sq(a)),))
        if op == "div":
            return Prim("div", (a, _plus(2.0, _sq(self.term(R, ctx, e)))))
        if op == "pow":
            return Prim("pow", (a, Num(self.pick([2.0, 3.0]))))
        if op == "powe":
            return Prim("pow", (Prim("exp", (bounded(a),)), bounded(self.term(R, ctx, e))))
        build = dict(self.cfg.extra_prims).get(op) or GENERATORS[op]
        import inspect
        params = inspect.signature(build).parameters.values()
        if any(p.kind is p.VAR_POSITIONAL for p in params):  # f(*args): the symbol's arity
            from ..syntax.prims import ARITY
            k = ARITY[op]
        else:
            k = len(params)
        return build(a, *(self.term(R, ctx, e) for _ in range(k - 1)))

    def k_sum(self, ty, ctx, d):
        k = self.pick([2, 3])
        items = [self.term(ty, ctx, self.sub(d)) for _ in range(k)]
        vs = self.vars_of(ctx, ty) if not isinstance(ty, Real) else []
        if vs and self.flip(3):
            # a vector variable twice, x ⊕ x: a linear normal form that collected it
            # wrote 2 × x, and × is the real product (rule 6 composing the maps of a
            # tuple-valued Jacobian, found by the thorough profile: stuck at π1 0)
            x = Var(self.pick(vs))
            items[-2:] = [x, x]
        return Sum(tuple(items))

    def k_lamsum(self, ty, ctx, d):
        return Sum((self.lam(ty, ctx, self.sub(d)), self.lam(ty, ctx, self.sub(d))))

    def k_linlamsum(self, ty, ctx, d):
        return Sum((self.linlam(ty, ctx, self.sub(d)), self.linlam(ty, ctx, self.sub(d))))

    def k_let(self, ty, ctx, d):
        s = self.pick(self.pool())
        bound = self.term(s, ctx, self.sub(d))
        q = self.pattern(s)
        body = self.term(ty, _bind(ctx, q, s), self.sub(d))
        return App(Lam(q, body, s if self.flip(10) else None), bound)

    def k_proj(self, ty, ctx, d):
        n = self.pick([2, 3])
        i = self.pick(range(n))
        others = [self.pick(_SMALL_FO if self.cfg.first_order else _SMALL) for _ in range(n - 1)]
        items = others[:i] + [ty] + others[i:]
        return Proj(i + 1, self.term(Prod(tuple(items)), ctx, self.sub(d)))

    def k_spine(self, ty, ctx, d):
        n, args = self.pick(self.heads(ctx, ty))
        t: Term = Var(n)
        for a in args:
            t = App(t, self.term(a, ctx, self.sub(d)))
        return t

    def k_app(self, ty, ctx, d):
        pool = list(self.pool())
        if isinstance(ty, DualT):
            pool.insert(0, ty.of)   # so that Ω(F) ω V appears
        elif isinstance(ty, Arrow) and ty.cod == R:
            pool.insert(0, ty.dom)
        s = self.pick(pool)
        f = self.term(Arrow(s, ty), ctx, self.sub(d))
        return App(f, self.term(s, ctx, self.sub(d)))

    def k_jac(self, ty, ctx, d):
        return Jac(self.lam(ty, ctx, d), self.term(ty.dom, ctx, self.sub(d)))

    def k_jacapp(self, ty, ctx, d):
        s = self.pick(self.pool())
        e = self.sub(d)
        jac = Jac(self.lam(Arrow(s, ty), ctx, d), self.term(s, ctx, e))
        return App(jac, self.term(s, ctx, e))

    def varying_body(self, ty: Type, ctx: Ctx, q: Term, d: int) -> Term:
        """A term of type ty in ctx that mentions the variables of q (they are
        hot, and up to three tries): the body of a function to differentiate
        (a constant one has derivative 𝟎, which tests little)."""
        names = frozenset(pattern_vars(q))
        outer, self.hot = self.hot, self.hot | names
        try:
            for _ in range(3):
                body = self.term(ty, ctx, d)
                if fv(body) & names:
                    break
        finally:
            self.hot = outer
        return body

    def varying_lam(self, ty: Arrow, ctx: Ctx, d: int) -> Lam:
        q = self.pattern(ty.dom)
        body = self.varying_body(ty.cod, _bind(ctx, q, ty.dom), q, self.sub(d))
        return Lam(q, body, self.annotation(q, ty.dom))

    def one_form(self, ty: Type, ctx: Ctx, d: int) -> Term:
        """A 1-form on ty: mostly λz. λw. B with B an observation of all of w
        (a coordinate, a value at a point), else any term of type ty → ty⋆."""
        if self.flip(3):
            return self.term(Arrow(ty, DualT(ty)), ctx, d)
        z, w = self.pattern(ty), Var(self.pick(("w", "v")))
        body = self.observe(w, ty, R, _drop(ctx, {w.name, *pattern_vars(z)}), 0)
        return Lam(z, Lam(w, body, self.annotation(w, ty)), self.annotation(z, ty))

    def pullback(self, dom: Type, ctx: Ctx, d: int) -> Pullback:
        t = self.pick(_SMALL)
        f = self.varying_lam(Arrow(dom, t), ctx, d + 1)   # the body is differentiated
        return Pullback(f, self.one_form(t, ctx, d))

    def k_pb(self, ty, ctx, d):
        return self.pullback(ty.dom, ctx, self.sub(d))

    def k_pbat(self, ty, ctx, d):
        e = self.sub(d)
        return App(self.pullback(ty.of, ctx, e), self.term(ty.of, ctx, e))

    def k_pbapp(self, ty, ctx, d):
        s = self.pick(self.pool())
        e = self.sub(d)
        at = App(self.pullback(s, ctx, e), self.term(s, ctx, e))
        return App(at, self.term(s, ctx, e))

    def dual(self, dom: Type, ctx: Ctx, d: int) -> Dual:
        # the codomain of the map: often that of a functional in the context,
        # so that a free or λ-bound functional gets used (rule 16b)
        known = [t.of for t in _visible(ctx).values() if isinstance(t, DualT)]
        t = self.pick(_SMALL + tuple(known))
        q = self.pattern(dom)
        body = self.lin(t, _bind(ctx, q, dom), frozenset(pattern_vars(q)), d)
        return Dual(Lam(q, body, self.annotation(q, dom)), self.term(DualT(t), ctx, d))

    def k_dual(self, ty, ctx, d):
        return self.dual(ty.of if isinstance(ty, DualT) else ty.dom, ctx, self.sub(d))

    def k_dualapp(self, ty, ctx, d):
        s = self.pick(self.pool())
        e = self.sub(d)
        return App(self.dual(s, ctx, e), self.term(s, ctx, e))

    # linear terms ---------------------------------------------------------------------------
    def lin(self, ty: Type, ctx: Ctx, xs: frozenset, d: int) -> Term:
        """A term of type ty, jointly linear in the variables xs (syntax/subst.py::linear)."""
        d = self.spend(d)
        vis = _visible(ctx)
        obs = [(n, t) for n, t in vis.items() if n in xs and _observable(t, ty)]
        duals = [t for n, t in vis.items() if n in xs and isinstance(t, DualT)]
        kinds: list = []
        if obs:
            kinds.append("obs")
        if isinstance(ty, Prod):
            kinds.append("tuple")
        if isinstance(ty, Arrow):
            kinds.append("lam")
        if is_first_order(ty) and (not kinds or self.flip(4)):
            kinds.append("zero")
        if d > 0:
            if isinstance(ty, Real):
                kinds += ["scale", "add", "scale", "sub", "neg", "div", "sum", "let", "jacapp"]
                consts = _drop(ctx, xs)
                if self.vars_of(consts, R) or self.proj_vars(consts, R):
                    kinds += ["scalevar", "scalevar"]  # a coefficient from the context
                if duals:
                    kinds.append("dualapp")
            elif isinstance(ty, Prod):
                kinds += ["sum", "let"]
            elif isinstance(ty, Arrow):
                kinds += ["let", "jac", "lamsum"]
            elif isinstance(ty, DualT):
                kinds.append("let")
                if duals:
                    kinds.append("dual")
        if not kinds:
            return ZERO
        kind = self.pick(self.weighted(kinds))
        c = _drop(ctx, xs)      # constants: no variable of xs
        e = self.sub(d)
        if kind == "obs":
            n, t = self.pick(obs)
            return self.observe(Var(n), t, ty, c, e)
        if kind == "zero":
            return ZERO  # (its type is fixed by the dual map's functional)
        if kind == "tuple":
            return Tuple(tuple(self.lin(t, ctx, xs, e) for t in ty.items))
        if kind == "lam":
            q = self.pattern(ty.dom, avoid=xs)
            body = self.lin(ty.cod, _bind(ctx, q, ty.dom), xs, e)
            return Lam(q, body, self.annotation(q, ty.dom))
        if kind == "lamsum":
            return Sum((self._linlam_arrow(ty, ctx, xs, e), self._linlam_arrow(ty, ctx, xs, e)))
        if kind in ("scale", "scalevar"):
            if kind == "scale":
                k = self.term(R, c, e)
            elif self.vars_of(c, R) and (not self.proj_vars(c, R) or self.flip(2)):
                k = self.k_var(R, c, e)
            else:
                k = self.k_projvar(R, c, e)
            lin = self.lin(R, ctx, xs, e)
            if not (fv(lin) & xs):     # c × 𝟎 is not linear by lin(S) (no argument mentions xs)
                return lin
            return Prim("mul", (k, lin) if self.flip(2) else (lin, k))
        if kind in ("add", "sub"):
            return Prim(kind, (self.lin(R, ctx, xs, e), self.lin(R, ctx, xs, e)))
        if kind == "neg":
            return Prim("neg", (self.lin(R, ctx, xs, e),))
        if kind == "div":
            return Prim("div", (self.lin(R, ctx, xs, e), _plus(2.0, _sq(self.term(R, c, e)))))
        if kind == "sum":
            return Sum((self.lin(ty, ctx, xs, e), self.lin(ty, ctx, xs, e)))
        if kind == "let":
            s = self.pick(self.pool())
            bound = self.term(s, c, e)
            q = self.pattern(s, avoid=xs)
            return App(Lam(q, self.lin(ty, _bind(ctx, q, s), xs, e)), bound)
        if kind == "jac":
            lam = self.lam(ty, c, e)
            return Jac(lam, self.lin(ty.dom, ctx, xs, e))
        if kind == "jacapp":
            s = self.pick([t for _, t in obs] + [R]) if obs else R
            s = s if not isinstance(s, DualT) else R
            lam = self.lam(Arrow(s, ty), c, e)
            return App(Jac(lam, self.lin(s, ctx, xs, e)), self.term(s, c, e))
        if kind in ("dual", "dualapp"):
            t = self.pick(duals)             # the functional: linear in xs, of type t
            dom = ty.of if kind == "dual" else self.pick(self.pool())
            q = self.pattern(dom)
            body = self.lin(t.of, _bind(c, q, dom), frozenset(pattern_vars(q)), e)
            dm = Dual(Lam(q, body, self.annotation(q, dom)), self.lin(t, ctx, xs, e))
            return dm if kind == "dual" else App(dm, self.term(dom, c, e))
        raise AssertionError(kind)

    def _linlam_arrow(self, ty: Arrow, ctx: Ctx, xs: frozenset, d: int) -> Lam:
        q = self.pattern(ty.dom, avoid=xs)
        return Lam(q, self.lin(ty.cod, _bind(ctx, q, ty.dom), xs, d), self.annotation(q, ty.dom))

    def observe(self, t: Term, have: Type, want: Type, consts: Ctx, d: int) -> Term:
        """Project and apply ``t`` (to terms without the linear variables) until
        it has type ``want``: a linear observation of a linear variable."""
        while True:
            options: list[tuple[str, Optional[int]]] = []
            if _fits(have, want):
                options.append(("stop", None))
            if isinstance(have, Prod):
                options += [("proj", i) for i, it in enumerate(have.items, 1)
                            if _observable(it, want)]
            elif isinstance(have, Arrow) and _observable(have.cod, want):
                options.append(("app", None))
            elif isinstance(have, DualT) and _fits(R, want):
                options.append(("app", None))
            how, i = self.pick(options)
            if how == "stop":
                return t
            if how == "proj":
                t, have = Proj(i, t), have.items[i - 1]
            elif isinstance(have, Arrow):
                t, have = App(t, self.term(have.dom, consts, d)), have.cod
            else:
                t, have = App(t, self.term(have.of, consts, d)), R


# ---- public strategies --------------------------------------------------------------------

def patterns(ty: Type, avoid=()) -> st.SearchStrategy[Term]:
    """Binder patterns for a value of type ``ty``: a variable, or (for products)
    a tuple of patterns; names are distinct and avoid ``avoid``."""
    @st.composite
    def go(draw):
        return _Gen(draw, _Cfg()).pattern(ty, frozenset(avoid))
    return go()


def terms(ty: Type = R, ctx: Optional[Mapping[str, Type]] = None, depth: int = 3, *,
          first_order: bool = False, extra_prims: Optional[Mapping[str, Callable]] = None,
          pool=None, weights: Optional[Mapping[str, int]] = None,
          budget: Optional[int] = None) -> st.SearchStrategy[Term]:
    """Well-typed terms of type ``ty`` in the typing context ``ctx`` (a dict
    name → Type; empty: closed terms), of nesting depth about ``depth``.

    ``first_order=True`` keeps to ℝ, products, let, tuples, projections,
    function symbols, ``⊕`` and ``𝟎`` (the terms sympy can read).
    ``extra_prims`` adds function symbols of an extension: name → a builder
    taking argument terms and returning the (guarded) application.  ``pool``
    replaces the types of intermediate values (of lets, arguments,
    projections).  ``weights`` biases the choice of construct: kind → extra
    copies among the choices (see ``DIFFERENTIATION_WEIGHTS``); ``budget``
    bounds the number of compound constructs (default 40): past it, only
    leaves are generated, so terms stay small whatever the depth."""
    cfg = _cfg(first_order, extra_prims, pool, weights, budget)
    c = _ctx(ctx)

    @st.composite
    def go(draw):
        return _Gen(draw, cfg).term(ty, c, depth)
    return go()


def pullback_applications(ctx: Optional[Mapping[str, Type]] = None, depth: int = 3, *,
                          doms=None, cods=None, weights=DIFFERENTIATION_WEIGHTS,
                          budget: Optional[int] = None) -> st.SearchStrategy[Term]:
    """Terms ``Ω(λp. S) ω V W`` of type ℝ: the pullback of a 1-form along a
    generated function, at a point, applied to a tangent -- the whole
    forward/reverse machinery, with the body S generated (by default with
    ``DIFFERENTIATION_WEIGHTS``, so that S itself has dual maps, Jacobians and
    pullbacks depending on p).  ``doms``/``cods`` are the types to choose the
    domain and codomain of λp.S from."""
    cfg = _cfg(False, weights=weights, budget=budget)
    c = _ctx(ctx)
    doms = tuple(doms or cfg.pool)
    cods = tuple(cods or _SMALL + (Arrow(DualT(R), R),))

    @st.composite
    def go(draw):
        g = _Gen(draw, cfg)
        dom, cod = g.pick(doms), g.pick(cods)
        f = g.varying_lam(Arrow(dom, cod), c, depth + 1)
        omega = g.one_form(cod, c, max(depth - 1, 0))
        if is_first_order(dom):
            point, tangent = draw(points(dom)), draw(tangents(dom))
        else:
            point, tangent = g.term(dom, c, max(depth - 2, 0)), g.term(dom, c, max(depth - 2, 0))
        return App(App(Pullback(f, omega), point), tangent)
    return go()


def functions(dom: Type, cod: Type, ctx: Optional[Mapping[str, Type]] = None, depth: int = 2,
              *, weights: Optional[Mapping[str, int]] = None, budget: Optional[int] = None
              ) -> st.SearchStrategy[Lam]:
    """λ-abstractions of type dom → cod whose body uses the parameter (it is
    preferred at the leaves, and the body is drawn again while it does not
    mention it): functions worth differentiating.  ``weights``, ``budget``:
    as for ``terms``."""
    cfg = _cfg(False, weights=weights, budget=budget)
    c = _ctx(ctx)

    @st.composite
    def go(draw):
        return _Gen(draw, cfg).varying_lam(Arrow(dom, cod), c, depth + 1)
    return go()


def linear_terms(ty: Type, ctx: Mapping[str, Type], linear_in, depth: int = 2,
                 ) -> st.SearchStrategy[Term]:
    """Terms of type ``ty`` in ``ctx`` that are jointly linear in the variables
    ``linear_in`` (lin(S), papers/calculus.md §2.5): the bodies of dual maps
    and of functionals."""
    xs = frozenset(linear_in)
    c = _ctx(ctx)

    @st.composite
    def go(draw):
        return _Gen(draw, _cfg(False)).lin(ty, c, xs, depth)
    return go()


def functionals(ty: Type, ctx: Optional[Mapping[str, Type]] = None, depth: int = 2
                ) -> st.SearchStrategy[Term]:
    """Terms of type ``ty⋆``: linear functionals on ty."""
    return terms(DualT(ty), ctx, depth)


def one_forms(ty: Type, ctx: Optional[Mapping[str, Type]] = None, depth: int = 2
              ) -> st.SearchStrategy[Term]:
    """1-forms on ``ty`` (type ty → ty⋆): mostly ``λz. λw. B`` with B an
    observation of all of w (a coordinate, a value at a point), else any term
    of that type: ``λz. λw. B`` with B linear in w, pullbacks of 1-forms
    (nested pullbacks) and the rest."""
    c = _ctx(ctx)

    @st.composite
    def go(draw):
        return _Gen(draw, _cfg(False)).one_form(ty, c, depth)
    return go()


def _real(n: int, scale: float) -> st.SearchStrategy[Term]:
    """±k/scale for k in 1..n: never 0, where derivatives of generated terms
    tend to vanish (x × x at 0, a tangent 0); shrinks to 1/scale."""
    return st.tuples(st.integers(1, n), st.booleans()).map(
        lambda kb: Num((-kb[0] if kb[1] else kb[0]) / scale))


def _points(ty: Type, tangent: bool) -> st.SearchStrategy[Term]:
    if isinstance(ty, Real):
        return _real(20, 10.0) if not tangent else _real(12, 4.0)
    if isinstance(ty, Prod):
        return st.tuples(*(_points(t, tangent) for t in ty.items)).map(Tuple)
    if ty == CHURCH:
        lists = st.lists(_points(R, tangent), min_size=0, max_size=3).map(church_list)
        return st.one_of(lists, terms(ty, None, 1))
    return terms(ty, None, 1)


def points(ty: Type) -> st.SearchStrategy[Term]:
    """Closed values of type ``ty`` to evaluate at: non-zero numerals in [-2, 2] (tenths),
    tuples of points, closed λ-abstractions (functions), linear functionals
    (duals), and Church lists for ``CHURCH``."""
    return _points(ty, False)


def tangents(ty: Type) -> st.SearchStrategy[Term]:
    """Closed tangent vectors at a point of type ``ty``: non-zero numerals in
    [-3, 3] (quarters) at ℝ, componentwise at products, any closed function at a
    function type (the tangent space of a function space is itself)."""
    return _points(ty, True)


def first_order_functions(n: int, m: int = 1, depth: int = 3, *, sympy: bool = False,
                          budget: Optional[int] = None) -> st.SearchStrategy[Term]:
    """Closed first-order programs λp. S : ℝⁿ → ℝᵐ (the binder a variable, or a
    tuple pattern of n variables when n ≥ 2).  With ``sympy=True``, no ⊕ or 𝟎
    at product types (``to_sympy`` reads neither).  An output whose type only
    𝟎 would fix is annotated (``let r : ℝᵐ = S in r``), so ``jacobian`` can
    read the codomain off the term.  ``budget`` bounds the size as for ``terms``."""
    out = R if m == 1 else Prod((R,) * m)
    cfg = replace(_cfg(True, budget=budget), product_vectors=not sympy)

    @st.composite
    def go(draw):
        g = _Gen(draw, cfg)
        if n == 1:
            pat, dom = Var(g.pick(NAMES[:6])), R
        elif g.flip(3):
            pat, dom = Var(g.pick(NAMES[:6])), Prod((R,) * n)
        else:
            names = draw(st.lists(st.sampled_from(NAMES[:8]), min_size=n, max_size=n,
                                  unique=True))
            pat, dom = Tuple(tuple(Var(x) for x in names)), Prod((R,) * n)
        body = g.term(out, _bind((), pat, dom), depth)
        if not _determined(Lam(pat, body), dom):
            body = App(Lam(Var("r"), Var("r"), out), body)
        return Lam(pat, body)
    return go()


def _determined(f: Lam, dom: Type) -> bool:
    """Does the checker find a codomain without type variables for f?"""
    from ..syntax.types import TVar
    from ..typing.check import check
    ty = check(f, Arrow(dom, TVar.new()))

    def ground(t):
        if isinstance(t, TVar):
            return False
        if isinstance(t, Prod):
            return all(map(ground, t.items))
        if isinstance(t, Arrow):
            return ground(t.dom) and ground(t.cod)
        if isinstance(t, DualT):
            return ground(t.of)
        return True
    return ground(ty)


# ---- a library of higher-order functions -------------------------------------------------

_LIB_SRC = {
    "nil": ("λc. λn. n", CHURCH),
    "cons": ("λx. λl. λc. λn. c x (l c n)", Arrow(R, Arrow(CHURCH, CHURCH))),
    "sum": ("λl. l (λx. λacc. x + acc) 0", Arrow(CHURCH, R)),
    "map": ("λg. λl. λc. λn. l (λx. λacc. c (g x) acc) n", Arrow(RR, Arrow(CHURCH, CHURCH))),
    "foldr": ("λg. λz0. λl. l g z0", Arrow(Arrow(R, RR), Arrow(R, Arrow(CHURCH, R)))),
    "twice": ("λg. λx. g (g x)", Arrow(RR, RR)),
    "compose": ("λf. λg. λx. f (g x)", Arrow(RR, Arrow(RR, RR))),
    "curry": ("λf. λa. λb. f ⟨a, b⟩", Arrow(Arrow(R2, R), Arrow(R, RR))),
    "uncurry": ("λf. λ⟨a, b⟩. f a b", Arrow(Arrow(R, RR), Arrow(R2, R))),
    "at": ("λx. λg. g x", Arrow(R, Arrow(RR, R))),
}


@functools.cache
def library() -> dict:
    """name → closed term: Church lists (nil, cons, sum, map, foldr) and
    combinators taking and returning functions (twice, compose, curry,
    uncurry, at); parsed once."""
    from ..syntax.parser import parse
    return {n: parse(src) for n, (src, _) in _LIB_SRC.items()}


_LIB_NAMES = tuple(_LIB_SRC)


def library_context(names=_LIB_NAMES) -> dict:
    """The typing context of the library functions (for ``terms(…, ctx=…)``)."""
    return {n: _LIB_SRC[n][1] for n in names}


def with_library(term: Term) -> Term:
    """``let name = … in term`` for each library function free in ``term``."""
    used = [n for n in _LIB_NAMES if n in fv(term)]
    for n in reversed(used):
        term = App(Lam(Var(n), term), library()[n])
    return term


def _parameters(f: Term) -> list:
    """The names a library function's λs bind, outermost first."""
    out: list = []
    stack = [f]
    while stack:
        u = stack.pop()
        if isinstance(u, Lam):
            out.extend(pattern_vars(u.pat))
        stack.extend(reversed(u.children()))
    return out


def _description(kind: str, term: Term, extra: str = "") -> str:
    used = [n for n in _LIB_NAMES if n in fv(term)]
    lib = f"; uses {', '.join(used)}" if used else ""
    return f"{kind}{extra}{lib}"


def higher_order_functions(n: int = 1, depth: int = 3, *, budget: Optional[int] = None
                           ) -> st.SearchStrategy[tuple]:
    """Closed programs ℝⁿ → ℝ whose bodies use functions that take or return
    functions and Church lists (the library), as ``(term, description)``.
    The term is ``λp. let …library… in S``, a first-order type from the
    outside, so ``jacobian_row`` applies to it.  ``budget``: as for ``terms``."""
    @st.composite
    def go(draw):
        g = _Gen(draw, _cfg(False, pool=(R, RR, CHURCH, R2, Arrow(R, RR), R), budget=budget))
        if n == 1:
            pat, dom = Var("x"), R
        else:
            pat, dom = Tuple(tuple(Var(f"x{i}") for i in range(1, n + 1))), Prod((R,) * n)
        ctx = tuple(library_context().items())
        body = g.varying_body(R, _bind(ctx, pat, dom), pat, depth)
        f = Lam(pat, with_library(body))
        if not _determined(f, dom):
            f = Lam(pat, App(Lam(Var("r"), Var("r"), R), with_library(body)))
        return f, _description(f"ℝ^{n} → ℝ", body)
    return go()


@dataclass
class Program:
    """``Ω(F) ω V T`` : ℝ with its parts (the library bound around it)."""
    term: Term
    fun: Term
    form: Term
    point: Term
    tangent: Term
    dom: Type
    cod: Type
    description: str = ""
    library: dict = field(default_factory=dict)


def higher_order_programs(depth: int = 2, as_program: bool = False, *,
                          budget: Optional[int] = None) -> st.SearchStrategy:
    """Closed terms of type ℝ whose reduction differentiates higher-order
    code: ``Ω(λp. S) ω V T`` where p ranges over Church lists, functions
    ℝ → ℝ and ℝ → ℝ → ℝ, reals and pairs, S may use the library (map, sum,
    foldr, twice, compose, …), and the output is ℝ, ℝ × ℝ or ℝ → ℝ.  Yields
    ``(term, description)`` pairs, or ``Program`` records with
    ``as_program=True``.  ``budget``: as for ``terms``."""
    doms = (CHURCH, RR, R, R2, Arrow(R, RR), CHURCH)
    cods = (R, R2, RR)

    @st.composite
    def go(draw):
        g = _Gen(draw, _cfg(False, pool=(R, RR, CHURCH, R2, R), budget=budget))
        dom, cod = g.pick(doms), g.pick(cods)
        p = Var(g.pick(("l", "g", "x")))
        ctx = tuple(library_context().items())
        body = g.varying_body(cod, _bind(ctx, p, dom), p, depth)
        params = [x for k in _LIB_NAMES if k in fv(body) for x in _parameters(library()[k])
                  if x != p.name and x not in fv(body)]
        if params and g.flip(2):
            # the pullback's variable named as a parameter of a helper the body calls:
            # inlined, the helper binds that name again inside the derivative, and the
            # two directions share a name (dg) -- rule pb captured the outer one in a
            # point (found by the thorough profile)
            q = Var(g.pick(sorted(set(params))))
            body, p = subst(body, {p.name: q}), q
        fun = Lam(p, body, dom if _has_product(dom) else None)
        form = g.one_form(cod, (), 1)
        point = draw(points(dom))
        tangent = draw(tangents(dom))
        core = App(App(Pullback(fun, form), point), tangent)
        term = with_library(core)
        desc = _description(f"Ω(λ{p.name} : {dom}. … : {cod})", body)
        if as_program:
            lib = {k: library()[k] for k in _LIB_NAMES if k in fv(body)}
            return Program(term, fun, form, point, tangent, dom, cod, desc, lib)
        return term, desc
    return go()


# ---- linear combinations of tangents ------------------------------------------------------

def linear_combination(ty: Type, a: float, u: Term, b: float, w: Term) -> Term:
    """The term a·u + b·w at type ``ty`` (componentwise on products, pointwise
    on functions), built from ``+`` and ``×`` on the reals."""
    def go(ty: Type, u: Term, w: Term, depth: int) -> Term:
        if isinstance(ty, Real):
            return Prim("add", (Prim("mul", (Num(a), u)), Prim("mul", (Num(b), w))))
        if isinstance(ty, Prod):
            return Tuple(tuple(go(t, Proj(i, u), Proj(i, w), depth)
                               for i, t in enumerate(ty.items, 1)))
        dom, cod = (ty.of, R) if isinstance(ty, DualT) else (ty.dom, ty.cod)
        x = Var(f"lc_{depth}")
        return Lam(x, go(cod, App(u, x), App(w, x), depth + 1), dom if _has_product(dom) else None)
    return go(ty, u, w, 0)
