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
        | Ω(C) P | Ω(λq.A) P | Ω(λq.L) C
    A ::= [] | let q = A in S | let q = E in A
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from .. import budgets
from ..areduction.anf import a_redex, is_a_normal, is_elementary
from ..errors import StepBudgetExceeded
from ..syntax.terms import (App, Dual, Jac, Lam, Num, Prim, Proj, Pullback, Sum, Term, Tuple, Var,
                            Zero, fresh_scope, is_let)
from . import gcpause
from . import rules as R

DEFAULT_MAX_STEPS = 1_000_000

# ---- contexts -------------------------------------------------------------------------

A_KINDS = frozenset({"a-root", "let-bound", "let-body"})
_SCANNED = frozenset({"prim", "tuple", "sum"})  # frames of nodes that remember _scan


class Ctx:
    """One frame of the evaluation context and a link to the rest."""
    __slots__ = ("kind", "node", "index", "parent", "depth", "in_dual")

    def __init__(self, kind: str, node: Term, index: int, parent: Optional["Ctx"]):
        self.kind, self.node, self.index, self.parent = kind, node, index, parent
        self.depth = 1 + (parent.depth if parent else 0)
        self.in_dual = kind == "dual-body" or (parent.in_dual if parent else False)

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
        if k == "let-body":
            return n.fun.body
        return (n.lam if isinstance(n, Jac) else n.fun).body  # a-root

    def plug(self, t: Term) -> Term:
        """The frame's node with its hole filled by t (the node itself if t is
        what was there: values come back unchanged, and sharing is kept)."""
        if self.hole() is t:
            return self.node
        n, k = self.node, self.kind
        if k == "prim":
            a = list(n.args); a[self.index] = t
            return Prim(n.op, tuple(a), n.pos)
        if k in ("tuple", "sum"):
            a = list(n.items); a[self.index] = t
            return type(n)(tuple(a), n.pos)
        if k == "app-fun":
            return App(t, n.arg, n.pos)
        if k in ("app-arg", "let-bound"):
            return App(n.fun, t, n.pos)
        if k == "proj":
            return Proj(n.index, t, n.pos)
        if k == "jac-along":
            return Jac(n.lam, t, n.pos)
        if k == "dual-fun":
            return Dual(n.lam, t, n.pos)
        if k == "dual-body":
            return Dual(Lam(n.lam.pat, t, n.lam.ann, n.lam.pos), n.functional, n.pos)
        if k == "pb-fun":
            return Pullback(t, n.form, n.pos)
        if k == "pb-form":
            return Pullback(n.fun, t, n.pos)
        if k == "let-body":
            return App(Lam(n.fun.pat, t, n.fun.ann, n.fun.pos), n.arg, n.pos)
        if k == "a-root":
            lam = n.lam if isinstance(n, Jac) else n.fun
            new = Lam(lam.pat, t, lam.ann, lam.pos)
            for attr in ("_spine",):
                if attr in lam.__dict__:
                    object.__setattr__(new, attr, lam.__dict__[attr])
            return Jac(new, n.along, n.pos) if isinstance(n, Jac) else Pullback(new, n.form, n.pos)
        raise AssertionError(k)

    def path(self) -> list[tuple[str, int]]:
        """Frames from the root to the hole (computed only when asked)."""
        out = []
        c: Optional[Ctx] = self
        while c is not None:
            out.append((c.kind, c.index))
            c = c.parent
        return out[::-1]


def plug_all(ctx: Optional[Ctx], t: Term) -> Term:
    while ctx is not None:
        t = ctx.plug(t)
        ctx = ctx.parent
    return t


# ---- the trace ------------------------------------------------------------------------

@dataclass
class Derivation:
    """A premise: ``start`` reduces to the value ``result`` by ``steps``."""
    rule: str
    start: Term
    steps: list
    result: Optional[Term] = None


@dataclass
class Step:
    index: int
    rule: str
    redex: Term
    contractum: Term
    ctx: Optional[Ctx] = field(repr=False)
    premises: list = field(default_factory=list)
    phase_hint: Optional[str] = field(default=None, repr=False)  # set by the enclosing premise

    @property
    def phase(self) -> str:
        if self.phase_hint is not None:
            return self.phase_hint
        if self.rule.startswith("A-"):
            return "A"
        if self.rule in ("7", "8"):
            return "decompose"
        if self.rule in ("5", "6") or (self.ctx is not None and self.ctx.in_dual):
            return "reverse"
        return "forward"

    @property
    def depth(self) -> int:
        return self.ctx.depth if self.ctx else 0

    def path(self):
        return self.ctx.path() if self.ctx else []

    def term_before(self) -> Term:
        return plug_all(self.ctx, self.redex)

    def term_after(self) -> Term:
        return plug_all(self.ctx, self.contractum)


def _mark(t: Term) -> Term:
    object.__setattr__(t, "_nf", True)
    return t


def _nf(t: Term) -> bool:
    return "_nf" in t.__dict__


def _scan(t: Term, items: tuple) -> Optional[int]:
    """The index of the first item of a tuple, sum or primitive application
    that is not yet a value (None: all are).  ``_scan`` on the node remembers
    how many leading items are known to be values, so a wide node is not
    rescanned from its first item at every visit."""
    start = t.__dict__.get("_scan", 0)
    for i in range(start, len(items)):
        if "_nf" not in items[i].__dict__:
            if i != start:
                object.__setattr__(t, "_scan", i)
            return i
    if start != len(items):
        object.__setattr__(t, "_scan", len(items))
    return None


# ---- the machine ----------------------------------------------------------------------

class Machine:
    """Reduces terms to normal form, recording every step (and premise)."""

    def __init__(self, max_steps: int = DEFAULT_MAX_STEPS, record: bool = True):
        self.max_steps = max_steps
        self.record = record
        self.steps_taken = 0
        self.rule_counts: dict[str, int] = {}
        self._premises: Optional[list] = None
        self._phase: Optional[str] = None  # the phase of the premise being run, if it says

    # public ------------------------------------------------------------------------
    def reduce(self, term: Term) -> tuple[Term, list[Step]]:
        trace: list[Step] = []
        with fresh_scope(term), gcpause.paused():
            value = self._run(term, trace)
        return value, trace

    def premise(self, term: Term, rule: str, keep_trivial: bool = True,
                phase: Optional[str] = None) -> Term:
        """Run a premise's sub-derivation and attach it to the current step
        (one with no steps only if ``keep_trivial``); ``phase`` labels its
        steps (rule 5's arithmetic is back-propagation: "reverse")."""
        d = Derivation(rule, term, [])
        outer, outer_phase = self._premises, self._phase
        self._premises = None
        self._phase = phase or outer_phase
        try:
            d.result = self._run(term, d.steps)
        finally:
            self._premises, self._phase = outer, outer_phase
        if outer is not None and (d.steps or keep_trivial):
            outer.append(d)
        return d.result

    # the loop ------------------------------------------------------------------------
    def _run(self, term: Term, trace: list) -> Term:
        # one loop, no recursion: _down/_up return the next instruction
        state = ("down", None, term, None)
        while True:
            kind, ctx, t, label = state
            if kind == "down":
                state = self._down(ctx, t)
                continue
            if kind == "up":
                state = self._up(ctx, t)
                continue
            if kind == "done":
                return t
            # a redex t (rule label) in context ctx
            self.steps_taken += 1
            if self.steps_taken > self.max_steps:
                raise StepBudgetExceeded(
                    f"step budget of {self.max_steps} steps exhausted (next: rule {label} on "
                    f"{_short(t)}); raise it with max_steps= or --max-steps",
                    rule=label, redex=t, steps=self.steps_taken - 1, term=plug_all(ctx, t))
            if budgets.ACTIVE and not self.steps_taken & 255:  # time and memory (budgets.py)
                budgets.check(lambda: (f" after {self.steps_taken - 1} steps (next: rule "
                                      f"{label} on {_short(t)})", label, t,
                                      self.steps_taken - 1, plug_all(ctx, t)))
            self.rule_counts[label] = self.rule_counts.get(label, 0) + 1
            prem: list = []
            outer = self._premises
            self._premises = prem
            try:
                label, contractum = R.apply_decision(label, R.RULES[label](t, self), prem,
                                             self.rule_counts)
            except R.Declined:
                self.steps_taken -= 1
                self.rule_counts[label] -= 1
                if not self.rule_counts[label]:
                    del self.rule_counts[label]
                state = ("up", ctx, _mark(t), None)
                continue
            finally:
                self._premises = outer
            if self.record:
                trace.append(Step(len(trace), label, t, contractum, ctx, prem, self._phase))
            state = ("down", ctx, contractum, None)

    # descending: find the next redex inside t --------------------------------------
    def _down(self, ctx: Optional[Ctx], t: Term):
        while True:
            if ctx is not None and ctx.kind in A_KINDS:
                r = self._down_a(ctx, t)
                if r is None:
                    return ("up", ctx, t, None)
                if r[0] == "push":
                    ctx, t = r[1], r[2]
                    continue
                return r
            if _nf(t):
                return ("up", ctx, t, None)
            if isinstance(t, (Var, Num, Zero, Lam)):
                return ("up", ctx, _mark(t), None)
            nxt = self._child(ctx, t)
            if nxt is not None:
                ctx, t = nxt
                continue
            label = self._redex(t)
            if label is not None:
                return ("redex", ctx, t, label)
            return ("up", ctx, _mark(t), None)

    def _child(self, ctx, t):
        """The first child of t still to evaluate, as (frame, child), or None."""
        if isinstance(t, Prim):
            i = _scan(t, t.args)
            return None if i is None else (Ctx("prim", t, i, ctx), t.args[i])
        if isinstance(t, App):
            if not _nf(t.fun):
                return Ctx("app-fun", t, 0, ctx), t.fun
            if not _nf(t.arg):
                return Ctx("app-arg", t, 1, ctx), t.arg
            return None
        if isinstance(t, (Tuple, Sum)):
            i = _scan(t, t.items)
            return None if i is None else (
                Ctx("tuple" if isinstance(t, Tuple) else "sum", t, i, ctx), t.items[i])
        if isinstance(t, Proj):
            return None if _nf(t.arg) else (Ctx("proj", t, 0, ctx), t.arg)
        if isinstance(t, Jac):
            if not is_a_normal(t.lam.body):
                return Ctx("a-root", t, 0, ctx), t.lam.body
            if not _nf(t.along):
                return Ctx("jac-along", t, 1, ctx), t.along
            return None
        if isinstance(t, Dual):
            if not _nf(t.functional):
                return Ctx("dual-fun", t, 1, ctx), t.functional
            if not _nf(t.lam.body):
                return Ctx("dual-body", t, 0, ctx), t.lam.body
            return None
        if isinstance(t, Pullback):
            if not _nf(t.fun):
                return Ctx("pb-fun", t, 0, ctx), t.fun
            if isinstance(t.fun, Lam) and not is_a_normal(t.fun.body):
                return Ctx("a-root", t, 0, ctx), t.fun.body
            if not _nf(t.form):
                return Ctx("pb-form", t, 1, ctx), t.form
            return None
        raise AssertionError(type(t))

    @staticmethod
    def _redex(t: Term) -> Optional[str]:
        """The rule for t, all of whose evaluated children are values."""
        if isinstance(t, Prim):
            if any(isinstance(a, Zero) for a in t.args):
                return "3"
            return "4" if all(isinstance(a, Num) for a in t.args) else None
        if isinstance(t, App):
            return R.classify_app(t)
        if isinstance(t, Proj):
            if isinstance(t.arg, Tuple):
                return "2"
            return "3" if isinstance(t.arg, (Sum, Zero)) else None
        if isinstance(t, Sum):
            return "3" if R.sum_needs_normalizing(t) else None
        if isinstance(t, Tuple):
            return None
        if isinstance(t, Jac):
            return R.classify_jac(t)
        if isinstance(t, Dual):
            return R.classify_dual(t)
        if isinstance(t, Pullback):
            return R.classify_pullback(t)
        raise AssertionError(type(t))

    # A-contexts -------------------------------------------------------------------
    @staticmethod
    def _position(ctx: Ctx) -> tuple[str, Optional[str]]:
        if ctx.kind == "let-bound":
            return "bound", None
        if ctx.kind == "let-body":
            pat = ctx.node.fun.pat
            return "tail", pat.name if isinstance(pat, Var) else None
        return "root", None

    def _down_a(self, ctx: Ctx, t: Term):
        """In an A-context hole: a redex, a frame to push, or None (done here)."""
        position, bound = self._position(ctx)
        if position == "root" and "_anf" in t.__dict__:
            return None
        if is_let(t) and position != "bound":
            if is_let(t.arg):
                return ("redex", ctx, t, "A-lift")
            if is_elementary(t.arg):
                return ("push", Ctx("let-body", t, 0, ctx), t.fun.body)
            return ("push", Ctx("let-bound", t, 1, ctx), t.arg)
        if is_let(t):
            return None  # a let in bound position: the enclosing let lifts it
        label = a_redex(t, position, bound)
        return None if label is None else ("redex", ctx, t, label)

    # ascending: t is a value (or an A-normal piece) in the hole of ctx ------------------
    def _up(self, ctx: Optional[Ctx], t: Term):
        while True:
            if ctx is None:
                return ("done", None, t, None)
            parent, kind = ctx.parent, ctx.kind
            node = ctx.plug(t)
            if kind in _SCANNED and "_nf" in t.__dict__ \
                    and node.__dict__.get("_scan", 0) <= ctx.index:
                object.__setattr__(node, "_scan", ctx.index + 1)  # its items up to t are values
            if kind == "let-body":
                t, ctx = node, parent
                continue
            if kind == "let-bound":
                if is_let(t):
                    return ("redex", parent, node, "A-lift")
                return ("down", Ctx("let-body", node, 0, parent), node.fun.body, None)
            if kind == "a-root":
                object.__setattr__(t, "_anf", True)
            return ("down", parent, node, None)


def _short(t: Term, n: int = 60) -> str:
    try:
        s = str(t)
    except Exception:  # pragma: no cover
        s = type(t).__name__
    return f"`{s[:n]}{'…' if len(s) > n else ''}`"
