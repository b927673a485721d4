"""Pretty printer: the inverse of the parser, with minimal parentheses.

``parse(pretty(t, unicode=u)) == t`` for every term and both spellings.
``(λq.S) P`` is printed as ``let q = P in S`` (``as_written``, for messages:
unless the user wrote it as an application -- the parser marks it).  Pieces go into one list that
is joined once, so printing is linear; an explicit stack replaces recursion,
so 10,000-deep terms print without touching the recursion limit.
"""
from __future__ import annotations

import contextlib
import contextvars
import math
from typing import Optional

from . import prims
from .terms import (WRITTEN_APP, App, Dual, Jac, Lam, Num, Prim, Proj, Pullback, Sum, Term,
                    Tuple, Var, Zero)
from .types import Type, show_type

__all__ = ["pretty", "pretty_type", "show_num", "folding_env", "folding", "folds", "Printer",
           "precedence", "infix_precedence", "prints_as_let", "as_written"]

# Precedence of what a node prints as; a context asks for at least some level.
LAM, SUM, NEG, APP, PREFIX, ATOM = 0, 1, 30, 50, 60, 70


def pretty_type(ty: Type, unicode: bool = True) -> str:
    return show_type(ty, unicode)


def show_num(v: float) -> str:
    """``2.0`` → ``2``, ``-2.5`` → ``-2.5``, ``1e-05`` as repr gives it.
    (NaN has no literal and prints as ``nan``, which does not read back.)"""
    a = abs(v)
    s = "1e999" if math.isinf(a) else repr(a)  # 1e999 reads back as inf
    if s.endswith(".0"):
        s = s[:-2]
    return "-" + s if math.copysign(1.0, v) < 0 else s


def _is_neg(t: Term) -> bool:
    return isinstance(t, Num) and math.copysign(1.0, t.value) < 0


def infix_precedence(t: Term):
    """The precedence of a Prim printed as an operator; None for f(a, …) spelling.
    ``neg`` of a numeral literal is spelt ``neg(2)``: ``-2`` would read back as Num(-2)."""
    if isinstance(t, Prim) and len(t.args) == prims.ARITY.get(t.op, -1):
        p = prims.SPELLING[t.op][2]
        if p is not None and not (t.op == "neg" and isinstance(t.args[0], Num)
                                  and not _is_neg(t.args[0])):
            return p
    return None


def _prec_prim(t: Term) -> int:
    p = infix_precedence(t)
    return ATOM if p is None else p


def prints_as_let(t: App) -> bool:
    """Does the application print as ``let q = P in S``?  A β-redex ``(λq.S) P``
    does -- in a message (``as_written``) unless the user wrote it as one."""
    return t.fun.__class__ is Lam and not (t._flags & WRITTEN_APP and _WRITTEN.get())


_PREC = {  # by the node's class: renderers ask for every node they print
    Lam: lambda t: LAM,
    App: lambda t: LAM if prints_as_let(t) else APP,
    Sum: lambda t: SUM,
    Num: lambda t: NEG if _is_neg(t) else ATOM,
    Prim: _prec_prim,
    Proj: lambda t: PREFIX, Jac: lambda t: PREFIX, Dual: lambda t: PREFIX,
    Pullback: lambda t: PREFIX,
}


def precedence(t: Term) -> int:
    """The precedence ``t`` prints at (λ and let lowest, atoms highest)."""
    f = _PREC.get(t.__class__)
    return ATOM if f is None else f(t)


def _prefix_minus(t: Term) -> bool:
    return _is_neg(t) or (isinstance(t, Prim) and t.op == "neg" and infix_precedence(t) is not None)


# ---- folding the environment tuples of rule 8 (a display mode) --------------------------

_FOLD: contextvars.ContextVar = contextvars.ContextVar("pullback_calc_fold_env", default=False)
FOLD_AT = 3  # ⟨⟨⟨p, a⟩, b⟩, c⟩ (three levels) and deeper print as ⟨…, c⟩


@contextlib.contextmanager
def folding_env(on: bool = True):
    """Within the block, renders print the left-nested environment tuples that
    rule 8 builds, ⟨⟨⟨p, a⟩, b⟩, c⟩, as ⟨…, c⟩: the newest binding, which is
    what tells one step from the next.  A display mode only: folded text does
    not parse back to the term."""
    token = _FOLD.set(on)
    try:
        yield
    finally:
        _FOLD.reset(token)


def folding() -> bool:
    return _FOLD.get()


def env_depth(t: Term, stop: Optional[int] = None) -> int:
    """How many pairs deep a left-nested tuple ⟨⟨⟨p, a⟩, b⟩, c⟩ is (3 here);
    counting stops at ``stop`` (renderers ask at every tuple: O(1), not O(depth))."""
    n = 0
    while isinstance(t, Tuple) and len(t.items) == 2 and (stop is None or n < stop):
        n += 1
        t = t.items[0]
    return n


def folds(t: Term) -> bool:
    return isinstance(t, Tuple) and env_depth(t, FOLD_AT) >= FOLD_AT


class Printer:
    """The printer's layout, for renderers to reuse (LaTeX, the HTML stepper's table of
    pieces) or to subclass.  ``node`` returns a node's output as a list of strings and sub-tasks
    ``(term, need)`` (``need=None``: a pattern); ``pretty`` runs the tasks
    with an explicit stack, so depth costs no recursion."""

    def __init__(self, unicode: bool):
        self.u = unicode

    def sym(self, uni: str, asc: str) -> str:
        return uni if self.u else asc

    def task(self, t: Term, need: Optional[int]) -> list:
        if need is None:
            return self.pattern(t)
        if precedence(t) < need:
            return ["(", *self.node(t), ")"]
        return self.node(t)

    def operand(self, t: Term, need: int) -> tuple:
        # right operands of binary operators: −x is parenthesised, ``a − (−2)``
        return (t, ATOM if _prefix_minus(t) else need)

    def seq(self, items, need: Optional[int], sep: str = ", ") -> list:
        out: list = []
        for i, it in enumerate(items):
            if i:
                out.append(sep)
            out.append((it, need))
        return out

    def pattern(self, p: Term) -> list:
        if isinstance(p, Var):
            return [p.name]
        assert isinstance(p, Tuple), p
        if _FOLD.get() and folds(p):
            return [self.sym("⟨…, ", "<..., "), (p.items[-1], None), self.sym("⟩", ">")]
        return [self.sym("⟨", "<"), *self.seq(p.items, None), self.sym("⟩", ">")]

    def binder(self, lam: Lam) -> list:
        ann = [] if lam.ann is None else [" : " + show_type(lam.ann, self.u)]
        return [(lam.pat, None), *ann]

    def node(self, t: Term) -> list:
        """The pieces of ``t``: strings, and children as ``(term, need)``."""
        f = _NODE.get(t.__class__)
        if f is None:
            raise TypeError(f"not a term: {type(t).__name__}")
        return f(self, t)

    def _lam(self, t: Lam) -> list:
        return [self.sym("λ", "\\"), *self.binder(t), ". ", (t.body, LAM)]

    def _app(self, t: App) -> list:
        if prints_as_let(t):  # let q = P in S
            lam = t.fun
            assert isinstance(lam, Lam)
            return ["let ", *self.binder(lam), " = ", (t.arg, LAM), " in ", (lam.body, LAM)]
        return [(t.fun, APP), " ", (t.arg, ATOM)]

    def _tuple(self, t: Tuple) -> list:
        sym = self.sym
        if _FOLD.get() and folds(t):
            return [sym("⟨…, ", "<..., "), (t.items[-1], LAM), sym("⟩", ">")]
        return [sym("⟨", "<"), *self.seq(t.items, LAM), sym("⟩", ">")]

    def prim(self, t: Prim) -> list:
        p = infix_precedence(t)
        uni, asc, _ = prims.SPELLING.get(t.op, (t.op, t.op, None))
        op = uni if self.u else asc
        if p is None:  # prefix spelling f(a, …)
            return [t.op + "(", *self.seq(t.args, LAM), ")"]
        if len(t.args) == 1:  # unary minus; −(−x) rather than −−x
            return [op, self.operand(t.args[0], p + 1)]
        if t.op == "pow":  # right-associative; the base is an application
            return [(t.args[0], APP), f" {op} ", self.operand(t.args[1], p)]
        return [(t.args[0], p), f" {op} ", self.operand(t.args[1], p + 1)]  # left-assoc


_NODE = {  # how each class of node prints (a table, as the rules are)
    Var: lambda p, t: [t.name],
    Num: lambda p, t: [show_num(t.value)],
    Zero: lambda p, t: [p.sym("𝟎", "zero")],
    Lam: Printer._lam,
    App: Printer._app,
    Sum: lambda p, t: p.seq(t.items, SUM + 1, p.sym(" ⊕ ", " ++ ")),
    Tuple: Printer._tuple,
    Proj: lambda p, t: [p.sym("π", "pi") + str(t.index) + " ", (t.arg, ATOM)],
    Jac: lambda p, t: ["J(", (t.lam, LAM), p.sym(")·", ") . "), (t.along, ATOM)],
    Dual: lambda p, t: ["(", (t.lam, LAM), p.sym(")⋆ ", ")^* "), (t.functional, ATOM)],
    Pullback: lambda p, t: [p.sym("Ω(", "pullback("), (t.fun, LAM), ") ", (t.form, ATOM)],
    Prim: lambda p, t: p.prim(t),
}


# Messages quote terms as the user wrote them: a β-redex written (λx. S) P stays one.
# Not traces: the reduction rebuilds nodes without the parser's mark, and a term
# would change its spelling from one step to the next.
_WRITTEN = contextvars.ContextVar("pullback_calc_as_written", default=False)


def as_written(t: Term, unicode: bool = True, limit: Optional[int] = None) -> str:
    """``pretty(t)`` for a message: β-redexes the user wrote print as applications."""
    token = _WRITTEN.set(True)
    try:
        return pretty(t, unicode, limit)
    finally:
        _WRITTEN.reset(token)


def pretty(t: Term, unicode: bool = True, limit: Optional[int] = None) -> str:
    """The concrete syntax of ``t`` (Unicode, or ASCII with ``unicode=False``);
    ``limit``: only its first pieces, at least that many characters (the work
    is that of the prefix, however large the term: for messages)."""
    printer = Printer(unicode)
    out: list[str] = []
    stack: list = [(t, LAM)]
    n = 0
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            if limit is not None:
                n += len(item)
                if n >= limit:
                    break
        else:
            stack.extend(reversed(printer.task(*item)))
    return "".join(out)


def _term_repr(t: Term) -> str:  # readable in test failures; never recursive
    try:
        return f"<{type(t).__name__} {pretty(t)}>"
    except Exception:  # pragma: no cover - repr must not raise
        return f"<{type(t).__name__}>"


# Terms print themselves in their concrete syntax (terms.py cannot import this module:
# printing needs the function symbols, prims.py, which build terms)
Term.__str__ = pretty  # type: ignore[method-assign,assignment]
Term.__repr__ = _term_repr  # type: ignore[method-assign,assignment]
