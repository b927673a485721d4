"""The call-by-value stepper: decompose, contract, record.

Each step splits the term into an evaluation context and a redex (Lemma
3.6), applies the one rule that matches, and records it.  The context is a
persistent linked list of frames (a zipper), and after a contraction the
search for the next redex resumes *at the hole* (refocusing): a step never
re-searches from the root or copies the whole term, and values already
found normal are marked so they are never re-scanned.  Nothing here
recurses on the term's depth.

Evaluation contexts (CBV, left to right), with A-contexts inside the body of
the λ under Ω and J:

    C ::= [] | f(V,…,C,…,P) | C P | V C | ⟨V,…,C,…,P⟩ | πᵢ C | V ⊕ … ⊕ C ⊕ … ⊕ P
        | J(λq.A)·P | J(λq.L)·C | (λq.S)⋆C | (λq.C)⋆V
        | Ω(C) P | Ω(λq.A) P | Ω(λq.L) C | let q = I in C
    A ::= [] | let q = A in S | let q = E in A

((λq.C)⋆V: not for V = 𝟎, and C's hole only in a component of the body that
the functional V reads -- rule 5 drops the others, papers/calculus.md §3.1.
let q = I in C: the body of a let whose bound value I is inert is reduced
first; rule 1 then substitutes I only if that copies no work, and otherwise
the let is kept -- open call-by-value.  A kept let in any other evaluation
position is lifted out of it, rule lift.)
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, Optional, Sequence

from .. import budgets
from ..areduction.anf import a_redex, is_a_normal, is_elementary
from ..errors import ReductionError, StepBudgetExceeded, whole_number
from ..syntax.printer import pretty
from ..syntax.terms import (ANF, NF, SPINE, App, Dual, Jac, Lam, Num, PartialPos, Prim, Proj,
                            Pullback, Sum, Term, Tuple, Var, Zero, fresh_scope, is_let,
                            pattern_vars)
from . import delayed as D
from . import gcpause
from . import linear
from . import rules as R

DEFAULT_MAX_STEPS = 1_000_000

# ---- contexts -------------------------------------------------------------------------

A_KINDS = frozenset({"a-root", "let-bound", "let-body"})
_SCANNED = frozenset({"prim", "tuple", "sum"})  # frames of nodes that remember _scan
LIFT = object()  # _child: the node is a redex of rule lift (a kept let in an evaluated position)
UP = object()  # _child: the node's other children are not evaluated: on to its parent


def names_functional(let: Term) -> bool:
    """Is ``let`` a let w = M in S whose body is (λq.T)⋆w, or let v = (λq.T)⋆w in L:
    the name rule pb gives the functional of a dual map at an open point?  A let
    in its bound position is lifted out before it is reduced (A-lift): the
    forward phase stays a let series, and each inert let leaves it once."""
    if type(let) is not App or type(let.fun) is not Lam:
        return False
    w, b = let.fun.pat, let.fun.body
    if type(b) is App and type(b.fun) is Lam:
        b = b.arg
    return type(b) is Dual and type(b.functional) is Var and type(w) is Var \
        and b.functional.name == w.name


def _series_leaves(ctx: "Ctx", t: Term):
    """t, a let naming a functional, in the hole of let-inert frames ``ctx`` (the
    bodies of a let series): when the series is the bound term of a let that names
    a functional, that let and its new context (the A-lift redex), else None."""
    c = ctx
    while c is not None and c.kind == "let-inert":
        c = c.parent
    if c is None or c.kind != "app-arg" or not names_functional(c.node):
        return None
    while ctx is not c:  # the series, with t in its tail
        t, ctx = _PLUG["let-inert"](ctx.node, 0, t), ctx.parent
    return _PLUG["app-arg"](c.node, 1, t), c.parent


def _ends_in_named_functional(t: Term) -> bool:
    """Is t a let series ending in a let that names a functional: rule pb's
    contractum at an open point (let x = I in … let w = ω Ē in (λp̂. …)⋆w)?"""
    while type(t) is App and type(t.fun) is Lam:
        if names_functional(t):
            return True
        t = t.fun.body
    return False


class Ctx:
    """One frame of the evaluation context and a link to the rest."""
    __slots__ = ("kind", "node", "index", "parent", "h", "_r")

    def __init__(self, kind: str, node: Term, index: int, parent: Optional["Ctx"],
                 hole: Optional[Term] = None):
        self.kind, self.node, self.index, self.parent = kind, node, index, parent
        self.h = self.hole() if hole is None else hole  # what the hole held when made
        # What a trace's reader has learnt of the frame, in one slot (only
        # readers ask, and a reduction makes a frame a step): 0, nothing yet;
        # an int, 2·dd + m where dd = 2·depth + in_dual (0: not known) and m
        # says the frame is its own materialisation (no delayed substitution
        # in it or above it); or the materialised frame, a copy that knows
        # the rest (materialise_ctx).  Depth as an int of its own would take
        # 32 bytes a frame deeper than 256.
        self._r = 0

    def _depth_dual(self) -> int:
        """2·depth + in_dual, from the nearest frame that knows it (iterative:
        contexts can be 100,000 frames deep)."""
        r = self._r
        if type(r) is Ctx:
            return r._depth_dual()  # (a copy of the same shape: same depth and phase)
        if r > 1:
            return r >> 1
        todo, c, dd = [], self, 0  # (above the root: depth 0, outside any dual body)
        while c is not None:
            r = c._r
            if type(r) is Ctx:
                dd = r._depth_dual()  # (a copy's frames know their own: one level)
                break
            if r > 1:
                dd = r >> 1
                break
            todo.append(c)
            c = c.parent
        for f in reversed(todo):
            dd = ((dd >> 1) + 1) << 1 | (dd & 1 or f.kind == "dual-body")
            f._r = dd << 1 | f._r
        return dd

    @property
    def depth(self) -> int:
        """How many frames, this one included."""
        return self._depth_dual() >> 1

    @property
    def in_dual(self) -> bool:
        """Is the hole inside the body of a dual map (λq.C)⋆V (the reverse phase)?"""
        return bool(self._depth_dual() & 1)

    def hole(self) -> Term:
        n, k = self.node, self.kind
        if k == "prim":
            return n.args[self.index]
        if k in ("tuple", "sum"):
            return n.items[self.index]
        if k in ("app-fun", "pb-fun"):
            return n.fun
        if k in ("app-arg", "let-bound", "proj"):
            return n.arg
        if k == "jac-along":
            return n.along
        if k in ("dual-fun", "pb-form"):
            return n.functional if k == "dual-fun" else n.form
        if k == "dual-body":
            return n.lam.body
        if k in ("let-body", "let-inert"):
            return n.fun.body
        return (n.lam if isinstance(n, Jac) else n.fun).body  # a-root

    def plug(self, t: Term) -> Term:
        """The frame's node with its hole filled by t (the node itself if t is
        what was there: values come back unchanged, and sharing is kept)."""
        return self.node if self.h is t else _PLUG[self.kind](self.node, self.index, t)

    def path(self) -> list[tuple[str, int]]:
        """Frames from the root to the hole (computed only when asked)."""
        out = []
        c: Optional[Ctx] = self
        while c is not None:
            out.append((c.kind, c.index))
            c = c.parent
        return out[::-1]


def materialise_ctx(ctx: Optional[Ctx]) -> Optional[Ctx]:
    """The context with every delayed substitution of its frames done (the
    frames the eager machine would have built); ctx itself if it has none.
    Cached on the frames, which steps share (``Ctx._r``)."""
    if ctx is None:
        return None
    if _mat(ctx) is None:
        pending, c = [], ctx
        while c is not None and _mat(c) is None:
            pending.append(c)
            c = c.parent
        for f in reversed(pending):
            parent = _mat(f.parent) if f.parent is not None else None
            node = D.materialise(f.node)
            if node is f.node and parent is f.parent:
                f._r |= 1
            else:
                f._r = m = Ctx(f.kind, node, f.index, parent)
                m._r = 1
    return _mat(ctx)


def _mat(f: Ctx) -> Optional[Ctx]:
    """The frame's materialisation, if worked out already."""
    r = f._r
    return r if type(r) is Ctx else f if r & 1 else None


def plug_all(ctx: Optional[Ctx], t: Term) -> Term:
    while ctx is not None:
        t = ctx.plug(t)
        ctx = ctx.parent
    return t


# A frame's node with its hole (child `i`) filled by t, by the frame's kind: one
# dict look-up instead of a chain of tests (only a changed hole is plugged).

def _plug_prim(n: Prim, i: int, t: Term) -> Term:
    a = n.args
    return Prim(n.op, (t,) if len(a) == 1 else a[:i] + (t,) + a[i + 1:], n.pos)


def _plug_items(n, i: int, t: Term) -> Term:
    a = n.items
    return type(n)(a[:i] + (t,) + a[i + 1:], n.pos)  # (Tuple or Sum)


def _plug_a_root(n, i: int, t: Term) -> Term:
    lam = n.lam if type(n) is Jac else n.fun
    new = Lam(lam.pat, t, lam.ann, lam.pos)
    new._flags |= lam._flags & SPINE
    return Jac(new, n.along, n.pos) if type(n) is Jac else Pullback(new, n.form, n.pos)


def _plug_let_body(n: App, i: int, t: Term) -> Term:
    return App(Lam(n.fun.pat, t, n.fun.ann, n.fun.pos), n.arg, n.pos)


_PLUG = {
    "prim": _plug_prim, "tuple": _plug_items, "sum": _plug_items,
    "app-fun": lambda n, i, t: App(t, n.arg, n.pos),
    "app-arg": lambda n, i, t: App(n.fun, t, n.pos),
    "let-bound": lambda n, i, t: App(n.fun, t, n.pos),
    "proj": lambda n, i, t: Proj(n.index, t, n.pos),
    "jac-along": lambda n, i, t: Jac(n.lam, t, n.pos),
    "dual-fun": lambda n, i, t: Dual(n.lam, t, n.pos),
    "dual-body": lambda n, i, t: Dual(Lam(n.lam.pat, t, n.lam.ann, n.lam.pos), n.functional,
                                      n.pos),
    "pb-fun": lambda n, i, t: Pullback(t, n.form, n.pos),
    "pb-form": lambda n, i, t: Pullback(n.fun, t, n.pos),
    "let-body": _plug_let_body, "let-inert": _plug_let_body,
    "a-root": _plug_a_root,
}


# ---- the trace ------------------------------------------------------------------------

@dataclass
class Derivation:
    """A premise: ``start`` reduces to the value ``result`` by ``steps``.
    ``forward``: the premise is the forward tangent judgment (the chain rule
    7J/8J, papers/calculus.md §3.3), in which D-curry is lazy (18L)."""
    rule: str
    start: Term
    steps: list
    result: Optional[Term] = None
    forward: bool = False


NO_PREMISES: tuple = ()


class Step:
    """One reduction step: rule, redex, contractum, evaluation context,
    premises.  The machine records the terms as it built them -- possibly
    with substitutions still delayed (reduction/delayed.py) -- and the
    redex, contractum and context are the eager terms, built when first
    read."""
    __slots__ = ("index", "rule", "_redex", "_contractum", "_ctx", "_pp")
    _pp: Any  # a list, a string, a pair of both, or NO_PREMISES (see __init__)

    def __init__(self, index: int, rule: str, redex: Term, contractum: Term,
                 ctx: Optional[Ctx], premises: Optional[list] = None,
                 phase_hint: Optional[str] = None):
        self.index, self.rule = index, rule
        self._redex, self._contractum, self._ctx = redex, contractum, ctx
        # the premises and the phase the enclosing premise gives (if any), in
        # one slot -- a step a reduction makes, 8 bytes each: most steps have
        # neither (the shared empty tuple), a list is premises, a string a
        # phase, a pair both
        if premises:
            premises = premises if type(premises) is list else list(premises)
            self._pp = premises if phase_hint is None else (premises, phase_hint)
        else:
            self._pp = NO_PREMISES if phase_hint is None else phase_hint

    @property
    def premises(self) -> Sequence:
        p = self._pp
        if type(p) is list:
            return p
        return p[0] if type(p) is tuple and p else NO_PREMISES

    @property
    def phase_hint(self) -> Optional[str]:
        p = self._pp
        if type(p) is str:
            return p
        return p[1] if type(p) is tuple and p else None

    @property
    def redex(self) -> Term:
        t = self._redex = D.materialise(self._redex)
        return t

    @property
    def contractum(self) -> Term:
        t = self._contractum = D.materialise(self._contractum)
        return t

    @property
    def ctx(self) -> Optional[Ctx]:
        c = self._ctx = materialise_ctx(self._ctx)
        return c

    def __eq__(self, other):
        if not isinstance(other, Step):
            return NotImplemented
        return (self.index, self.rule, self.redex, self.contractum, self.ctx, self.premises,
                self.phase_hint) == (other.index, other.rule, other.redex, other.contractum,
                                     other.ctx, other.premises, other.phase_hint)

    __hash__ = None

    def __repr__(self) -> str:
        return (f"Step(index={self.index!r}, rule={self.rule!r}, redex={self.redex!r}, "
                f"contractum={self.contractum!r}, premises={self.premises!r})")

    @property
    def phase(self) -> str:
        if self.phase_hint is not None:
            return self.phase_hint
        if self.rule.startswith("A-"):
            return "A"
        if self.rule in ("7", "8"):
            return "decompose"
        if self.rule in ("5", "6") or (self._ctx is not None and self._ctx.in_dual):
            return "reverse"
        return "forward"

    @property
    def depth(self) -> int:
        return self._ctx.depth if self._ctx else 0

    def path(self):
        return self._ctx.path() if self._ctx else []

    def term_before(self) -> Term:
        return plug_all(self.ctx, self.redex)

    def term_after(self) -> Term:
        return plug_all(self.ctx, self.contractum)


def _scan(t: Term, items: tuple, lets: bool = False) -> Optional[int]:
    """The index of the first item of a tuple, sum or primitive application
    that is not yet a value -- or, if ``lets``, a value that is a let kept by
    rule 1 (for rule lift) -- None: neither.  ``_scan`` on the node remembers
    how many leading items are known to be neither, so a wide node is not
    rescanned from its first item at every visit."""
    i = start = t._scan
    n = len(items)
    while i < n:
        u = items[i]
        if not u._flags & NF:
            if type(u) not in _LEAVES:
                break
            u._flags |= NF  # a variable, numeral, 𝟎 or λ: a value, no frame needed
        if lets and type(u) is App and type(u.fun) is Lam:  # (rules.kept_let, inline)
            break
        i += 1
    if i != start:
        t._scan = i
    return i if i < n else None


# ---- the machine ----------------------------------------------------------------------

class Machine:
    """Reduces terms to normal form, recording every step (and premise)."""

    def __init__(self, max_steps: int = DEFAULT_MAX_STEPS, record: bool = True,
                 stop_after: Optional[int] = None, verify=None, on_step=None,
                 forward: bool = False):
        self.max_steps = whole_number("max_steps", max_steps)
        if stop_after is not None:
            whole_number("stop_after", stop_after)
        #: called with each step of the main derivation (its premises in it) as it is
        #: taken, instead of keeping it in the trace: a trace streamed to a file
        #: (rendering.json_trace.JsonlTrace) holds one step at a time, not all of them
        self.on_step = on_step
        self.streamed = 0  # steps given to on_step by this reduction
        #: called with (step, premise depth) after every step (``results.verify``:
        #: the step must keep the term's meaning); needs the trace
        self.verify = verify
        self.record = record or verify is not None or on_step is not None
        self.stop_after = stop_after  # stop after this many steps of the main derivation
        self.next_step: Optional[Step] = None  # where it stopped: the next redex, in context
        self.top_steps = 0
        self._level = 0  # how many premises deep the current run is
        self.steps_taken = 0
        self.rule_counts: dict[str, int] = {}
        self._premises: Optional[list] = None
        self._phase: Optional[str] = None  # the phase of the premise being run, if it says
        #: is the innermost tangent premise being run the forward chain rule (7J/8J)?
        #: Rule 18 is then lazy (18L, rules.jac_abstraction).  ``forward``: the whole
        #: reduction is that judgment (jvp's (J(f)·t) V, forward mode by 7J/8J), so a
        #: helper closure's tangent is taken when the helper is applied, not before
        self.in_forward_premise = forward
        #: how to descend into each class of node: without a trace, a Dual's frame
        #: does not keep the functional it descends into (_child_dual_hollow)
        self._child = _CHILD if self.record else _CHILD_UNRECORDED

    # public ------------------------------------------------------------------------
    def reduce(self, term: Term, own_scope: bool = True) -> tuple[Term, list[Step]]:
        """(normal form, trace); ``own_scope=False``: fresh names from the scope the
        caller opened (many reductions of parts of one term, each not walking it)."""
        trace: list[Step] = []
        self.streamed = 0
        with (fresh_scope(term) if own_scope else contextlib.nullcontext()), gcpause.paused():
            try:
                value = self._run(term, trace)
            except StepBudgetExceeded as e:
                e.trace = trace  # the state reached is offered with the error
                raise
        return value, trace

    def _stash(self, e: StepBudgetExceeded, ctx, t: Term, label: str) -> None:
        """Give a budget error the main derivation's state: the term reached and
        the redex it was working on, in its context."""
        if self._level == 0 and getattr(e, "next_step", None) is None:
            e.next_step = Step(self.top_steps, label, t, t, ctx)
            e.term = plug_all(materialise_ctx(ctx), D.materialise(t))

    def premise(self, term: Term, rule: str, keep_trivial: bool = True,
                phase: Optional[str] = None, forward: Optional[bool] = None) -> Term:
        """Run a premise's sub-derivation and attach it to the current step
        (one with no steps only if ``keep_trivial``); ``phase`` labels its
        steps (rule 5's arithmetic is back-propagation: "reverse");
        ``forward`` says whether a tangent premise runs forward (7J/8J) or by
        pullback reductions (None: any other premise, which inherits it)."""
        d = Derivation(rule, term, [])
        outer, outer_phase, outer_forward = self._premises, self._phase, self.in_forward_premise
        self._premises = None
        self._phase = phase or outer_phase
        if forward is not None:
            self.in_forward_premise = forward
        d.forward = self.in_forward_premise
        self._level += 1
        try:
            d.result = self._run(term, d.steps)
        finally:
            self._premises, self._phase = outer, outer_phase
            self.in_forward_premise = outer_forward
            self._level -= 1
        if outer is not None and (d.steps or keep_trivial):
            outer.append(d)
        return d.result

    def tally(self, label: str) -> None:
        """A step of rule ``label`` that a rule took in its premise without
        this loop (rule 5's projections of tuples, unrecorded: rules._projector):
        counted, and held to the budget, as the loop holds its own."""
        taken = self.steps_taken = self.steps_taken + 1
        if taken > self.max_steps:
            raise self._exhausted(label, "in a premise", steps=taken - 1)
        self.rule_counts[label] = self.rule_counts.get(label, 0) + 1

    def _exhausted(self, label: str, where: str, **fields) -> StepBudgetExceeded:
        """The error of a step past the budget: rule ``label`` ``where``."""
        return StepBudgetExceeded(
            f"step budget of {self.max_steps} steps exhausted (next: rule {label} {where}); "
            "raise it with max_steps= or --max-steps", rule=label, **fields)

    # the loop ------------------------------------------------------------------------
    def _run(self, term: Term, trace: list) -> Term:
        # One loop, no recursion, no call and no state tuple for the search
        # itself: descend from t in the hole of ctx to the next redex, or ascend
        # from a value t in the hole of ctx.  After a contraction the search
        # resumes at the hole (refocusing, Danvy & Nielsen): a step's work is its
        # rule's plus the frames it moves by, never a walk from the root.
        child_of, redex_of = self._child, _REDEX
        level, stop_after, record = self._level, self.stop_after, self.record
        counts, max_steps, contract, decided = self.rule_counts, self.max_steps, self._contract, \
            R.Decided
        ctx: Optional[Ctx] = None
        t = term
        ascend = False
        while True:
            label = None
            if not ascend:  # descend: find the next redex inside t
                while True:
                    tt = type(t)
                    if tt is D.Closure:
                        t = D.push(t)
                        tt = type(t)
                    if tt is App and type(t.fun) is Lam and ctx is not None \
                            and ctx.kind == "app-arg" and names_functional(ctx.node) \
                            and _ends_in_named_functional(t):
                        if type(t.fun.body) is D.LetBody:  # (no rule sees a lazy node)
                            t = D.forced_let(t)
                        t, ctx = _PLUG["app-arg"](ctx.node, 1, t), ctx.parent
                        label = "A-lift"  # a let leaves a named functional at once
                        break
                    if tt is App and ctx is not None and ctx.kind == "let-inert" \
                            and names_functional(t):
                        # a contraction in the tail of a let series made it end in a
                        # named functional: if the series is the bound term of one
                        # (let w = (let x = I in … let v = ω Ē in (λp̂.…)⋆v) in (…)⋆w),
                        # it leaves it now, as if it had been written so
                        lifted = _series_leaves(ctx, t)
                        if lifted is not None:
                            t, ctx = lifted
                            label = "A-lift"
                            break
                    if ctx is not None and ctx.kind in A_KINDS:
                        r = self._down_a(ctx, t)
                        if r is None:
                            break
                        if r[0] == "push":
                            ctx, t = r[1], r[2]
                            continue
                        label = r[3]  # (a redex in this very hole)
                        break
                    if t._flags & NF:
                        break
                    if tt in _LEAVES:
                        t._flags |= NF
                        break
                    nxt = child_of[tt](ctx, t)
                    if nxt is None:  # every evaluated child a value: t is a redex, or one
                        label = redex_of[tt](t)
                        if label is None:
                            t._flags |= NF
                        break
                    if nxt is LIFT:
                        label = "lift"
                        break
                    if nxt is UP:  # (not a value: no flag; the parent decides)
                        break
                    ctx, t = nxt
            ascend = False
            if label is None:  # ascend: t is a value (or an A-normal piece) in the hole of ctx
                while True:
                    if ctx is None:
                        return t
                    parent, kind = ctx.parent, ctx.kind
                    node = ctx.node if ctx.h is t else _PLUG[kind](ctx.node, ctx.index, t)
                    if kind in _SCANNED and t._flags & NF and node._scan <= ctx.index \
                            and not (kind == "tuple" and R.kept_let(t)):  # lift looks at it
                        node._scan = ctx.index + 1  # its items up to t are values
                    if kind == "let-body":  # its bound term elementary, its body done:
                        node._flags |= ANF    # an A-normal series (anf.is_let_series)
                        t, ctx = node, parent
                        continue
                    if kind == "let-bound":
                        if is_let(t):
                            ctx, t, label = parent, node, "A-lift"
                        else:
                            ctx, t = Ctx("let-body", node, 0, parent, node.fun.body), node.fun.body
                        break
                    if kind == "a-root":
                        t._flags |= ANF
                    ctx, t = parent, node  # on to the node's next child, or its own redex
                    break
                if label is None:
                    continue
            # a redex t (rule label) in context ctx
            if stop_after is not None and level == 0 and self.top_steps >= stop_after:
                self.next_step = Step(self.top_steps, label, t, t, ctx)
                return plug_all(materialise_ctx(ctx), D.materialise(t))
            taken = self.steps_taken = self.steps_taken + 1  # (premises count theirs in it)
            if taken > max_steps:
                t = D.materialise(t)
                e = self._exhausted(label, f"on {_short(t)}", redex=t,
                                    steps=self.steps_taken - 1,
                                    term=plug_all(materialise_ctx(ctx), t))
                self._stash(e, ctx, t, label)
                raise e
            if budgets.ACTIVE and not taken & 255:  # time and memory (budgets.py)
                budgets.check(lambda: (f" after {self.steps_taken - 1} steps (next: rule "
                                      f"{label} on {_short(D.materialise(t))})", label,
                                      D.materialise(t), self.steps_taken - 1,
                                      plug_all(materialise_ctx(ctx), D.materialise(t))))
            counts[label] = counts.get(label, 0) + 1
            prem: list = []
            outer = self._premises
            self._premises = prem
            try:
                contractum = contract(label, t)
                if type(contractum) is decided:  # (a rule that decided its own label)
                    label, contractum = R.apply_decision(label, contractum, prem, counts)
            except StepBudgetExceeded as e:  # in a premise: the main derivation's state
                self._stash(e, ctx, t, label)
                raise
            except ReductionError as e:
                if e.pos is None:  # point the message at the source, as near as known
                    e.pos = _locate(D.materialise(t), materialise_ctx(ctx))
                    _in_a_derivative(e)
                raise
            except R.Declined:
                self.steps_taken -= 1
                counts[label] -= 1
                if not counts[label]:
                    del counts[label]
                t._flags |= NF  # a value after all: ascend from it (once the
                ascend = True   # finally restored the premises)
                continue
            finally:
                self._premises = outer
            if isinstance(contractum, Term) and contractum.pos is None:
                # (a delayed β contractum, a Closure, has no position of its own)
                # carry the source position on, for run-time error messages (rule
                # 15's partial derivatives: the function symbol they come from)
                pos = t.pos if t.pos is not None or label != "15" else _symbol_pos(t)
                if pos is not None:
                    contractum.pos = pos
            if level == 0:
                self.top_steps += 1
            if record:
                streamed = self.on_step is not None and level == 0
                step = Step(self.streamed if streamed else len(trace), label, t, contractum,
                            ctx, prem, self._phase)
                if streamed:
                    self.streamed += 1
                else:
                    trace.append(step)
                if self.verify is not None:
                    try:
                        self.verify(step, level)
                    except ReductionError as e:
                        if e.pos is None:  # the source position nearest the step
                            e.pos = _locate(D.materialise(t), materialise_ctx(ctx))
                        raise
                if streamed:
                    self.on_step(step)
                    del step  # (kept by no one now: the loop holds no step)
            t = contractum  # and the search goes on from the hole it fills

    def _contract(self, label: str, t: Term):
        """The rule's contractum -- for rule 1 on closed terms, delayed (the same
        term, built as the machine reaches its parts: reduction/delayed.py)."""
        if type(t) is App and type(t.fun) is Lam and type(t.fun.body) is D.LetBody:
            # a let whose body waits is the redex: rule 1 continues the delayed
            # substitution; any other rule (lift, when its bound term is a kept
            # let) looks inside the body, so it is built first -- no rule ever
            # sees a lazy node
            if label == "1":
                delayed = D.beta(t, self._level > 0)
                if delayed is not None:
                    return delayed
            t = D.forced_let(t)
        elif label == "1":
            delayed = D.beta(t, self._level > 0)
            if delayed is not None:
                return delayed
        return R.RULES[label](t, self)

    @staticmethod
    def _redex(t: Term) -> Optional[str]:
        """The rule for t, all of whose evaluated children are values."""
        r = _REDEX.get(type(t))
        if r is None:
            raise AssertionError(type(t))
        return r(t)

    # A-contexts -------------------------------------------------------------------
    @staticmethod
    def _down_a(ctx: Ctx, t: Term):
        """In an A-context hole (the root of a λ's body under Ω or J, a let's
        bound term, a let's body: the position a_redex is told): a redex, a
        frame to push, or None (done here)."""
        kind = ctx.kind
        let = type(t) is App and type(t.fun) is Lam  # (is_let, inline)
        if kind == "let-bound":
            if let:
                return None  # a let in bound position: the enclosing let lifts it
            label = a_redex(t, "bound", None)
        else:
            if kind == "a-root" and t._flags & ANF:
                return None
            if let:
                if t._flags & ANF:  # (a series' suffix, marked A-normal on the way up:
                    return None     # a rule that rebuilt the top shares it)
                arg = t.arg
                if type(arg) is App and type(arg.fun) is Lam:
                    return ("redex", ctx, t, "A-lift")
                if is_elementary(arg):
                    return ("push", Ctx("let-body", t, 0, ctx, t.fun.body), t.fun.body)
                return ("push", Ctx("let-bound", t, 1, ctx, arg), arg)
            if kind == "let-body":
                pat = ctx.node.fun.pat
                label = a_redex(t, "tail", pat.name if type(pat) is Var else None)
            else:
                label = a_redex(t, "root", None)
        return None if label is None else ("redex", ctx, t, label)


# ---- one node's evaluation order and its redex, by the node's class ---------------------

_LEAVES = frozenset({Var, Num, Zero, Lam})


def _child_prim(ctx, t):
    args = t.args
    if len(args) == 1:  # f(P), the usual function symbol: _scan without its loop
        a = args[0]
        if a._flags & NF:
            return None
        if type(a) not in _LEAVES:
            return Ctx("prim", t, 0, ctx, a), a
        a._flags |= NF  # (a leaf: a value, no frame needed)
        return None
    i = _scan(t, args)
    return None if i is None else (Ctx("prim", t, i, ctx, args[i]), args[i])


# (rules.kept_let, a let kept by rule 1, is tested inline below: type(v) is App
# and type(v.fun) is Lam -- a call per child visited is a third of the descent)

def _child_app(ctx, t):
    fun, arg = t.fun, t.arg
    tf = type(fun)
    if not fun._flags & NF:
        if tf not in _LEAVES:
            return Ctx("app-fun", t, 0, ctx, fun), fun
        fun._flags |= NF  # a leaf is a value: marked without a frame
    elif tf is App and type(fun.fun) is Lam:
        return LIFT
    if not arg._flags & NF:
        if type(arg) not in _LEAVES:
            return Ctx("app-arg", t, 1, ctx, arg), arg
        arg._flags |= NF
    elif type(arg) is App and type(arg.fun) is Lam:
        return LIFT
    if tf is Lam and not fun.body._flags & NF and R.is_inert(arg):
        if isinstance(fun.body, D.LetBody):  # its substitution was delayed
            t = D.forced_let(t)
        return Ctx("let-inert", t, 0, ctx), t.fun.body  # rule 1 decides after
    return None


def _child_items(ctx, t):
    tup = type(t) is Tuple
    items = t.items
    i = _scan(t, items, tup)
    if i is None:
        return None
    a = items[i]
    if tup and ctx is not None and ctx.kind == "dual-body" and _unread_from(ctx.node, t, i):
        return UP
    return LIFT if a._flags & NF else (Ctx("tuple" if tup else "sum", t, i, ctx, a), a)


def _child_proj(ctx, t):
    a = t.arg
    if not a._flags & NF:
        return Ctx("proj", t, 0, ctx, a), a
    return LIFT if type(a) is App and type(a.fun) is Lam else None


def _child_jac(ctx, t):
    if not t.lam.body._flags & ANF and not is_a_normal(t.lam.body):
        return Ctx("a-root", t, 0, ctx, t.lam.body), t.lam.body
    a = t.along
    if not a._flags & NF:
        return Ctx("jac-along", t, 1, ctx, a), a
    return LIFT if type(a) is App and type(a.fun) is Lam else None


def _child_dual(ctx, t):
    f = t.functional
    if not f._flags & NF:
        return Ctx("dual-fun", t, 1, ctx, f), f
    tf = type(f)
    if tf is App and type(f.fun) is Lam:
        return LIFT
    if tf is Zero:  # (λv.S)⋆𝟎 is 𝟎 whatever S is: rule 5 without reducing S
        return None
    body = t.lam.body
    if not body._flags & NF:
        if type(body) is Tuple and tf is Lam:
            i = _scan(body, body.items, True)
            if i is not None and _unread_from(t, body, i):
                return None  # rule 5 substitutes the unevaluated items nowhere
        return Ctx("dual-body", t, 0, ctx, body), body
    return None


def _unread_from(d: Dual, body: Tuple, i: int) -> bool:
    """In (λq.⟨S₁, …, Sₙ⟩)⋆(λ⟨w₁, …, wₙ⟩.T), with S₁ … Sᵢ₋₁ values: is every Sⱼ (j ≥ i)
    that is not a plain value (``_value_by_form``: a variable, numeral, 𝟎, abstraction, or a
    tuple of them) in a component wⱼ that T does not read?  Then the map's body is
    done: rule 5 composes T[S/w], which drops those Sⱼ, so they are not reduced
    (dead code; in the reverse phase, the tangent of a stage that no later stage
    reads, computed by a forward premise only to be discarded).  Plain, not "known
    to be a value": whether an item was visited is the history of the reduction,
    and the rule must depend on the term alone (an open application x ⟨1, 1⟩ in a
    read component made the body done or not as the machine had seen it or not)."""
    f = d.functional
    pat = f.pat if type(f) is Lam else None
    items = body.items
    if type(pat) is not Tuple or len(pat.items) != len(items) or items[i]._flags & NF:
        return False  # (a kept let at i is rule lift's)
    names: list = []
    for j in range(i, len(items)):
        if not _value_by_form(items[j]):
            names.extend(pattern_vars(pat.items[j]))
    return not linear.reads(f.body, names)


def _value_by_form(u: Term) -> bool:
    """A variable, numeral, 𝟎, abstraction, or a tuple of them: a value by its form."""
    while True:
        if type(u) in _LEAVES:
            return True
        if type(u) is not Tuple:
            return False
        if not all(_value_by_form(v) for v in u.items[1:]):
            return False
        u = u.items[0]


def _child_pullback(ctx, t):
    fun = t.fun
    if not fun._flags & NF:
        return Ctx("pb-fun", t, 0, ctx, fun), fun
    tf = type(fun)
    if tf is App and type(fun.fun) is Lam:
        return LIFT
    if tf is Lam and not fun.body._flags & ANF and not is_a_normal(fun.body):
        return Ctx("a-root", t, 0, ctx, fun.body), fun.body
    form = t.form
    if not form._flags & NF:
        return Ctx("pb-form", t, 1, ctx, form), form
    return LIFT if type(form) is App and type(form.fun) is Lam else None


#: the hole of a hollow frame: a name no binder binds, printed as a hole
HOLE = Var("□")


def _child_dual_hollow(ctx, t):
    """``_child_dual``, but the frame of the functional is hollow: its node is
    the Dual with the functional replaced by HOLE, so the frame does not keep
    the functional as it was before it reduced.  In the forward phase of a
    gradient every stage's Dual waits on such a frame while the rest of the
    program runs; the old functional (the rest of the pullback chain and the
    image before its arithmetic) would otherwise stay alive to the end.  The
    frame always plugs a new Dual (the same one the full frame would build
    when the functional changed), so the steps are the same; used only when
    no trace is recorded (a trace shows the frames' nodes)."""
    f = t.functional
    if not f._flags & NF:
        return Ctx("dual-fun", Dual(t.lam, HOLE, t.pos), 1, ctx, HOLE), f
    return _child_dual(ctx, t)


_CHILD = {Prim: _child_prim, App: _child_app, Tuple: _child_items, Sum: _child_items,
          Proj: _child_proj, Jac: _child_jac, Dual: _child_dual, Pullback: _child_pullback}


def _redex_prim(t):
    args = t.args
    for a in args:
        if type(a) is Zero:
            return "3"
    for a in args:
        if type(a) is not Num:
            return None
    return "4"


def _redex_proj(t):
    if type(t.arg) is Tuple:
        return "2"
    return "3" if type(t.arg) in (Sum, Zero) else None


def _redex_sum(t):
    return "3" if R.sum_needs_normalizing(t) else None


_CHILD_UNRECORDED = {**_CHILD, Dual: _child_dual_hollow}


_REDEX = {Prim: _redex_prim, App: R.classify_app, Proj: _redex_proj, Sum: _redex_sum,
          Tuple: lambda t: None, Jac: R.classify_jac, Dual: R.classify_dual,
          Pullback: R.classify_pullback}


def _locate(t: Term, ctx: Optional[Ctx]):
    """The source position of a redex: its own or a near subterm's, else its
    nearest enclosing term's that still has one (terms built by rules carry
    none); only computed for an error."""
    todo, seen, first = [t], 0, None
    while seen < len(todo) and seen < 64:
        u = todo[seen]
        seen += 1
        if getattr(u, "pos", None) is not None:
            if isinstance(u, Prim):  # a function symbol, rather than a binder's name
                return u.pos
            first = first or u.pos
        todo.extend(u.children())
    if first is not None:
        return first
    while ctx is not None:
        if getattr(ctx.node, "pos", None) is not None:
            return ctx.node.pos
        ctx = ctx.parent
    return None


def _in_a_derivative(e: ReductionError) -> None:
    """Say so when the operation that failed is part of a partial derivative rule
    15 built (``PartialPos``): ∂sqrt at 0 divides by 0, which the user never wrote."""
    if isinstance(e.pos, PartialPos) and e.rule == "4":
        f = e.pos.symbol
        e.message += (f"; it is part of the derivative of {f} (rule 15's ∂{f}), "
                      f"undefined at this point")
        e.args = (e.message,)


def _symbol_pos(t: App):
    """Rule 15's redex (J(λp. f(…))·P) V: the position of the function
    symbol f, else the nearest one ``_locate`` finds."""
    body = t.fun.lam.body
    return body.pos if type(body) is Prim and body.pos is not None else _locate(t, None)


def _short(t: Term, n: int = 60) -> str:
    try:
        s = pretty(t, limit=n + 1)  # (the prefix only: a term's text can be huge)
    except Exception:  # pragma: no cover
        s = type(t).__name__
    return f"`{s[:n]}{'…' if len(s) > n else ''}`"
