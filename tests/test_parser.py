"""Parser: expected ASTs, precedence, positions, deep terms, errors, round trips."""
import pytest

from pullback_calc.errors import ParseError
from pullback_calc.syntax import terms
from pullback_calc.syntax import types as T
from pullback_calc.syntax.parser import parse, parse_type
from pullback_calc.syntax.printer import pretty
from pullback_calc.syntax.prims import ARITY, P
from pullback_calc.syntax.subst import alpha_eq
from pullback_calc.syntax.terms import (App, Dual, Jac, Lam, Num, Pos, Prim, Proj, Pullback,
                                        Sum, Tuple, Var, Zero)

x, y, z, f, g, a, b, c, w = (Var(n) for n in "xyzfgabcw")
R = T.R


def lam(p, body, ann=None):
    return Lam(p, body, ann)


def tup(*items):
    return Tuple(tuple(items))


def sm(*items):
    return Sum(tuple(items))


# (source, expected AST or None when only the round trip is checked)
CORPUS = [
    ("x", x),
    ("x_1'", Var("x_1'")),
    ("2", Num(2)),
    ("2.5", Num(2.5)),
    ("1e-3", Num(0.001)),
    ("2.5E+10", Num(2.5e10)),
    ("-2", Num(-2)),
    ("-2.5e-3", Num(-0.0025)),
    ("neg(2)", P("neg", Num(2))),
    ("-x", P("neg", x)),
    ("- -2", P("neg", Num(-2))),
    ("−(−x)", P("neg", P("neg", x))),
    ("𝟎", Zero()),
    ("zero", Zero()),
    ("⟨x, y⟩", tup(x, y)),
    ("<x, <y, z>, 1>", tup(x, tup(y, z), Num(1))),
    ("π1 x", Proj(1, x)),
    ("pi2 <x, y>", Proj(2, tup(x, y))),
    ("π₂ x", Proj(2, x)),
    ("π12 x", Proj(12, x)),
    ("λx. x", lam(x, x)),
    (r"\x. x", lam(x, x)),
    ("λx y. f x y", lam(x, lam(y, App(App(f, x), y)))),
    ("λ⟨x, ⟨y, z⟩⟩. y", lam(tup(x, tup(y, z)), y)),
    ("λx : ℝ. x", lam(x, x, R)),
    (r"\<x, y> : R * R -> R. x", lam(tup(x, y), x, T.Arrow(T.Prod((R, R)), R))),
    ("λf : (ℝ → ℝ) → ℝ⋆. f", lam(f, f, T.Arrow(T.Arrow(R, R), T.DualT(R)))),
    ("let x = 1 in x", App(lam(x, x), Num(1))),
    ("let ⟨x, y⟩ = ⟨1, 2⟩ in x × y", App(lam(tup(x, y), P("mul", x, y)), tup(Num(1), Num(2)))),
    ("let x : R = 1 in x", App(lam(x, x, R), Num(1))),
    ("let x = let y = 1 in y in x", App(lam(x, x), App(lam(y, y), Num(1)))),
    ("(λx. x) 2", App(lam(x, x), Num(2))),
    ("f x y", App(App(f, x), y)),
    ("f (g x)", App(f, App(g, x))),
    ("x ⊕ y", sm(x, y)),
    ("x ++ y ++ z", sm(x, y, z)),
    ("x ⊕ (y ⊕ z)", sm(x, sm(y, z))),
    ("(x ⊕ y) ⊕ z", sm(sm(x, y), z)),
    ("x ⊕ 𝟎", sm(x, Zero())),
    ("J(λx. sin(x))·y", Jac(lam(x, P("sin", x)), y)),
    (r"J(\x. sin(x)) . y", Jac(lam(x, P("sin", x)), y)),
    ("(λx. x × 2)⋆ w", Dual(lam(x, P("mul", x, Num(2))), w)),
    (r"(\x. x * 2)^* w", Dual(lam(x, P("mul", x, Num(2))), w)),
    ("Ω(f) w", Pullback(f, w)),
    ("pullback(f) w", Pullback(f, w)),
    ("Ω(f) w x", App(Pullback(f, w), x)),
    ("π1 x y", App(Proj(1, x), y)),
    ("f π1 x", App(f, Proj(1, x))),
    ("a + b × c", P("add", a, P("mul", b, c))),
    ("(a + b) * c", P("mul", P("add", a, b), c)),
    ("a / b / c", P("div", P("div", a, b), c)),
    ("a − b", P("sub", a, b)),
    ("a - -2", P("sub", a, Num(-2))),
    ("x ^ -2", P("pow", x, Num(-2))),
    ("(-2) ^ x", P("pow", Num(-2), x)),
    ("-2 ^ x", P("neg", P("pow", Num(2), x))),
    ("-f x", P("neg", App(f, x))),
    ("f -x", P("sub", f, x)),
    ("add(a, b)", P("add", a, b)),
    ("mul(a, sub(b, c))", P("mul", a, P("sub", b, c))),
    ("pow(x, div(1, 2))", P("pow", x, P("div", Num(1), Num(2)))),
    ("sin(x) + cos(x) + tan(x)", P("add", P("add", P("sin", x), P("cos", x)), P("tan", x))),
    ("exp(log(sqrt(tanh(x))))", P("exp", P("log", P("sqrt", P("tanh", x))))),
    ("# a comment\nx # another\n+ y", P("add", x, y)),
    ("λx. x ⊕ y", lam(x, sm(x, y))),
    ("λR. R", lam(Var("R"), Var("R"))),
    # mixed spellings
    (r"λ<x, y>. pi1 ⟨x, y⟩ ++ 𝟎 ⊕ zero", lam(tup(x, y), sm(Proj(1, tup(x, y)), Zero(), Zero()))),
    ("let ⟨x, y⟩ : ℝ * R = <1, 2> in J(\\z. z × x)·y",
     App(lam(tup(x, y), Jac(lam(z, P("mul", z, x)), y), T.Prod((R, R))), tup(Num(1), Num(2)))),
    ("Ω(λx. ⟨x, x⟩) ((λy. y)⋆ w)", Pullback(lam(x, tup(x, x)), Dual(lam(y, y), w))),
    ("λ⟨p, x⟩. (λdx. dx × cos(x))⋆ (π2 p)", None),
    ("let ⟨⟨p, x⟩, y⟩ = ⟨⟨1, 2⟩, 3⟩ in p ⊕ x + y ^ 2 ^ -0.5", None),
    ("f (-2) (neg(3)) (−x)", None),
    ("λx : ℝ⋆ × ℝ. J(λy : ℝ. π1 x y)·(π2 x)", None),
]


@pytest.mark.parametrize("src,expected", [c for c in CORPUS if c[1] is not None])
def test_expected_ast(src, expected):
    assert parse(src) == expected


@pytest.mark.parametrize("src", [c[0] for c in CORPUS])
@pytest.mark.parametrize("uni", [True, False])
def test_corpus_round_trips(src, uni):
    t = parse(src)
    back = parse(pretty(t, unicode=uni))
    assert back == t and alpha_eq(back, t)


def test_corpus_is_big_and_covers_every_symbol():
    assert len(CORPUS) >= 40
    used = {u.op for s, _ in CORPUS for u in terms.subterms(parse(s)) if isinstance(u, Prim)}
    assert used == set(ARITY)
    kinds = {type(u) for s, _ in CORPUS for u in terms.subterms(parse(s))}
    assert kinds == set(terms.TERM_CLASSES)


@pytest.mark.parametrize("src,expected", [
    ("a - b - c", P("sub", P("sub", a, b), c)),
    ("a ^ b ^ c", P("pow", a, P("pow", b, c))),
    ("f x y", App(App(f, x), y)),
    ("-x ^ 2", P("neg", P("pow", x, Num(2)))),
    ("-x * y", P("mul", P("neg", x), y)),
    ("λx. x ⊕ y", lam(x, sm(x, y))),
    ("π1 f x", App(Proj(1, f), x)),
    ("a ⊕ b + c", sm(a, P("add", b, c))),
    ("a + b ⊕ c", sm(P("add", a, b), c)),
    ("f x ^ 2", P("pow", App(f, x), Num(2))),
    ("a * b + c / d", P("add", P("mul", a, b), P("div", c, Var("d")))),
    ("λx. λy. x y", lam(x, lam(y, App(x, y)))),
    ("let x = a ⊕ b in x ⊕ c", App(lam(x, sm(x, c)), sm(a, b))),
])
def test_precedence_and_associativity(src, expected):
    assert parse(src) == expected


def test_types():
    assert parse_type("ℝ") == R
    assert parse_type("R * R * R") == T.Prod((R, R, R))
    assert parse_type("(R × R) × R") == T.Prod((T.Prod((R, R)), R))
    assert parse_type("R -> R -> R") == T.Arrow(R, T.Arrow(R, R))
    assert parse_type("R × R → R") == T.Arrow(T.Prod((R, R)), R)
    assert parse_type("R^*^*") == T.DualT(T.DualT(R))
    assert parse_type("(ℝ × ℝ)⋆") == T.DualT(T.Prod((R, R)))
    for ty in ["ℝ × (ℝ → ℝ)⋆ → ℝ", "(ℝ → ℝ) → ℝ × ℝ", "((ℝ × ℝ) × ℝ)⋆⋆"]:
        assert T.show_type(parse_type(ty)) == ty
        assert parse_type(T.show_type(parse_type(ty), unicode=False)) == parse_type(ty)


def test_positions():
    t = parse("# header\nlet ⟨x, y⟩ = ⟨1,\n  2⟩ in\n  sin(x) * y")
    assert t.pos == Pos(2, 1) and t.fun.pos == Pos(2, 1)
    assert t.fun.pat.pos == Pos(2, 5) and t.fun.pat.items[1].pos == Pos(2, 9)
    assert t.arg.pos == Pos(2, 14) and t.arg.items[1].pos == Pos(3, 3)
    body = t.fun.body
    assert body.pos == Pos(4, 3) and body.args[1].pos == Pos(4, 12)
    assert parse("  -2").pos == Pos(1, 3)
    assert parse("f (π1 x)").arg.pos == Pos(1, 4)


def test_identifiers_are_noted():
    parse("λuser_name_q. other_name_q")
    assert {"user_name_q", "other_name_q"} <= terms._AMBIENT.used


def test_deep_sin_chain():
    n = 10_000
    src = "sin(" * n + "x" + ")" * n
    t = parse(src)
    assert terms.depth(t) == n + 1
    assert pretty(t) == src
    assert parse(pretty(t, unicode=False)) == t


def test_long_left_nested_sum():
    src = " + ".join(["x"] * 10_000)
    t = parse(src)
    assert terms.depth(t) == 10_000
    assert pretty(t) == src
    assert parse(pretty(t, unicode=False)) == t


@pytest.mark.parametrize("unit,tail", [("-", ""), ("λx. ", ""), ("f ", ""), ("2 ^ ", ""),
                                       ("<", ", y>"), ("(λx. x)⋆ ", ""), ("π1 ", "")])
def test_other_deep_terms(unit, tail):
    t = parse(unit * 5000 + "x" + tail * 5000)
    assert parse(pretty(t)) == t


# (source, line, column, words the message must contain)
ERRORS = [
    ("(x", 1, 3, ["end of input", "')'"]),
    ("x)", 1, 2, ["')'", "end of input"]),
    ("", 1, 1, ["end of input", "a term"]),
    ("f $ x", 1, 3, ["character '$'", "a term"]),
    ("sin(x, y)", 1, 1, ["sin", "1 argument", "got 2"]),
    ("add(x)", 1, 1, ["add", "2 arguments"]),
    ("π0 x", 1, 1, ["projection index"]),
    ("x +\n  pi0 y", 2, 3, ["projection index"]),
    ("⟨x⟩", 1, 1, ["two components"]),
    ("λ<x>. x", 1, 2, ["two components"]),
    ("let x = 1\n  x", 2, 4, ["end of input", "'in'"]),
    ("1 +\n  * 2", 2, 3, ["'*'", "a term"]),
    ("λ. x", 1, 2, ["'.'", "a pattern"]),
    ("let in = 2 in x", 1, 5, ["keyword 'in'", "a pattern"]),
    ("dual", 1, 1, ["keyword 'dual'"]),
    ("sin x", 1, 5, ["'x'", "'('"]),
    ("J(x)·y", 1, 3, ["λ"]),
    ("(x)⋆ y", 1, 2, ["λ"]),
    ("λx : Q. x", 1, 6, ["unknown type 'Q'"]),
    ("λx : . x", 1, 6, ["'.'", "a type"]),
    ("# c\n  (a, b)", 2, 5, ["','", "')'"]),
    ("((x)", 1, 5, ["end of input", "')'"]),
    ("x ⊕\n", 2, 1, ["end of input", "a term"]),
    ("a b\n\n   c ?", 3, 6, ["character '?'"]),
]


@pytest.mark.parametrize("src,line,column,words", ERRORS)
def test_errors(src, line, column, words):
    with pytest.raises(ParseError) as info:
        parse(src)
    e = info.value
    assert e.pos == Pos(line, column), (e.pos, e.message)
    for word in words:
        assert word in e.message, e.message
    assert "__ANON" not in e.message and "_RPAR" not in e.message


@pytest.mark.parametrize("src", ["R ->", "R R", "Q", "(R", "R * ", "R ** R", "λ"])
def test_type_errors_are_parse_errors(src):
    with pytest.raises(ParseError) as info:
        parse_type(src)
    assert info.value.pos is not None and info.value.message
