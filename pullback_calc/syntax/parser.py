"""Parser: concrete syntax (Unicode or ASCII, freely mixed) to terms and types.

Lark's LALR parser with an inline transformer builds the AST while parsing,
so there is no parse tree and no recursion: 10,000-deep terms parse fine.
The syntax is in ``grammar.lark``; Lark errors become ``ParseError``s with
readable messages and line/column positions.
"""
from __future__ import annotations

import math
import re
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from ..errors import ParseError
from . import prims, types
from .terms import (App, Dual, Jac, Lam, Num, Pos, Prim, Proj, Pullback, Sum, Term, Tuple, Var,
                    Zero, note_name)

__all__ = ["parse", "parse_type", "parse_program", "Program", "RESERVED_WORDS"]

# Identifiers the lexer re-types (they match NAME, so they are reserved words).
KEYWORDS = {"let": "LET", "in": "_IN", "J": "JAC", "pullback": "OMEGA", "zero": "ZERO",
            "dual": "RESERVED", "free": "FREE"}
# Every word a variable may not be called, for messages (the operators' internal
# names add, sub, … are function symbols too, so they are reserved as well).
RESERVED_WORDS = tuple(KEYWORDS) + tuple(prims.ARITY)  # and pi1, pi2, …


@dataclass
class Program:
    """A parsed file: the term and its declared free variables (name → type, and
    where each was declared)."""
    term: Term
    free: dict = field(default_factory=dict)
    free_pos: dict = field(default_factory=dict)
_ASCII_PROJ = re.compile(r"pi[0-9]+")
_SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
_BINOP = {"PLUS": "add", "MINUS": "sub", "TIMES": "mul", "DIV": "div", "POW": "pow"}


def _retype(tok: Token) -> Token:
    if tok.value in KEYWORDS:
        tok.type = KEYWORDS[tok.value]
    elif tok.value in prims.ARITY:
        tok.type = "FNAME"
    elif _ASCII_PROJ.fullmatch(tok.value):
        tok.type = "PROJ"
    return tok


def _pos(x) -> Optional[Pos]:
    if isinstance(x, Token):
        return Pos(x.line, x.column)
    return getattr(x, "pos", None)


def _error(message: str, at) -> ParseError:
    return ParseError(message, _pos(at))


def _clip(text: str, n: int = 40) -> str:
    return text if len(text) <= n else text[:n - 1] + "…"


def _distinct(pat: Term) -> Term:
    """pat, if it binds every name once: ⟨x, x⟩ would be typed by one binding
    and reduced by the other, so it is a located error (explicit stack: a
    pattern may be deep)."""
    seen: set = set()
    stack = [pat]
    while stack:
        p = stack.pop()
        if isinstance(p, Tuple):
            stack.extend(reversed(p.items))
        elif p.name in seen:
            raise _error(f"the pattern binds {p.name} twice; give each binding its own name", p)
        else:
            seen.add(p.name)
    return pat


def _nonneg_num(t: Term) -> bool:
    return isinstance(t, Num) and math.copysign(1.0, t.value) > 0


@v_args(inline=True)
class _Build(Transformer):
    """One method per grammar alias; each returns a finished node."""

    # ---- terms ----
    def var(self, tok):
        note_name(tok.value)
        return Var(tok.value, pos=_pos(tok))

    def num(self, tok):
        v = float(tok.value)
        if not math.isfinite(v):  # 1e400 would silently be infinity
            raise _error(f"the number {_clip(tok.value)} is too large: it overflows to "
                         f"{v} (numerals must be finite reals)", tok)
        return Num(v, pos=_pos(tok))

    def zero(self, tok):
        return Zero(pos=_pos(tok))

    def paren(self, lpar, t):
        return t

    def tuple(self, langle, *items):
        if len(items) < 2:
            raise _error("a tuple needs at least two components", langle)
        return Tuple(items, pos=_pos(langle))

    def prim(self, name, lpar, *args):
        k = prims.ARITY[name.value]
        if len(args) != k:
            raise _error(f"{name.value} takes {k} argument{'s' if k != 1 else ''}, "
                         f"got {len(args)}", name)
        return Prim(name.value, args, pos=_pos(name))

    def proj(self, tok, arg):
        i = int(tok.value.lstrip("πpi").translate(_SUBSCRIPTS))
        if i < 1:
            raise _error(f"projection index must be at least 1 (got {tok.value})", tok)
        return Proj(i, arg, pos=_pos(tok))

    def jac(self, tok, lpar, lam, along):
        if not isinstance(lam, Lam):
            raise _error("J(…) needs a λ-abstraction inside: J(λq. S)·P", lam)
        return Jac(lam, along, pos=_pos(tok))

    def dual(self, lpar, lam, functional):
        if not isinstance(lam, Lam):
            raise _error("a dual map needs a λ-abstraction: (λq. S)⋆ P", lam)
        return Dual(lam, functional, pos=_pos(lpar))

    def pullback(self, tok, lpar, fun, form):
        return Pullback(fun, form, pos=_pos(tok))

    def app(self, f, a):
        return App(f, a, pos=f.pos)

    def binop(self, a, op, b):
        return Prim(_BINOP[op.type], (a, b), pos=a.pos)

    def neg(self, tok, a):
        # ``-2`` is the numeral −2; ``-(-2)`` stays a negation (round trip)
        if _nonneg_num(a):
            return Num(-a.value, pos=_pos(tok))
        return Prim("neg", (a,), pos=_pos(tok))

    def sum(self, *items):
        return Sum(items, pos=items[0].pos)

    def lam(self, tok, *rest):
        *pats, body = rest
        for p in reversed(pats[1:]):  # λx y. S = λx. λy. S
            body = Lam(_distinct(p), body, pos=p.pos)
        return Lam(_distinct(pats[0]), body, pos=_pos(tok))

    def lam_ann(self, tok, pat, ann, body):
        return Lam(_distinct(pat), body, ann, pos=_pos(tok))

    def let(self, tok, pat, bound, body):
        return App(Lam(_distinct(pat), body, pos=_pos(tok)), bound, pos=_pos(tok))

    def let_ann(self, tok, pat, ann, bound, body):
        return App(Lam(_distinct(pat), body, ann, pos=_pos(tok)), bound, pos=_pos(tok))

    # ---- patterns ----
    def pvar(self, tok):
        return self.var(tok)

    def ptuple(self, langle, *items):
        return self.tuple(langle, *items)

    # ---- types ----
    def real(self, tok):
        return types.R

    def tname(self, tok):
        if tok.value != "R":
            raise _error(f"unknown type '{tok.value}' (types are built from ℝ or R)", tok)
        return types.R

    def tparen(self, lpar, ty):
        return ty

    def prod(self, *items):
        return types.Prod(tuple(x for x in items if not isinstance(x, Token)))

    def arrow(self, a, b):
        return types.Arrow(a, b)

    def dualt(self, a):
        return types.DualT(a)

    def decl(self, tok, *rest):
        *names, ty = rest
        return [(n.value, ty, _pos(n)) for n in names]

    def start(self, *items):
        *decls, term = items
        prog = Program(term)
        for group in decls:
            for name, ty, pos in group:
                if name in prog.free:
                    raise ParseError(f"the free variable {name} is declared twice", pos)
                prog.free[name], prog.free_pos[name] = ty, pos
        return prog

    def type_start(self, t):
        return t


_GRAMMAR = Path(__file__).with_name("grammar.lark")
_lark: Optional[Lark] = None


def _parser() -> Lark:
    global _lark
    if _lark is None:
        _lark = Lark(_GRAMMAR.read_text(encoding="utf-8"), parser="lalr",
                     start=["start", "type_start"], transformer=_Build(),
                     lexer_callbacks={"NAME": _retype}, propagate_positions=False)
    return _lark


# ---- readable error messages --------------------------------------------------

_TERM_START = {"NAME", "NUMBER", "ZERO", "LPAR", "LANGLE", "FNAME", "PROJ", "JAC", "OMEGA",
               "LAMBDA", "LET", "MINUS"}
_TYPE_START = {"REALS", "NAME", "LPAR"}
_PATTERN_START = {"NAME", "LANGLE"}
_OPERATORS = {"PLUS", "MINUS", "TIMES", "DIV", "POW", "_OPLUS"}
_WORDS = {
    "$END": "end of input", "NAME": "an identifier", "NUMBER": "a number",
    "LPAR": "'('", "_RPAR": "')'", "LANGLE": "'⟨'", "_RANGLE": "'⟩'", "_COMMA": "','",
    "LAMBDA": "'λ'", "_DOT": "'.'", "_CDOT": "'·'", "_COLON": "':'", "_EQ": "'='",
    "_OPLUS": "'⊕'", "PLUS": "'+'", "MINUS": "'−'", "TIMES": "'×'", "DIV": "'/'",
    "_STAR": "'⋆'", "POW": "'^'", "_ARROW": "'→'", "REALS": "'ℝ'", "ZERO": "'𝟎'",
    "OMEGA": "'Ω'", "PROJ": "a projection πᵢ", "FNAME": "a function symbol",
    "LET": "'let'", "_IN": "'in'", "JAC": "'J'", "FREE": "'free'",
}


def _expected(names) -> str:
    names = set(names)
    words = []
    for group, need, word in ((_TERM_START, {"NAME", "NUMBER"}, "a term"),
                              (_TYPE_START, {"REALS"}, "a type"),
                              (_PATTERN_START, {"NAME", "LANGLE"}, "a pattern")):
        if need <= names:
            words.append(word)
            names -= group
    if len(names & _OPERATORS) >= 2:
        words.append("an operator")
        names -= _OPERATORS
    words += sorted(_WORDS.get(n, n) for n in names)
    if not words:
        return ""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _found(tok: Token) -> str:
    if tok.type == "$END":
        return "end of input"
    if tok.type in ("LET", "_IN", "JAC", "RESERVED", "FREE") or (tok.type in ("ZERO", "OMEGA")
                                                           and tok.value.isascii()):
        return f"keyword '{tok.value}'"
    return f"'{tok.value}'"


def _end_pos(text: str) -> Pos:
    lines = text.split("\n")
    return Pos(len(lines), len(lines[-1]) + 1)


def _accepts_after(text: str, start: str) -> set:
    """Terminals the parser would accept after ``text`` (for error messages)."""
    try:
        ip = _parser().parse_interactive(text, start=start)
        ip.exhaust_lexer()
        return ip.accepts()
    except Exception:  # best effort only
        return set()


def _offset(text: str, line: int, column: int) -> int:
    lines = text.split("\n")
    return sum(len(x) + 1 for x in lines[:line - 1]) + column - 1


def _hint(tok: Token, text: str, accepts: set) -> str:
    """What a beginner probably meant, for a few common slips."""
    before = text[:_offset(text, tok.line, tok.column)].rstrip()
    if tok.type in ("FNAME", "LET", "_IN", "JAC", "RESERVED", "FREE", "PROJ", "OMEGA",
                    "ZERO") and ("NAME" in accepts or "LANGLE" in accepts):
        return (f"; '{tok.value}' is a reserved word and cannot name a variable "
                f"(reserved: {' '.join(RESERVED_WORDS)} pi1 pi2 …)")
    if tok.type == "LPAR" and (before.endswith(("λ", "\\")) or before.endswith("let")):
        return "; write a tuple pattern with angle brackets: λ⟨a, b⟩. … (ASCII: \\<a, b>. …)"
    if tok.type == "TIMES" and before.endswith(("*", "×")):
        return "; powers are written with ^: x ^ 2 (not x ** 2)"
    return ""


def _translate(e: LarkError, text: str, start: str) -> ParseError:
    if isinstance(e, UnexpectedCharacters):
        # Lark's ``allowed`` is the merged LALR state; recompute it exactly
        exp = _expected(_accepts_after(text[:e.pos_in_stream], start) or e.allowed or ())
        return ParseError(f"unexpected character {text[e.pos_in_stream]!r}"
                          + (f"; expected {exp}" if exp else ""), Pos(e.line, e.column))
    if isinstance(e, UnexpectedToken):
        tok = e.token
        try:
            accepts = e.accepts or e.expected
        except Exception:  # the interactive parser may itself fail
            accepts = e.expected
        exp = _expected(accepts)
        pos = _end_pos(text) if tok.type == "$END" else Pos(tok.line, tok.column)
        hint = "" if tok.type == "$END" else _hint(tok, text, set(accepts or ()))
        return ParseError(f"unexpected {_found(tok)}" + (f"; expected {exp}" if exp else "")
                          + hint, pos)
    if isinstance(e, UnexpectedInput):  # UnexpectedEOF and friends
        return ParseError(f"unexpected end of input; expected {_expected(e.expected)}",
                          _end_pos(text))
    return ParseError(str(e), None)


# ---- a linear pre-scan for huge inputs ---------------------------------------------
#
# Lark needs about 10 µs per token and keeps every node it has built, so a
# bad character at the end of a 10 MB line used to cost minutes and gigabytes
# before it was reported.  Inputs longer than _BIG are first scanned by one
# possessive regular expression (no backtracking, no Python loop per token)
# for a character no token can start with, and for unbalanced brackets.

_BIG = 100_000
_NAME_RE = (r"[A-Za-z_\u0391-\u03A8\u03B1-\u03BA\u03BC-\u03BF\u03C1-\u03C9]"
            r"[A-Za-z0-9_'\u0391-\u03A8\u03B1-\u03BA\u03BC-\u03BF\u03C1-\u03C9]*")
_LEXABLE = re.compile(
    r"(?:\s+|\#[^\n]*|" + _NAME_RE + r"|[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
    r"|π(?:[0-9]+|[₀-₉]+)|->|\^\*|\+\+|[()⟨<⟩>,λ\\.·:=⊕+−\-×*/⋆^→ℝ𝟎Ω])*+")
_CLOSER = {"(": ")", "⟨": "⟩", "<": ">"}


def _pos_at(text: str, offset: int) -> Pos:
    line = text.count("\n", 0, offset) + 1
    return Pos(line, offset - text.rfind("\n", 0, offset))


def _prescan(text: str, start: str) -> None:
    """Raise the ParseError of an unlexable character or an unbalanced bracket,
    in time and memory linear in the text."""
    end = _LEXABLE.match(text).end()
    if end < len(text):
        if end < _BIG:  # near the start: lark's message says what was expected
            _run_lark(text[:end + 1], start)
        raise ParseError(f"unexpected character {text[end]!r}", _pos_at(text, end))
    # Blank out comments and arrows (same length: offsets stay), keep only the
    # brackets, and match them in one tight loop; the offset of the k-th bracket
    # is found again only for the error, by bisection on str.count.
    clean = _BLANK.sub(lambda m: " " * len(m.group()), text)
    only = _NOT_BRACKET.sub("", clean)
    opened = array("q")  # indices into ``only`` of the open brackets (8 bytes each)
    push, pop = opened.append, opened.pop
    for k, c in enumerate(only):
        if c in "(⟨<":
            push(k)
            continue
        if not opened:
            raise ParseError(f"unexpected {c!r}: no bracket is open here",
                             _pos_at(text, _bracket_offset(clean, k)))
        o = pop()
        if (c == ")") != (only[o] == "("):
            want = _CLOSER[only[o]]
            raise ParseError(f"unexpected {c!r}: expected {want!r} to close the {only[o]!r} "
                             f"at {_pos_at(text, _bracket_offset(clean, o))}",
                             _pos_at(text, _bracket_offset(clean, k)))
    if opened:
        o = opened[-1]
        raise ParseError(f"the {only[o]!r} here is never closed (expected "
                         f"{_CLOSER[only[o]]!r} before the end of input)",
                         _pos_at(text, _bracket_offset(clean, o)))


_BLANK = re.compile(r"\#[^\n]*|->")
_NOT_BRACKET = re.compile(r"[^()⟨⟩<>]+")


def _bracket_offset(clean: str, k: int) -> int:
    """The offset in ``clean`` of its k-th bracket (from 0)."""
    def before(i: int) -> int:
        return sum(clean.count(b, 0, i) for b in "()⟨⟩<>")
    lo, hi = 0, len(clean)  # the smallest i with k + 1 brackets in clean[:i], minus one
    while lo < hi:
        mid = (lo + hi) // 2
        if before(mid + 1) > k:
            hi = mid
        else:
            lo = mid + 1
    return lo


def _run(text: str, start: str):
    if len(text) > _BIG:
        _prescan(text, start)
    return _run_lark(text, start)


def _run_lark(text: str, start: str):
    try:
        return _parser().parse(text, start=start)
    except ParseError:
        raise
    except LarkError as e:
        raise _translate(e, text, start) from None


def parse_program(text: str) -> Program:
    """Parse a program: ``free x : τ`` declarations (any number), then a term."""
    return _run(text, "start")


def parse(text: str) -> Term:
    """Parse a term; raises ParseError (with line and column) on bad input.
    Declarations of free variables are checked and then dropped (see
    ``parse_program``)."""
    return parse_program(text).term


def parse_type(text: str) -> types.Type:
    """Parse a type: ℝ/R, τ × τ, τ → τ, τ⋆ (ASCII: R, *, ->, ^*)."""
    return _run(text, "type_start")
