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
from lark.parsers.lalr_analysis import Shift as _SHIFT

from ..errors import ParseError
from . import prims, types
from .terms import (WRITTEN_APP, App, Dual, Jac, Lam, Num, Pos, Prim, Proj, Pullback, Sum, Term,
                    Tuple, Var, Zero, note_name)

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
    if isinstance(x, Token) and x.line is not None and x.column is not None:
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
        elif not isinstance(p, Var):
            raise TypeError(p)  # (the grammar builds patterns of variables and tuples)
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
        k = prims.ARITY.get(name.value)
        if k is None:  # unregistered by another thread since the token was read
            raise _error(f"{name.value} is not a function symbol (any more: was it "
                         f"unregistered?)", name)
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
        t = App(f, a, pos=f.pos)
        if f.__class__ is Lam:  # a β-redex: printed as the user wrote it, not as a let
            t._flags |= WRITTEN_APP
        return t

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
    before = (text if tok.type == "$END" else
              text[:_offset(text, tok.line or 1, tok.column or 1)]).rstrip()
    if tok.type in ("FNAME", "LET", "_IN", "JAC", "RESERVED", "FREE", "PROJ", "OMEGA",
                    "ZERO") and ("NAME" in accepts or "LANGLE" in accepts):
        return (f"; '{tok.value}' is a reserved word and cannot name a variable "
                f"(reserved: {' '.join(RESERVED_WORDS)} pi1 pi2 …)")
    if tok.type == "LPAR" and (before.endswith(("λ", "\\")) or before.endswith("let")):
        return "; write a tuple pattern with angle brackets: λ⟨a, b⟩. … (ASCII: \\<a, b>. …)"
    word = re.search(r"(\w+)\s*$", before)
    if word and word.group(1) in prims.ARITY and set(accepts) == {"LPAR"}:
        f = word.group(1)  # a function symbol is no term: it is applied where it is written
        k = prims.ARITY[f]
        args = ", ".join("xyz"[:k] if k <= 3 else (f"x{i}" for i in range(1, k + 1)))
        return (f"; the function symbol {f} must be applied, {f}({args}); as a function "
                f"value write λ{args.replace(', ', '. λ')}. {f}({args})")
    if tok.type == "TIMES" and before.endswith(("*", "×")):
        return "; powers are written with ^: x ^ 2 (not x ** 2)"
    return ""


def _translate(e: LarkError, text: str, start: str) -> ParseError:
    if isinstance(e, UnexpectedCharacters):
        # Lark's ``allowed`` is the merged LALR state; recompute it exactly
        at = e.pos_in_stream or 0  # (always set by the lexer)
        exp = _expected(_accepts_after(text[:at], start) or e.allowed or ())
        return ParseError(f"unexpected character {text[at]!r}"
                          + (f"; expected {exp}" if exp else ""), Pos(e.line, e.column))
    if isinstance(e, UnexpectedToken):
        tok = e.token
        try:
            accepts = e.accepts or e.expected
        except Exception:  # the interactive parser may itself fail
            accepts = e.expected
        exp = _expected(accepts)
        pos = _end_pos(text) if tok.type == "$END" else Pos(tok.line, tok.column)
        hint = _hint(tok, text, set(accepts or ()))
        return ParseError(f"unexpected {_found(tok)}" + (f"; expected {exp}" if exp else "")
                          + hint, pos)
    if isinstance(e, UnexpectedInput):  # UnexpectedEOF and friends
        expected = _expected(getattr(e, "expected", ()))
        return ParseError(f"unexpected end of input; expected {expected}",
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
    end = _LEXABLE.match(text).end()  # type: ignore[union-attr]  # (matches the empty text)
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


# ---- a linear recogniser for huge inputs ---------------------------------------------
#
# A syntax error made of valid tokens (``1 + 1 + … + 1 + * 1``) is found by lark
# only after it has built the terms of everything before it: minutes and
# gigabytes for 10 MB.  Inputs longer than _BIG are first run through lark's
# own LALR tables and contextual lexers with a stack of states only -- no
# tokens, no values, a few Python operations per token -- and the first error
# is reported exactly as lark would report it (the same exception, translated
# by ``_translate``).  Valid inputs then go to lark, which builds the term.

def _recognise(text: str, start: str) -> None:
    """Raise the ParseError lark would raise on ``text``, if any, in time
    linear in the text and memory linear in the nesting.  The tails of long
    operator chains are cut first by one regular expression (``_collapse``, C
    speed): the token loop then sees little more than the structure."""
    short, cuts = _collapse(text)
    try:
        _recognise_tokens(short, start)
    except ParseError as e:
        if cuts and e.pos is not None:
            e.pos = _pos_at(text, _original_offset(
                cuts, _offset(short, e.pos.line, e.pos.column)))
        raise


_RUN: Optional[re.Pattern] = None
_NAME_CONT = r"[A-Za-z0-9_'\u0391-\u03A8\u03B1-\u03BA\u03BC-\u03BF\u03C1-\u03C9]"


def _collapse(text: str) -> tuple[str, list]:
    """``text`` without the tails ``op A₂ op A₃ …`` of runs ``op A₁ op A₂ …``:
    one infix operator repeated, operands of one kind (all numerals, or all
    plain names), the first operand kept; and without the third and later
    minus signs of a run of them.  After an atom, ``op Aᵢ`` is valid
    wherever ``op A₁`` was (in a type too, for ×), and what follows reads
    after A₁ as it did after Aₖ: the first error, and what is expected there,
    do not change.  Returns the text and the cuts as (offset in the result,
    characters cut), in order."""
    global _RUN
    if _RUN is None:
        words = "|".join(map(re.escape, sorted(set(KEYWORDS) | set(prims.ARITY), key=len,
                                                 reverse=True)))
        number = r"[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?(?![0-9.eE])"
        name = (r"(?!(?:" + words + r"|pi[0-9]+)(?!" + _NAME_CONT + r"))" + _NAME_RE
                + r"(?!" + _NAME_CONT + r")")
        op = r"(?<!\+)\+(?!\+)|-(?!>)|−|×|(?<!\^)\*|/|\^(?!\*)|⊕"
        _RUN = re.compile(r"(?P<op>" + op + r")\s*(?:(?P<n>" + number
                          + r")(?P<ntail>(?:\s*(?P=op)\s*" + number + r"){1,4096})|" + name
                          + r"(?P<tail>(?:\s*(?P=op)\s*" + name + r"){1,4096}))")
        # and runs of unary minus: after two, the others push the same state
        _RUN = re.compile(_RUN.pattern
                          + r"|[-−](?!>)\s*[-−](?!>)(?P<mtail>(?:\s*[-−](?!>)){1,4096})")
    cuts: list = []
    removed = 0

    def cut(m) -> str:
        nonlocal removed
        g = "ntail" if m.group("n") is not None else "tail" if m.group("tail") else "mtail"
        start, stop = m.span(g)
        cuts.append((start - removed, stop - start))
        removed += stop - start
        return m.group()[:start - m.start()]

    return _RUN.sub(cut, text), cuts


def _original_offset(cuts: list, offset: int) -> int:
    """The offset in the text of ``offset`` in its collapsed form (an error is
    never inside a cut: at a cut's offset it is after it)."""
    for at, n in cuts:
        if at > offset:
            break
        offset += n
    return offset


def _recognise_tokens(text: str, start: str) -> None:
    """lark's LALR parse of ``text``, on a stack of states only."""
    front = _parser().parser
    table = front.parser.parser.parse_table
    states, end_state = table.states, table.end_states[start]
    lexers, ignore = front.lexer.lexers, front.lexer.root_lexer.ignore_types
    match: dict = {}  # state -> its lexer's match function
    stack = [table.start_states[start]]
    pos, n = 0, len(text)

    def fail(typ: Optional[str], value: str, at: int):
        if at < _BIG:  # near the start: lark stops there too, or at an earlier error
            _run_lark(text[:at + len(value) + 1], start)  # (a check of the term builder)
        accepts = _accepts_on(states, stack, end_state)
        if typ is None:  # lark: UnexpectedCharacters, with the accepts of the prefix
            exp = _expected(accepts or lexers[stack[-1]].scanner.allowed_types - ignore)
            raise ParseError(f"unexpected character {text[at]!r}"
                             + (f"; expected {exp}" if exp else ""), _pos_at(text, at))
        e = UnexpectedToken(Token(typ, value, at, *_line_col(text, at)),
                            {t for t in states[stack[-1]] if t.isupper()})
        e._accepts = accepts
        raise _translate(e, text, start)

    while True:
        if pos < n:
            state = stack[-1]
            m = match.get(state)
            if m is None:
                m = match[state] = _matcher(lexers[state])
            hit = m(text, pos)
            if hit is None:  # not a token here (lark: the root lexer's token, unexpected)
                hit = _matcher(front.lexer.root_lexer)(text, pos)
                if hit is None:
                    fail(None, "", pos)
                fail(_retyped(*hit), hit[0], pos)
            value, typ = hit
            at, pos = pos, pos + len(value)
            if typ in ignore:
                continue
            typ = _retyped(value, typ)
        else:
            typ, value, at = "$END", "", n
        while True:  # lark's feed_token, on states only
            act = states[stack[-1]].get(typ)
            if act is None:
                fail(typ, value, at)
            action, arg = act
            if action is _SHIFT:
                stack.append(arg)
                break
            size = len(arg.expansion)
            if size:
                del stack[-size:]
            stack.append(states[stack[-1]][arg.origin.name][1])
            if typ == "$END" and stack[-1] == end_state:
                return


def _matcher(lexer):
    """lexer's match: (value, terminal) at a position, or None."""
    mres = lexer.scanner._mres
    if len(mres) == 1:
        rx = mres[0].match

        def one(text, pos):
            m = rx(text, pos)
            return None if m is None else (m.group(), m.lastgroup)
        return one
    return lexer.scanner.match


def _retyped(value: str, typ: str) -> str:
    """The terminal of a token after the NAME callback (_retype)."""
    if typ != "NAME":
        return typ
    if value in KEYWORDS:
        return KEYWORDS[value]
    if value in prims.ARITY:
        return "FNAME"
    return "PROJ" if _ASCII_PROJ.fullmatch(value) else typ


def _accepts_on(states, stack: list, end_state) -> set:
    """lark's InteractiveParser.accepts() on a stack of states: the terminals
    that the parser would shift here (after reductions), and $END if it would
    finish."""
    out = set()
    for t in states[stack[-1]]:
        if not t.isupper():
            continue
        top = list(stack[-64:])  # reductions pop little; refill from below if needed
        below = len(stack) - len(top)
        while True:
            act = states[top[-1]].get(t)
            if act is None:
                break
            action, arg = act
            if action is _SHIFT:
                out.add(t)
                break
            size = len(arg.expansion)
            while size >= len(top) and below:  # (refill)
                below -= 1
                top.insert(0, stack[below])
            if size:
                del top[-size:]
            top.append(states[top[-1]][arg.origin.name][1])
            if t == "$END" and top[-1] == end_state:
                out.add(t)
                break
    return out


def _line_col(text: str, offset: int) -> tuple:
    p = _pos_at(text, offset)
    return p.line, p.column


def _run(text: str, start: str):
    if len(text) > _BIG:
        _prescan(text, start)
        _recognise(text, start)
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
