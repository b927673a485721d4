"""The numbered reduction rules, one small function each.

Every rule takes the redex (already known to match: the machine decides
*which* rule by ``classify_*`` below, Lemma 3.6) and a ``Premises`` object
through which rules with a proof tree run their sub-derivations; it returns
the contractum.  ``RULES`` maps each label to its function.  Notation:
p the environment pattern, p̂ its direction pattern, V a value (the point),
P a value (the direction), ā = a[V/p], â = a[P/p].
"""
from __future__ import annotations

import math
from typing import Callable, NamedTuple, Optional, Protocol


from ..areduction.anf import (A_RULES, calls_unknown, computes, is_atom, is_elementary,
                              is_let_series, operands, replace_operand)
from ..deep import bottom_up
from ..errors import ReductionError
from ..syntax import prims
from ..syntax.subst import alpha_eq, bind_pattern, fv, fv_copied, rename_apart, subst
from ..syntax.subst import linear as is_linear
from ..syntax.terms import (ANF, DEAD, DEAD_K, GROUND, GROUND_K, NF, UNREAD, UNREAD_K,
                            SPINE, App, Dual, Jac, Lam, Num, PartialPos, Prim, Proj, Pullback,
                            Sum, Term, Tuple, Var, Zero, ZERO, binds, direction_of,
                            direction_pattern, formal_sum, fresh, is_let, pattern_vars, remake,
                            subterm_kids)
from . import linear
from .linear import is_zero
from .env import Env, PatVars
from .calls import inlined_at_calls, items_projected, projected_only, split_pairs
from .spine import ensure_spine_unique


class Declined(Exception):
    """A rule's premise made no progress: the redex is stuck, hence a value.
    (Rule 17 on a differential operator of a free function would otherwise
    go round 17 → 18 → 8J → 17 for ever.)"""


class Premises(Protocol):
    #: is the innermost tangent premise the forward chain rule (7J/8J)?  (rule 18L)
    in_forward_premise: bool
    #: are the premises' steps recorded?
    record: bool

    def tally(self, label: str) -> None:
        """Count a step of rule ``label`` that a rule took inside its premise
        without running it as one (rule 5's projections, ``_projector``)."""

    def premise(self, term: Term, rule: str, keep_trivial: bool = True,
                phase: Optional[str] = None, forward: Optional[bool] = None) -> Term: ...


def _a_rule(f):
    def apply(t: Term, m: Premises) -> Term:
        return f(t)
    apply.__doc__, apply.label = f.__doc__, f.__name__
    return apply


# label -> rule; the A-rules take no premises
RULES: dict[str, Callable[[Term, Premises], Term]] = {k: _a_rule(f) for k, f in A_RULES.items()}


def rule(label: str):
    def register(fn):
        fn.label = label
        RULES[label] = fn
        return fn
    return register


def _env_extension(lam: Lam) -> bool:
    """Is the body ⟨p, E⟩ with p the binder itself (built by rule 8)?"""
    b = lam.body
    return isinstance(b, Tuple) and len(b.items) == 2 and (b.items[0] is lam.pat
                                                           or b.items[0] == lam.pat)


def _elementary_body(lam: Lam) -> bool:
    return is_elementary(lam.body) or _env_extension(lam)


def _flag_anf(t: Term) -> Term:
    t._flags |= ANF
    return t


# ======================================================================================
# 1–4: call by value
# ======================================================================================

@rule("1")
def beta(t: App, m: Premises) -> Term:
    """(1) β_v:  (λq.S) V → S[V/q].

    The argument is a value, so it is computed once however often q is used --
    this is why the strategy must be call-by-value (no expression swell).
    An *inert* argument I (``is_inert``) waits: the body S is reduced under
    the let first, and I is then substituted only if that copies no work (q
    used at most once, and not inside an abstraction); otherwise the let is
    kept, a value (open call-by-value, ``keeps_let``)."""
    return subst(t.fun.body, bind_pattern(t.fun.pat, t.arg))


def is_inert(v: Term) -> bool:
    """Is the value v inert: a stuck compound term -- a function symbol
    applied to arguments that are not all numerals, a projection, an
    application (these are values only when stuck, on a free variable or a
    value that is no function)?  Its free variables keep it from reducing;
    once they are bound, every copy would be computed again (open
    call-by-value duplicates inert terms: the expression swell A-normal let
    series exist to prevent).  So an inert value is shared by a let rather
    than copied (rule 1, 8J, lift).  A formal sum with an inert item is one
    too (a tangent at an open point, ``a₀ × 1 ⊕ a₀ × 1 ⊕ 1``): its sum is
    computed when the item's variables are bound."""
    if isinstance(v, Sum):
        return any(isinstance(i, (Prim, Proj, App)) for i in v.items)
    return isinstance(v, (Prim, Proj, App))


def keeps_let(t: App) -> bool:
    """let q = I in W (I inert, W the reduced body) with I a term that
    substitution would copy -- q occurs twice in W, or inside an abstraction:
    no β-redex but a value, the let is kept (open call-by-value, as in
    Accattoli and Guerrieri's value substitution calculus).  Substituting I
    for a single occurrence outside any abstraction copies no work, and rule 1
    does it (or drops an unused I) -- unless that occurrence is in the inert
    term the next let binds: a chain of inert lets stays one (``_inert_chain``)."""
    if not is_inert(t.arg):
        return False
    pat, body = t.fun.pat, t.fun.body
    if isinstance(pat, Var):
        return _inert_chain(pat.name, body) or not _used_at_most_once(pat.name, body)
    return bool(fv(body) & frozenset(pattern_vars(pat)))


def _inert_chain(x: str, body: Term) -> bool:
    """Is body let r = I' in W' with I' inert and mentioning x -- or is such a let
    among the next ``CHAIN_REACH`` inert lets of body: the next link of a chain of
    inert lets (the coefficients rule 5 names at an open point, c₂ = c₁ × a, c₃ = c₂ ×
    b, …: reverse mode's adjoint program, whose links interleave: c₂₄ = c₂₃ × (-1) is
    read by c₂₈, three lets on)?  The chain is kept: substituting
    c₁ builds the compound c₁ × a × b … that A-reduction splits into the same lets
    again when the result is differentiated (rule 18, 8J), and rule 1 takes a chain
    from its innermost let outwards, each substitution deeper in a growing term than
    the one before: quadratic work in the chain's length (papers/calculus.md §5.1)."""
    for _ in range(CHAIN_REACH):
        if not (type(body) is App and type(body.fun) is Lam and is_inert(body.arg)):
            return False
        if x in fv(body.arg):
            return True
        if x in pattern_vars(body.fun.pat):
            return False
        body = body.fun.body
    return False


#: how many inert lets on ``_inert_chain`` looks for the next link (O(1) per step)
CHAIN_REACH = 8


def _used_at_most_once(x: str, body: Term) -> bool:
    """Does x occur at most once in body, and not inside an abstraction (the
    body of a let is not one)?  (cached on the nodes: ``fv_copied``)"""
    return x not in fv_copied(body)


def kept_let(v: Term) -> bool:
    """Is the value v a let kept by rule 1 (let q = I in W)?"""
    return type(v) is App and type(v.fun) is Lam


def _kept_let_slot(t: Term):
    for slot, c in operands(t):  # the evaluated positions, in evaluation order
        if kept_let(c):
            return slot, c
    raise AssertionError("lift: no let to lift")  # the machine never asks


@rule("lift")
def lift(t: Term, m: Premises) -> Term:
    """(lift) K[L⟨W⟩] → L⟨K[W]⟩, L = let q₁ = I₁ in … let qₙ = Iₙ in [·]  -- the
    lets kept by rule 1 (Iᵢ inert) leave a position where their value W is
    looked at: either side of an application, an item of a tuple (the point
    of a Jacobian), the argument of a projection, the direction of a
    Jacobian, the functional of a dual map, either part of a pullback.  The
    qᵢ are renamed apart from the rest of K.  So a let never hides an
    abstraction, tuple or dual map from the rule that needs it (the σ-rules,
    or reduction at a distance, of calculi with explicit substitutions).  L is
    the whole series, a substitution context as in Accattoli's calculi: one
    step moves K under it, where a let at a time took one step per let per
    position (a tangent's 89 shared lets, lifted out of a tuple, a direction
    and an application: 267 steps).  Summands and the arguments of function
    symbols keep their lets: no rule looks inside them."""
    slot, let_ = _kept_let_slot(t)
    avoid = fv(replace_operand(t, slot, ZERO))
    lets, W = [], let_
    while kept_let(W) and (W is let_ or keeps_let(W)):  # the whole series of kept lets
        q, body = rename_apart(W.fun.pat, W.fun.body, avoid)
        lets.append((q, W.arg, W.fun.ann, W.fun.pos))
        W = body
    out = replace_operand(t, slot, W)
    for q, bound, ann, pos in reversed(lets):
        out = App(Lam(q, out, ann, pos), bound)
    out.pos = t.pos
    return out


@rule("2")
def projection(t: Proj, m: Premises) -> Term:
    """(2) πᵢ ⟨V₁, …, Vₙ⟩ → Vᵢ."""
    n = len(t.arg.items)
    if t.index > n:  # ill typed (an unchecked term): no rule applies
        raise ReductionError(f"rule 2 cannot apply: π{t.index} of a tuple of {n} components",
                             rule="2", redex=t)
    return t.arg.items[t.index - 1]


@rule("3")
def sums(t: Term, m: Premises) -> Term:
    """(3) the vector-space structure of values.

    Formal sums are associative and commutative with unit 𝟎 (the paper
    treats them so); values add componentwise: numerals as reals, tuples
    componentwise, abstractions pointwise, and equal linear atoms -- equal
    up to α, as terms are -- collect their coefficients (c × A ⊕ d × A →
    (c+d) × A).  Linear positions distribute over sums: (P ⊕ Q) V → P V ⊕ Q V,
    πᵢ(P ⊕ Q) → πᵢP ⊕ πᵢQ,
    (λv.S)⋆(P ⊕ Q) → (λv.S)⋆P ⊕ (λv.S)⋆Q, and 0 is absorbing there, as in
    Ω(S)0 → 𝟎 and J(λq.S)·0 → 𝟎, for any zero vector 0 (𝟎, a tuple of
    zeros, J(λq.S)·0, …).
    𝟎 at type ℝ is the numeral 0 (in a function symbol's argument)."""
    if isinstance(t, App):
        if isinstance(t.fun, Zero):
            return ZERO
        return formal_sum(App(f, t.arg) for f in t.fun.items)
    if isinstance(t, Proj):
        if isinstance(t.arg, Zero):
            return ZERO
        return formal_sum(Proj(t.index, s) for s in t.arg.items)
    if isinstance(t, Dual):
        if isinstance(t.functional, Zero):
            return ZERO
        return formal_sum(Dual(t.lam, f) for f in t.functional.items)
    if isinstance(t, (Pullback, Jac)):
        return ZERO  # Ω(S)0 and J(λq.S)·0: linear in the 1-form / the direction
    if isinstance(t, Prim):
        return Prim(t.op, tuple(Num(0.0) if isinstance(a, Zero) else a for a in t.args), t.pos)
    return _normalize_sum(t)


def _flatten(items) -> list[Term]:
    out: list[Term] = []
    stack = list(reversed(items))
    while stack:
        u = stack.pop()
        if isinstance(u, Sum):
            stack.extend(reversed(u.items))
        elif not isinstance(u, Zero):
            out.append(u)
    return out


def sum_needs_normalizing(t: Sum) -> bool:
    """Does rule 3 apply to the sum t of values: is a summand a sum or 𝟎, are
    two summands numerals, tuples or abstractions, or does an atom occur
    twice with an occurrence c × A (which shows that A is a real)?  (Decided
    once per node and cached beside it with the rest of rule 3's facts:
    ``linear.sum_facts``.)"""
    return not linear.sum_facts(t).normal


def _normalize_sum(t: Sum) -> Term:
    plain = linear.plain_concat(t.items)  # a plain sum and new atoms: concatenated
    if plain is not None:
        return plain
    items = _flatten(t.items)
    num = None
    tuples: list[Tuple] = []
    lams: list[Lam] = []
    coeffs: dict = {}
    for u in items:
        if isinstance(u, Num):
            num = u if num is None else linear.cadd(num, u, fold=False)  # rule 4 adds them
        elif isinstance(u, Tuple):
            tuples.append(u)
        elif isinstance(u, Lam):
            lams.append(u)
        else:
            c, a = linear.split_summand(u)
            coeffs.setdefault(linear.atom_key(a), []).append(c)
    out: list[Term] = []
    if num is not None:
        out.append(num)
    if tuples:
        n = len(tuples[0].items)
        same = [u for u in tuples if len(u.items) == n]
        out.append(Tuple(tuple(formal_sum(u.items[i] for u in same) for i in range(n)))
                   if len(same) > 1 else same[0])
        out.extend(u for u in tuples if len(u.items) != n)
    if lams:
        first = lams[0]
        others = frozenset().union(*(fv(g) for g in lams[1:]))
        if others & frozenset(pattern_vars(first.pat)):  # keep free variables free
            pat, body = _rename_all(first.pat, first.body)
            first = Lam(pat, body, first.ann)
        bodies = [first.body]
        for g in lams[1:]:
            bodies.append(subst(g.body, bind_pattern(g.pat, first.pat)))
        out.append(Lam(first.pat, formal_sum(bodies), first.ann) if len(lams) > 1 else first)
    for a, cs in coeffs.items():
        if all(c is None for c in cs):
            # A ⊕ A stays: × is the real product, and nothing shows that A is
            # real (it may be a vector, a function, a functional)
            out.extend([a] * len(cs))
            continue
        c = linear.ONE if cs[0] is None else cs[0]
        for d in cs[1:]:  # (c + d) × A: the addition is rule 4's next step
            c = linear.cadd(c, linear.ONE if d is None else d, fold=False)
        if isinstance(c, Num) and c.value == 0.0:
            continue
        out.append(a if c == linear.ONE else Prim("mul", (c, a)))
    return formal_sum(out)


@rule("4")
def primitive(t: Prim, m: Premises) -> Term:
    """(4) δ:  f(r₁, …, rₖ) → the numeral f(r₁, …, rₖ), for f ∈ F (table EVAL)."""
    args = [a.value for a in t.args]
    try:
        v = prims.EVAL[t.op](*args)
    except (ArithmeticError, ValueError) as e:
        raise ReductionError(f"rule 4 cannot apply: {t.op} is undefined at "
                             f"{', '.join(map(repr, args))} ({e})", rule="4", redex=t) from None
    if not math.isfinite(v):
        raise ReductionError(f"rule 4 cannot apply: {t.op}({', '.join(map(repr, args))}) "
                             f"is not a finite real", rule="4", redex=t)
    return Num(v)


@rule("dual-app")
def dual_apply(t: App, m: Premises) -> Term:
    """(dual-app) ((λq.S)⋆P) V → P (S[V/q]): a dual map is the functional P after the
    linear map λq.S (the meaning of the dual map, applied)."""
    d: Dual = t.fun
    # (Env.at: only the variables S uses are looked up -- the pattern may be
    # every input's direction, the body a few of them)
    return App(d.functional, Env(d.lam.pat).at(d.lam.body, t.arg))


# ======================================================================================
# 5–6: dual maps
# ======================================================================================

@rule("5")
def dual_along_linear_map(t: Dual, m: Premises) -> Term:
    """(5) (λv.S)⋆(λw.T) → λv.⟦T[S/w]⟧  -- the dual of a functional along a
    linear map is the composite functional; ⟦·⟧ puts it in linear normal form
    (distribute scalars, collect equal atoms), so its coefficients are
    numerals.  (λv.S)⋆𝟎 → 𝟎 and (λv.𝟎)⋆P → 𝟎.

    In the reverse phase S is the Jacobian of one elementary term at its
    point and T the covector of everything after it: this step is one step
    of back-propagation, touching only the coefficients of the variables the
    elementary term used.  Premise: when a direction is substituted into a
    compound atom (e.g. dj 1 with dj ↦ J(λx.S)·dv), the new redex is
    reduced before normalising."""
    lam, f = t.lam, t.functional
    if isinstance(f, Zero) or isinstance(lam.body, Zero):
        return ZERO
    pat, body = lam.pat, lam.body
    shares = f.pat is pat or (isinstance(f.pat, Tuple) and f.pat.items[0] is pat)
    if not shares and fv(f) & PatVars(pat):  # a name of the functional would be captured
        pat, body = _rename_all(pat, body)
    lets: list = []
    lin = PatVars(pat)
    covector = Lam(pat, linear.compose(f, body, lin,
                                       lambda u: _image(m.premise(linear.share_graph(u), "5",
                                                                  keep_trivial=False),
                                                        lin, lets),
                                       lambda cs: _arithmetic(cs, m, "5", lets),
                                       _projector(m)))
    return _let_all(lets, covector)


def _projector(m: Premises):
    """Rule 2 on a tuple an atom's projection reaches, for ``linear.compose``
    without a trace (with one, the premise records it): the rule from the table
    (a mutant of it too), each application a step of the reduction."""
    if m.record:
        return None
    rule2 = RULES["2"]

    def project(i: int, tup: Tuple) -> Term:
        m.tally("2")
        return rule2(Proj(i, tup), m)
    return project


def _image(v: Term, lin: PatVars, lets: list) -> Term:
    """The reduced image of a compound atom (rules 5 and 6's premise), its
    leading lets of values free of the map's variables moved out into
    ``lets`` (renamed apart), which go around the composite.  At an open
    point the image is a graph of inert values shared by lets kept by rule
    1 (``let b = sin(u) + 1 in … b × dv … b …``); read by substitution, each
    coefficient would hold the whole unshared tree of every value it
    mentions, and evaluating it once the point is known would walk every path
    (exponential in a chain that reads each intermediate twice, issue 26).
    Kept, each value is named once, as the other coefficients are."""
    kept: list = []  # lets that stay: their values are linear (read by substitution)
    linear_names: frozenset = frozenset()
    while kept_let(v):
        names = fv(v.arg)
        if names & lin or names & linear_names:
            kept.append(v)
            linear_names |= frozenset(pattern_vars(v.fun.pat))
            v = v.fun.body
            continue
        q, body = _rename_all(v.fun.pat, v.fun.body)
        lets.append((q, v.arg))
        v = body
    for let_ in reversed(kept):
        v = App(Lam(let_.fun.pat, v, let_.fun.ann, let_.fun.pos), let_.arg, let_.pos)
    return v


def _arithmetic(coefficients: list, m: Premises, label: str, lets: list) -> list:
    """Rule 5's arithmetic premise: the coefficient terms the composition
    built (k × c, c + d) reduce -- by rule 4, one step per operation -- to
    values, together, as one tuple; an operation that several coefficients
    share is bound once by a let (``linear.share``), so it is one step, not
    one per coefficient.

    At an open point a coefficient may stay an inert term (``sin(u) × 3``).
    The next compositions multiply it into other coefficients, and a later
    derivative differentiates every copy: so each inert coefficient is named,
    once, by a let around the covector (``lets``), and the covector holds its
    name -- the adjoint program of reverse mode, shared, not a tree."""
    bindings, items = linear.share(coefficients)
    t = items[0] if len(items) == 1 else Tuple(tuple(items))
    for x, bound in reversed(bindings):  # an operation shared by coefficients: once, named
        t = App(Lam(x, t), bound)
    v = m.premise(t, label, keep_trivial=False, phase="reverse")
    while kept_let(v):  # a shared inert operation: named once, outside
        lets.append((v.fun.pat, v.arg))
        v = v.fun.body
    out = [v] if len(items) == 1 else list(v.items)
    for i, c in enumerate(out):
        if is_inert(c):
            x = Var(fresh("c"))
            lets.append((x, c))
            out[i] = x
    return out


def _let_all(lets: list, body: Term) -> Term:
    """let x₁ = c₁ in … let xₖ = cₖ in body."""
    for x, c in reversed(lets):
        body = App(Lam(x, body), c)
    return body


def _rename_all(pat: Term, body: Term) -> tuple[Term, Term]:
    ren = {n: Var(fresh(n)) for n in pattern_vars(pat)}
    return subst(pat, ren), subst(body, ren)


@rule("6")
def dual_contravariance(t: Dual, m: Premises) -> Term:
    """(6) (λv.S)⋆((λw.S')⋆P) → (λv.⟦S'[S/w]⟧)⋆P  -- contravariance:
    f⋆(g⋆P) = (g ∘ f)⋆P.  Fires when P is stuck (e.g. a free 1-form).  As
    in rule 5, ⟦·⟧ puts the composite in linear normal form, with its
    arithmetic a premise (rule 4), when the maps' values are reals or tuples
    of reals -- known from P = ω Ȳ, the free 1-form at a ground value: so
    the composition of stage maps is reverse accumulation, each step
    touching only the coefficients of the variables its stage used.
    Otherwise (functions, or a functional P of unknown shape) S'[S/w] is the
    plain substitution.  v is renamed apart from the free variables of
    λw.S', which it would capture."""
    inner: Dual = t.functional
    pat, S = t.lam.pat, t.lam.body
    if frozenset(pattern_vars(pat)) & fv(inner.lam):
        pat, S = _rename_all(pat, S)  # v must not capture the free variables of λw.S'
    lets: list = []
    if _ground_functional(inner.functional) and not isinstance(inner.lam.body, Lam):
        body, lets = _compose_ground(inner.lam.pat, inner.lam.body, S, PatVars(pat), m,
                                     inner.functional.arg)
    else:
        body = _compose_open(inner.lam.pat, inner.lam.body, S)
    return _let_all(lets, Dual(Lam(pat, body, t.lam.ann), inner.functional))


def _compose_open(w: Term, S2: Term, S: Term) -> Term:
    """S'[S/w] for maps of unknown type (rule 6 off the ground path): a
    compound component of S that S' reads twice is let-bound, renamed apart,
    instead of copied.  The stage maps of a let series are composed from the
    output back, each substituted into the composite of the later ones; a
    chain whose stages read their variable twice (``a × a``) would otherwise
    double the composite per stage (a tree 2^k in size, issue 26), where the
    let keeps it linear: (g ∘ f)(v) = let w = f(v) in g(w).  S is let-bound
    whole when it is not a tuple of w's shape (its projections would copy it)."""
    lets: list = []
    if not isinstance(S, (Var, Tuple)) and isinstance(w, Tuple):
        y = Var(fresh("w"))
        lets.append((y, S))
        S = y
    m: dict = {}
    for x, c in bind_pattern(w, S).items():
        if isinstance(c, (Var, Num, Zero, Proj)) or _occurrences(x, S2) < 2:
            m[x] = c
        else:
            y = Var(fresh(x))
            lets.append((y, c))
            m[x] = y
    return _let_all(lets, subst(S2, m))


def _ground(v: Term) -> bool:
    """A value of type ℝ or a tuple of them (a stuck f(…) is a real)."""
    stack = [v]
    while stack:
        u = stack.pop()
        if isinstance(u, Tuple):
            stack.extend(u.items)
        elif isinstance(u, Sum):
            if not any(isinstance(i, (Num, Prim)) for i in u.items):
                return False
        elif not isinstance(u, (Num, Prim)):
            return False
    return True


def _ground_functional(f: Term) -> bool:
    """Is f the functional ω Ȳ at a ground value Ȳ (so the maps into Ȳ's
    space are real- or tuple-valued)?  Cached on f: every rule-6 step of a
    premise asks about the same functional."""
    g = f._flags
    if g & GROUND_K:
        return bool(g & GROUND)
    r = isinstance(f, App) and _ground(f.arg)
    f._flags |= (GROUND_K | GROUND) if r else GROUND_K
    return r


def _compose_ground(w: Term, S2: Term, S: Term, lin: PatVars, m: Premises,
                    Y: Term) -> tuple[Term, list]:
    """⟦S'[S/w]⟧ for S' real- or tuple-valued, of the shape of the ground value Ȳ
    its functional is at: componentwise rule-5 composition (left to right;
    iterative in the tuples' depth).  A component of tuple type that is not
    written as a tuple (a direction variable of a tuple, a sum of them) is
    substituted plainly (``_compose_open``): the linear normal form is one of
    reals -- collected, dtup ⊕ dtup would be 2 × dtup, and × is the real
    product (rule 3 keeps A ⊕ A for that reason)."""
    def component(item):
        c, y = item
        if isinstance(c, Tuple):
            ys = y.items if isinstance(y, Tuple) and len(y.items) == len(c.items) else \
                (None,) * len(c.items)
            return list(zip(c.items, ys)), c
        if isinstance(c, Zero):
            return None, ZERO
        if isinstance(y, Tuple):
            return None, _compose_open(w, c, S)
        return None, linear.compose(Lam(w, c), S, lin,
                                    lambda u: _image(m.premise(linear.share_graph(u), "6",
                                                                  keep_trivial=False),
                                                     lin, lets),
                                    lambda cs: _arithmetic(cs, m, "6", lets),
                                    _projector(m))
    lets: list = []
    body = bottom_up((S2, Y), component, lambda c, items: Tuple(tuple(items)))
    return body, lets


# ======================================================================================
# 7–8: pullbacks along let series;  pb: pullback along an elementary term at a point
# ======================================================================================

@rule("7")
def pullback_base(t: Pullback, m: Premises) -> Term:
    """(7) Ω(λp. let x = E in x) ω → Ω(λp.E) ω  -- base case: a let series
    whose body is its own variable is its elementary term."""
    lam = t.fun
    return Pullback(Lam(lam.pat, _flag_anf(lam.body.arg), lam.ann), t.form)


@rule("8")
def pullback_let(t: Pullback, m: Premises) -> Term:
    """(8) Ω(λp. let q = E in L) ω → Ω(λp.⟨p, E⟩) (Ω(λ⟨p, q⟩.L) ω)  --
    contravariance of pullbacks: λp.let q = E in L = (λ⟨p,q⟩.L) ∘ (λp.⟨p,E⟩),
    and (g ∘ f)*ω = f*(g*ω).  The environment ⟨p, q⟩ keeps every earlier
    variable in scope; p is shared, so the step costs O(1)."""
    lam = ensure_spine_unique(t.fun)
    let_ = lam.body
    q, L = let_.fun.pat, let_.fun.body
    env = _flag_anf(Tuple((lam.pat, let_.arg)))
    inner = Lam(Tuple((lam.pat, q)), _flag_anf(L))  # the tail of a let series is one
    inner._flags |= SPINE
    return Pullback(Lam(lam.pat, env), Pullback(inner, t.form))


@rule("pbc")
def pullback_constant(t: Pullback, m: Premises) -> Term:
    """(pbc) Ω(λp. L) ω → λp. let y = L in 𝟎  when L is a let series that reads
    no variable of p -- the pullback along a constant map: (Ω(f) ω) V is
    ω(f V) composed with J(f)(V) = 0, the zero covector whatever ω is.  L is
    still evaluated at each point (call by value evaluates the function's body:
    a stage that fails still fails), ω is not applied, and no stage of L gets a
    Jacobian: reverse accumulation would compose ω's covector with every
    stage's map, from the output back, before the first stage's map -- the
    zero one -- made the whole 0 (activity analysis, papers/calculus.md §5.7)."""
    lam = t.fun
    y = Var(fresh("y"))
    return Lam(lam.pat, App(Lam(y, ZERO), lam.body), lam.ann, lam.pos)


@rule("8c")
def pullback_let_constant(t: Pullback, m: Premises) -> Term:
    """(8c) Ω(λp. let q = V in L) ω → Ω(λp. L[V/q]) ω  when V is a closed
    abstraction or a numeral -- a constant (an atom of A-normal forms) -- or
    a value used once (``inlined_once``), or a helper used only by calls
    (``inlined_at_calls``): β_v under the λ.  A tuple that L only projects,
    ``let r = πᵢ q`` (``projected_only``), is substituted with rule 2 at each
    projection: ``let r = aᵢ``.  β_v of a value copies no work: a
    constant costs nothing to copy, a value bound to a variable that occurs
    at most once in L, wherever, is moved, not copied (it is a value: nothing
    of it is evaluated before it is used), a helper copied to its calls is
    evaluated by each call as the program evaluates it; and a value that only
    dead code reads (``dead_let``) is dropped; a tuple of constants bound by a
    tuple of variables is bound item by item.  A run of constants, aliases and
    helpers each called once at the top of L is substituted with the first (a
    constant, or a helper called once), in one walk, past stages between them
    that read none of the run's helpers (kept in place).  Rule 8
    would make q a coordinate of the environment, and reverse mode would
    compute its adjoint -- the derivative of everything after it along the
    direction dq, e.g. of a whole fold along the folding function, or along
    a constant 0 -- only for the stage that binds q, whose Jacobian is 0
    (rule 9), to discard it.  Inlining the closures of a Church list built
    by ``cons`` makes it the written-out list, whose gradient is linear
    (papers/calculus.md §9, church-cons)."""
    lam = t.fun
    let_ = lam.body
    if isinstance(let_.arg, Tuple) and projected_only(let_):
        out = Lam(lam.pat, items_projected(let_), lam.ann)
        if not any(isinstance(a, Lam) for a in let_.arg.items):
            out._flags |= lam._flags & SPINE  # (no binder comes: see below)
        return Pullback(out, t.form)
    images = bind_pattern(let_.fun.pat, let_.arg)
    rest = let_.fun.body
    kept: list = []  # (a let of the run kept in place, its value with the images so far)
    top_helper = not _constant_let(let_) and _run_helper(let_) and bool(
        _called_once([let_], rest))  # (else 8c copies it for another reason, alone)
    if _constant_let(let_) or top_helper:
        # a run of constants and aliases is substituted at once: each is always
        # substituted, a constant is closed and an alias names a variable bound
        # before it (its image, if the run binds it), so no other's substitution
        # changes the decision; one walk of the series reaches all their uses
        # (one by one, each walked to its far use: quadratic in the run).  A name
        # the run binds again takes its new image: the lets between, all of the
        # run, have read the old one already.
        # So is a helper the run binds that the rest of the series uses once, by a
        # call ``let r = h a`` (``_called_once``): 8c would copy it there on its own
        # (``inlined_at_calls``), a walk of the series down to the call each time --
        # a written Church list's cells, each named at the top and called at the far
        # end, made the gradient quadratic in time (benchmarks/README.md, church)
        # A stage between the run's helpers (an element a cons cell holds, computed
        # between the cells) is kept in place, and the run goes on past it, when it
        # reads nor binds a helper of the run (a name the run's values read, free
        # outside the series, is renamed apart below: no capture): one walk for the
        # whole list, where the run ended at each stage and 8c took the cells one walk
        # each (church-cons of computed elements)
        run: list = []  # (let, what: constant, helper or kept)
        u = rest
        # Which lets the run takes depends on the bindings, not on the names: a name
        # bound again in the run is the new binding from there on, as in the program
        # renamed apart (a repeated name made the run end sooner: one step more)
        helpers: set = set(pattern_vars(let_.fun.pat)) if isinstance(let_.arg, Lam) else set()
        called: set = set(helpers) if top_helper else set()  # (helpers _called_once judges)
        any_helper = bool(helpers)  # (helpers: the abstractions bound now, kept stages' bar)
        gap = 0  # (stages kept since the last constant or helper)
        while is_let(u):
            names = pattern_vars(u.fun.pat)
            if not called.isdisjoint(names):
                break  # (a helper bound again: renamed apart, it would not be called in
                # the rest, and the run would end at it all the same)
            if _constant_let(u):
                what = _CONSTANT
            elif _run_helper(u):
                what = _HELPER
            elif any_helper and gap < KEPT_REACH and not (helpers & fv(u.arg)):
                what = _KEPT
            else:
                break
            helpers.difference_update(names)
            if what is _HELPER:
                helpers.add(u.fun.pat.name)
                called.add(u.fun.pat.name)
                any_helper = True
            gap = gap + 1 if what is _KEPT else 0
            run.append((u, what))
            u = u.fun.body
        while run and run[-1][1] is _KEPT:  # (the rest begins at a trailing stage)
            u = run.pop()[0]
        valid = _called_once([let_] * top_helper + [r for r, what in run if what is _HELPER],
                             u)
        if top_helper and id(let_) not in valid:
            run = []  # (a helper 8c copies for another reason: its own walk, alone)
        pending: list = []  # (kept since the last let substituted)
        renamed: list = []  # (the images a pending stage's new names replaced)
        seen = set(fv(let_.arg)) | set(pattern_vars(let_.fun.pat))  # (read or bound)
        for r, what in run:
            v = r.arg
            if what is _KEPT:
                v = subst(v, {k: images[k] for k in fv(v) if k in images})
                pat = r.fun.pat
                clash = [n for n in pattern_vars(pat) if n in seen]
                if clash:
                    # a name the run read or bound before: the stage's binder renamed
                    # apart (an image must not be captured below it, nor replace its
                    # uses), as in the program renamed apart, whose run goes on alike
                    ren = {n: Var(fresh(n)) for n in clash}
                    pat = subst(pat, ren)
                    renamed += [(n, images.get(n)) for n in clash]
                    images.update(ren)
                pending.append((r, pat, v))
                seen.update(fv(r.arg))
                seen.update(pattern_vars(r.fun.pat))
                continue
            name = r.fun.pat.name
            if what is _CONSTANT:
                images[name] = images.get(v.name, v) if isinstance(v, Var) else v
            elif id(r) in valid:
                images[name] = subst(v, {k: images[k] for k in fv(v) if k in images})
            else:
                break
            seen.update(fv(v))
            seen.add(name)
            kept += pending
            pending, renamed = [], []
            rest = r.fun.body
        for n, image in reversed(renamed):  # (stages left in the rest keep their names)
            if image is None:
                del images[n]
            else:
                images[n] = image
    if isinstance(let_.arg, Lam) and fv(let_.arg) and isinstance(let_.fun.pat, Var):
        rest = split_pairs(let_.fun.pat.name, rest)  # (a helper copied to its calls)
    body = subst(rest, images)
    for r, pat, v in reversed(kept):  # (the stages kept in place, over the rest)
        body = App(Lam(pat, body, r.fun.ann, r.fun.pos), v, r.pos)
    out = Lam(lam.pat, body, lam.ann)
    if not any(isinstance(v, Lam) for v in images.values()):
        # a numeral or a variable brings no binder: the spine stays unique (an
        # abstraction may: its parameter and lets become lets of the series when a
        # call of it is A-lifted, and may repeat a name of p -- λx. let x = … )
        out._flags |= lam._flags & SPINE
    return Pullback(out, t.form)


_CONSTANT, _HELPER, _KEPT = "constant", "helper", "kept"  # (what a let of 8c's run is)
KEPT_REACH = 16  # (stages 8c's run goes past in a row: a bounded look, O(1) per step)


def _run_helper(let_: App) -> bool:
    """let h = λ… that 8c's run may take if the rest uses h once, by a call:
    a helper ``inlined_at_calls`` asks about (one that applies no unknown function)."""
    return isinstance(let_.fun.pat, Var) and isinstance(let_.arg, Lam) \
        and not calls_unknown(let_.arg)


def _called_once(helpers: list, rest: Term) -> set:
    """The lets of ``helpers`` (a run's, in order) whose name the series ``rest`` uses
    once, as the function of a let's call ``let r = h a`` (h not in a), and no later
    helper of the run uses: those ``inlined_at_calls`` copies one by one.  A prefix
    of helpers (the run ends at the first helper not so used), found by one walk of
    rest for them all, which ends at the last call it waits for."""
    pending: dict = {}  # name -> its index in helpers, while its use is not found
    rest_fv = fv(rest)
    read_later: list[bool] = []  # (does a later helper's value read it? one pass back)
    later: set[str] = set()
    for h in reversed(helpers):
        read_later.append(h.fun.pat.name in later)
        later.update(fv(h.arg))
    read_later.reverse()
    for i, h in enumerate(helpers):
        name = h.fun.pat.name
        if name in pending or name not in rest_fv or read_later[i]:
            break  # (the run ends here: rebound, unused, or read by a later helper)
        pending[name] = i
    limit, ok = len(pending), set()
    t = rest
    while pending and is_let(t):
        E, names = t.arg, fv(t.arg)
        used = [n for n in pending if n in names] if len(pending) < len(names) else \
            [n for n in names if n in pending]
        failed = [n for n in pattern_vars(t.fun.pat) if n in pending and n not in used]
        for n in used:
            i = pending.pop(n)
            if isinstance(E, App) and isinstance(E.fun, Var) and E.fun.name == n \
                    and n not in fv(E.arg) and n not in fv(t.fun):
                ok.add(i)
            else:
                limit = min(limit, i)
        for n in failed:  # (rebound before a use: not called once)
            limit = min(limit, pending.pop(n))
        if len(pending) > limit:  # (past the end of the prefix: no longer waited for)
            pending = {n: i for n, i in pending.items() if i < limit}
        t = t.fun.body
    out, i = set(), 0
    while i < limit and i in ok:
        out.add(id(helpers[i]))
        i += 1
    return out


def _constant_let(let_: App) -> bool:
    """let x = V with V a closed abstraction or a numeral (rule 8c's constants), or
    a variable (an alias: a variable for a variable copies nothing)."""
    return isinstance(let_.fun.pat, Var) and (isinstance(let_.arg, Var) or _closed(let_.arg))


def _closed(v: Term) -> bool:
    """A numeral or a closed abstraction: a constant of 8c."""
    return isinstance(v, (Lam, Num)) and not fv(v)


def _constant_tuple_let(let_: App) -> bool:
    """let ⟨q₁, …, qₙ⟩ = ⟨V₁, …, Vₙ⟩ with each Vᵢ a constant (a pair of numerals a
    helper returned, ``let ⟨u, v⟩ = pr 1`` after β): 8c binds each qᵢ to its Vᵢ, as
    for ``let qᵢ = Vᵢ``.  Rule 8 would make the pair a coordinate, and every stage
    after it that reads u or v a stage of the map -- no pullback along a constant
    map (pbc) once the inputs are no longer read.  (A pair of names stays: an entry
    of the tape, with its adjoint.)"""
    p, V = let_.fun.pat, let_.arg
    return isinstance(p, Tuple) and isinstance(V, Tuple) and len(p.items) == len(V.items) \
        and all(isinstance(q, Var) for q in p.items) \
        and all(_closed(a) for a in V.items)


@rule("8h")
def pullback_let_hoist(t: Pullback, m: Premises) -> Term:
    """(8h) Ω(λp. let q = f(r₁, …, rₖ) in L) ω → let q = f(r₁, …, rₖ) in Ω(λp.L) ω
    when f is defined at the numerals r₁, …, rₖ -- an operation on constants
    is a constant of the map: computed once outside it (rule 4, then rule 1
    substitutes the numeral), where rule 8 would make q a coordinate whose
    adjoint -- the derivative of every later stage along q, closures over q
    included -- reverse mode computes only to multiply it by 0 (rule 9).
    Defined, the operation cannot fail outside the λ where it would not have
    failed inside: hoisting it changes no outcome, only when it is done."""
    lam = t.fun
    let_ = lam.body
    q, L, E = let_.fun.pat, let_.fun.body, let_.arg
    # the let scopes over ω too, and λp must not capture q in L (a let may rebind
    # a variable of p: λx. let x = 1 + 1 in …)
    avoid = fv(t.form) | frozenset(pattern_vars(lam.pat))
    if any(n in avoid for n in pattern_vars(q)):
        q, L = _rename_all(q, L)
    inner = Lam(lam.pat, _flag_anf(L), lam.ann)
    inner._flags |= lam._flags & SPINE
    return App(Lam(q, Pullback(inner, t.form)), E)


@rule("8f")
def pullback_let_float(t: Pullback, m: Premises) -> Term:
    """(8f) Ω(λp. let q = λs.C[E] in L) ω → Ω(λp. let c = E in let q = λs.C[c] in L) ω
    when E, an operation outside the inner λs of the helper, reads no variable
    bound inside λs.C[E] (full laziness) and cannot fail whatever its variables
    are (``_bounds``: sin, cos, tanh bound anything, and +, −, ×, neg, exp keep
    bounded arguments bounded; so exp(sin(x)) floats, x × x does not).  A
    helper that computes with the variables it captures (``λs. ⟨exp(sin(x2)),
    x1⟩``) is neither a constant nor movable (``inlined_once``), so rule 8
    makes it a coordinate; inside rule 17's premise it is then a free function,
    its calls stuck, their tangents η-forms ``J(λz. q z)·T`` that every later
    stage carries.  With its computation floated out it only passes closures
    over its free variables, and 8c moves it when it is used once.  E is
    computed once instead of at every call; it cannot fail, so computing it
    where the helper is never called changes no outcome."""
    lam = t.fun
    let_ = lam.body
    V: Lam = let_.arg
    E = _floatable(V)
    c = Var(fresh("c"))
    helper = bottom_up(V, lambda u: (None, c) if u is E else (
        (subterm_kids(u), u) if subterm_kids(u) else (None, u)), remake)
    inner = App(Lam(let_.fun.pat, let_.fun.body), helper)
    return Pullback(Lam(lam.pat, App(Lam(c, inner), E), lam.ann), t.form)


def _floatable(lam: Lam) -> Optional[Term]:
    """The first maximal operation in lam's body, outside its inner λs, that reads
    no variable bound inside lam and cannot fail (``_bounds``), or None."""
    stack = [lam.body]
    bound = frozenset(pattern_vars(lam.pat))
    known: dict = {}  # (the candidates nest: each node's interval is computed once)
    while stack:
        u = stack.pop()
        if isinstance(u, Prim) and bound.isdisjoint(fv(u)) and _bounds(u, known) is not None:
            return u
        if not isinstance(u, Lam):  # (an inner λ may never be applied: nothing from it)
            stack.extend(reversed(subterm_kids(u)))
    return None


_HUGE = 1e300  # (a margin under the largest float: interval ends are rounded)


def _bounds(u: Term, out: Optional[dict] = None) -> Optional[tuple[float, float]]:
    """An interval that holds every value of u whatever its variables are, when
    every operation in u is defined and finite there (so u cannot fail: rule 4
    stops at a non-finite result); None otherwise.  Variables and projections are
    unbounded; sin, cos and tanh bound anything; +, −, ×, neg and exp keep
    bounded arguments bounded.  So exp(sin(x)) floats; x × x does not (x may be
    10²⁰⁰), nor log(x)."""
    stack: list = [(u, False)]
    out = {} if out is None else out  # id -> interval, or None: fails
    while stack:
        v, done = stack.pop()
        if id(v) in out and not done:
            if out[id(v)] is None:
                return None
            continue
        if isinstance(v, Num):
            out[id(v)] = (v.value, v.value)
        elif isinstance(v, Var) or isinstance(v, Proj) and _atom_path(v):
            out[id(v)] = (-math.inf, math.inf)
        elif not isinstance(v, Prim) or v.op not in _RANGES:
            out[id(v)] = None
            return None
        elif not done:
            stack.append((v, True))
            stack.extend((a, False) for a in v.args)
        else:
            r = _RANGES[v.op](*(out[id(a)] for a in v.args))
            if not -_HUGE < r[0] <= r[1] < _HUGE:
                out[id(v)] = None
                return None
            out[id(v)] = r
    r = out[id(u)]
    return r if r is not None and -_HUGE < r[0] <= r[1] < _HUGE else None


def _mul(a, b):
    if not all(math.isfinite(x) for x in a + b):
        return (-math.inf, math.inf)
    ps = [x * y for x in a for y in b]
    return (min(ps), max(ps))


def _exp(a):
    try:
        return (math.exp(a[0]), math.exp(a[1]))
    except OverflowError:
        return (0.0, math.inf)


_RANGES: dict = {
    "add": lambda a, b: (a[0] + b[0], a[1] + b[1]),
    "sub": lambda a, b: (a[0] - b[1], a[1] - b[0]),
    "mul": _mul, "neg": lambda a: (-a[1], -a[0]), "exp": _exp,
    "sin": lambda a: (-1.0, 1.0), "cos": lambda a: (-1.0, 1.0), "tanh": lambda a: (-1.0, 1.0),
}


def _atom_path(u: Term) -> bool:
    """Variables, numerals, tuples and projections of them."""
    if isinstance(u, (Var, Num)):
        return True
    return isinstance(u, (Tuple, Proj)) and all(_atom_path(k) for k in subterm_kids(u))


def _defined_constant(E: Term) -> bool:
    """Is E an operation f(r₁, …, rₖ) on numerals at which f is defined (rule 4 applies)?"""
    if not isinstance(E, Prim) or not all(isinstance(a, Num) for a in E.args):
        return False
    try:
        return math.isfinite(prims.EVAL[E.op](*(a.value for a in E.args)))
    except (ArithmeticError, ValueError):
        return False


def dead_let(let_: App) -> bool:
    """Does 8c drop let q = V in L as dead code: V a value (β_v copies no work)
    and q read by no live part of L -- not at all, or only by the values of
    lets that are dead themselves (a helper used only by helpers that nothing
    calls)?  L[V/q] then reads V only in code that is dropped in turn.  Rule 8
    would make q a coordinate and take the tangent of V's closure at its
    stage, which no covector reads (four helpers that use each other and are
    never called: 6 steps to evaluate, 163 for the gradient; 13 now).

    Asked of a let, it walks the series only as far as q is read: a reader
    that is no value, or the series' end, makes q live at once; a reader that
    is a value is asked in turn (the answer kept on its node).  A whole pass
    of the series at each let (as this once did) was quadratic where 8c
    rebuilds the top of a long series at every step (church-foldl)."""
    return _dead_by_readers(let_, DEAD_K, DEAD, values=True)


def _dead_by_readers(let_: App, known: int, dead: int, values: bool) -> bool:
    """dead_let (``values``: only values count as dead) and dead_stage: a depth-first
    walk over the lets that read q, each answer kept on its node (``known``, ``dead``:
    the flag bits) -- a let series has no cycle."""
    if let_._flags & known:
        return bool(let_._flags & dead)
    stack: list = [let_]
    while stack:
        u = stack[-1]
        if u._flags & known:
            stack.pop()
            continue
        pending = _readers_pending(u, known, dead, values)
        if pending is None:  # read where it is live
            u._flags |= known
            stack.pop()
        elif pending:
            stack.extend(pending)
        else:  # every reader decided, and dead
            u._flags |= known | dead
            stack.pop()
    return bool(let_._flags & dead)


#: how many lets the walk of dead_let and dead_stage passes while q is still read
#: further on: past that, q counts as live.  A Church list's spine, c 1 (c 2 (…)),
#: names every partial application first and reads them all at its end, and a walk
#: to each one's reader made church-foldl's work grow ×2.18 per doubling
DEAD_REACH = 32


def _readers_pending(u: App, known: int, dead: int, values: bool) -> Optional[list]:
    """For let q = E in L: None if q is read where it is live -- L's result, a let
    known live, or (``values``) a let that is no value, or E itself no value, or
    no answer within ``DEAD_REACH`` lets; otherwise the lets reading q whose answer
    is not known yet."""
    if values and not isinstance(u.arg, _VALUES):
        return None
    names = set(pattern_vars(u.fun.pat))
    pending: list = []
    t: Term = u.fun.body
    reach = DEAD_REACH
    while names and is_let(t):
        if not any(n in fv(t) for n in names):
            return pending
        reach -= 1
        if reach < 0:
            return None
        if any(n in fv(t.arg) for n in names):
            if values and not isinstance(t.arg, _VALUES):
                return None
            if t._flags & known:
                if not t._flags & dead:
                    return None
            else:
                pending.append(t)
        names.difference_update(pattern_vars(t.fun.pat))
        t = t.fun.body
    if any(n in fv(t) for n in names):
        return None
    return pending


_VALUES = (Lam, Num, Var, Zero)


def inlined_once(let_: App) -> bool:
    """Does 8c substitute let q = V in L although V is open?  When V is a
    variable, or an abstraction that does not compute (``computes``), q
    occurs at most once in L -- under an abstraction too -- and that
    occurrence is not an operand A-name would bind again (a variable may be
    anywhere; an abstraction under a λ or at the head of an application of
    the series, where A-lift makes its body part of the series).  Any value
    used once could be moved (β_v copies nothing); the rest is what pays:
    an abstraction at an operand would be named again by A-name, for ever;
    one that calls a function it does not know (a coordinate) would turn
    each call into a stage differentiated on its own -- along a constant
    argument too -- where rule 18 takes the whole body in one premise
    (``ho_list_dot`` 139 → 305 steps; one that calls only known code and is
    used only by calls is copied to them, ``inlined_at_calls``);
    and one that calls a primitive,
    moved into a closure applied many times, a coordinate, has its
    computation repeated by rule 5's premise at every application
    (church-foldl quadratic: 1,750 / 5,965 / 21,895 steps at n = 10 / 20 /
    40, against 710 / 1,370 / 2,690).  Such an abstraction is still moved
    when its one use is in the function of a Jacobian or a pullback, under
    abstractions too (``J(λy. h ⟨y, x⟩)·v``): a coordinate there, rule 17 could not look into
    h, and reverse mode would take h's own tangent -- the derivative of the
    closure along everything it captures, nested derivatives and all -- to
    differentiate that along y afterwards (a 0 along y: 2,268 steps, moved
    379, written in place 359); moved, rule 17's premise differentiates
    its body along y first, once, as in place.  So is one used once in the
    body of a helper that is moved so (a chain of helpers, each calling the
    one before, the last in the map)."""
    V, q = let_.arg, let_.fun.pat
    if not isinstance(q, Var) or not isinstance(V, (Var, Lam)):
        return False
    x = q.name
    heavy = isinstance(V, Lam) and computes(V)
    t = let_.fun.body
    while is_let(t):
        E = t.arg
        if x in fv(E):
            if _occurrences(x, E) > 1 or x in fv(t.fun):  # (t.fun: a let binding x again ends L)
                return False
            if heavy and not _in_a_derivative_map(x, E) and not (
                    isinstance(E, Lam) and isinstance(t.fun.pat, Var) and computes(E)
                    and inlined_once(t)):
                return False  # (a helper that computes, moved on into such a map, takes x)
            return isinstance(V, Var) or not any(
                isinstance(c, Var) and c.name == x and not (isinstance(E, App) and slot == 0)
                for slot, c in operands(E))
        if x in pattern_vars(t.fun.pat):  # rebound: L uses q no more
            return not heavy
        t = t.fun.body
    return x not in fv(t) and not heavy


def _in_a_derivative_map(x: str, t: Term) -> bool:
    """Is the free occurrence of x in t (one, ``inlined_once`` asks) inside the map
    of a Jacobian or a pullback -- J(λy. … x …)·v, Ω(λy. … x …) ω -- under
    abstractions too?  One path down: only the child that reads x is entered."""
    while True:
        if isinstance(t, Jac) and x in fv(t.lam) or isinstance(t, Pullback) and x in fv(t.fun):
            return True
        kid = next((c for c in subterm_kids(t) if x in fv(c)), None)
        if kid is None:
            return False
        t = kid


def _occurrences(x: str, t: Term, limit: int = 2) -> int:
    """The free occurrences of x in t, under abstractions too, counted up to limit."""
    n, stack = 0, [t]
    while stack:
        u = stack.pop()
        if isinstance(u, Var):
            n += u.name == x
            if n >= limit:
                return n
        else:
            stack.extend(c for c in subterm_kids(u) if x in fv(c))
    return n




#: pb names the functional at an open point when this many stages are still to come:
#: naming costs three steps a stage (two A-lifts, a rule-1 step), a let lifted out of
#: nested dual maps one step a map -- so short chains stay nested, at no cost (the
#: bundled examples' steps are unchanged), and long ones become a let series
_NAMED_AFTER = 3


def _stages_to_come(form: Term) -> int:
    """How many pullbacks ω = Ω(λq.L) (Ω(…) …) nests, counted up to _NAMED_AFTER."""
    n = 0
    while type(form) is Pullback and n < _NAMED_AFTER:
        n, form = n + 1, form.form
    return n


def _directions_apart(ph: Term, V: Term, E: Term) -> Term:
    """The direction pattern p̂ of rule pb, renamed apart where the map λp̂. (J(λp.E)·p̂) V
    would capture: a direction of an enclosing derivative free in the point V (a
    function value λx. dg that a premise of 19b carries) or in E, named as p̂ names
    its own (the same variable name g bound again inside).  ``E`` is the stage's
    elementary term (its environment pattern binds no direction name: the names of
    directions are kept apart from every other name of the reduction).  A direction's
    name is d + a name (``terms.direction_name``): only those are looked up."""
    near = [x for x in fv(E) if x[:1] == "d"]
    fV = fv(V)
    if fV:
        near.extend(x for x in fV if x[:1] == "d")
    clash = PatVars(ph) & near if near else None
    if not clash:
        return ph
    return subst(ph, {x: Var(fresh(x)) for x in clash})


@rule("pb")
def pullback_at_point(t: App, m: Premises) -> Term:
    """(pb) Ω(λp.E) ω V → (λp̂. (J(λp.E)·p̂) V)⋆ (ω E[V/p])  -- the pullback
    of ω along λp.E at V is ω at the image E[V/p], composed with the
    Jacobian of λp.E at V.  E[V/p] is computed once, in the functional
    (forward phase); the Jacobian is reduced in the map's body (reverse
    phase).  p̂ has canonical names (dx for x), so each stage's covector
    has exactly the binder the next stage's Jacobian produces.

    At an open point (E[V/p] has free variables: a premise's symbolic input)
    with three or more stages still to come (ω is the pullback of the rest of
    a let series, ``_stages_to_come``), the functional is named:
        Ω(λp.E) ω V → let w = ω E[V/p] in (λp̂. (J(λp.E)·p̂) V)⋆ w
    -- β_v-equal, and the forward phase becomes a let series instead of a
    nest of dual maps.  There each stage leaves inert lets (its image, the
    coefficients rule 5 names); nested, they left one enclosing dual map per
    step (rule lift), quadratic in the length; in the series a let leaves the
    bound position of a let naming a functional before it is reduced
    (A-lift, the machine's context ``let w = A in (λq.S)⋆w``), once."""
    pb: Pullback = t.fun
    lam: Lam = pb.fun
    p, E, V = lam.pat, lam.body, t.arg
    names = _inert_components(p, V, pb.form, lam)
    if names:  # an open point's inert values: shared by lets, as in 8J
        V = Tuple(tuple(x if x is not None else v for x, v in zip(names, V.items)), V.pos)
    env = Env(p)
    extends = _env_extension(lam)
    if extends:
        image = Tuple((V, env.at(E.items[1], V)))
    else:
        image = env.at(E, V)
    ph = _directions_apart(direction_pattern(p), V, E.items[1] if extends else E)
    dual = Lam(ph, App(Jac(lam, ph), V))
    if _stages_to_come(pb.form) >= _NAMED_AFTER and fv(image):  # at an open point
        w = Var(fresh("omega"))
        out: Term = App(Lam(w, Dual(dual, w)), App(pb.form, image))
    else:
        out = Dual(dual, App(pb.form, image))
    for x, v in reversed(list(zip(names, t.arg.items)) if names else []):
        if x is not None:
            out = App(Lam(x, out), v)
    return out


# ======================================================================================
# 9–20: the Jacobian of an elementary term at a point, along a direction
#   redex:  (J(λp.E)·P) V
# ======================================================================================

def _parts(t: App):
    jac: Jac = t.fun
    return jac.lam.pat, jac.lam.body, jac.along, t.arg, Env(jac.lam.pat)


def _dir(env: Env, a: Term, P: Term) -> Term:
    """â = a[P/p] for an atom a."""
    return env.at(a, P)


@rule("9")
def jac_constant(t: App, m: Premises) -> Term:
    """(9) (J(λp.E)·P) V → 𝟎 when no variable of p is free in E: the
    Jacobian of a constant function is 0.  For an abstraction E, a variable
    free only in the dropped items of a written projection πᵢ⟨V₁, …, M, …, Vₙ⟩
    (the others values, ``_reads_live``) does not count: E is the same
    function whatever its value, and rule 18 would take the closure's tangent
    along it to find 0 (a pair's dead item under two nested ``grad``s: 359
    steps, 119 with the pairs written projected)."""
    return ZERO


def _reads_live(E: Term, env: Env) -> bool:
    """Does E read a variable of env's pattern other than in a dropped item of
    a written projection πᵢ⟨a₁, …, aₙ⟩ whose other items are values -- where
    πᵢ⟨…⟩ = aᵢ, call by value evaluating nothing else -- or in an item of a
    let-bound tuple of values that no projection of the let's body takes?  A walk down to the
    occurrences only (a subterm with none of the pattern's variables free is
    not entered), stopping at the first live one, or after ``LIVE_REACH``
    nodes: the answer is then yes, as it is for an inner binder of the same
    name (not tracked: the walk keeps no set that grows with depth).  Yes is
    the safe answer -- the rules that ask (9, pbc) then do what they did
    before -- and the bound keeps the question O(1) however long E is, at
    each step of a series that asks it again."""
    names, level = env.index.names, env.level
    budget = LIVE_REACH

    def reads(u: Term) -> bool:
        for x in fv(u):  # (a loop, not any(): as env.occurs)
            e = names.get(x)
            if e is not None and e[0] <= level:
                return True
        return False

    stack = [E]
    while stack:
        u = stack.pop()
        budget -= 1
        if budget < 0:
            return True
        if type(u) is Var:
            if reads(u):
                return True
        elif not reads(u):
            continue
        elif isinstance(u, Lam):
            stack.append(u.body)
        elif isinstance(u, Proj) and isinstance(u.arg, Tuple) and all(
                _is_value_item(a) for j, a in enumerate(u.arg.items, 1) if j != u.index):
            stack.append(u.arg.items[u.index - 1])
        elif is_let(u) and type(u.fun.pat) is Var and type(u.arg) is Tuple and all(
                _is_value_item(a) for a in u.arg.items):
            # the same written as A-normal form names it: let t = ⟨a₁, …, aₙ⟩ in B,
            # B reading t only as πⱼ t -- the items no πⱼ takes are dead
            used = _projected_items(u.fun.body, u.fun.pat.name, budget)
            if used is None:
                return True
            taken, cost = used
            budget -= cost
            stack.append(u.fun.body)
            stack.extend(a for j, a in enumerate(u.arg.items, 1) if j in taken)
        else:
            stack.extend(u.children())
    return False


def _projected_items(B: Term, t: str, budget: int) -> Optional[tuple[set, int]]:
    """The indices j of the projections πⱼ t that B takes of the variable t, and
    the nodes walked to find them; None when B reads t otherwise (whole, or under
    a binder of its own name), or when the walk would pass ``budget`` nodes."""
    taken: set = set()
    stack, cost = [B], 0
    while stack:
        u = stack.pop()
        cost += 1
        if cost > budget:
            return None
        if t not in fv(u):
            continue
        if type(u) is Proj and type(u.arg) is Var:
            taken.add(u.index)
        elif type(u) is Var:
            return None
        elif isinstance(u, Lam):
            if t in pattern_vars(u.pat):
                return None
            stack.append(u.body)
        else:
            stack.extend(u.children())
    return taken, cost


#: how many nodes ``_reads_live`` visits before it answers yes (O(1) per question)
LIVE_REACH = 256


def _is_value_item(a: Term) -> bool:
    """A variable, numeral, 𝟎, abstraction, or a tuple of those: dropping it
    drops no computation."""
    if isinstance(a, Tuple):
        return all(_is_value_item(b) for b in a.items)
    return isinstance(a, _VALUES)


@rule("10")
def jac_variable(t: App, m: Premises) -> Term:
    """(10) (J(λp.x)·P) V → x[P/p]  -- x ∈ lin(x): a linear function is its
    own Jacobian (here a coordinate projection of the environment)."""
    p, E, P, V, env = _parts(t)
    return _dir(env, E, P)


@rule("11")
def jac_projection(t: App, m: Premises) -> Term:
    """(11) (J(λp.πᵢ a)·P) V → πᵢ â  -- projections are linear."""
    p, E, P, V, env = _parts(t)
    return Proj(E.index, _dir(env, E.arg, P))


@rule("12")
def jac_sum(t: App, m: Premises) -> Term:
    """(12) (J(λp.a₁ ⊕ … ⊕ aₖ)·P) V → â₁ ⊕ … ⊕ âₖ  -- the formal sum is
    linear (constant summands contribute 0)."""
    p, E, P, V, env = _parts(t)
    return formal_sum(_dir(env, a, P) for a in E.items if env.occurs(a))


@rule("13")
def jac_of_jacobian(t: App, m: Premises) -> Term:
    """(13) (J(λp. J(λq.S)·a)·P) V → J(λq.S)·â  when p is free only in a;
    → J(λq.S[P/p])·a  when p is free only in S and S is linear in p; and
    → J(λq.S[P/p])·ā ⊕ J(λq.S[V/p])·â  when p is free in both, S linear
    in p.  The Jacobian J(λq.S)·a is bilinear -- linear in its direction,
    and in the map, since differentiation is linear -- so its derivative is
    the product rule's sum (each part its own Jacobian).  The third case
    needs no premise, unlike rule 17: the map may apply a function of the
    environment, which a premise with p free could not look inside."""
    p, E, P, V, env = _parts(t)
    in_along = env.occurs(E.along)
    if in_along and not env.occurs(E.lam):
        return Jac(E.lam, _dir(env, E.along, P))
    q, S = _apart(E.lam.pat, E.lam.body, env, fv(P) | fv(V))
    along = env.at(E.along, V) if in_along else E.along
    in_map = Jac(Lam(q, env.at(S, P), E.lam.ann), along)
    if not in_along:
        return in_map
    return Sum((in_map, Jac(Lam(q, env.at(S, V), E.lam.ann), _dir(env, E.along, P))))


@rule("14")
def jac_of_pullback_form(t: App, m: Premises) -> Term:
    """(14) (J(λp. Ω(F) a)·P) V → Ω(F) â  when p is free only in a: the
    pullback Ω(F)ω is linear in the 1-form ω."""
    p, E, P, V, env = _parts(t)
    return Pullback(E.fun, _dir(env, E.form, P))


@rule("15")
def jac_function_symbol(t: App, m: Premises) -> Term:
    """(15) (J(λp. f(a₁,…,aₖ))·P) V → Σᵢ ∂ᵢf(ā₁,…,āₖ) × âᵢ  -- the known
    Jacobian of f ∈ F (table PARTIALS) at the point, along the direction;
    only arguments that depend on p contribute.  The partials are terms in
    the numerals āᵢ, computed by rule 4 in the next steps.  An argument
    whose direction âᵢ is the zero vector 𝟎 (a constant that a premise's
    environment holds: 8J gave it the tangent 𝟎) contributes nothing: its
    summand ∂ᵢf × 𝟎 is not built (𝟎 is absorbing in ×'s linear argument,
    rule 3; a numeral 0 the user wrote as a direction stays visible)."""
    p, E, P, V, env = _parts(t)
    bars = [env.at(a, V) for a in E.args]
    partials = prims.PARTIALS[E.op](*bars)
    out = []
    # (each summand ∂ᵢf × âᵢ is new: it says where it comes from, for an error in ∂ᵢf)
    at = None if E.pos is None else PartialPos(E.pos.line, E.pos.column, E.op)
    for a, d in zip(E.args, partials):
        if env.occurs(a):
            da = _dir(env, a, P)
            if isinstance(da, Zero):  # ∂ᵢf × 𝟎 is the zero vector: 𝟎 is absorbing (rule 3)
                continue
            out.append(da if d is None else Prim("mul", (d, da), at))
    return formal_sum(out)


def _apart(q: Term, body: Term, env: Env, avoid: frozenset) -> tuple[Term, Term]:
    """Rename the inner binder q away from p, from the directions of p (the
    premise substitutes the direction P for p̂: a binder ``dx`` of the body --
    the covector of another variable named x -- would be taken for x's) and
    from the free variables of the point and direction, so differentiating under
    it captures nothing."""
    def taken(n: str) -> bool:
        x = direction_of(n)
        return n in avoid or env.path(n) is not None or (
            x is not None and env.path(x) is not None)
    clash = [n for n in pattern_vars(q) if taken(n)]
    if not clash:
        return q, body
    ren = {n: Var(fresh(n)) for n in clash}
    return subst(q, ren), subst(body, ren)


@rule("16a")
def jac_dual_functional(t: App, m: Premises) -> Term:
    """(16a) (J(λp.(λq.S)⋆a)·P) V → (λq.S)⋆â  when p is free only in a: a
    dual map is linear in its functional."""
    p, E, P, V, env = _parts(t)
    return Dual(E.lam, _dir(env, E.functional, P))


def _body_tangent(t: App, m: Premises, label: str) -> tuple[Term, Term, Term]:
    """The premise of 16b/16c/18: the tangent T of S at V along P, S the body
    of the inner abstraction λq.S (q free).  Returns (q, S, T)."""
    p, E, P, V, env = _parts(t)
    inner: Lam = E.lam if isinstance(E, Dual) else E
    q, S = _apart(inner.pat, inner.body, env, fv(P) | fv(V))
    return q, S, tangent(p, S, P, V, m, label)


def tangent(p: Term, S: Term, P: Term, V: Term, m: Premises, label: str) -> Term:
    """T = J(λp.S)(V)(P), the premise of 16b/16c/18/19b, by pullback
    reductions as the paper says of 16b ("we are reducing the let series in
    S using our pullback reductions"): the premise  Ω(λp.S) ω V P ⇓ ω S̄ T
    pulls a fresh free 1-form ω back along λp.S (rules 8, 7, pb: the forward
    phase computes S̄ once), rule 6 composes the stage maps from the output
    back into one dual map (λp̂.M)⋆(ω S̄) -- reverse accumulation, M the
    Jacobian of λp.S at V -- and dual-app applies it to P: T = M[P/p̂] is
    the argument of the stuck ω S̄.  A zero result (S constant in p) is 𝟎.

    When S has a constant stage or a chain of inert stages (``_runs_forward``
    says why each costs quadratically many steps by pullback; §5.9 measures
    them), the premise is the forward chain rule (J(λp.S)·P) V (rules 7J,
    8J) instead."""
    if _runs_forward(S, _moving(p, S, P), _symbolic(p, S)):
        outside = not m.in_forward_premise
        T = m.premise(App(Jac(Lam(p, S), P), V), label, forward=True)
        return _eager(T, m, label) if outside else T
    w = Var(fresh("omega"))
    out = m.premise(App(App(Pullback(Lam(p, S), w), V), P), label, forward=False)
    # At an open point the value may be ω S̄ T under lets that rule 1 kept (an
    # inert value the covector shares, e.g. let a = u + 0.5 in ω (…a…) (…a…)):
    # T keeps the lets it needs, so the shared value is still computed once.
    lets = []
    while kept_let(out):
        lets.append(out)
        out = out.fun.body
    if isinstance(out, Zero):
        return ZERO
    if not (isinstance(out, App) and isinstance(out.fun, App) and out.fun.fun == w):
        raise ReductionError(f"rule {label}'s premise did not reach ω S̄ T: {out}",
                             rule=label, redex=out)
    T = out.arg
    for let_ in reversed(lets):
        if fv(T) & frozenset(pattern_vars(let_.fun.pat)):
            T = App(Lam(let_.fun.pat, T, let_.fun.ann, let_.fun.pos), let_.arg, let_.pos)
    return T


def _eager(T: Term, m: Premises, label: str) -> Term:
    """A tangent leaving the forward judgment for an eager one: an 18L tangent
    λq. (J(λp'.S')·P') V' it returns (the tangent of a function-valued body)
    gets its body reduced as rule 18 would have (a premise, not forward), so
    that no result outside a forward premise keeps an unreduced Jacobian."""
    if not (isinstance(T, Lam) and _lazy_body(T.body)):
        return T
    body = m.premise(T.body, label, keep_trivial=False, forward=False)
    return Lam(T.pat, _eager(body, m, label), T.ann, T.pos)


def _lazy_body(b: Term) -> bool:
    """Is b the body (J(λp'.S')·P') V' of an 18L tangent, not yet reduced?"""
    return isinstance(b, App) and isinstance(b.fun, Jac) and not b._flags & NF


def _moving(p: Term, S: Term, P: Term) -> frozenset:
    """The variables of p free in S whose direction in P is not a zero vector
    (only those: p may be a long rule-8 environment)."""
    env = Env(p)
    return frozenset(x for x in fv(S) & PatVars(p) if not is_zero(env.at(Var(x), P)))


def _symbolic(p: Term, S: Term) -> frozenset:
    """The free variables of S that are not coordinates of p."""
    names = fv(S)
    return names - (names & PatVars(p))


def _runs_forward(t: Term, moving: frozenset, symbolic: frozenset) -> bool:
    """Must the tangent premise of t run forward (7J/8J)?  One walk over its
    intermediates -- each let-bound term, each compound operand that
    A-reduction would name; λ bodies are not looked into -- answers yes in
    two cases (papers/calculus.md §5.9, "The tangent premise"):

    * a constant stage: an intermediate mentions no variable that moves
      (``moving``, grown by the lets).  Reverse accumulation would
      differentiate every later stage along its symbolic direction, found to
      be 0 only by the composition; the forward rules know it at once (9,
      then 19c).
    * an inert chain: an intermediate that mentions a free variable other
      than p's coordinates (``symbolic``: the nil n of a Church list under
      rule 18's λn, grown by the lets) is an operand of another whose
      Jacobian mentions its value.  pb substitutes the point into both the
      stage's Jacobian and its image, so a chain of k such stages copies
      O(k²) of inert terms into the tangent (foldr: quadratic); 8J names
      each once.  Items of a tuple, a formal sum or a sum of reals (+, −)
      are no operands of that kind: their tangent mentions no item's value
      (cos'': −sin(u) × dy; a Hessian row's body; a × x + acc)."""
    stack = [(t, moving, symbolic, True)]  # (…, is t a stage's whole term?); no recursion
    while stack:
        t, moving, symbolic, whole = stack.pop()
        while is_let(t):
            names = fv(t.arg)
            if not (names & moving):
                return True  # a constant stage
            stack.append((t.arg, moving, symbolic, True))
            bound = frozenset(pattern_vars(t.fun.pat))
            moving = moving | bound
            # (a name bound again is the new binding from here on: symbolic or not)
            symbolic = symbolic | bound if names & symbolic else symbolic - bound
            t = t.fun.body
        if isinstance(t, (Var, Num, Zero)):
            continue
        names = fv(t)
        if not (names & moving):
            return True  # a constant stage
        if isinstance(t, (Lam, Jac, Dual, Pullback)):
            continue
        if not whole and names & symbolic:
            return True  # an inert operand of a compound intermediate
        linear_node = isinstance(t, (Tuple, Sum)) or (
            isinstance(t, Prim) and prims.LINEARITY.get(t.op) == "joint")
        stack.extend((c, moving, symbolic, linear_node) for c in t.children())
    return False


@rule("16b")
def jac_dual_map(t: App, m: Premises) -> Term:
    """(16b) (J(λp.(λq.S)⋆a)·P) V → (λq.T)⋆a  when p is free only in S,
    where (J(λp.S)·P) V ⇓ T (premise).  Dual and abstraction are linear, so
    the derivative passes inside: the functional a after the derivative of
    the map.  The premise reduces S's let series by the forward chain rule
    (7J, 8J), naming every intermediate once (no expression swell)."""
    q, S, T = _body_tangent(t, m, "16b")
    return Dual(Lam(q, T), t.fun.lam.body.functional)


@rule("16c")
def jac_dual_both(t: App, m: Premises) -> Term:
    """(16c) (J(λp.(λq.S)⋆a)·P) V → (λq.S[V/p])⋆â ⊕ (λq.T)⋆ā  when p is
    free in both, with (J(λp.S)·P) V ⇓ T (premise): the Jacobian of a
    bilinear function is the sum of the two partial ones."""
    p, E, P, V, env = _parts(t)
    q, S, T = _body_tangent(t, m, "16c")
    return Sum((Dual(Lam(q, env.at(S, V)), _dir(env, E.functional, P)),
                Dual(Lam(q, T), env.at(E.functional, V))))


@rule("17")
def jac_pullback(t: App, m: Premises) -> Term:
    """(17) (J(λp.E)·P) V → (J(λp.λu.W)·P) V  when E is a pullback Ω(λq.S)a
    (or a Jacobian J(λq.S)·a) whose function depends on p, u is fresh and
    E u ⇓ W (premise, with p free).  The differential operator cannot be
    differentiated as a symbol; it is replaced by the abstraction of its
    reduct, which rule 18 then differentiates.  This is what nests AD.
    A pullback along a variable g is read as the pullback along λy. g y.
    If E u does not reduce (its function is a free variable) the rule
    declines and the redex is a value, like the paper's values 1 and 2.
    A Jacobian J(λz. F z)·a of a function F that 19b could not look inside
    (its η-form) has no premise: F moves from the map into the point,
    W = (J(λ⟨z, g⟩. g z)·⟨a, 𝟎⟩) ⟨u, F⟩, which D-eval differentiates."""
    p, E, P, V, env = _parts(t)
    if isinstance(E, Pullback) and not isinstance(E.fun, Lam):
        y = Var(fresh("y"))  # Ω(g)a for a variable g: pull back along λy. g y
        E = Pullback(Lam(y, App(E.fun, y)), E.form)
    u = Var(fresh("u"))
    if isinstance(E, Jac) and _eta_map(E.lam):
        z, g = Var(fresh("z")), Var(fresh("g"))
        W = App(Jac(Lam(Tuple((z, g)), App(g, z)), Tuple((E.along, ZERO))),
                Tuple((u, E.lam.body.fun)))
        return App(Jac(Lam(p, Lam(u, W)), P), V)
    W = m.premise(App(E, u), "17")
    if isinstance(W, App) and W.fun == E:
        raise Declined("17")
    return App(Jac(Lam(p, Lam(u, W)), P), V)


@rule("18")
def jac_abstraction(t: App, m: Premises):
    """(18) (J(λp.λq.S)·P) V → λq.T  with (J(λp.S)·P) V ⇓ T (premise)  --
    D-curry: the Jacobian of a curried function is the curried Jacobian of
    its body.

    (18L) (J(λp.λq.S)·P) V → λq. (J(λp'.S)·P') V'  inside a forward tangent
    premise (7J/8J, ``Premises.in_forward_premise``), with no premise
    (p', P', V': the coordinates of the environment that S uses):
    D-curry itself, the body's Jacobian left as a redex under λq (a value),
    reduced when the abstraction is applied, at the point where q is
    known.  A tangent of that shape keeps the function's body and point, so
    that D-eval on it takes one Jacobian of the body instead of two (19m):
    the derivative of a continuation is then taken once, carrying the
    accumulated direction, rather than once per direction (foldl,
    papers/calculus.md §5.9).  The rule returns ``Decided("18L", …)``.
    When the direction of every coordinate S uses is 0 the tangent is 𝟎
    (a Jacobian is linear in its direction), not the redex under λq: a
    closure that captures only constants along the direction -- a nested
    ``grad``'s function, bound by a let, reading a stage whose tangent is 0 --
    would otherwise carry a tangent that no rule sees is 0, and the
    derivatives taken through its pullback later build a second-order
    tangent with factors × 0 (th57: 3,975 steps, 1,436 written in place)."""
    if m.in_forward_premise:
        p, E, P, V, env = _parts(t)
        q, S = _apart(E.pat, E.body, env, fv(P) | fv(V))
        p2, P, V = _used_coordinates(p, P, V, fv(S))
        if is_zero(P):
            return Decided("18L", ZERO)
        ann = t.fun.lam.ann if p2 is p else None
        return Decided("18L", Lam(q, App(Jac(Lam(p2, S, ann), P), V), E.ann))
    q, S, T = _body_tangent(t, m, "18")
    return Lam(q, T)


def _used_coordinates(p: Term, P: Term, V: Term, used: frozenset) -> tuple[Term, Term, Term]:
    """The coordinates of the environment p (with their direction and point)
    that the body uses: J(λp.S)·P V only depends on those.  An 18L tangent
    is a value that outlives its premise, so it must not hold the names of
    intermediates the body never reads (the point of a dual map's lets would
    otherwise reach a position lin(S) rejects, and the term would grow with
    the environment).  Only tuples of equal length are split; a coordinate
    is asked about in O(|used|) (``binds``: the pattern's index), on an
    explicit stack (an environment is as deep as its let series is long)."""
    def uses(q: Term) -> bool:
        return q.name in used if isinstance(q, Var) else any(binds(q, n) for n in used)

    def open_(c):
        q, D, W = c
        if not (isinstance(q, Tuple) and isinstance(D, Tuple) and isinstance(W, Tuple)
                and len(q.items) == len(D.items) == len(W.items)):
            return None, c
        return [k for k in zip(q.items, D.items, W.items) if uses(k[0])], c

    def close(c, kept):
        q, D, W = c
        if not kept or len(kept) == len(q.items) and all(
                k[0] is i for k, i in zip(kept, q.items)):
            return c
        if len(kept) == 1:
            return kept[0]
        return (Tuple(tuple(k[0] for k in kept)), Tuple(tuple(k[1] for k in kept)),
                Tuple(tuple(k[2] for k in kept)))
    return bottom_up((p, P, V), open_, close)


@rule("19a")
def jac_application_function(t: App, m: Premises) -> Term:
    """(19a) (J(λp. a₁ a₂)·P) V → â₁ a₂  when p is free only in a₁: the
    function position is linear (evaluation at a fixed argument)."""
    p, E, P, V, env = _parts(t)
    return App(_dir(env, E.fun, P), E.arg)


class Decided(NamedTuple):
    """A contractum with the label that a premise chose for its step: the
    D-eval redex is classified once (``"19b"``), and its rule returns
    ``Decided("19c", …)`` when the premise T₀ turns out to be zero.  The
    machine records the step, and the premises, under ``label``."""
    label: str
    term: Term


def apply_decision(label: str, out, premises: list, counts: Optional[dict] = None):
    """(label, contractum) of a rule's result ``out`` (a term or ``Decided``):
    the step's label as decided, its premises relabelled, ``counts`` moved."""
    if not isinstance(out, Decided):
        return label, out
    if out.label != label:
        for d in premises:
            if d.rule == label:
                d.rule = out.label
        if counts is not None:
            counts[label] -= 1
            if not counts[label]:
                del counts[label]
            counts[out.label] = counts.get(out.label, 0) + 1
    return out.label, out.term


_OPENABLE = (Pullback, Jac, Dual, Sum)


def _function_value(f: Term, m: Premises, label: str) -> Optional[Term]:
    """ā₁ as an abstraction: itself, or -- for a pullback, Jacobian or dual
    map value -- the abstraction λu.W of its reduct at a fresh point u
    (premise F u ⇓ W, as in rule 17), so that D-eval can look inside; None
    when there is nothing to look inside (a variable, a stuck application,
    or an operator whose reduct at u makes no progress)."""
    if isinstance(f, Lam):
        return f
    if not isinstance(f, _OPENABLE):
        return None
    u = Var(fresh("u"))
    W = m.premise(App(f, u), label)
    if isinstance(W, App) and W.fun == f:  # no progress: nothing to look inside
        return None
    return Lam(u, W)


@rule("19b")
def jac_application(t: App, m: Premises):
    """(19b) (J(λp. a₁ a₂)·P) V → â₁ ā₂ ⊕ (J(λz.S)·T₀) ā₂  when p is free in
    a₂, (J(λp.a₂)·P) V ⇓ T₀ (premise) and T₀ is not zero  -- the D-eval rule:
    the derivative of an evaluation is the derivative in the function plus
    the derivative of the function along the argument's derivative.  λz.S is
    ā₁ itself; or λu.W, W the reduct of ā₁ u at a fresh point u (a second
    premise), when ā₁ is a pullback, Jacobian, dual map or sum and that makes
    progress; otherwise (ā₁ a variable, a stuck application or projection, an
    operator stuck at u) λz. ā₁ z, by η, its body left as it is: then
    (J(λz. ā₁ z)·T₀) ā₂ is a value -- the paper's value 1, for a function
    nothing is known about yet -- until ā₁ is substituted.  A zero summand
    (â₁ zero, or ā₁ = 𝟎, the zero function) is left out, and the rule
    declines when the redex already is (J(λz. g z)·T₀) ā₂, g not z.

    (19c) (J(λp. a₁ a₂)·P) V → â₁ ā₂  when the premise T₀ is zero: the
    argument is constant, so only the function varies (𝟎 when a₁ does not
    mention p).  Nothing is looked inside, whatever ā₁ is.  The rule runs
    the premise first and returns ``Decided("19c", …)`` in this case.

    (19m) (J(λp. a₁ a₂)·P) V → (J(λ⟨p', y⟩. S')·⟨P', T₀⟩) ⟨V', ā₂⟩  when T₀
    is not zero, â₁ = λy. (J(λp'.S')·P') V' (a lazy tangent, rule 18L) and
    ā₁ = λy. S'[V'/p']: 19b's two summands merged, ``Decided("19m", …)``
    (``_merged_deval``)."""
    p, E, P, V, env = _parts(t)
    T0 = tangent(p, E.arg, P, V, m, "19b")
    arg = env.at(E.arg, V)
    dfun = _dir(env, E.fun, P) if env.occurs(E.fun) else ZERO
    if is_zero(T0):
        return Decided("19c", ZERO if is_zero(dfun) else App(dfun, arg))
    fbar = env.at(E.fun, V)
    merged = _merged_deval(dfun, fbar, T0, arg)
    if merged is not None:
        return Decided("19m", merged)
    first = [] if is_zero(dfun) else [App(dfun, arg)]
    if isinstance(fbar, Zero):  # the zero function: J(𝟎)·T₀ = 𝟎
        return formal_sum(first)
    f = _function_value(fbar, m, "19b")
    if f is None:  # nothing to look inside: η, J(λz. ā₁ z)·T₀ ā₂ (the paper's value 1)
        if _eta_form(t):
            raise Declined("19b")  # it is that value already
        z = Var(fresh("z"))
        f = Lam(z, _flag_anf(App(fbar, z)))  # never A-reduced: a value while ā₁ is stuck
    return formal_sum(first + [App(Jac(f, T0), arg)])


def _merged_deval(dfun: Term, fbar: Term, T0: Term, arg: Term) -> Optional[Term]:
    """(19m) D-eval when the function's direction is a lazy tangent of its
    value (18L): â₁ = λy. (J(λp'.S')·P') V' and ā₁ ≡ λy. S'[V'/p'] --

        (J(λp. a₁ a₂)·P) V → (J(λ⟨p', y⟩. S')·⟨P', T₀⟩) ⟨V', ā₂⟩

    (y renamed to ā₁'s binder; None when the shapes do not match, or y
    occurs in p', P' or V').  The two summands of 19b are the partial
    derivatives of one function (p', y) ↦ S' at ⟨V', ā₂⟩: â₁ ā₂ is
    (J(λp'.S'[ā₂/y])·P') V', the derivative in p' along P', and
    (J(ā₁)·T₀) ā₂ = (J(λy. S'[V'/p'])·T₀) ā₂ the derivative in y along T₀;
    their sum is the derivative along ⟨P', T₀⟩ (the sum of partial
    derivatives).  One Jacobian of the body instead of two: the function's
    body -- a continuation, in foldl -- is differentiated once."""
    if not (isinstance(dfun, Lam) and isinstance(fbar, Lam) and isinstance(dfun.pat, Var)
            and isinstance(fbar.pat, Var)):
        return None
    b = dfun.body
    if not (isinstance(b, App) and isinstance(b.fun, Jac)):
        return None
    lam, P2, V2 = b.fun.lam, b.fun.along, b.arg
    y, p2 = dfun.pat, lam.pat
    bound = frozenset(pattern_vars(p2)) | fv(P2) | fv(V2)
    if y.name in bound:
        return None
    S2 = lam.body
    if fbar.pat != y and fbar.pat.name not in bound and fbar.pat.name not in fv(S2):
        S2 = subst(S2, {y.name: fbar.pat})  # ā₁'s binder, where it captures nothing
        y = fbar.pat
    image = subst(S2, bind_pattern(p2, V2))
    # ā₁ = λy. S'[V'/p'] up to the names of bound variables (names must not matter)
    if not (y == fbar.pat and image == fbar.body) and \
            not alpha_eq(Lam(y, image, fbar.ann), fbar):
        return None
    return App(Jac(Lam(Tuple((p2, y)), _a_reducible(S2), lam.ann), Tuple((P2, T0))),
               Tuple((V2, arg)))


def _a_reducible(S: Term) -> Term:
    """S as the body of a new Jacobian: a copy without the A-normal mark when
    S is the body F z of 19b's η-form, marked A-normal only to stay a value
    while F is stuck.  Under a binder of F's variables (19m makes the function
    a coordinate of the point) that body must be A-reduced and differentiated."""
    if S._flags & ANF and not (is_elementary(S) or is_let_series(S)):
        return remake(S, subterm_kids(S))
    return S


def _eta_map(lam: Lam) -> bool:
    """Is lam λz. F z with z not free in F (the map of 19b's η-form)?"""
    b = lam.body
    return isinstance(lam.pat, Var) and isinstance(b, App) and b.arg == lam.pat \
        and lam.pat.name not in fv(b.fun)


def _eta_form(t: App) -> bool:
    """Is the redex (J(λz. g z)·T) W, g not z: the paper's value 1 as 19b leaves it?"""
    lam = t.fun.lam
    E = lam.body
    return isinstance(lam.pat, Var) and E.arg == lam.pat and lam.pat.name not in fv(E.fun)


RULES["18L"] = jac_abstraction  # the same redex as 18: a forward premise decides the label
RULES["19c"] = jac_application  # the same redex: 19b's premise decides the label
RULES["19m"] = jac_application  # (and 19b's shapes: a lazy tangent of the function)


@rule("20a")
def jac_tuple(t: App, m: Premises) -> Term:
    """(20a) (J(λp.⟨a₁,…,aₙ⟩)·P) V → ⟨(J(λp.a₁)·P) V, …, (J(λp.aₙ)·P) V⟩  --
    the Jacobian of a tuple is the tuple of Jacobians."""
    p, E, P, V, env = _parts(t)
    lam = t.fun.lam
    return Tuple(tuple(App(Jac(Lam(p, _flag_anf(a), lam.ann), P), V) for a in E.items))


@rule("20b")
def jac_env_extension(t: App, m: Premises) -> Term:
    """(20b) (J(λp.⟨p, E⟩)·P) V → ⟨P, (J(λp.E)·P) V⟩  -- 20a for the
    environment extension built by rule 8, whose first component is the
    identity (its Jacobian is P itself, in one step)."""
    p, E, P, V, env = _parts(t)
    return Tuple((P, App(Jac(Lam(p, E.items[1]), P), V)))


# ---- the Jacobian of a let series (used inside premises) ------------------------------

@rule("7J")
def jac_base(t: Jac, m: Premises) -> Term:
    """(7J) J(λp. let x = E in x)·P → J(λp.E)·P  -- rule 7 for Jacobians."""
    lam = t.lam
    return Jac(Lam(lam.pat, _flag_anf(lam.body.arg), lam.ann), t.along)


@rule("8J")
def jac_let(t: App, m: Premises) -> Term:
    """(8J) (J(λp. let q = E in L)·P) V →
            (J(λ⟨p,q⟩.L)·⟨P, (J(λp.E)·P) V⟩) ⟨V, E[V/p]⟩
    -- the chain rule along a let series, forwards: the tangent of the
    environment grows by the tangent of E while its value grows by E's
    value.  Premises (16b, 16c, 18) differentiate abstraction bodies so.

    An open point (a premise differentiates under a binder whose variable is
    free) can hold inert values, e.g. V = ⟨W, 3 + d⟩.  They are not copied
    into E[V/p] and the tangent: each is first bound by a let (kept by rule
    1), the point holding its name --
            → let r = 3 + d in (J(λ⟨p,q⟩.L)·⟨P, …⟩) ⟨⟨W, r⟩, E[⟨W, r⟩/p]⟩
    (r the pattern's own variable) -- so that it is computed once, when its
    free variables are bound, however many later terms use it."""
    return _chain_rule(t, dead=False)


@rule("8Jd")
def jac_let_dead(t: App, m: Premises) -> Term:
    """(8Jd) (J(λp. let q = E in L)·P) V → (J(λ⟨p,q⟩.L)·⟨P, 𝟎⟩) ⟨V, E[V/p]⟩  when no
    live part of L reads q (``dead_stage``: L's result does not, nor any stage that
    it reads in turn) -- 8J with the tangent 𝟎 for E's: L is then the same function
    of ⟨p, q⟩ whatever q, so its tangent is the same along any tangent of q, and E's
    own -- the derivative of a closure along a function coordinate, a nested
    derivative unfolded at the point (the thorough profile: 1,896 of a row's 2,005
    steps, for a value the program discards) -- is not computed.  E's value is:
    call by value evaluates every stage, so a stage that fails still fails."""
    return _chain_rule(t, dead=True)


@rule("8Jz")
def jac_let_zero_factor(t: App, m: Premises) -> Term:
    """(8Jz) (J(λp. let q = E in L)·P) V → (J(λ⟨p,q⟩.L)·⟨P, 𝟎⟩) ⟨V, E[V/p]⟩  when L
    ends, at most ``SINK_REACH`` stages on, in a product a × y (or y × a, or the
    last stage let m = a × y in m) with y a coordinate of p that V makes 0 and that
    L does not bind (``zero_factor_stage``) -- 8J with the tangent 𝟎 for E's: L's
    result has the tangent ȳ × da ⊕ ā × dy = ā × dy, which reads no tangent that
    q or a stage of L contributes, y being no stage of L.  E's own tangent -- a
    closure's, a nested derivative's: unbounded work -- is not computed; E's value
    is (call by value evaluates every stage, so a stage that fails still fails).
    The shape is a covector's coefficient times its atom, B × J(g)·dy, where the
    atom is 0 because g is constant at the point (papers/calculus.md §5.10); 8Js
    computes the atom first."""
    return _chain_rule(t, dead=True)


@rule("8Js")
def jac_let_sink(t: App, m: Premises) -> Term:
    """(8Js) (J(λp. let q = E in L)·P) V → (J(λp. A; let q = E in L')·P) V  when L
    ends in the product k × r of a coefficient and an atom (``sinks``): A is the
    chain of stages of L that r reads (in turn), which read a free variable of the
    map and nothing that q or another stage outside A binds, and L' is L without
    them -- the same function of p, its stages in another order.  Rule 18
    differentiates a covector λv. k × a (rule 5's linear normal form) with v free
    in the map; its atom a, linear in v, is computed with its tangent before the
    coefficient's stages, and when it is 0 (a pullback along a map whose Jacobian
    is 0 at the point) their tangents are not computed at all (8Jz).  The rule
    cannot undo itself: after it, the atom's stages come first."""
    jac: Jac = t.fun
    lam = jac.lam
    chain = _atom_chain(lam)
    assert chain is not None
    atoms, rest, end = chain
    out: Term = end
    for s_ in reversed(rest):
        out = App(Lam(s_.fun.pat, _flag_anf(out), s_.fun.ann, s_.fun.pos), s_.arg, s_.pos)
    for s_ in reversed(atoms):
        out = App(Lam(s_.fun.pat, _flag_anf(out), s_.fun.ann, s_.fun.pos), s_.arg, s_.pos)
    inner = Lam(lam.pat, _flag_anf(out), lam.ann, lam.pos)
    inner._flags |= lam._flags & SPINE
    return App(Jac(inner, jac.along, jac.pos), t.arg, t.pos)


def _product_stage(u: Term) -> bool:
    """Is u the series' end in 7J's shape, let m = a × b in m?"""
    return isinstance(u.arg, Prim) and u.arg.op == "mul" and isinstance(u.fun.body, Var) \
        and isinstance(u.fun.pat, Var) and u.fun.body.name == u.fun.pat.name


#: how many stages 8Jz and 8Js look past the first for the product: a covector's
#: product and the chains of its two factors are short (J(λy. g y)·dy, its
#: application; the coefficient's application and its own)
SINK_REACH = 8


def _ending_product(let_: App) -> Optional[tuple[list, Term, Prim]]:
    """(the stages of the series let_, itself first; its end; the product) when the
    series ends, at most ``SINK_REACH`` stages after its first, in a product a × b --
    its result, or its last stage let m = a × b in m (its end then) -- else None.
    The walk is bounded, so rules 8Jz and 8Js cost O(1) to decide."""
    stages = [let_]
    u = let_.fun.body
    while is_let(u) and not _product_stage(u):
        if len(stages) > SINK_REACH:
            return None
        stages.append(u)
        u = u.fun.body
    prod = u.arg if is_let(u) else u
    if not (isinstance(prod, Prim) and prod.op == "mul"):
        return None
    return stages, u, prod


def zero_factor_stage(lam: Lam, V: Term) -> bool:
    """Is the first stage of λp. let q = E in L one for rule 8Jz at the point V: L
    ends (``_ending_product``) in a product a × y (or y × a) with y a coordinate of
    p that V makes 0 and that the series does not bind -- so everything it computes
    reaches its result only through the factor y multiplies?"""
    let_ = lam.body
    found = _ending_product(let_) if isinstance(let_.fun.pat, Var) else None
    if found is None:
        return False
    stages, _, prod = found
    bound = {n for s_ in stages for n in pattern_vars(s_.fun.pat)}
    env = Env(lam.pat)
    for y, other in (prod.args, prod.args[::-1]):
        if isinstance(y, Var) and y.name not in bound and env.entry(y.name) is not None \
                and not (isinstance(other, Var) and other.name == y.name) \
                and is_zero(env.at(y, V)):
            return True
    return False


def sinks(lam: Lam) -> bool:
    """Is λp. let q = E in L's first stage one for rule 8Js (``_atom_chain``)?"""
    return _atom_chain(lam) is not None


def _atom_chain(lam: Lam) -> Optional[tuple[list, list, Term]]:
    """For λp. let q = E in L with E an application that reads no free variable of
    the map, and L ending (``_ending_product``) in a product k × r with r bound by a
    stage of L: (the stages of the atom's chain -- those r reads, in turn, each
    reading a free variable of the map or such a stage, and none reading q or a
    stage outside the chain --, the other stages from q on, the product's end), or
    None when the chain is empty, is not a chain of that kind, or some stage of it
    binds a variable of E, or a name is bound twice."""
    let_ = lam.body
    E, q = let_.arg, let_.fun.pat
    if not (isinstance(E, App) and isinstance(q, Var)):
        return None
    found = _ending_product(let_)
    if found is None or len(found[0]) == 1 or not isinstance(found[2].args[1], Var):
        return None
    stages, end, prod = found
    binders = [n for s_ in stages for n in pattern_vars(s_.fun.pat)]
    env = Env(lam.pat)
    if len(set(binders)) < len(binders) or any(env.entry(n) is not None for n in binders):
        return None  # (a name bound twice: moving a stage could change what it means)
    free, names_E = fv(lam), fv(E)
    if any(n in free for n in names_E):
        return None
    # the atom's chain: walking back from r, the stages r reads in turn
    need, chain = {prod.args[1].name}, set()
    for s_ in reversed(stages[1:]):
        if need & set(pattern_vars(s_.fun.pat)):
            chain.add(id(s_))
            need.update(fv(s_.arg))
    outside: set = set(pattern_vars(q))
    reading = False
    atoms, rest = [], [let_]
    for s_ in stages[1:]:
        pv = pattern_vars(s_.fun.pat)
        if id(s_) in chain:
            names = fv(s_.arg)
            if any(n in outside for n in names) or any(n in names_E for n in pv):
                return None
            reading = reading or any(n in free for n in names)
            atoms.append(s_)
        else:
            outside.update(pv)
            rest.append(s_)
    return (atoms, rest, end) if reading else None


def _chain_rule(t: App, dead: bool) -> Term:
    """8J's contractum; ``dead``: 8Jd's, with the tangent 𝟎 for the stage's."""
    jac: Jac = t.fun
    lam = ensure_spine_unique(jac.lam)
    p, P, V = lam.pat, jac.along, t.arg
    let_ = lam.body
    q, L, E = let_.fun.pat, let_.fun.body, let_.arg
    env = Env(p)
    inner = Lam(Tuple((p, q)), _flag_anf(L))
    inner._flags |= SPINE
    names = _inert_components(p, V, P)
    if names:
        V = Tuple(tuple(x if x is not None else v for x, v in zip(names, V.items)), V.pos)
    dnames = None if dead else _inert_directions(p, P, let_)
    if dnames:
        P = Tuple(tuple(x if x is not None else d for x, d in zip(dnames, P.items)), P.pos)
    tangent = ZERO if dead else App(Jac(Lam(p, _flag_anf(E)), P), V)
    out: Term = App(Jac(inner, Tuple((P, tangent))), Tuple((V, env.at(E, V))))
    if dnames:  # (P and V are tuples then)
        out = _let_all([(x, d) for x, d in zip(dnames, jac.along.items) if x is not None], out)
    if names:
        out = _let_all([(x, v) for x, v in zip(names, t.arg.items) if x is not None], out)
    return out


@rule("8Jc")
def jac_let_constant(t: App, m: Premises) -> Term:
    """(8Jc) (J(λp. let q = E in L)·P) V → (J(λp. L[E/q])·P) V  when E is an
    atom (a variable or numeral, or a closed abstraction) that reads no
    variable of p; and → let q = E in (J(λp.L)·P) V  when E is a closed
    computation (an operation, application or projection).  Either way the
    stage is a constant of the map: its tangent is 0 (rule 9), and 8J would
    make q a coordinate only to carry that 0 through every later stage and
    differentiate each closure over q along it (a helper, a Church list's
    ``cons``, a value computed from numerals) -- rule 8c's reason, forwards.
    A closed computation is evaluated outside the Jacobian, once, and its
    value substituted by rule 1: E is evaluated whether or not this rule
    fires ((J(f)·P) V applies f at V, and so evaluates every stage).  A
    value that is no atom is named again by A-name and is then a stage of
    8J (so the rule cannot fire on the stage it produced)."""
    jac: Jac = t.fun
    lam = jac.lam
    let_ = lam.body
    q, L, E = let_.fun.pat, let_.fun.body, let_.arg
    if is_atom(E):
        # (not flagged A-normal: an abstraction substituted at the head of an
        # application is a β-redex that A-lift makes part of the series)
        return App(Jac(Lam(lam.pat, subst(L, bind_pattern(q, E)), lam.ann), jac.along), t.arg)
    # the let scopes over P and V too, and λp must not capture q in L
    avoid = fv(jac.along) | fv(t.arg) | frozenset(pattern_vars(lam.pat))
    if any(n in avoid for n in pattern_vars(q)):
        q, L = _rename_all(q, L)
    inner = Lam(lam.pat, _flag_anf(L), lam.ann)
    inner._flags |= lam._flags & SPINE
    return App(Lam(q, App(Jac(inner, jac.along), t.arg)), E)


def dead_stage(let_: App) -> bool:
    """Is let q = E in L a stage no live part of L reads (rule 8Jd): not L's result,
    nor a stage whose variable a live part reads in turn?  Decided as ``dead_let``
    decides for values -- a walk only as far as q is read, each reader asked in turn,
    the answer kept on the let's node (``UNREAD``) -- but any stage counts: its value
    is computed whether or not it is read, its tangent only if it is."""
    return _dead_by_readers(let_, UNREAD_K, UNREAD, values=False)


def _constant_stage(lam: Lam) -> bool:
    """Is the first stage of λp. let q = E in L one for rule 8Jc?"""
    E = lam.body.arg
    if isinstance(E, (Prim, App, Proj)):
        return not fv(E)
    return is_atom(E) and not Env(lam.pat).occurs(E)


def _inert_directions(p: Term, P: Term, series: Term) -> Optional[list]:
    """For a direction P = ⟨P₁, …, Pₙ⟩ matching p with some inert Pᵢ (the
    tangent of an intermediate at an open point, ``a₀ × 1 ⊕ a₀ × 1 ⊕ 1``)
    whose coordinate xᵢ the rest of the series reads twice or more: a fresh
    name for each such Pᵢ (None elsewhere).  Bound by a let, like an inert
    component of the point, it is computed once however many later tangents
    use it -- substituted, a chain a₁ = a₀ × a₀ + x, a₂ = a₁ × a₁ + x, …
    doubles its tangent's tree at every stage.  Read once, it is substituted
    (as rule 1 would: no work copied, no let to lift)."""
    if not (isinstance(P, Tuple) and isinstance(p, Tuple) and len(p.items) == len(P.items)):
        return None
    names = [Var(fresh("d" + x.name)) if isinstance(x, Var) and is_inert(d)
             and not _used_at_most_once(x.name, series) else None
             for x, d in zip(p.items, P.items)]
    return names if any(n is not None for n in names) else None


def _inert_components(p: Term, V: Term, *others: Term) -> Optional[list]:
    """For a point V = ⟨V₁, …, Vₙ⟩ matching p = ⟨x₁, …⟩ with some inert Vᵢ
    (xᵢ a variable): the name that binds each inert Vᵢ (None elsewhere), xᵢ
    itself unless it is free in V or in the ``others`` the let will scope over."""
    if not (isinstance(V, Tuple) and isinstance(p, Tuple) and len(p.items) == len(V.items)):
        return None
    names: list = []
    for x, v in zip(p.items, V.items):
        if isinstance(x, Var) and is_inert(v):
            clash = x.name in fv(V) or any(x.name in fv(o) for o in others)
            names.append(Var(fresh(x.name)) if clash else x)
        else:
            names.append(None)
    return names if any(n is not None for n in names) else None


# ======================================================================================
# classification (which rule applies: the redex part of Lemma 3.6)
# ======================================================================================

def classify_jacobian_at(t: App) -> Optional[str]:
    """For (J(λp.E)·P) V with E elementary: the rule, or None (a value)."""
    lam = t.fun.lam
    E = lam.body
    if _env_extension(lam):
        return "20b"
    env = Env(lam.pat)
    if not env.occurs(E) or isinstance(E, Lam) and not _reads_live(E, env):
        return "9"
    if isinstance(E, Var):
        return "10"
    if isinstance(E, Proj):
        return "11"
    if isinstance(E, Sum):
        return "12"
    if isinstance(E, Jac):
        if not env.occurs(E.lam):
            return "13"
        if is_linear(E.lam.body, PatVars(lam.pat) & fv(E.lam)):
            return "13"  # (the free variables of the map: an inner binder may shadow p)
        return "17"
    if isinstance(E, Pullback):
        return "14" if not env.occurs(E.fun) else "17"
    if isinstance(E, Prim):
        return "15"
    if isinstance(E, Dual):
        in_f, in_map = env.occurs(E.functional), env.occurs(E.lam)
        return "16a" if not in_map else ("16b" if not in_f else "16c")
    if isinstance(E, Lam):
        return "18"
    if isinstance(E, App):
        if not env.occurs(E.arg):
            return "19a"
        return "19b"  # D-eval; its premise T₀ decides 19b or 19c (a value if it declines)
    if isinstance(E, Tuple):
        return "20a"
    return None


def classify_app(t: App) -> Optional[str]:
    """An application whose function and argument are values."""
    f = t.fun
    tf = type(f)  # (no class derives from a term class)
    if tf is Lam:
        return None if keeps_let(t) else "1"
    if tf is Sum or tf is Zero:
        return "3"
    if tf is Dual:
        return "dual-app"
    if tf is Pullback and type(f.fun) is Lam and _elementary_body(f.fun):
        return "pb"
    if tf is Jac:
        if is_let(f.lam.body):
            return "8Jc" if _constant_stage(f.lam) else \
                "8Jd" if dead_stage(f.lam.body) else \
                "8Jz" if zero_factor_stage(f.lam, t.arg) else \
                "8Js" if sinks(f.lam) else "8J"
        if _elementary_body(f.lam):
            return classify_jacobian_at(t)
    return None


def classify_pullback(t: Pullback) -> Optional[str]:
    """Ω(λp.L) ω with L an A-normal let series and ω a value."""
    if is_zero(t.form):
        return "3"
    lam = t.fun
    if isinstance(lam, Lam) and is_let(lam.body):
        b = lam.body
        if _constant_series(lam):
            return "pbc"
        if isinstance(b.fun.body, Var) and isinstance(b.fun.pat, Var) \
                and b.fun.body.name == b.fun.pat.name:
            return "7"
        if _constant_let(b) or _constant_tuple_let(b) or inlined_once(b) or dead_let(b) \
                or inlined_at_calls(b) or projected_only(b):
            return "8c"
        if isinstance(b.arg, Lam) and _floatable(b.arg) is not None:
            return "8f"
        if _defined_constant(b.arg):
            return "8h"
        return "8"
    return None


def _constant_series(lam: Lam) -> bool:
    """Does the let series λp.L read no variable of p (rule pbc)?  Its first stage
    is asked first, for the newest binder of a rule-8 environment ⟨p', q⟩: it
    nearly always reads it, and that answer costs O(1) -- no walk of L's free
    variables, nor of p, however long either is.  After it, a variable read only
    in the dropped items of written projections does not count (``_reads_live``):
    a closure over x₁ holding ``π2 ⟨x₁, M⟩`` is the same function whatever x₁.
    (The first test stays plain: a first stage that reads the newest binder only in
    a dead item counts as reading it -- walking that stage for a live read, up to
    ``LIVE_REACH`` nodes at every step, made church-cons's work grow ×2.14 per
    doubling.)"""
    p, first = lam.pat, lam.body.arg
    last = p if isinstance(p, Var) else p.items[-1] if isinstance(p, Tuple) else None
    if isinstance(last, Var) and last.name in fv(first):
        return False  # (read at all, live or not: a walk here made church-cons superlinear)
    env = Env(p)
    return not env.occurs(lam.body) or not _reads_live(lam.body, env)


def classify_jac(t: Jac) -> Optional[str]:
    if is_zero(t.along):
        return "3"
    b = t.lam.body
    if is_let(b) and isinstance(b.fun.body, Var) and isinstance(b.fun.pat, Var) \
            and b.fun.body.name == b.fun.pat.name:
        return "7J"
    return None


def classify_dual(t: Dual) -> Optional[str]:
    f = t.functional
    if isinstance(f, Lam) or isinstance(f, Zero) or isinstance(t.lam.body, Zero):
        return "5"
    if isinstance(f, Sum):
        return "3"
    if isinstance(f, Dual):
        return "6"
    return None


NUMBERED = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15",
            "16a", "16b", "16c", "17", "18", "19a", "19b", "19c", "20a", "20b"]
EXTRA = ["pb", "pbc", "dual-app", "7J", "8J", "8Jc", "8Jd", "8Jz", "8Js", "8c", "8f", "8h",
         "lift", "18L", "19m", "A-name", "A-lift", "A-tail"]
