"""Terms as one shared table of printer pieces, for a page that prints them itself.

A trace's steps share most of their subterms, so instead of printing every
step's redex, contractum and context (the cost of text renderers), a renderer
can write each node once -- as the pretty printer's pieces for it -- and let
the reader print what it shows.  The HTML stepper does this in the browser:
it prints only the rows in view and the current step.

``TermTable(unicode)``:

* ``node(t)`` → the index of ``t`` in ``N``.  ``N[k]`` is
  ``[prec, folds, piece, …]``: ``prec`` the precedence ``t`` prints at
  (syntax/printer.py: it needs parentheses where a context asks for more),
  ``folds`` 1 if ``t`` is an environment tuple that folds (⟨…, c⟩), and
  the pieces of ``printer.node(t)`` unfolded: a string, or a child as two
  numbers, its index and the precedence it is printed at (-1: a pattern).
  Variables, numerals and 𝟎 are entered once per spelling.
* ``frame(ctx)`` → the index of an evaluation-context frame in ``F`` (-1 for
  none).  ``F[k]`` is ``[left, right, need, prec, parent, folds]``: the
  frame's pieces on either side of the hole (``text.frame_parts``, unfolded,
  in the encoding above), the precedence the hole is printed at (-1: none),
  the precedence of the frame's node, the index of the enclosing frame, and
  1 if folded the frame shows as ``⟨…, `` hole ``⟩`` (an environment tuple,
  the hole its last item: ``text.folds_at_hole``); or None where the hole
  cannot be shown (the context stops there).

Printing entry ``k`` at precedence ``need`` is the printer's ``task``:
parentheses if ``prec < need``, then the pieces, children printed at theirs
(a pattern's children as patterns); folded, a tuple with ``folds`` prints as
``⟨…, `` last item ``⟩``.  The table grows with the distinct nodes the steps
show -- linear in the steps of a reduction -- and each is entered in O(its
pieces).
"""
from __future__ import annotations

from ..syntax.printer import Printer, folding, folding_env, folds, precedence
from ..syntax.terms import Num, Tuple, Var, Zero
from .text import folds_at_hole, frame_parts

__all__ = ["TermTable", "text"]

_LEAVES = (Var, Num, Zero)


class TermTable:
    def __init__(self, unicode: bool = True):
        self.unicode = unicode
        self._printer = Printer(unicode)
        self.N: list = []
        self.F: list = []
        self._ids: dict = {}     # id(node) → index (the node is kept in _kept: ids stay unique)
        self._kept: list = []
        self._leaves: dict = {}  # a leaf's text → index
        self._frames: dict = {}  # id(frame) → index
        self._kept_frames: list = []

    def node(self, t) -> int:
        """The index of ``t`` (entered with every node under it not yet in the table)."""
        k = self._ids.get(id(t))
        if k is not None:
            return k
        if folding():  # the pieces are the unfolded ones (the reader folds)
            with folding_env(False):
                return self._enter(t)
        return self._enter(t)

    def _enter(self, t) -> int:
        todo: list = []
        root = self._reserve(t, todo)
        ids, N, node, reserve, kept = self._ids, self.N, self._printer.node, self._reserve, \
            self._kept
        while todo:
            u, j = todo.pop()
            entry = N[j] = [precedence(u), 1 if u.__class__ is Tuple and folds(u) else 0]
            for x in node(u):
                if x.__class__ is str:
                    entry.append(x)
                    continue
                c, need = x
                k = ids.get(id(c))
                if k is None:
                    if c.__class__ in _LEAVES:
                        k = reserve(c, todo)
                    else:  # (reserve's other half, inline: most new nodes are here)
                        k = ids[id(c)] = len(N)
                        N.append(None)
                        todo.append((c, k))
                        kept.append(c)
                entry.append(k)
                entry.append(-1 if need is None else need)
        return root

    def _reserve(self, t, todo: list) -> int:
        """The index of a node not yet in the table: a leaf's entry (one per text:
        x is x wherever it occurs), or a place for t's, t put on ``todo``."""
        N = self.N
        if t.__class__ in _LEAVES:
            text = t.name if t.__class__ is Var else self._printer.node(t)[0]
            k = self._leaves.get(text)
            if k is None:
                k = self._leaves[text] = len(N)
                N.append([precedence(t), 0, text])
        else:
            k = len(N)
            N.append(None)
            todo.append((t, k))
        self._ids[id(t)] = k
        self._kept.append(t)
        return k

    def _pieces(self, parts: list) -> list:
        out: list = []
        for x in parts:
            if x.__class__ is str:
                out.append(x)
            else:
                c, need = x
                out.append(self.node(c))
                out.append(-1 if need is None else need)
        return out

    def frame(self, ctx) -> int:
        """The index of the frame ``ctx`` (entered with the frames around it); -1 for None."""
        if folding():  # unfolded pieces, as for nodes (frame_parts folds when asked to)
            with folding_env(False):
                return self.frame(ctx)
        frames = self._frames
        chain = []
        c = ctx
        while c is not None and id(c) not in frames:
            chain.append(c)
            c = c.parent
        parent = -1 if c is None else frames[id(c)]
        for f in reversed(chain):
            got = frame_parts(f, self.unicode)
            k = len(self.F)
            if got is None:
                self.F.append(None)
            else:
                left, right, need = got
                self.F.append([self._pieces(left), self._pieces(right),
                               -1 if need is None else need, precedence(f.node), parent,
                               1 if folds_at_hole(f) else 0])
            frames[id(f)] = parent = k
            self._kept_frames.append(f)
        return parent


def text(N: list, k: int) -> str:
    """Entry ``k`` of a table ``N`` printed whole and unfolded: the term's
    ``pretty`` text (for readers of a JSON trace with ``terms="table"``)."""
    out: list[str] = []
    stack: list = [(k, 0)]
    while stack:
        x = stack.pop()
        if x.__class__ is str:
            out.append(x)
            continue
        k, need = x
        e, parts, i = N[k], [], 2
        while i < len(e):
            if e[i].__class__ is str:
                parts.append(e[i])
                i += 1
            else:  # a pattern's children are patterns
                parts.append((e[i], None if need is None or e[i + 1] < 0 else e[i + 1]))
                i += 2
        if need is not None and e[0] < need:
            parts = ["(", *parts, ")"]
        stack.extend(reversed(parts))
    return "".join(out)
