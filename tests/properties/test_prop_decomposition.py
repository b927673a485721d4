"""Unique decomposition (Lemma 3.6), determinism, progress and termination.

The machine finds its redex by refocusing, with cached flags (values marked
normal, bodies marked A-normal) and a zipper of frames.  Here an independent,
naive decomposer descends from the root at every step, following only the
documented evaluation contexts (reduction/machine.py, papers/calculus.md §3):

    C ::= [] | f(V,…,C,…,P) | C P | V C | ⟨V,…,C,…,P⟩ | πᵢ C | V ⊕ … ⊕ C ⊕ … ⊕ P
        | J(λq.A)·P | J(λq.L)·C | (λq.S)⋆C | (λq.C)⋆V
        | Ω(C) P | Ω(λq.A) P | Ω(λq.L) C
    A ::= [] | let q = A in S | let q = E in A

((λq.C)⋆V: V not 𝟎, and the hole in a component V reads: ``unread_rest``)
and the documented redex tables (§3.2 for each node, §5.9 for the Jacobian
of an elementary term at a point, §4.2 for the A-rules).  At every step of
every trace (premises included) it must find exactly the machine's redex, at
the machine's path, with the machine's rule among the rules whose redex
shape matches; a value (the end of every derivation) must have no
decomposition.
"""
import math
from typing import Optional

from hypothesis import event, example, given, settings
from hypothesis import strategies as st

import pullback_calc as pc
from pullback_calc.deep import deep
from pullback_calc.reduction.machine import Machine
from pullback_calc.syntax import prims
from pullback_calc.syntax.subst import alpha_eq, bind_pattern, fv, linear, subst
from pullback_calc.syntax.terms import (ANF, App, Dual, Jac, Lam, Num, Prim, Proj, Pullback, Sum,
                                        Term, Tuple, Var, Zero, pattern_vars)
from pullback_calc.syntax.types import Arrow, DualT, Prod, R
from pullback_calc.testing import strategies as S
from pullback_calc.testing.coverage import reduce_recorded
from pullback_calc.typing.check import types_equal

import regressions
from common import MAX_STEPS, numeral, reduce_noted, reject_known_bug

# ---- the documented grammar (§4.1) ---------------------------------------------------------


def is_let(t):
    return isinstance(t, App) and isinstance(t.fun, Lam)


def atom(t):
    """§4.1: a variable, a numeral, or a closed abstraction (a constant)."""
    return isinstance(t, (Var, Num)) or (isinstance(t, Lam) and not fv(t))


def elementary(t):
    if isinstance(t, (Var, Num, Zero, Lam)):
        return True
    if isinstance(t, Prim):
        return all(map(atom, t.args))
    if isinstance(t, (Tuple, Sum)):
        return all(map(atom, t.items))
    if isinstance(t, Proj):
        return atom(t.arg)
    if isinstance(t, App):  # (λq.S) a is a let
        return isinstance(t.fun, (Var, Num)) and atom(t.arg)
    if isinstance(t, Jac):
        return atom(t.along)
    if isinstance(t, Dual):
        return atom(t.functional)
    if isinstance(t, Pullback):
        return atom(t.form) and (atom(t.fun) or isinstance(t.fun, Lam))
    return False


def own_variable_let(t):
    """let x = E in x"""
    return is_let(t) and isinstance(t.fun.pat, Var) and isinstance(t.fun.body, Var) \
        and t.fun.body.name == t.fun.pat.name


def let_series(t):
    while is_let(t) and elementary(t.arg):
        if own_variable_let(t):
            return True
        t = t.fun.body
    return False


def env_extension(lam: Lam) -> bool:
    """λp.⟨p, E⟩: the first stage of rule 8 (or 8J)."""
    b = lam.body
    return isinstance(b, Tuple) and len(b.items) == 2 and b.items[0] == lam.pat


def a_normal(lam: Lam) -> bool:
    """§4.1: the body is elementary or a let series.  Rule 8 and 8J build stages
    λp.⟨p, E⟩ and flag their bodies A-normal (§5.7); the flag is documented, so
    such a body counts as A-normal when flagged."""
    b = lam.body
    return elementary(b) or let_series(b) or (env_extension(lam) and b._flags & ANF
                                               and elementary(b.items[1])) or eta_body(lam)


def eta_body(lam: Lam) -> bool:
    """λz. ā₁ z built by 19b for a function ā₁ it cannot look inside (§5.9): the
    body is flagged A-normal and left as it is (the Jacobian is value 1)."""
    return bool(lam.body._flags & ANF) and eta_map(lam)


# ---- lets kept by rule 1 (§3.1, §5.1) --------------------------------------------------------


def inert(v: Term) -> bool:
    """§5.1, §8: a stuck compound value -- function symbol, projection,
    application -- or a formal sum with such an item (a tangent at an open
    point, ``a × 1 ⊕ 1``)."""
    if isinstance(v, Sum):
        return any(isinstance(i, (Prim, Proj, App)) for i in v.items)
    return isinstance(v, (Prim, Proj, App))


def occurrences(x: str, t: Term):
    """(number of free occurrences of x in t, is one inside an abstraction?)"""
    if isinstance(t, Var):
        return (1 if t.name == x else 0), False
    if isinstance(t, Lam):
        if x in pattern_vars(t.pat):
            return 0, False
        n, _ = occurrences(x, t.body)
        return n, n > 0
    if is_let(t):  # the body of a let is evaluated, not an abstraction
        n1, u1 = occurrences(x, t.arg)
        if x in pattern_vars(t.fun.pat):
            return n1, u1
        n2, u2 = occurrences(x, t.fun.body)
        return n1 + n2, u1 or u2
    n, under = 0, False
    for c in t.children():
        k, u = occurrences(x, c)
        n, under = n + k, under or u
    return n, under


def kept_let(t: Term) -> bool:
    """§5.1: let q = I in W (W a value), I an inert value that substitution
    would copy."""
    if not (is_let(t) and inert(t.arg)):
        return False
    pat, body = t.fun.pat, t.fun.body
    if isinstance(pat, Var):
        link = body
        for _ in range(8):  # §5.1: a chain of inert lets stays one -- a link among the
            if not (is_let(link) and inert(link.arg)):  # next eight inert lets reads q
                break
            if pat.name in fv(link.arg):
                return True
            if pat.name in pattern_vars(link.fun.pat):
                break
            link = link.fun.body
        n, under = occurrences(pat.name, body)
        return n > 1 or under
    return bool(fv(body) & frozenset(pattern_vars(pat)))


#: the evaluation positions a kept let is lifted out of (rule lift): not summands or
#: the arguments of function symbols
LIFT_FRAMES = {"app-fun", "app-arg", "tuple", "proj", "jac-along", "dual-fun", "pb-fun",
               "pb-form"}


# ---- redexes (§3.2, §5.9) ----------------------------------------------------------------


def names_functional(t: Term) -> bool:
    """§3.1, §5.8: let w = M in (λq.S)⋆w, or let w = M in let v = (λq.S)⋆w in L -- the
    let rule pb writes at an open point; a let in its bound position is lifted out."""
    if not (is_let(t) and isinstance(t.fun.pat, Var)):
        return False
    body = t.fun.body
    if is_let(body):
        body = body.arg
    return isinstance(body, Dual) and body.functional == Var(t.fun.pat.name)


def pb_contractum(t: Term) -> bool:
    """§5.8: let x = I in … let w = ω Ē in (λp̂. …)⋆w, rule pb's contractum at an open
    point: a let series one of whose lets names a functional."""
    while is_let(t):
        if names_functional(t):
            return True
        t = t.fun.body
    return False


def sum_is_redex(t: Sum) -> bool:
    """§5.3: a nested ⊕ or 𝟎, two numerals, two tuples, two abstractions, or
    an atom repeated with at least one occurrence under × (r × A)."""
    kinds = {"num": 0, "tuple": 0, "lam": 0}
    atoms: dict = {}   # atom -> some occurrence is r × A
    for u in t.items:
        if isinstance(u, (Sum, Zero)):
            return True
        if isinstance(u, Num):
            kinds["num"] += 1
        elif isinstance(u, Tuple):
            kinds["tuple"] += 1
        elif isinstance(u, Lam):
            kinds["lam"] += 1
        else:
            scaled = isinstance(u, Prim) and u.op == "mul" and isinstance(u.args[0], Num)
            a = u.args[1] if scaled else u
            if a in atoms and (scaled or atoms[a]):
                return True
            atoms[a] = atoms.get(a, False) or scaled
    return max(kinds.values()) > 1


def zero_vector(v: Term) -> bool:
    """A zero vector, absorbing in a linear position (rule 3): 𝟎, the numeral
    0, a tuple of zero vectors, or J(λq.S)·0, Ω(S) 0, (λq.S)⋆0 of one.
    (The answer for each node of a chain J(…)·(Ω(…) (…)) is kept for the check
    under way, by identity: the check asks it at every node of a chain hundreds
    deep, at every step.)"""
    chain = []
    while isinstance(v, (Jac, Pullback, Dual)):
        hit = _ZERO.get(id(v))
        if hit is not None and hit[0] is v:
            out = hit[1]
            break
        chain.append(v)
        v = v.children()[-1]
    else:
        out = (isinstance(v, Zero) or (isinstance(v, Num) and v.value == 0.0)
               or isinstance(v, Tuple) and all(map(zero_vector, v.items)))
    for u in chain:
        _ZERO[id(u)] = (u, out)
    return out


_ZERO: dict = {}  # id -> (node, is it a zero vector?), for one check_decompositions


def component(pat: Term, v: Term, name: str):
    """The part of v that the pattern variable ``name`` matches (None: not bound)."""
    if isinstance(pat, Var):
        return v if pat.name == name else None
    for i, p in reversed(list(enumerate(pat.items, 1))):
        sub = component(p, v.items[i - 1] if isinstance(v, Tuple) else Proj(i, v), name)
        if sub is not None:
            return sub
    return None


def at(pat: Term, v: Term, a: Term) -> Term:
    """ā: the atom a with the pattern's variables replaced by the parts of v."""
    part = component(pat, v, a.name) if isinstance(a, Var) else None
    return a if part is None else part


def zero_part(v: Term) -> bool:
    """A zero vector, also as πᵢ of one (what the premise reduces it to)."""
    while isinstance(v, Proj):
        v = v.arg
    return zero_vector(v)


def jacobian_at(t: App, forward: bool = False):
    """§5.9, in the documented order: (J(λp.E)·P) V with E elementary.
    ``forward``: the step belongs to a forward tangent premise (the chain-rule
    judgment of §3.3), where D-curry is lazy (18L)."""
    lam, P = t.fun.lam, t.fun.along
    E, p = lam.body, frozenset(pattern_vars(lam.pat))

    def occurs(u):
        return bool(fv(u) & p)

    if env_extension(lam):
        return "20b"
    if not occurs(E) or isinstance(E, Lam) and not live_reads(E, p):
        return "9"
    if isinstance(E, Var):
        return "10"
    if isinstance(E, Proj):
        return "11"
    if isinstance(E, Sum):
        return "12"
    if isinstance(E, Jac):
        # 13 also when the map is linear in the variables of p it mentions
        # (free in the map: its own binder may shadow them)
        return "13" if not occurs(E.lam) or linear(E.lam.body, p & fv(E.lam)) else "17"
    if isinstance(E, Pullback):
        return "14" if not occurs(E.fun) else "17"   # (17 reads Ω(g) a as Ω(λy. g y) a)
    if isinstance(E, Prim):
        return "15"
    if isinstance(E, Dual):
        in_f, in_map = occurs(E.functional), occurs(E.lam)
        return "16a" if not in_map else ("16b" if not in_f else "16c")
    if isinstance(E, Lam):
        return "18L" if forward else "18"
    if isinstance(E, App):
        if not occurs(E.arg):
            return "19a"
        # D-eval; the premise T₀ = â₂ (one rule-10 step) decides: zero → 19c
        if zero_part(at(lam.pat, P, E.arg)):
            return "19c"
        dfun = at(lam.pat, P, E.fun) if occurs(E.fun) else None
        return "19m" if lazy_tangent_of(dfun, at(lam.pat, t.arg, E.fun)) else "19b"
    if isinstance(E, Tuple):
        return "20a"
    return None


def lazy_tangent_of(dfun, fbar) -> bool:
    """§5.9, 19m: is the function's direction an 18L tangent λy. (J(λp'.S')·P') V'
    of its value λy. S'[V'/p'] (up to the name of y)?"""
    if not (isinstance(dfun, Lam) and isinstance(fbar, Lam) and isinstance(dfun.pat, Var)
            and isinstance(fbar.pat, Var)):
        return False
    b = dfun.body
    if not (isinstance(b, App) and isinstance(b.fun, Jac)):
        return False
    lam, P2, V2 = b.fun.lam, b.fun.along, b.arg
    y = dfun.pat.name
    if y in set(pattern_vars(lam.pat)) | fv(P2) | fv(V2):
        return False
    body = subst(lam.body, bind_pattern(lam.pat, V2))
    return alpha_eq(Lam(dfun.pat, body), fbar)


def node_rules(t: Term, forward: bool = False) -> set:
    """Every rule of the §3.2 table whose redex shape t has (its evaluated
    children being values); ``forward`` as for ``jacobian_at``."""
    out = set()
    if isinstance(t, Prim):
        if any(isinstance(a, Zero) for a in t.args):
            out.add("3")
        elif all(isinstance(a, Num) for a in t.args):
            out.add("4")
    elif isinstance(t, App):
        f = t.fun
        if isinstance(f, Lam):
            if not kept_let(t):
                out.add("1")
        elif isinstance(f, (Sum, Zero)):
            out.add("3")
        elif isinstance(f, Dual):
            out.add("dual-app")
        elif isinstance(f, Pullback) and isinstance(f.fun, Lam) and (
                elementary(f.fun.body) or env_extension(f.fun)):
            out.add("pb")
        elif isinstance(f, Jac):
            if is_let(f.lam.body):
                out.add("8Jc" if constant_stage(f.lam) else
                        "8Jd" if unread_stage(f.lam.body) else
                        "8Jz" if zero_factor(f.lam, t.arg) else
                        "8Js" if coefficient_first(f.lam) else "8J")
            elif elementary(f.lam.body) or env_extension(f.lam):
                r = jacobian_at(t, forward)
                if r:
                    out.add(r)
    elif isinstance(t, Proj):
        if isinstance(t.arg, Tuple):
            out.add("2")
        elif isinstance(t.arg, (Sum, Zero)):
            out.add("3")
    elif isinstance(t, Sum):
        if sum_is_redex(t):
            out.add("3")
    elif isinstance(t, Jac):
        if zero_vector(t.along):
            out.add("3")
        if own_variable_let(t.lam.body):
            out.add("7J")
    elif isinstance(t, Dual):
        if isinstance(t.functional, (Lam, Zero)) or isinstance(t.lam.body, Zero):
            out.add("5")
        if isinstance(t.functional, Sum):
            out.add("3")
        if isinstance(t.functional, Dual):
            out.add("6")
    elif isinstance(t, Pullback):
        if zero_vector(t.form):
            out.add("3")
        if isinstance(t.fun, Lam) and is_let(t.fun.body):
            b = t.fun.body
            p = set(pattern_vars(t.fun.pat))
            newest = newest_variable(t.fun.pat)
            out.add("pbc" if not _free_names(b) & p or not live_reads(b, p) and not (
                        newest is not None and newest in _free_names(b.arg)) else
                    "7" if own_variable_let(b) else
                    "8c" if isinstance(b.arg, (Lam, Num)) and not fv(b.arg)
                    or isinstance(b.arg, Var) and isinstance(b.fun.pat, Var)
                    or constant_pair(b)
                    or moved_once(b) or dead_value(b) or used_by_calls(b)
                    or only_projected(b) else
                    "8f" if isinstance(b.arg, Lam) and floats_out(b.arg) else
                    "8h" if defined_operation(b.arg) else "8")
    return out


def constant_pair(let_) -> bool:
    """8c's tuple of constants: let ⟨q₁, …, qₙ⟩ = ⟨V₁, …, Vₙ⟩, each qᵢ a variable and
    each Vᵢ a numeral or a closed abstraction."""
    p, V = let_.fun.pat, let_.arg
    return isinstance(p, Tuple) and isinstance(V, Tuple) and len(p.items) == len(V.items) \
        and all(isinstance(q, Var) for q in p.items) and all(
            isinstance(a, Num) or isinstance(a, Lam) and not _free_names(a) for a in V.items)


def constant_stage(lam: Lam) -> bool:
    """8Jc's stage: a closed operation, application or projection, or an atom
    (variable, numeral, closed abstraction) that no variable of p occurs in."""
    E = lam.body.arg
    if isinstance(E, (Prim, App, Proj)):
        return not _free_names(E)
    atom = isinstance(E, (Var, Num)) or isinstance(E, Lam) and not _free_names(E)
    return atom and not _free_names(E) & set(pattern_vars(lam.pat))


def _free_names(t: Term) -> set:
    """The free variables of t (naively, by recursion)."""
    if isinstance(t, Var):
        return {t.name}
    out = set().union(*(_free_names(c) for c in t.children()))
    if isinstance(t, Lam):
        out -= set(pattern_vars(t.pat))
    return out


def floats_out(lam: Lam) -> bool:
    """8f's helper, restated from §5.7: outside its inner λs, an operation that reads
    no variable bound inside the helper and is finite whatever its variables are --
    an interval of its values, by the ranges of sin, cos, tanh ([−1, 1]) and interval
    arithmetic for +, −, ×, neg, exp, every one inside ±10³⁰⁰."""
    def interval(u):
        if isinstance(u, Num):
            return (u.value, u.value)
        if isinstance(u, Var) or isinstance(u, Proj) and plain(u):
            return (-math.inf, math.inf)
        if not isinstance(u, Prim):
            return None
        args = [interval(a) for a in u.args]
        if None in args:
            return None
        if u.op in ("sin", "cos", "tanh"):
            return (-1.0, 1.0)
        if not all(-1e300 < x < 1e300 for a in args for x in a):
            return None
        if u.op == "add":
            r = (args[0][0] + args[1][0], args[0][1] + args[1][1])
        elif u.op == "sub":
            r = (args[0][0] - args[1][1], args[0][1] - args[1][0])
        elif u.op == "mul":
            ps = [x * y for x in args[0] for y in args[1]]
            r = (min(ps), max(ps))
        elif u.op == "neg":
            r = (-args[0][1], -args[0][0])
        elif u.op == "exp" and args[0][1] < 690:
            r = (math.exp(args[0][0]), math.exp(args[0][1]))
        else:
            return None
        return r if -1e300 < r[0] <= r[1] < 1e300 else None

    def plain(u):
        return isinstance(u, (Var, Num)) or isinstance(u, (Tuple, Proj)) and all(
            plain(k) for k in u.children())

    bound = set(pattern_vars(lam.pat))

    def walk(u):
        if isinstance(u, Prim) and not (fv(u) & bound) and interval(u) is not None:
            return True
        return not isinstance(u, Lam) and any(walk(k) for k in u.children())
    return walk(lam.body)


def defined_operation(E: Term) -> bool:
    """8h's stage: an operation on numerals whose value is a finite real."""
    if not (isinstance(E, Prim) and all(isinstance(a, Num) for a in E.args)):
        return False
    try:
        return math.isfinite(prims.EVAL[E.op](*(a.value for a in E.args)))
    except (ArithmeticError, ValueError):
        return False


LIVE_REACH = 256  # (§5, rule 9: the walk answers "reads" past 256 nodes)


def newest_variable(p):
    """pbc's first test (§5.7): p's newest variable -- p itself, or the last item of
    a tuple pattern, when a variable; a first stage in which it is free at all makes
    the series not constant, dead items or not."""
    last = p if isinstance(p, Var) else p.items[-1] if isinstance(p, Tuple) else None
    return last.name if isinstance(last, Var) else None


def live_reads(t: Term, p) -> bool:
    """Rules 9 (for an abstraction) and pbc, restated from §5 (independently of
    rules._reads_live): does t read a variable of p other than in the dropped items
    of a written projection πᵢ⟨a₁, …, aₙ⟩ whose other items are values (variables,
    numerals, 𝟎, abstractions, tuples of those), or in the items of a let-bound
    tuple of values that the let's body takes no projection of?  The walk enters only the subterms
    in which a variable of p is free (an inner binder of the same name is not told
    apart: its occurrences count), and answers yes when it would visit more than
    ``LIVE_REACH`` nodes; which nodes it visits does not depend on its order."""
    def value(a) -> bool:
        return all(value(b) for b in a.items) if isinstance(a, Tuple) else \
            isinstance(a, (Var, Num, Zero, Lam))

    def kids(u):
        if isinstance(u, Lam):
            return [u.body]
        if isinstance(u, Proj) and isinstance(u.arg, Tuple) and all(
                value(a) for j, a in enumerate(u.arg.items, 1) if j != u.index):
            return [u.arg.items[u.index - 1]]
        return list(u.children())

    seen = [0]

    def projections(body, x):
        """The indices j of the πⱼ x that body takes, None if it reads x otherwise;
        and the nodes visited to learn it (entered only where x is free)."""
        taken: set = set()
        count = [0]

        def walk(v) -> bool:
            count[0] += 1
            if x not in fv(v):
                return True
            if isinstance(v, Proj) and isinstance(v.arg, Var):
                taken.add(v.index)
                return True
            if isinstance(v, Var):
                return False
            if isinstance(v, Lam):
                return x not in pattern_vars(v.pat) and walk(v.body)
            return all(walk(c) for c in v.children())
        return (taken if walk(body) else None), count[0]

    def go(u) -> bool:  # (visits u; True: a live read, or the walk too long)
        seen[0] += 1
        if seen[0] > LIVE_REACH:
            return True
        if isinstance(u, Var):
            return u.name in p
        if not fv(u) & p:
            return False
        if (isinstance(u, App) and isinstance(u.fun, Lam) and isinstance(u.fun.pat, Var)
                and isinstance(u.arg, Tuple) and all(value(a) for a in u.arg.items)):
            # let t = ⟨a₁, …, aₙ⟩ in B (A-normal form's name for a pair): the items no
            # πⱼ t of B takes are dead
            taken, n = projections(u.fun.body, u.fun.pat.name)
            seen[0] += n
            if taken is None or seen[0] > LIVE_REACH:
                return True
            return go(u.fun.body) or any(go(a) for j, a in enumerate(u.arg.items, 1)
                                         if j in taken)
        return any(go(c) for c in kids(u))
    return go(t)


def _free_count(x: str, t: Term) -> int:
    """Free occurrences of x in t, under abstractions too (naively, by recursion)."""
    if isinstance(t, Var):
        return int(t.name == x)
    if isinstance(t, Lam) and x in pattern_vars(t.pat):
        return 0
    return sum(_free_count(x, c) for c in t.children())


def _computes_with(lam: Lam) -> bool:
    """Does lam's body call a primitive, or apply a variable free in lam, where
    one of lam's free variables (not shadowed there) occurs?"""
    free = {n for n in _names(lam) if _free_count(n, lam)}

    def go(u, names) -> bool:
        if not any(_free_count(n, u) for n in names):
            return False  # a closed part is a constant
        if isinstance(u, Prim) or (isinstance(u, App) and isinstance(u.fun, Var)
                                   and u.fun.name in names):
            return True
        if isinstance(u, Lam):
            names = names - set(pattern_vars(u.pat))
        return any(go(c, names) for c in u.children())
    return go(lam.body, free)


def _applies_free(lam: Lam, known=frozenset()) -> bool:
    """Does lam's body apply a variable free in lam (not shadowed there), other
    than the ``known`` ones (helpers of the series)?"""
    free = {n for n in _names(lam) if _free_count(n, lam)} - set(known)

    def go(u, names) -> bool:
        if isinstance(u, App) and isinstance(u.fun, Var) and u.fun.name in names:
            return True
        if isinstance(u, Lam):
            names = names - set(pattern_vars(u.pat))
        return any(go(c, names) for c in u.children())
    return go(lam.body, free)


def used_by_calls(let_) -> bool:
    """8c's helper copied to its calls, restated from §5.7 (independently of
    rules.inlined_at_calls): V a variable, or an abstraction that applies none of
    its free variables; every use of q in the rest of the series, until a let
    binds it again, is a let applying it (``let r = q a``, q not in a), an alias
    ``let r = q`` whose r is so used, a call in the body of an abstraction bound
    by a let -- past its own curried binders, not under a further λ but a let's
    -- whose variable is so used in turn, or q passed to a helper the series
    binds (or a partial application of one) at a parameter that helper only
    calls, itself or inside an abstraction whose body calls it so."""
    V, q = let_.arg, let_.fun.pat
    if not isinstance(q, Var) or not (isinstance(V, Var) or
                                      isinstance(V, Lam) and not _applies_free(V)):
        return False
    return _only_called(q.name, let_.fun.body, {})


def _only_called(x: str, t: Term, helpers: dict, inner: bool = False,
                 pullbacks: Optional[dict] = None) -> bool:
    # (inner: x is an abstraction a helper's copy goes into; it may be a pullback's
    # 1-form, or the point or direction a pullback bound by a let is applied to; the
    # helper itself may not)
    helpers = dict(helpers)  # name -> (abstraction, its arguments' helpers, its scope)
    pullbacks = dict(pullbacks or {})  # name -> how many of (point, direction) to come
    while is_let(t):
        E, r = t.arg, t.fun.pat
        if _free_count(x, E):
            if (isinstance(E, App) and isinstance(E.fun, Var) and E.fun.name in helpers
                    and isinstance(E.arg, Var) and E.arg.name == x
                    and not _free_count(x, helpers[E.fun.name][0])
                    and _only_calls_param(helpers[E.fun.name], 0)
                    and _applied(r, _binders_left(helpers[E.fun.name], 1), t.fun.body)):
                pass  # (and the call runs: a partial application the output runs nothing)
            elif isinstance(E, Var):
                if not (isinstance(r, Var) and _only_called(r.name, t.fun.body, helpers, inner,
                                                            pullbacks)):
                    return False
            elif isinstance(E, Lam):
                if not (isinstance(r, Var) and (_calls_in_body(x, E, helpers) or _calls_in_body(
                        x, E, _first_binder_bound(E, r.name, t.fun.body, helpers)))
                        and _only_called(r.name, t.fun.body, helpers, True, pullbacks)):
                    return False
            elif (inner and isinstance(E, App) and E.arg == Var(x) and isinstance(E.fun, Var)
                  and E.fun.name in pullbacks):
                # a named pullback applied to x, its point or its direction: rule pb
                # applies both once the pullback has them
                if not _applied(r, pullbacks[E.fun.name] - 1, t.fun.body):
                    return False
            elif isinstance(E, Jac) and _calls_in_body(x, E.lam, helpers):
                # J(λy. … q …)·v: forward mode runs the map's body where it is applied
                if _free_count(x, E.along) or not _applied(r, 1, t.fun.body):
                    return False
            elif isinstance(E, Tuple) and only_projected(t):
                # a pair only projected: 8c takes it apart as it copies q
                if not all(isinstance(s, Var) and _only_called(s.name, u, h, inner, pullbacks)
                           for s, u, h in _projections_of(x, t, helpers)):
                    return False
            elif isinstance(E, Pullback) and all(
                    not _free_count(x, S) or (S is E.fun or inner) and (
                        S == Var(x) or isinstance(S, Lam) and _calls_in_body(x, S, helpers))
                    for S in (E.fun, E.form)):
                # Ω(q) ω, Ω(λy. … q …) ω: rule pb runs the map's body where the
                # pullback is applied, twice; Ω(S) q, Ω(S) (λz. λw. … q …): it applies
                # the 1-form at the map's value there
                if not _applied(r, 2, t.fun.body):
                    return False
            elif not (isinstance(E, App) and isinstance(E.fun, Var) and E.fun.name == x
                      and not _free_count(x, E.arg)):
                return False
        if x in pattern_vars(t.fun.pat):
            return True
        helpers = _remember(r, E, helpers)
        for v in pattern_vars(r):
            pullbacks.pop(v, None)
        if isinstance(r, Var) and isinstance(E, Pullback):
            pullbacks[r.name] = 2
        elif isinstance(r, Var) and isinstance(E, Var) and E.name in pullbacks:
            pullbacks[r.name] = pullbacks[E.name]
        elif isinstance(r, Var) and isinstance(E, App) and isinstance(E.fun, Var) \
                and pullbacks.get(E.fun.name) == 2:
            pullbacks[r.name] = 1
        t = t.fun.body
    return not _free_count(x, t)


def _binders_left(entry, k: int) -> int:
    """How many curried binders a helper (f, args, scope) has after args and k more."""
    f, args, _ = entry
    n = 0
    while isinstance(f, Lam):
        n, f = n + 1, f.body
    return max(0, n - len(args) - k)


def _applied(r, k: int, t: Term) -> bool:
    """Is the function r names applied k more times at each of its uses in the series
    t (through aliases), so that what it computes runs in the series?"""
    if k == 0:
        return True
    if not isinstance(r, Var):
        return False
    while is_let(t):
        E, q = t.arg, t.fun.pat
        if _free_count(r.name, E):
            if E == r:
                if not _applied(q, k, t.fun.body):
                    return False
            elif isinstance(E, App) and E.fun == r and not _free_count(r.name, E.arg):
                if not _applied(q, k - 1, t.fun.body):
                    return False
            elif isinstance(E, Tuple) and only_projected(t):
                if not all(_applied(s, k, u) for s, u, _ in _projections_of(r.name, t, {})):
                    return False
            else:
                return False
        if r.name in pattern_vars(q):
            return True
        t = t.fun.body
    return not _free_count(r.name, t)


def _projections_of(x: str, let_, helpers: dict) -> list:
    """let_ binds a tuple holding x as an item, only projected: (s, the rest, the
    helpers there) for each let s = πᵢ of it at one of x's places (s a pattern: a
    use that is no call, Num 1 standing for it)."""
    places = [i for i, a in enumerate(let_.arg.items, 1) if a == Var(x)]
    name, out = let_.fun.pat.name, []
    helpers = _remember(let_.fun.pat, let_.arg, helpers)
    t = let_.fun.body
    while is_let(t):
        E = t.arg
        if isinstance(E, Proj) and E.arg == Var(name) and E.index in places:
            s = t.fun.pat
            out.append((s, t.fun.body, _remember(s, E, helpers)) if isinstance(s, Var)
                       else (Num(1.0), Var(x), helpers))
        if name in pattern_vars(t.fun.pat):
            break
        helpers = _remember(t.fun.pat, E, helpers)
        t = t.fun.body
    return out


def _remember(r, E, helpers: dict) -> dict:
    """The helpers after a let: r bound to an abstraction, (E, (), scope), or to a
    helper applied to one more argument, whose helper (if it is one) joins the
    arguments; the scope is the helpers where the abstraction was bound."""
    out = {k: v for k, v in helpers.items() if k not in pattern_vars(r)}
    if isinstance(r, Var) and isinstance(E, Lam):
        out[r.name] = (E, (), helpers)
    elif isinstance(r, Var) and isinstance(E, Var) and E.name in helpers:
        out[r.name] = helpers[E.name]
    elif isinstance(r, Var) and isinstance(E, App) and isinstance(E.fun, Var) \
            and E.fun.name in helpers:
        f, args, scope = helpers[E.fun.name]
        out[r.name] = (f, args + (_entry_of(E.arg, helpers),), scope)
    return out


def _entry_of(a, helpers: dict):
    """The helper entry an argument is: a helper's name, an abstraction (after lets:
    a cons cell copied), or an application of one written in place (the
    cell applied to its tail, a numeral to a cons closure and nil); else None."""
    if isinstance(a, Var):
        return helpers.get(a.name)
    scope = helpers
    while is_let(a):
        scope, a = _remember(a.fun.pat, a.arg, scope), a.fun.body
    if isinstance(a, Lam):
        return (a, (), scope)
    if isinstance(a, App) and not is_let(a):
        e = _entry_of(a.fun, scope)
        if e is not None:
            return (e[0], e[1] + (_entry_of(a.arg, scope),), e[2])
    return None


def _first_binder_bound(lam: Lam, r: str, t: Term, helpers: dict) -> dict:
    """helpers, with lam's first binders taken for what r's one use in t, a call
    ``let s = r a``, passes, then s's one use the next, and so on: a helper bound
    before the call, or a value that hides one of the binder's name; at least one a
    helper, and the last result applied until lam's binders are used up."""
    out, found, ahead, f = dict(helpers), False, helpers, lam
    binders = 0
    while isinstance(f, Lam):
        binders, f = binders + 1, f.body
    f, used = lam, 0
    while isinstance(f, Lam) and isinstance(f.pat, Var):
        step = None
        while is_let(t):
            E, q = t.arg, t.fun.pat
            if _free_count(r, E):
                if (isinstance(E, App) and isinstance(E.fun, Var) and E.fun.name == r
                        and isinstance(q, Var) and not _free_count(r, t.fun.body)
                        and not _free_count(r, E.arg)):
                    step = (E.arg, q.name, t.fun.body)
                break
            if r in pattern_vars(q):
                break
            ahead = _remember(q, E, ahead)
            t = t.fun.body
        if step is None:
            break
        a, r, t = step
        out.pop(f.pat.name, None)
        if isinstance(a, Var) and a.name in ahead:
            out[f.pat.name], found = ahead[a.name], True
        f, used = f.body, used + 1
    if found and _applied(Var(r), binders - used, t):
        return out
    return helpers


def _only_calls_param(entry, i: int, known=frozenset()) -> bool:
    """entry = (f, args, scope): f applies none of its free variables but helpers in
    its scope (and the ``known`` names: the helper whose calls are checked), and its
    curried binder after args and i more is a variable its body only calls -- or
    passes to a helper in scope, or one that args bind its earlier binders to (a cons
    cell's tail), which only calls it in turn."""
    f, args, scope = entry
    if not isinstance(f, Lam) or _applies_free(f, set(scope) | set(known)):
        return False
    binders, g = 0, f
    while isinstance(g, Lam):
        binders, g = binders + 1, g.body
    if len(args) >= binders:  # a call of known code on known arguments: its value is applied
        return all(a is not None for a in args)
    inner = dict(scope)
    for j in range(len(args) + i):
        if isinstance(f.pat, Var):
            inner.pop(f.pat.name, None)
            if j < len(args) and args[j] is not None:
                inner[f.pat.name] = args[j]
        f = f.body
        if not isinstance(f, Lam):
            return False
    return isinstance(f.pat, Var) and _calls_in_body(f.pat.name, f, inner)


def _curried_binders(series, args: list, helpers: dict):
    """The λs that the let series ends in, one per argument (b₁ … bₖ of
    ``(let … in λb₁. … λbₖ. B) A₁ … Aₖ``), and helpers with each bᵢ the helper Aᵢ is
    (none where it is no helper); None if the series ends in fewer λs, or binds
    one of their names freely."""
    end, scope, binders = series, dict(helpers), []
    while is_let(end):
        end = end.fun.body
    for a in args:
        if not (isinstance(end, Lam) and isinstance(end.pat, Var)) \
                or _free_count(end.pat.name, series):
            return None
        entry = _entry_of(a, helpers)  # (an argument means what it does at the call)
        scope.pop(end.pat.name, None)
        if entry is not None:
            scope[end.pat.name] = entry
        binders.append(end)
        end = end.body
    return binders, scope


def _calls_in_body(x: str, lam: Lam, helpers: dict) -> bool:
    def passed(entry, args) -> bool:
        if _binders_left(entry, len(args)):
            # a partial application: a closure passed may never run, but an argument
            # that is no value is evaluated at the call all the same (call-by-value)
            return all(not _free_count(x, a) or not isinstance(a, (Var, Lam)) and go(a)
                       for a in args)
        return all(not _free_count(x, a) or (
            _only_calls_param(entry, i)
            and (isinstance(a, Var) or _calls_in_body(x, a, helpers))
            if isinstance(a, (Var, Lam)) else go(a)) for i, a in enumerate(args))

    def go(u, result: bool = False) -> bool:  # result: u is what the body returns
        if not _free_count(x, u):
            return True
        if isinstance(u, Lam) and result:  # a curried binder, or a closure returned after lets
            return x in pattern_vars(u.pat) or go(u.body, True)
        if isinstance(u, App) and isinstance(u.fun, Var) and u.fun.name == x:
            return go(u.arg)
        if isinstance(u, (Pullback, Jac)):  # the map runs where it is applied, pb applies
            # the 1-form (and J(λt. S)·v runs S forwards where it is applied)
            return all(not _free_count(x, c) or isinstance(c, Var) and c.name == x
                       or (_calls_in_body(x, c, helpers) if isinstance(c, Lam) else go(c))
                       for c in u.children())
        if is_let(u):  # let p = E in B: B is evaluated when the let is
            if isinstance(u.arg, Lam) and _only_calls_param((u.fun, (), helpers), 0, {x}):
                arg_ok = _calls_in_body(x, u.arg, helpers)
            elif isinstance(u.arg, Var) and u.arg.name == x and isinstance(u.fun.pat, Var):
                # an alias of x
                p = u.fun.pat.name
                if p == x:  # (let f = f: the body's f is x's alias, used as x is)
                    return go(u.fun.body, result)
                return _calls_in_body(p, Lam(Var("_"), u.fun.body), helpers) \
                    and go(u.fun.body, result)
            else:
                arg_ok = go(u.arg)
            return arg_ok and (x in pattern_vars(u.fun.pat) or go(u.fun.body, result))
        if isinstance(u, App):
            head, args, rest = u, [], []
            while True:  # (πᵢ ⟨…, h, …⟩) a …: rule 2 makes it h a …, the rest evaluated
                if isinstance(head, App) and not is_let(head):
                    head, args = head.fun, [head.arg] + args
                elif args and isinstance(head, Proj) and isinstance(head.arg, Tuple) \
                        and 1 <= head.index <= len(head.arg.items):
                    rest += [c for j, c in enumerate(head.arg.items) if j != head.index - 1]
                    head = head.arg.items[head.index - 1]
                else:
                    break
            if isinstance(head, Var) and head.name in helpers \
                    and any(_free_count(x, a) for a in args):
                return passed(helpers[head.name], args) and all(go(c) for c in rest)
            lams = [a for a in args if isinstance(a, Lam) and _free_count(x, a)]
            if isinstance(head, Pullback) and len(args) <= 2 and lams \
                    and all(_calls_in_body(x, a, helpers) for a in lams):
                # Ω(S) ω P D: the pullback's rules apply its point and direction (and
                # its map and 1-form are read as any pullback's)
                return all(go(c) for c in [head] + args + rest
                           if all(c is not a for a in lams))
            curried = _curried_binders(head, args, helpers) \
                if is_let(head) and len(args) >= 2 and not rest else None
            if curried is not None:
                # (let f = F in λz. λl. B) Z L -- a fold copied to its call: each binder is
                # its argument, a helper where the argument is one; an argument whose
                # binder B calls runs there (its calls are calls), any other is evaluated
                binders, scope = curried
                return _calls_in_body(x, Lam(Var("_"), head), scope) and all(
                    _calls_in_body(x, a, helpers)
                    if isinstance(a, Lam) and _calls_in_body(b.pat.name, b, scope) else go(a)
                    for a, b in zip(args, binders))
            if is_let(u.fun):  # (let f = f in λd. B) d: the lets' λ is applied at once
                end = u.fun
                while is_let(end):
                    end = end.fun.body
                entry = _entry_of(u.arg, helpers)
                if isinstance(end, Lam) and isinstance(end.pat, Var) and entry is not None \
                        and not _free_count(end.pat.name, u.fun):
                    # (… in λl. B) A: l is the helper A in B (map in a helper's body)
                    scope = {**helpers, end.pat.name: entry}
                    runs = isinstance(u.arg, Lam) and _calls_in_body(end.pat.name, end, scope)
                    return _calls_in_body(x, Lam(Var("_"), u.fun), scope) and (
                        _calls_in_body(x, u.arg, helpers) if runs else go(u.arg))
                return go(u.fun, True) and go(u.arg)
        if isinstance(u, (Var, Lam)):
            return False
        return all(go(c) for c in u.children())
    return go(lam.body, True)


def _names(t: Term) -> set:
    return {u.name for u in _walk(t) if isinstance(u, Var)}


def _walk(t: Term):
    yield t
    for c in t.children():
        yield from _walk(c)


def dead_value(let_) -> bool:
    """8c's dead case, restated (independently of rules.dead_let, by recursion on
    the series): V is a variable, a numeral, 𝟎 or an abstraction, and every
    occurrence of q in the rest of the series is in the value of a let that is
    dead itself."""
    return _read_only_by(let_, dead_value) if isinstance(let_.arg, (Var, Num, Zero, Lam)) \
        else False


DEAD_REACH = 32  # (§5.10: q counts as live when still read after 32 lets)


def _read_only_by(let_, dead) -> bool:
    """Is every occurrence of q in the rest of the series in the bound term of a let
    that ``dead`` says is dead (and none in the series' result), q read no further
    than ``DEAD_REACH`` lets on?"""
    names = set(pattern_vars(let_.fun.pat))
    t = let_.fun.body
    reach = DEAD_REACH
    while is_let(t):
        if not any(_free_count(n, t) for n in names):
            return True
        reach -= 1
        if reach < 0:
            return False
        if any(_free_count(n, t.arg) for n in names) and not dead(t):
            return False
        names -= set(pattern_vars(t.fun.pat))
        t = t.fun.body
    return not any(_free_count(n, t) for n in names)


def unread_stage(let_) -> bool:
    """8Jd's stage, restated (independently of rules.dead_stage, by recursion on the
    series): every occurrence of q in the rest of the series is in the bound term of
    a let that is such a stage itself -- whatever its term, a computation too."""
    return _read_only_by(let_, unread_stage)


def _series(t: Term) -> tuple[list, Term]:
    """The lets of a series, and what it ends in: its result, or a product m = a × b
    in 7J's shape let m = a × b in m (that let is then not in the list)."""
    lets = []
    while is_let(t):
        if isinstance(t.arg, Prim) and t.arg.op == "mul" and own_variable_let(t):
            return lets, t.arg
        lets.append(t)
        t = t.fun.body
    return lets, t


def _product_vars(t: Term):
    """(a, b) for a product of two variables a × b, else None."""
    if isinstance(t, Prim) and t.op == "mul" and all(isinstance(a, Var) for a in t.args):
        return t.args[0].name, t.args[1].name
    return None


SINK_REACH = 8  # (§5.10: 8Jz and 8Js look at most 8 stages past the first)


def zero_factor(lam: Lam, V: Term) -> bool:
    """8Jz's stage, restated from §5.10: λp. let q = E in L, L ending at most 8 stages
    on in a product (its result, or let m = … in m) of which one factor is a
    coordinate y of p that V makes 0 and that neither q nor L binds (nor the other
    factor)."""
    q = lam.body.fun.pat
    lets, end = _series(lam.body.fun.body)
    if not isinstance(q, Var) or len(lets) > SINK_REACH \
            or not (isinstance(end, Prim) and end.op == "mul"):
        return False
    bound = {q.name} | {n for u in lets for n in pattern_vars(u.fun.pat)}
    a, b = end.args
    for y, other in ((a, b), (b, a)):
        if isinstance(y, Var) and y.name not in bound and other != y:
            part = component(lam.pat, V, y.name)
            if part is not None and zero_vector(part):
                return True
    return False


def coefficient_first(lam: Lam) -> bool:
    """8Js's stage, restated from §5.10: λp. let q = E in L, E an application with no
    free variable of the map; L's stages (at most 8, every binder new) ending in a
    product k × r; the atom's chain -- the stages r reads, in turn -- not empty,
    reading a free variable of the map, and reading neither q nor any other stage
    outside the chain, nor binding a variable of E."""
    let_ = lam.body
    E, q = let_.arg, let_.fun.pat
    free = _free_names(lam)
    lets, end = _series(let_.fun.body)
    if not (isinstance(E, App) and isinstance(q, Var) and lets) or len(lets) > SINK_REACH \
            or _free_names(E) & free or not (isinstance(end, Prim) and end.op == "mul") \
            or not isinstance(end.args[1], Var):
        return False
    binders = [n for u in [let_] + lets for n in pattern_vars(u.fun.pat)]
    if len(set(binders)) < len(binders) or set(binders) & set(pattern_vars(lam.pat)):
        return False
    needed, chain = {end.args[1].name}, []
    for u in reversed(lets):
        if set(pattern_vars(u.fun.pat)) & needed:
            chain.append(u)
            needed |= _free_names(u.arg)
    others = {q.name} | {n for u in lets if u not in chain for n in pattern_vars(u.fun.pat)}
    return bool(chain) and any(_free_names(u.arg) & free for u in chain) and not any(
        _free_names(u.arg) & others or set(pattern_vars(u.fun.pat)) & _free_names(E)
        for u in chain)


def moved_once(let_) -> bool:
    """8c's open case, restated from §9 (independently of rules.inlined_once): V
    is a variable, or an abstraction that does not compute with its free
    variables; q occurs at most once in the rest of the series, under an
    abstraction too, until a let binds it again; and that occurrence is not an
    operand of its elementary term (the function of an application is allowed,
    and anything for a variable V).  An abstraction that computes is moved only
    when that occurrence is in the map of a Jacobian or a pullback, or in the body
    of a helper that computes and is moved so in turn (§9, condition 1's
    exception)."""
    V, q = let_.arg, let_.fun.pat
    if not isinstance(q, Var) or not isinstance(V, (Var, Lam)):
        return False
    heavy = isinstance(V, Lam) and _computes_with(V)
    x, t = q.name, let_.fun.body
    while is_let(t):
        E = t.arg
        if _free_count(x, E):
            rest = t.fun.body if x not in pattern_vars(t.fun.pat) else Num(0.0)
            if _free_count(x, E) > 1 or _free_count(x, rest):
                return False
            # (§9, 8c's condition 1, the exception: one that computes is moved into the
            # map of a Jacobian or a pullback, under λs too, or with a helper that
            # computes, used once, moved so in turn)
            if heavy and not _in_a_map(x, E) and not (
                    isinstance(E, Lam) and isinstance(t.fun.pat, Var) and _computes_with(E)
                    and moved_once(t)):
                return False
            # (an abstraction's body is no operand: λy. q takes λy. V, no atom needed)
            at_operand = not isinstance(E, Lam) and any(
                isinstance(c, Var) and c.name == x and not (isinstance(E, App) and c is E.fun)
                for c in E.children())
            return isinstance(V, Var) or not at_operand
        if x in pattern_vars(t.fun.pat):
            return not heavy
        t = t.fun.body
    return not _free_count(x, t) and not heavy


def _in_a_map(x: str, t: Term) -> bool:
    """Is the one free occurrence of x in t inside the map of a Jacobian or a
    pullback (naively: the map of a J or Ω node reads x free)?"""
    if isinstance(t, Jac) and _free_count(x, t.lam) or isinstance(t, Pullback) \
            and _free_count(x, t.fun):
        return True
    return any(_in_a_map(x, c) for c in t.children() if _free_count(x, c))


def only_projected(let_) -> bool:
    """8c's tuple case, restated from §5.7 (independently of rules.projected_only):
    V a tuple, each free occurrence of q in the rest of the series, until a let
    binds it again, the whole bound term πᵢ q of a let, and no let before the last
    one binding a name free in V."""
    V, q = let_.arg, let_.fun.pat
    if not isinstance(q, Var) or not isinstance(V, Tuple):
        return False
    x, t, captured = q.name, let_.fun.body, False
    while is_let(t):
        E = t.arg
        n = _free_count(x, E)
        if n and (captured or not (isinstance(E, Proj) and E.arg == q
                                   and E.index <= len(V.items))):
            return False
        if x in pattern_vars(t.fun.pat):
            return True
        captured = captured or bool(set(pattern_vars(t.fun.pat)) & _free_names(V))
        t = t.fun.body
    return not _free_count(x, t)


#: documented rows of the §3.2 table that overlap; each resolves to the rule
#: listed, and the two give the same result (𝟎 is absorbing)
OVERLAPS = {frozenset({"3", "7"}): "3", frozenset({"3", "8"}): "3", frozenset({"3", "8c"}): "3",
            frozenset({"3", "pbc"}): "3",
            frozenset({"3", "8h"}): "3", frozenset({"3", "8f"}): "3",
            frozenset({"3", "7J"}): "3", frozenset({"3", "5"}): "5", frozenset({"5", "6"}): "5"}


def eta_map(lam: Lam) -> bool:
    """λz. F z with z not free in F: the map of 19b's η-form (§5.9)."""
    b = lam.body
    return isinstance(lam.pat, Var) and isinstance(b, App) and b.arg == lam.pat \
        and lam.pat.name not in fv(b.fun)


def declines(t: App) -> bool:
    """Rules 17 and 19b decline (the redex is a value) when their premise that
    looks inside an operator makes no progress: E u for 17 (a pullback along a
    variable g read as Ω(λy. g y) a; never for the η-form J(λz. F z)·a, which
    17 moves into the point without a premise); for 19b (§5.9), when the
    argument's tangent T₀ is not zero, ā₁ is neither an abstraction nor 𝟎 nor
    an operator whose reduct at a fresh point makes progress, and the redex is
    already (J(λz. g z)·T) W, g not z (value 1)."""
    lam = t.fun.lam
    E = lam.body
    if isinstance(E, App):
        if zero_part(at(lam.pat, t.fun.along, E.arg)):
            return False  # 19c
        op = at(lam.pat, t.arg, E.fun)
        if isinstance(op, (Lam, Zero)):
            return False
        if isinstance(op, (Pullback, Jac, Dual, Sum)):
            w, _ = Machine(max_steps=MAX_STEPS).reduce(App(op, Var("u_probe")))
            if not (isinstance(w, App) and w.fun == op):
                return False
        return isinstance(lam.pat, Var) and E.arg == lam.pat and lam.pat.name not in fv(E.fun)
    if isinstance(E, Jac) and eta_map(E.lam):
        return False
    if isinstance(E, Pullback) and not isinstance(E.fun, Lam):
        op = Pullback(Lam(Var("y_probe"), App(E.fun, Var("y_probe"))), E.form)
    else:
        op = E
    w, _ = Machine(max_steps=MAX_STEPS).reduce(App(op, Var("u_probe")))
    return isinstance(w, App) and w.fun == op


# ---- the decomposer ----------------------------------------------------------------------

def unread_rest(t: Dual, forward: bool) -> bool:
    """(λq.⟨S₁, …, Sₙ⟩)⋆(λ⟨w₁, …, wₙ⟩.T): from the first item that is not a value
    (unless it is a kept let: rule lift's) on, every item that is not a value lies
    in a component whose variables T does not read (rule 5 drops them)."""
    f, b = t.functional, t.lam.body
    if not (isinstance(f, Lam) and isinstance(f.pat, Tuple) and isinstance(b, Tuple)
            and len(f.pat.items) == len(b.items)):
        return False
    todo = [decompose(s, (), forward) is not None for s in b.items]
    first = next((j for j, s in enumerate(b.items) if todo[j] or kept_let(s)), None)
    if first is None or kept_let(b.items[first]):
        return False
    read = fv(f.body)
    return all(not (set(pattern_vars(f.pat.items[j])) & read)
               for j in range(first, len(b.items)) if not plain(b.items[j]))


def plain(t: Term) -> bool:
    """§3.1: a value by its form -- a variable, numeral, 𝟎, abstraction, or a
    tuple of them."""
    if isinstance(t, (Var, Num, Zero, Lam)):
        return True
    return isinstance(t, Tuple) and all(plain(i) for i in t.items)



def decompose(t: Term, path=(), forward: bool = False):
    """(path, redex, rules) of the unique decomposition t = C[R], or None for a
    value (``forward``: t is reduced in a forward tangent premise).  A node found
    a value stays one (terms are immutable): the check under way remembers it by
    identity, so each step walks what the last one changed, not the whole tree
    (a reverse phase's points and patterns are trees of size n² for n stages)."""
    if isinstance(t, (Var, Num, Zero, Lam)):
        return None
    key = (id(t), forward)
    if _VALUES.get(key) is t:
        return None
    r = _decompose(t, path, forward)
    if r is None:
        _VALUES[key] = t
    return r


_VALUES: dict = {}  # (id, forward) -> a node found a value, for one check_decompositions


def forget() -> None:
    """Start a check: what the decomposer remembers (values, zero vectors) is of one
    check's terms only, and keeps them alive no longer."""
    _VALUES.clear()
    _ZERO.clear()


def _decompose(t: Term, path, forward: bool):
    kids = []
    if isinstance(t, Prim):
        kids = [(("prim", i), a) for i, a in enumerate(t.args)]
    elif isinstance(t, App):
        if names_functional(t) and pb_contractum(t.arg):  # §3.1: let w = A in (λq.S)⋆w
            return path, t, {"A-lift"}
        kids = [(("app-fun", 0), t.fun), (("app-arg", 1), t.arg)]
    elif isinstance(t, (Tuple, Sum)):
        kind = "tuple" if isinstance(t, Tuple) else "sum"
        kids = [((kind, i), a) for i, a in enumerate(t.items)]
    elif isinstance(t, Proj):
        kids = [(("proj", 0), t.arg)]
    elif isinstance(t, Jac):
        if not a_normal(t.lam):
            return a_decompose(t.lam.body, path + (("a-root", 0),), "root", None)
        kids = [(("jac-along", 1), t.along)]
    elif isinstance(t, Dual):
        # (λq.C)⋆V only for V not 𝟎 (then (λq.S)⋆𝟎 is rule 5's redex whatever S is),
        # and not when what is left of S is unread by the functional
        # (the functional's decomposition is found once: a second walk doubled the
        # work at each dual map nested in a functional, 2ᵏ for k of them)
        r = decompose(t.functional, path + (("dual-fun", 1),), forward)
        if r:
            return r
        if kept_let(t.functional):
            return path, t, {"lift"}
        if not (isinstance(t.functional, Zero) or unread_rest(t, forward)):
            kids = [(("dual-body", 0), t.lam.body)]
    elif isinstance(t, Pullback):
        r = decompose(t.fun, path + (("pb-fun", 0),), forward)
        if r:
            return r
        if kept_let(t.fun):
            return path, t, {"lift"}
        if isinstance(t.fun, Lam) and not a_normal(t.fun):
            return a_decompose(t.fun.body, path + (("a-root", 0),), "root", None)
        kids = [(("pb-form", 1), t.form)]
    for frame, kid in kids:
        r = decompose(kid, path + (frame,), forward)
        if r:
            return r
        if frame[0] in LIFT_FRAMES and kept_let(kid):  # a value: a let kept by rule 1
            return path, t, {"lift"}
    if is_let(t) and inert(t.arg):  # let q = I in C: the body first, then rule 1 decides
        r = decompose(t.fun.body, path + (("let-inert", 0),), forward)
        if r:
            return r
    rules = node_rules(t, forward)
    if rules & {"17", "19b"} and declines(t):
        return None
    return (path, t, rules) if rules else None


def a_decompose(t: Term, path, position: str, bound):
    """§4.2 in an A-context: position is root, tail (the body of a let binding
    ``bound``) or bound (the bound term of a let)."""
    if position != "bound" and is_let(t):
        if is_let(t.arg):
            return path, t, {"A-lift"}
        if elementary(t.arg):
            pat = t.fun.pat
            return a_decompose(t.fun.body, path + (("let-body", 0),), "tail",
                               pat.name if isinstance(pat, Var) else None)
        return a_decompose(t.arg, path + (("let-bound", 1),), "bound", None)
    if elementary(t):
        if position == "tail" and not (isinstance(t, Var) and t.name == bound):
            return path, t, {"A-tail"}
        return None
    if is_let(t):
        return None  # a let in bound position: the enclosing let lifts it
    if isinstance(t, App) and is_let(t.fun) and _closure_builder(t.fun):
        return path, t, {"A-lift"}  # (let r = N in M) a, M ending in a λ that computes not
    return path, t, {"A-name"}


def _closure_builder(t: Term) -> bool:
    while is_let(t):
        t = t.fun.body
    return isinstance(t, Lam) and not _computes_with(t)


# ---- the properties -----------------------------------------------------------------------


def derivations(trace, start):
    """(start term, steps, result, forward) of the top-level run and of every
    premise (``forward``: the premise is the forward tangent judgment)."""
    out = []
    stack = [(start, trace, None, False)]
    while stack:
        st_, steps, result, fwd = stack.pop()
        out.append((st_, steps, result, fwd))
        for s in steps:
            for d in s.premises:
                stack.append((d.start, d.steps, d.result, d.forward))
    return out


def check_decompositions(term):
    """At every step of every derivation the naive decomposer finds the
    machine's redex, path and rule; the result of each derivation is a value."""
    r, overlaps = _check(term)
    if overlaps:  # (Hypothesis records events in the test's own thread only)
        event("overlapping rows of the redex table")
    return r


@deep  # (the naive decomposer recurses on the term, as deep as the engine's terms go)
def _check(term):
    overlaps = 0
    forget()
    r = reduce_recorded(term, MAX_STEPS)
    for _start, steps, result, forward in derivations(r.trace, term):
        for s in steps:
            before = s.term_before()
            found = decompose(before, (), forward)
            assert found is not None, (
                f"step {s.index} ({s.rule}): the naive decomposer finds no redex in "
                f"{pc.pretty(before)}")
            path, redex, rules = found
            assert list(path) == s.path(), (
                f"step {s.index} ({s.rule}): machine at {s.path()}, documented contexts "
                f"at {list(path)} ({sorted(rules)}) in {pc.pretty(before)}")
            assert redex is s.redex or redex == s.redex
            assert s.rule in rules, (f"step {s.index}: machine used {s.rule}, the documented "
                                     f"tables give {sorted(rules)} for {pc.pretty(redex)}")
            if len(rules) > 1:
                assert OVERLAPS.get(frozenset(rules)) == s.rule, (
                    f"rules {sorted(rules)} all match {pc.pretty(redex)}")
                overlaps += 1
        value = result if result is not None else r.value
        assert decompose(value, (), forward) is None, f"the value {pc.pretty(value)} has a redex"
    return r, overlaps


@given(S.terms(R, depth=3, budget=15))
@regressions.examples(regressions.CLOSED_REAL + regressions.DECOMPOSITION)
def test_unique_decomposition_closed(t):
    """Closed terms of type ℝ: the machine's decomposition is the documented one."""
    check_decompositions(t)


@settings(max_examples=max(10, settings.default.max_examples // 2))
@given(S.pullback_applications(depth=2, budget=10))
def test_unique_decomposition_pullbacks(t):
    """Pullbacks at a point on a tangent (forward, reverse, premises)."""
    check_decompositions(t)


OPEN = {"x": R, "g": Arrow(R, R), "ω": DualT(R), "φ": Arrow(R, DualT(R)), "v": Prod((R, R))}


@given(st.sampled_from([R, Arrow(R, R), DualT(R), Prod((R, R))]).flatmap(
    lambda ty: S.terms(ty, OPEN, 3, budget=15)))
@regressions.examples(regressions.OPEN_DECOMPOSITION)
def test_unique_decomposition_open(t):
    """Open terms get stuck on their free variables: the stuck shapes are values."""
    check_decompositions(t)


# ---- determinism ----------------------------------------------------------------------------


def fingerprint(trace):
    """Rules and printed contracta, premises included."""
    return [(s.rule, s.path(), pc.pretty(s.contractum),
             [(d.rule, pc.pretty(d.start), fingerprint(d.steps),
               pc.pretty(d.result) if d.result is not None else None) for d in s.premises])
            for s in trace]


def _shared_square() -> Term:
    """Ω(λx. log(1 + g x × g x)) (λx. λw. w) x with one node g x, held twice (the
    thorough profile, 2026-11-29: g is free, so g x stays in the value -- named once
    there, where the printed tree's parse names each copy)."""
    gx = App(Var("g"), Var("x"))
    body = Prim("log", (Prim("add", (Num(1.0), Prim("mul", (gx, gx)))),))
    return App(Pullback(Lam(Var("x"), body), pc.parse("λx. λw. w")), Var("x"))


@example(_shared_square())
@given(st.one_of(S.terms(R, depth=3, budget=20), S.pullback_applications(depth=2, budget=15),
                 S.terms(DualT(R), OPEN, 3, budget=20)))
def test_reduction_is_deterministic(t):
    """Reducing a term twice (the same object, whose cached flags the first run
    set, and a fresh parse of its printed form) gives identical traces.

    A term is a graph: A-name names a node that its redex holds twice once
    (papers/calculus.md §4.2), and printing does not show which nodes are
    shared, so the parse of a term built with a shared compound node is its
    unfolding into a tree, whose trace names each copy (found by the thorough
    profile: ``φ log(1 + π1 v × π1 v)`` with one ``π1 v`` node).  Its value is
    the same for a closed term; an open one's value keeps a stuck shared node
    (``g x``, g free) named once, where the tree names each copy (the thorough
    profile, 2026-11-29): the tree's reduction is then compared with itself."""
    first = reduce_recorded(t, MAX_STEPS)
    again = pc.reduce(t, max_steps=MAX_STEPS, free=OPEN)
    fresh = pc.reduce(pc.parse(pc.pretty(t)), max_steps=MAX_STEPS, free=OPEN)
    assert fingerprint(first.trace) == fingerprint(again.trace)
    assert pc.pretty(first.value) == pc.pretty(again.value)
    if _is_tree(t):
        assert fingerprint(again.trace) == fingerprint(fresh.trace)
        assert pc.pretty(again.value) == pc.pretty(fresh.value)
    else:
        event("a shared compound node: the parse is its tree")
        twice = pc.reduce(pc.parse(pc.pretty(t)), max_steps=MAX_STEPS, free=OPEN)
        assert fingerprint(fresh.trace) == fingerprint(twice.trace)
        assert pc.pretty(fresh.value) == pc.pretty(twice.value)
        if not fv(t):  # (closed: a numeral, whichever nodes are shared)
            assert pc.pretty(again.value) == pc.pretty(fresh.value)


@given(st.one_of(S.terms(R, depth=3, budget=20), S.pullback_applications(depth=2, budget=15)),
       st.sampled_from(("shadow", "engine", "plain")))
def test_renaming_the_binders_changes_no_step(t, style):
    """The rule chosen depends on the term, not on its names: a closed term and the
    same term with every binder renamed -- to fresh names, to names the engine
    generates, or to the names of binders in scope wherever that captures nothing
    (``λx. let x = …``) -- take the same steps, by the same rules, to α-equal values.
    The printed term's parse is reduced: a tree (see above).  (Over user programs,
    ``test_prop_user_programs.py::test_renaming_and_spelling_change_nothing`` found
    rule 18's binder, 8c's run, the tangent premise's inert-chain test and
    substitution's sharing reading a name as a binding, 2026-11-30; over these random
    terms the code before that passes too, 1,000 examples: this one guards the
    calculus' own constructs.)"""
    from pullback_calc.testing.programs import alpha_rename
    t = pc.parse(pc.pretty(t))
    u = alpha_rename(t, style)
    a, b = pc.reduce(t, max_steps=MAX_STEPS), pc.reduce(u, max_steps=MAX_STEPS)
    assert a.steps == b.steps and a.rule_counts == b.rule_counts, (a.steps, b.steps)
    assert alpha_eq(a.value, b.value), (pc.pretty(a.value), pc.pretty(b.value))


@given(S.functions(R, R, depth=2, budget=12), S.functions(Arrow(R, R), R, depth=1, budget=6),
       st.sampled_from(("shadow", "engine", "plain")), st.sampled_from((
           "(λx. ⟨x F, x G⟩ ⊕ ⟨x G, x F⟩)⋆ (λx : ℝ × ℝ. π2 x) H + 1",
           "(λx. ⟨x F, 2 × x G⟩ ⊕ ⟨x G, x F⟩)⋆ (λx : ℝ × ℝ. π1 x) H",
           "(λx. x F ⊕ 3 × x G)⋆ (λx : ℝ. x) H",
           "(λx. ⟨x F ⊕ x F, x G⟩)⋆ (λx : ℝ × ℝ. π1 x ⊕ π2 x) H")))
def test_alpha_equal_atoms_are_one_atom(f, h, style, program):
    """Terms are identified up to α: a covector whose atoms are ``x F`` and
    ``x F′``, F′ the function F with its binders renamed, takes the same steps to
    the same value as the one whose atoms are ``x F`` twice (rules 3 and 5 collect
    them as one atom either way).  th61 drew the first template with F = λy. 1
    and F′ = λx. 1: 9 steps against 8."""
    from pullback_calc.testing.programs import alpha_rename
    g = alpha_rename(f, style)
    if pc.pretty(g) == pc.pretty(f):
        g = alpha_rename(f, "plain")
    assert alpha_eq(f, g) and pc.pretty(f) != pc.pretty(g)

    def program_with(second):
        return pc.parse(program.replace("F", f"({pc.pretty(f)})")
                        .replace("G", f"({pc.pretty(second)})")
                        .replace("H", f"({pc.pretty(h)})"))
    a, b = pc.reduce(program_with(f), max_steps=MAX_STEPS), pc.reduce(program_with(g),
                                                                         max_steps=MAX_STEPS)
    assert a.steps == b.steps and a.rule_counts == b.rule_counts, (a.rule_counts, b.rule_counts)
    assert alpha_eq(a.value, b.value), (pc.pretty(a.value), pc.pretty(b.value))


def _is_tree(t) -> bool:
    """Does no compound node of ``t`` occur twice (as one object)?"""
    seen: set = set()
    stack = [t]
    while stack:
        u = stack.pop()
        kids = u.children()
        if not kids:
            continue
        if id(u) in seen:
            return False
        seen.add(id(u))
        stack.extend(kids)
    return True


# ---- progress and termination ------------------------------------------------------------


CLOSED_TYPES = [R, Prod((R, R)), Arrow(R, R), DualT(R), Arrow(R, DualT(R))]


@given(st.one_of(st.sampled_from(CLOSED_TYPES).flatmap(lambda ty: S.terms(ty, None, 3, budget=20)),
                 S.pullback_applications(depth=2, budget=15),
                 S.higher_order_programs(budget=15).map(lambda p: p[0])))
@regressions.examples(regressions.CLOSED_REAL)
def test_closed_terms_terminate_in_a_value(t):
    """Progress and termination: a closed well-typed term reduces within the
    step budget (no error) to a value, in which the naive decomposer finds no
    redex; at type ℝ the value is a numeral (or 𝟎)."""
    r = reduce_noted(t)
    forget()
    assert decompose(r.value) is None, pc.pretty(r.value)
    if types_equal(pc.typecheck(t), R) and numeral(r.value) is None:
        reject_known_bug(r.value)
        raise AssertionError(f"stuck: {pc.pretty(r.value)}")


def test_the_naive_decomposer_walks_a_nest_of_dual_maps_once(monkeypatch):
    """The decomposer looked at a dual map's functional twice (once to ask whether it
    is a value, once to descend), 2ᵏ calls for k dual maps nested in functionals: the
    thorough profile's user gradients ran for hours.  Its calls now grow linearly."""
    calls = []
    walk = decompose

    def counted(t, path=(), forward=False):
        calls.append(t)
        return walk(t, path, forward)

    monkeypatch.setattr(__import__(__name__), "decompose", counted)

    def nest(k):  # (λv. v × 2)⋆((λv. v × 2)⋆(… ω)): rule 6 at the innermost pair
        t = Var("omega")
        for _ in range(k):
            t = Dual(Lam(Var("v"), Prim("mul", (Var("v"), Num(2.0)))), t)
        return t

    counts = []
    for k in (10, 20):
        calls.clear()
        forget()
        path, _redex, rules = counted(nest(k))
        assert rules == {"6"} and len(path) == k - 2
        counts.append(len(calls))
    assert counts[1] <= 2.2 * counts[0], counts


def test_the_naive_decomposer_reaches_the_depth_of_the_terms():
    """The naive decomposer recurses on the term (two frames a level with its memory):
    the thorough profile drew a user gradient deeper than the interpreter's limit, and
    the check failed with a RecursionError of its own.  It runs as the engine's entry
    points do (pullback_calc.deep): a big stack and a raised limit."""
    t = pc.parse(" + ".join(["1"] * 600))  # ((1 + 1) + …) + 1: 600 levels
    r = check_decompositions(t)
    assert r.value == Num(600.0)
