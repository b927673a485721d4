"""Printer: golden output in both spellings, parentheses, numerals, round trips."""
import random

import pytest

from pullback_calc.syntax import types as T
from pullback_calc.errors import ParseError
from pullback_calc.syntax.parser import parse
from pullback_calc.syntax.printer import pretty, pretty_type, show_num
from pullback_calc.syntax.prims import ARITY, P
from pullback_calc.syntax.subst import alpha_eq
from pullback_calc.syntax.terms import (App, Dual, Jac, Lam, Num, Prim, Proj, Pullback, Sum,
                                        Tuple, Var, Zero)

x, y, z, f, a, b, c, w = (Var(n) for n in "xyzfabcw")
R = T.R

# (term, unicode, ascii)
GOLDEN = [
    (Lam(x, P("add", x, Num(1))), "λx. x + 1", r"\x. x + 1"),
    (App(Lam(Tuple((x, y)), P("mul", x, y), T.Prod((R, R))), Tuple((Num(1), Num(-2.5)))),
     "let ⟨x, y⟩ : ℝ × ℝ = ⟨1, -2.5⟩ in x × y", "let <x, y> : R * R = <1, -2.5> in x * y"),
    (Sum((a, Sum((b, c)))), "a ⊕ (b ⊕ c)", "a ++ (b ++ c)"),
    (Sum((Sum((a, b)), c, Zero())), "(a ⊕ b) ⊕ c ⊕ 𝟎", "(a ++ b) ++ c ++ zero"),
    (P("sub", a, P("sub", b, c)), "a − (b − c)", "a - (b - c)"),
    (P("sub", P("sub", a, b), c), "a − b − c", "a - b - c"),
    (P("pow", P("pow", a, b), c), "(a ^ b) ^ c", "(a ^ b) ^ c"),
    (P("pow", a, P("pow", b, c)), "a ^ b ^ c", "a ^ b ^ c"),
    (P("neg", P("pow", x, Num(2))), "−x ^ 2", "-x ^ 2"),
    (P("pow", P("neg", x), Num(2)), "(−x) ^ 2", "(-x) ^ 2"),
    (App(f, Num(-2)), "f (-2)", "f (-2)"),
    (P("mul", x, Num(-2)), "x × (-2)", "x * (-2)"),
    (P("neg", Num(2)), "neg(2)", "neg(2)"),
    (P("neg", Num(-2)), "−(-2)", "-(-2)"),
    (P("neg", P("neg", x)), "−(−x)", "-(-x)"),
    (P("mul", P("add", a, b), P("sin", x)), "(a + b) × sin(x)", "(a + b) * sin(x)"),
    (App(App(f, x), App(f, y)), "f x (f y)", "f x (f y)"),
    (App(Proj(1, f), x), "π1 f x", "pi1 f x"),
    (App(f, Proj(2, x)), "f (π2 x)", "f (pi2 x)"),
    (Jac(Lam(x, P("sin", x)), y), "J(λx. sin(x))·y", r"J(\x. sin(x)) . y"),
    (Dual(Lam(x, P("mul", x, Num(2)), R), w), "(λx : ℝ. x × 2)⋆ w", r"(\x : R. x * 2)^* w"),
    (App(Pullback(f, w), x), "Ω(f) w x", "pullback(f) w x"),
    (Sum((a, Lam(x, x))), "a ⊕ (λx. x)", r"a ++ (\x. x)"),
    (App(App(Lam(x, x), a), b), "(let x = a in x) b", "(let x = a in x) b"),
    (Lam(Tuple((x, Tuple((y, z)))), Proj(1, x), T.Arrow(R, T.DualT(R))),
     "λ⟨x, ⟨y, z⟩⟩ : ℝ → ℝ⋆. π1 x", r"\<x, <y, z>> : R -> R^*. pi1 x"),
    (P("add", P("pow", x, Num(0.5)), P("div", Num(1e-5), Num(2.5e10))),
     "x ^ 0.5 + 1e-05 / 25000000000", "x ^ 0.5 + 1e-05 / 25000000000"),
]


@pytest.mark.parametrize("term,uni,asc", GOLDEN)
def test_golden(term, uni, asc):
    assert pretty(term) == uni
    assert pretty(term, unicode=False) == asc
    assert parse(uni) == term and parse(asc) == term


@pytest.mark.parametrize("v,s", [(2.0, "2"), (-2.0, "-2"), (2.5, "2.5"), (1e-5, "1e-05"),
                                 (1e20, "1e+20"), (0.1, "0.1"), (-0.0, "-0")])
def test_numerals(v, s):
    assert show_num(v) == s
    assert parse(s) == Num(v)


@pytest.mark.parametrize("v,s", [(float("inf"), "1e999"), (float("-inf"), "-1e999")])
def test_infinite_numerals_print_but_do_not_read_back(v, s):
    # issue 14: a literal that overflows is a parse error at the literal, not infinity
    assert show_num(v) == s
    with pytest.raises(ParseError, match="too large.*overflows"):
        parse(s)


def test_pretty_type():
    ty = T.Arrow(T.Prod((R, T.DualT(R))), R)
    assert pretty_type(ty) == "ℝ × ℝ⋆ → ℝ"
    assert pretty_type(ty, unicode=False) == "R * R^* -> R"


def test_str_and_repr_use_the_printer():
    t = Lam(x, P("sin", x))
    assert str(t) == "λx. sin(x)" and "λx. sin(x)" in repr(t)


def test_deep_printing_is_linear_and_recursion_free():
    t = x
    for _ in range(10_000):
        t = P("neg", P("sin", t))
    s = pretty(t, unicode=False)
    assert s == "-sin(" * 10_000 + "x" + ")" * 10_000
    assert parse(s) == t


# ---- random round trips --------------------------------------------------------

def _type(r, d):
    k = r.randrange(4) if d > 0 else 0
    if k == 0:
        return R
    if k == 1:
        return T.Prod(tuple(_type(r, d - 1) for _ in range(r.randint(2, 3))))
    if k == 2:
        return T.Arrow(_type(r, d - 1), _type(r, d - 1))
    return T.DualT(_type(r, d - 1))


def _pattern(r, d, used=None):
    """A pattern binding each name once (a repeated name is a parse error)."""
    used = set() if used is None else used
    if d <= 0 or r.random() < 0.6:
        name = r.choice(["x", "y", "p", "dx"])
        while name in used:
            name += "'"
        used.add(name)
        return Var(name)
    return Tuple(tuple(_pattern(r, d - 1, used) for _ in range(r.randint(2, 3))))


def _lam(r, d):
    return Lam(_pattern(r, 2), _term(r, d - 1), _type(r, 2) if r.random() < 0.3 else None)


def _term(r, d):
    if d <= 0:
        k = r.randrange(3)
        if k == 0:
            return Var(r.choice(["x", "y", "f", "x_1", "a'"]))
        if k == 1:
            return Num(r.choice([0.0, 1.0, -2.0, 2.5, 1e-5, -1e20, 3.25]))
        return Zero()
    k = r.randrange(10)
    sub = lambda: _term(r, d - 1)  # noqa: E731
    if k == 0:
        return _lam(r, d)
    if k == 1:
        return App(sub(), sub())
    if k == 2:
        return Tuple(tuple(sub() for _ in range(r.randint(2, 3))))
    if k == 3:
        return Proj(r.randint(1, 3), sub())
    if k == 4:
        return Sum(tuple(sub() for _ in range(r.randint(2, 3))))
    if k == 5:
        return Jac(_lam(r, d), sub())
    if k == 6:
        return Dual(_lam(r, d), sub())
    if k == 7:
        return Pullback(sub(), sub())
    op = r.choice(sorted(ARITY))
    return Prim(op, tuple(sub() for _ in range(ARITY[op])))


@pytest.mark.parametrize("seed", range(10))
def test_random_round_trips(seed):
    r = random.Random(seed)
    for _ in range(60):
        t = _term(r, r.randint(1, 5))
        for uni in (True, False):
            back = parse(pretty(t, unicode=uni))
            assert back == t and alpha_eq(back, t), pretty(t, unicode=uni)
