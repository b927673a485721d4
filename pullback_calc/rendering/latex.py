"""Traces as LaTeX: a derivation to paste into a paper, or a standalone document.

    trace_to_latex(trace, standalone=False)   # a fragment: needs no package
    trace_to_latex(trace, standalone=True)    # \\documentclass{article} … \\end{document}
    term_to_latex(term)                       # one term, in math mode

One step per paragraph: its number, its rule label as in the paper
(``(16b)``, ``(pb)``, ``(A-name)``), then ``redex \\to contractum`` in inline
math, so long terms break across lines (after operators, commas, binders and
applications: ``\\allowbreak``) and long traces across pages.  Premises
follow their step, indented, as ``\\vdash`` premise (18): ``start \\Downarrow
result`` with their own steps below.  A heading marks each change of phase.

Terms use the usual macros (``\\lambda``, ``\\langle … \\rangle``, ``\\oplus``,
``\\mathbf{0}``, ``\\pi_{i}``, ``\\mathrm{J}(…)\\cdot``, ``(…)^{\\star}``,
``\\Omega``, ``\\times``, ``x^{2}``, ``\\sin``, ``\\mathbf{let}`` …); names
such as ``add_2`` become ``\\mathit{add}_{2}``.  The output is pure ASCII and
compiles with plain LaTeX (the fragment uses no package; a type annotation
on a binder uses ``\\mathbb`` from amssymb, which the standalone document
loads).  Terms longer than ``max_term`` characters are abbreviated around a
``\\dots``.
"""
from __future__ import annotations

import re
import unicodedata
from typing import Iterable, Optional

from ..syntax.printer import (APP, ATOM, LAM, SUM, Printer, folding, folding_env, folds,
                              infix_precedence, precedence, prints_as_let, show_num)
from ..syntax.terms import App, Dual, Jac, Lam, Num, Prim, Proj, Pullback, Sum, Term, Tuple, Var, \
    Zero
from ..syntax.types import Arrow, DualT, Prod, Real, TVar, Type
from ..reduction.gcpause import paused
from .text import PHASES, cap_steps, frame_parts, omitted_note, select_steps, ticker, walk

__all__ = ["trace_to_latex", "term_to_latex", "type_to_latex", "tex_escape", "step_to_latex",
           "context_to_latex", "FUNCTIONS"]

_GREEK = {
    "alpha": r"\alpha", "beta": r"\beta", "gamma": r"\gamma", "delta": r"\delta",
    "epsilon": r"\epsilon", "zeta": r"\zeta", "eta": r"\eta", "theta": r"\theta",
    "iota": r"\iota", "kappa": r"\kappa", "lamda": r"\lambda", "mu": r"\mu", "nu": r"\nu",
    "xi": r"\xi", "omicron": "o", "pi": r"\pi", "rho": r"\rho", "final sigma": r"\varsigma",
    "sigma": r"\sigma", "tau": r"\tau", "upsilon": r"\upsilon", "phi": r"\phi", "chi": r"\chi",
    "psi": r"\psi", "omega": r"\omega",
}
_GREEK_CAPITAL = {"gamma", "delta", "theta", "lamda", "xi", "pi", "sigma", "upsilon", "phi",
                  "psi", "omega"}

PHASE_TITLES = {
    "A": "A-reduction: naming every intermediate result",
    "decompose": "decompose: one pullback per elementary term (rules 7, 8)",
    "forward": "forward phase: evaluating at the point",
    "reverse": "reverse phase: pulling the covector back",
}


def _char(c: str, math: bool) -> str:
    """One character as ASCII TeX (math mode if ``math``)."""
    if c.isascii():
        return c
    try:
        name = unicodedata.name(c).lower()
    except ValueError:
        name = ""
    m = re.fullmatch(r"greek (small|capital) letter (.+)", name)
    if m:
        small, key = m[1] == "small", m[2]
        if key in _GREEK:
            tex = _GREEK[key]
            if not small:
                tex = tex[0] + tex[1].upper() + tex[2:] if key in _GREEK_CAPITAL else \
                    key[0].upper()
            return tex + " " if math else f"${tex}$"
    known = {"ℝ": r"\mathbb{R}", "⟶": r"\longrightarrow", "→": r"\to", "⊕": r"\oplus",
             "⟨": r"\langle", "⟩": r"\rangle", "⋆": r"\star", "×": r"\times", "−": "-",
             "·": r"\cdot", "…": r"\dots", "𝟎": r"\mathbf{0}", "Ω": r"\Omega", "⊢": r"\vdash",
             "⇓": r"\Downarrow", "λ": r"\lambda"}
    sub = re.fullmatch(r"(subscript|superscript) "
                       r"(zero|one|two|three|four|five|six|seven|eight|nine)", name)
    if sub:
        d = "_" if sub[1] == "subscript" else "^"
        digit = str(["zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
                     "nine"].index(sub[2]))
        return f"{d}{{{digit}}}" if math else f"${d}{{{digit}}}$"
    if c in known:
        return known[c] + " " if math else f"${known[c]}$"
    return "?"


def tex_escape(s: str) -> str:
    """Text (not math) as ASCII LaTeX: specials escaped, Greek and symbols as math."""
    out = []
    for c in s:
        if c in "&%$#_{}":
            out.append("\\" + c)
        elif c == "\\":
            out.append(r"\textbackslash{}")
        elif c == "^":
            out.append(r"\^{}")
        elif c == "~":
            out.append(r"\~{}")
        else:
            out.append(_char(c, math=False))
    return "".join(out)


def tex_name(name: str) -> str:
    """A variable name in math mode: ``x``, ``x_{1}``, ``\\mathit{add}_{2}``, ``\\omega``."""
    m = re.fullmatch(r"(.*?[^\d_])_?(\d+)", name)
    base, sub = (m[1], m[2]) if m else (name, None)
    chars = "".join("\\_" if c == "_" else _char(c, math=True) for c in base).strip()
    body = chars if len(base) == 1 else r"\mathit{" + chars + "}"
    return body + ("" if sub is None else "_{" + sub + "}")


def tex_num(v: float) -> str:
    s = show_num(v)
    if s in ("1e999", "-1e999"):
        return r"\infty" if s[0] != "-" else r"{-\infty}"
    if s == "nan":
        return r"\mathrm{nan}"
    neg = s.startswith("-")
    s = s.lstrip("-")
    if "e" in s:
        mant, exp = s.split("e")
        s = rf"{mant}\mathrm{{e}}{{{exp}}}"
    return "{-" + s + "}" if neg else s


def type_to_latex(t: Type) -> str:
    names: dict = {}

    def go(t: Type, prec: int) -> str:
        if isinstance(t, Real):
            return r"\mathbb{R}"
        if isinstance(t, TVar):
            names.setdefault(t.id, len(names))
            return rf"\tau_{{{names[t.id]}}}"
        if isinstance(t, DualT):
            return go(t.of, 3) + r"^{\star}"
        if isinstance(t, Prod):
            s = r" \times ".join(go(i, 2) for i in t.items)
            return f"({s})" if prec > 1 else s
        if isinstance(t, Arrow):
            s = f"{go(t.dom, 1)} \\to {go(t.cod, 0)}"
            return f"({s})" if prec > 0 else s
        return "?"
    return go(t, 0)


# function symbols spelt as LaTeX operators (registry.py adds the registered ones)
FUNCTIONS = {"sin": r"\sin", "cos": r"\cos", "tan": r"\tan", "exp": r"\exp", "log": r"\log",
             "tanh": r"\tanh"}
_OPS = {"add": "+", "sub": "-", "mul": r"\times", "div": "/", "neg": "-"}
_COMMA = r",\allowbreak\, "


class _TeXPrinter(Printer):
    """The pretty printer's layout with LaTeX pieces (same precedences)."""

    def __init__(self):
        super().__init__(False)

    def pattern(self, p: Term) -> list:
        if isinstance(p, Var):
            return [tex_name(p.name)]
        assert isinstance(p, Tuple), p
        if folding() and folds(p):  # an environment tuple of rule 8: ⟨…, c⟩
            return [r"\langle \dots" + _COMMA, (p.items[-1], None), r"\rangle "]
        return [r"\langle ", *self.seq(p.items, None, _COMMA), r"\rangle "]

    def binder(self, lam: Lam) -> list:
        ann = [] if lam.ann is None else [r"\,{:}\," + type_to_latex(lam.ann)]
        return [(lam.pat, None), *ann]

    def node(self, t: Term) -> list:
        if isinstance(t, Var):
            return [tex_name(t.name)]
        if isinstance(t, Num):
            return [tex_num(t.value)]
        if isinstance(t, Zero):
            return [r"\mathbf{0}"]
        if isinstance(t, Lam):
            return [r"\lambda ", *self.binder(t), r".\allowbreak\, ", (t.body, LAM)]
        if isinstance(t, App) and prints_as_let(t):
            lam = t.fun
            assert isinstance(lam, Lam)
            return [r"\mathbf{let}\ ", *self.binder(lam), " = ", (t.arg, LAM),
                    r"\allowbreak\ \mathbf{in}\ ", (lam.body, LAM)]
        if isinstance(t, App):
            return [(t.fun, APP), r"\allowbreak\;", (t.arg, ATOM)]
        if isinstance(t, Sum):
            return self.seq(t.items, SUM + 1, r" \oplus ")
        if isinstance(t, Tuple):
            if folding() and folds(t):
                return [r"\langle \dots" + _COMMA, (t.items[-1], LAM), r"\rangle "]
            return [r"\langle ", *self.seq(t.items, LAM, _COMMA), r"\rangle "]
        if isinstance(t, Proj):
            return [rf"\pi_{{{t.index}}}\,", (t.arg, ATOM)]
        if isinstance(t, Jac):
            return [r"\mathrm{J}(", (t.lam, LAM), r")\cdot ", (t.along, ATOM)]
        if isinstance(t, Dual):
            return ["(", (t.lam, LAM), r")^{\star}\allowbreak\,", (t.functional, ATOM)]
        if isinstance(t, Pullback):
            return [r"\Omega(", (t.fun, LAM), r")\allowbreak\;", (t.form, ATOM)]
        if isinstance(t, Prim):
            return self.prim(t)
        raise TypeError(f"not a term: {type(t).__name__}")

    def prim(self, t: Prim) -> list:
        p = infix_precedence(t)
        if p is None:
            name = FUNCTIONS.get(t.op, r"\mathrm{" + tex_escape(t.op) + "}")
            return [name + "(", *self.seq(t.args, LAM, _COMMA), ")"]
        if len(t.args) == 1:
            return ["-", self.operand(t.args[0], p + 1)]
        if t.op == "pow":  # x^{e}: a non-atomic base in parentheses
            return [(t.args[0], ATOM), "^{", (t.args[1], LAM), "}"]
        return [(t.args[0], p), f" {_OPS.get(t.op, t.op)} ", self.operand(t.args[1], p + 1)]


_PRINTER = _TeXPrinter()
_ZERO_WIDTH = re.compile(r"\\(allowbreak|mathit|mathrm|mathbf|[,;!: ])")
_MACRO = re.compile(r"\\[A-Za-z]+")
_WIDTHS: dict[str, int] = {}


def _width(piece: str) -> int:
    """About how many characters a piece shows (for abbreviating)."""
    w = _WIDTHS.get(piece)
    if w is None:
        s = _MACRO.sub("x", _ZERO_WIDTH.sub("", piece))
        w = _WIDTHS[piece] = len(re.sub(r"[{}\s^_]", "", s))
    return w


def _braces(piece: str) -> int:
    return piece.count("{") - piece.count("}") - piece.count("\\{") + piece.count("\\}")


_TASKS: dict = {}  # id(node) → (node, need, folding, its pieces): steps share their nodes
_TASKS_CAP = 50_000


def _task(t: Term, need) -> list:
    """``_PRINTER.task(t, need)``, kept for the next step that prints ``t`` (a
    trace's consecutive steps share most of their subterms); bounded: emptied
    when full.  The node is kept alongside, so a key is never a recycled id."""
    fold = folding()
    e = _TASKS.get(id(t))
    if e is not None and e[0] is t and e[1] == need and e[2] == fold:
        return e[3]
    parts = _PRINTER.task(t, need)
    if len(_TASKS) >= _TASKS_CAP:
        _TASKS.clear()
    _TASKS[id(t)] = (t, need, fold, parts)
    return parts


_CUTS: dict = {}  # id(node) → (node, {(need, from_end, folding, budget): pieces})
_END = object()   # on _walk's stack: the node entered last is printed whole


def _walk(t: Term, limit: Optional[int], from_end: bool) -> tuple[list, bool]:
    """The pieces of ``t`` from its beginning (or end) until their width passes
    ``limit``, and whether that is all of it.  A walk cut short keeps, for each
    node it was inside, the pieces printed from that node on (``_CUTS``): the next
    step's walk meets those nodes again -- the rest of a let series, say, whose
    end lies as deep as the series is long -- and takes them in one piece instead
    of descending again, so a step costs O(limit), not the depth of its terms."""
    out: list[str] = []
    n = 0
    fold = folding()
    marks: list = []  # the nodes being printed: (node, need, len(out) on entry, budget)
    stack: list = [(t, LAM)]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            n += _width(item)
            if limit is not None and n > limit:
                break
        elif item is _END:
            marks.pop()
        else:
            if limit is not None:
                sub, need = item
                budget = limit - n
                e = _CUTS.get(id(sub))
                if e is not None and e[0] is sub:
                    got = e[1].get((need, from_end, fold, budget))
                    if got is not None:  # cut short within this node before: the same
                        out.extend(got)
                        break
                marks.append((sub, need, len(out), budget))
                stack.append(_END)
            parts = _task(*item)
            stack.extend(parts if from_end else reversed(parts))
    else:
        return (out[::-1] if from_end else out), True
    _keep_cuts(marks, out, from_end, fold)
    return (out[::-1] if from_end else out), False


def _keep_cuts(marks: list, out: list, from_end: bool, fold: bool) -> None:
    """Keep what a cut walk printed of each node it was inside (nodes entered at
    the same place share one tuple: a spine that prints nothing costs one)."""
    if len(_CUTS) + len(marks) > _TASKS_CAP:
        _CUTS.clear()
    shared: dict = {}
    for sub, need, start, budget in marks:
        got = shared.get(start)
        if got is None:
            got = shared[start] = tuple(out[start:])
        e = _CUTS.get(id(sub))
        if e is None or e[0] is not sub:
            table: dict = {}
            e = _CUTS[id(sub)] = (sub, table)
        e[1][need, from_end, fold, budget] = got


def term_to_latex(t: Term, max_term: Optional[int] = None) -> str:
    """A term as LaTeX math (no ``$``); abbreviated around ``\\dots`` past
    about ``max_term`` characters (None: in full)."""
    head, complete = _walk(t, max_term, from_end=False)
    if complete:
        return "".join(head).strip()
    assert max_term is not None  # (a term in full is complete)
    max_term = max(max_term, 12)
    head = _trim(head, max_term - max_term // 2)
    tail, _ = _walk(t, max_term // 2, from_end=True)
    opened = sum(_braces(p) for p in head)
    closed = -sum(_braces(p) for p in tail)
    # keep braces balanced: close what the head opened, open what the tail closes
    return ("".join(head) + r"\dots " + "}" * max(opened, 0) + "{" * max(closed, 0)
            + "".join(tail)).strip()


def _trim(pieces: list, limit: int) -> list:
    n, out = 0, list[str]()
    for p in pieces:
        n += _width(p)
        if n > limit and out:
            break
        out.append(p)
    return out


def _rule(label: str) -> str:
    return "(" + tex_escape(label) + ")"


def _prologue() -> list[str]:
    return [
        "% A reduction trace of the differential-form pullback calculus (Mak & Ong),",
        "% typeset by pullback-calc.  One step per paragraph: number, rule, redex \\to",
        "% contractum; premises indented below their step.",
        "\\begingroup",
        "\\raggedright\\small\\hbadness=10000\\hfuzz=1pt\\parskip=1pt plus 1pt",
    ]


def context_to_latex(step, max_term: Optional[int] = 60, frames: int = 3,
                     sibling: int = 16) -> str:
    """The redex in (the innermost frames of) its evaluation context, in math
    mode, the redex boxed: ``\\dots \\langle V, \\fbox{$redex$}, P\\rangle``.
    Typeset as the terms are (the frames are the TeX printer's pieces, as
    ``text.context_around`` takes the pretty printer's), siblings abbreviated to
    about ``sibling`` characters."""
    left: list[str] = []
    right: list[str] = []
    inner, ctx, k = step.redex, getattr(step, "ctx", None), 0
    while ctx is not None and k < frames:
        got = frame_parts(ctx, False, _PRINTER)
        if got is None:
            break
        lp, rp, need = got
        lp, rp = [_sibling(x, sibling) for x in lp], [_sibling(x, sibling) for x in rp]
        if need is not None and precedence(inner) < need:
            lp, rp = lp + ["("], [")"] + rp
        left, right = lp + left, right + rp
        inner, ctx, k = ctx.node, ctx.parent, k + 1
    redex = term_to_latex(step.redex, max_term)
    return ((r"\dots\ " if ctx is not None else "") + "".join(left) + r"\fbox{$" + redex
            + "$}" + "".join(right))


def _sibling(x, limit: int) -> str:
    """A piece of a frame: TeX as it is, or a child printed within about ``limit``
    characters (in parentheses if it binds looser than its place needs)."""
    if isinstance(x, str):
        return x
    t, need = x
    s = term_to_latex(t, limit)
    return f"({s})" if need is not None and precedence(t) < need else s


def step_to_latex(step, max_term: Optional[int] = 60) -> str:
    """One step for a paper: the redex boxed in its context, then the contractum
    (a fragment of plain LaTeX: no package needed)."""
    return (f"% step {step.index}, rule ({step.rule}), {step.phase} phase\n"
            f"${context_to_latex(step, max_term)}$\\\\\n"
            f"\\hspace*{{1em}}$\\longrightarrow_{{({tex_escape(step.rule)})}}\\; "
            f"{term_to_latex(step.contractum, max_term)}$")


def _step_line(step, depth: int, max_term: Optional[int]) -> str:
    indent = 1.5 * depth
    return (f"\\par\\noindent\\leftskip={indent:g}em\\hangindent=6.8em\\hangafter=1"
            f"\\makebox[2.2em][r]{{\\scriptsize {step.index}}}\\hspace{{0.5em}}"
            f"\\makebox[4.1em][l]{{\\footnotesize {_rule(step.rule)}}}"
            f"${term_to_latex(step.redex, max_term)} \\allowbreak\\;\\to\\; "
            f"{term_to_latex(step.contractum, max_term)}$")


def _context_line(step, max_term: Optional[int]) -> str:
    """Below a step: the redex boxed in its context (its innermost frames)."""
    return ("\\par\\noindent\\leftskip=6.8em{\\scriptsize in\\ }"
            f"${context_to_latex(step, 40)}$")  # a boxed redex cannot break: keep it short


def _premise_line(d, depth: int, max_term: Optional[int]) -> str:
    indent = 1.5 * depth
    start = term_to_latex(d.start, max_term)
    body = (f"${start}$ (unfinished)" if d.result is None else
            f"${start} \\allowbreak\\;\\Downarrow\\; {term_to_latex(d.result, max_term)}$")
    return (f"\\par\\noindent\\leftskip={indent:g}em\\hangindent=2em\\hangafter=1"
            f"$\\vdash$ premise {_rule(d.rule)}: {body}")


def trace_to_latex(trace: Iterable, *, standalone: bool = False, title: Optional[str] = None,
                   term: Optional[Term] = None, value: Optional[Term] = None,
                   max_term: Optional[int] = None, phases=None, rules=None, every: int = 1,
                   premises: bool = True, phase_headings: bool = True, fold: bool = True,
                   context: bool = True, show_steps: Optional[int] = None,
                   progress=None) -> str:
    """The trace as LaTeX (pure ASCII): a fragment to paste into a paper
    (``standalone=False``) or a whole document.  ``term``/``value`` add the
    reduced term and its normal form; ``max_term`` abbreviates terms longer
    than about that many characters (None: in full); ``phases``/``rules``/
    ``every`` choose the steps shown (``text.select_steps``); ``fold``: print the
    environment tuples of rule 8 folded, ⟨…, c⟩; ``context``: show each step of
    the main derivation with its redex boxed in (the innermost frames of) its
    evaluation context; ``show_steps``: at most that many steps of the main derivation,
    the first and last, with a paragraph saying how many were left out."""
    with folding_env(fold), paused():  # paused: see text.paused_batches
        return _trace_to_latex(trace, standalone, title, term, value, max_term, phases, rules,
                               every, premises, phase_headings, context, show_steps, progress)


def _trace_to_latex(trace, standalone, title, term, value, max_term, phases, rules, every,
                    premises, phase_headings, context, show_steps, progress) -> str:
    steps = list(trace)
    every_chosen = list(select_steps(steps, phases, rules, every)) if (
        phases is not None or rules is not None or every != 1) else steps
    chosen, gap, left_out = cap_steps(every_chosen, show_steps)
    tick = ticker(progress)
    k = 0
    lines: list[str] = []
    if standalone:
        lines += [
            "\\documentclass[10pt]{article}",
            "\\usepackage{amssymb}",
            "\\setlength{\\textwidth}{17cm}\\setlength{\\oddsidemargin}{-0.5cm}",
            "\\setlength{\\evensidemargin}{-0.5cm}\\setlength{\\topmargin}{-1.5cm}",
            "\\setlength{\\textheight}{24cm}",
            "\\begin{document}",
            "\\section*{" + tex_escape(title or "Reduction trace") + "}",
        ]
    lines += _prologue()
    if term is not None:
        lines.append(f"\\par\\noindent Reducing ${term_to_latex(term, max_term)}$"
                     f" ({len(steps)} step{'' if len(steps) == 1 else 's'} in the main derivation):"
                     "\\par\\medskip")
    phase = None
    for depth, item in walk(chosen, premises):
        if hasattr(item, "redex"):
            if tick is not None:
                tick()
            if depth == 0:
                if k == gap:
                    note = omitted_note(left_out, every_chosen[gap].index,
                                        every_chosen[gap + left_out - 1].index, False)
                    lines.append("\\par\\medskip\\noindent\\leftskip=0pt\\textbf{"
                                 + tex_escape(note).replace("--", "-{}-") + "}\\par\\medskip")
                k += 1
            if depth == 0 and phase_headings and item.phase != phase:
                phase = item.phase
                lines.append("\\par\\medskip\\noindent\\leftskip=0pt\\textit{"
                             + tex_escape(PHASE_TITLES.get(phase, phase)) + "}\\par\\smallskip")
            lines.append(_step_line(item, depth, max_term))
            if context and depth == 0 and item.ctx is not None:
                lines.append(_context_line(item, max_term))
        else:
            lines.append(_premise_line(item, depth, max_term))
    if value is not None:
        lines.append(f"\\par\\medskip\\noindent\\leftskip=0pt Normal form: "
                     f"${term_to_latex(value, max_term)}$")
    lines += ["\\par", "\\endgroup"]
    if standalone:
        lines.append("\\end{document}")
    out = "\n".join(lines) + "\n"
    if not out.isascii():  # pragma: no cover - every character goes through _char
        out = "".join(c if c.isascii() else "?" for c in out)
    return out


assert set(PHASE_TITLES) == set(PHASES)
