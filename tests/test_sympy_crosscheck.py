"""First-order programs: Jacobian rows by reduction agree with sympy.

The oracle is independent of the reduction engine: ``to_sympy`` interprets
the term symbolically and sympy differentiates; for the sympy-built
programs, sympy differentiates the expressions the term was built from.
"""

import pytest
import sympy

import pullback_calc as pc
from pullback_calc.results.sympy_bridge import sympy_jacobian

# R^n → R^m programs mixing every function symbol, shared subexpressions, lets
PROGRAMS = [
    ("λ⟨x, y⟩. ((x + 1) × (2 × x + y × y)) ^ 2", [(1.5, 2.0), (-0.5, 0.25)]),
    ("λx. sin(x) × cos(x)", [(0.3,), (2.0,)]),
    ("λx. tan(x) / x", [(0.7,), (-0.4,)]),
    ("λx. exp(-x × x)", [(0.5,), (1.5,)]),
    ("λx. log(1 + x × x)", [(0.2,), (3.0,)]),
    ("λx. sqrt(x) + x ^ 1.5", [(0.5,), (4.0,)]),
    ("λx. tanh(2 × x) − x", [(0.1,), (-1.3,)]),
    ("λ⟨x, y⟩. pow(x, y)", [(2.0, 3.0), (1.5, 0.5)]),
    ("λ⟨x, y⟩. x − y / (x + y)", [(1.0, 2.0), (3.0, -1.0)]),
    ("λ⟨x, y⟩. -x × y", [(1.0, 2.0), (0.5, 0.5)]),
    ("λ⟨x, y⟩. let a = x × y in sin(a) + cos(a) × a", [(0.4, 0.9), (1.1, -2.0)]),
    ("λ⟨x, y, z⟩. let s = x + y + z in s × s × s / (1 + s × s)", [(0.1, 0.2, 0.3), (1, -1, 2)]),
    ("λ⟨x, y⟩. ⟨x × y, x + y, x − y⟩", [(2.0, 3.0), (-1.0, 0.5)]),
    ("λ⟨x, y⟩. ⟨sin(x) × exp(y), cos(x) × exp(y)⟩", [(0.3, 0.2), (2.0, -1.0)]),
    ("λy. ⟨π2 y, π1 y × π1 y⟩", [(1.0, 2.0), (-3.0, 0.5)]),
    ("λy. π1 y × π2 y × π3 y", [(1.0, 2.0, 3.0), (0.5, -1.0, 4.0)]),
    ("λ⟨r, t⟩. ⟨r × cos(t), r × sin(t)⟩", [(2.0, 0.5), (1.0, 3.0)]),
    ("λ⟨x, y⟩. let u = exp(x) in let v = u × y in ⟨v, v × u, log(u + v)⟩",
     [(0.1, 0.2), (1.0, 1.0)]),
    ("λx. let a = sin(x) in let b = a × a in let c = b × b in c × c", [(0.7,), (1.9,)]),
    ("λ⟨w1, w2, b⟩. (tanh(w1 × 0.5 + w2 × (-1.5) + b) − 0.25) ^ 2", [(0.1, 0.2, 0.3), (-1, 1, 0)]),
    ("λ⟨x, y⟩. sqrt(x × x + y × y)", [(3.0, 4.0), (1.0, 1.0)]),
    ("λ⟨x, y⟩. exp(x) / (exp(x) + exp(y))", [(0.5, -0.5), (2.0, 1.0)]),
    ("λx. (λf. f (f x)) (λt. t × t + 1)", [(0.5,), (-1.2,)]),
    ("λ⟨a, b⟩. let f = λt. a × t + b in f (f 2)", [(1.5, -0.5), (0.3, 2.0)]),
    ("λx. let p = ⟨x, x × x⟩ in π1 p + π2 p × π1 p", [(0.9,), (2.5,)]),
    ("λ⟨x, y⟩. log(x) × log(y) + x ^ y", [(1.5, 2.5), (3.0, 0.5)]),
    ("λ⟨x, y⟩. sin(x + y) × sin(x − y) / cos(x × y)", [(0.2, 0.3), (0.9, -0.4)]),
    ("λx. x ⊕ sin(x) ⊕ x × x", [(0.5,), (1.5,)]),
    ("λ⟨x, y⟩. ⟨x ⊕ y, y ⊕ x × y ⊕ 𝟎⟩", [(0.5, 1.5), (2.0, -1.0)]),
    ("λ⟨x, y, z⟩. ⟨tan(x × y), tanh(y × z), sqrt(z + x × x), exp(-z) × pow(x, 3)⟩",
     [(0.3, 0.4, 1.2), (0.5, -0.2, 2.0)]),
    ("λ⟨x1, x2, x3, x4⟩. x1 × x2 + x2 × x3 + x3 × x4 + x4 × x1", [(1, 2, 3, 4), (0.5, -1, 2, 0)]),
    ("λ⟨x, y⟩. let s = x × y in let t = s × s in ⟨t − s, t / s, sin(t) × cos(s)⟩",
     [(0.6, 0.7), (1.2, -0.9)]),
]


@pytest.mark.parametrize("src,points", PROGRAMS, ids=[p[0][:40] for p in PROGRAMS])
def test_rows_agree_with_sympy(src, points):
    f = pc.parse(src)
    for pt in points:
        got = pc.jacobian(f, pt)
        want = sympy_jacobian(f, pt)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g == pytest.approx(w, rel=1e-9, abs=1e-12), (src, pt)


def test_at_least_thirty_programs_using_every_function_symbol():
    from pullback_calc.syntax.prims import PRIMS
    assert len(PROGRAMS) >= 30
    used = set()
    for src, _ in PROGRAMS:
        terms = __import__("pullback_calc.syntax.terms", fromlist=["subterms"])
        for u in terms.subterms(pc.parse(src)):
            if hasattr(u, "op"):
                used.add(u.op)
    assert used == set(PRIMS)


x, y, z = sympy.symbols("x y z")
SYMPY_BUILT = [
    ([((x + 1) * (2 * x + y ** 2)) ** 2], [x, y]),
    ([sympy.Rational(3, 2) * x ** -2 + sympy.sqrt(y) * x], [x, y]),
    ([sympy.exp(x * y) * sympy.sin(x * y), sympy.log(1 + (x * y) ** 2)], [x, y]),
    ([x ** sympy.Rational(1, 3) + y ** sympy.Rational(-3, 2)], [x, y]),
    ([(x + y + z) ** 3 - 2 * x * y * z + sympy.tanh(z)], [x, y, z]),
    # the gradient itself, with its shared subexpressions
    (list(sympy.Matrix([((x + 1) * (2 * x + y ** 2)) ** 2]).jacobian([x, y])), [x, y]),
]


@pytest.mark.parametrize("exprs,syms", SYMPY_BUILT, ids=[str(e[0][0])[:30] for e in SYMPY_BUILT])
def test_from_sympy_terms_agree_with_sympy(exprs, syms):
    f = pc.from_sympy(exprs, syms)
    J = sympy.Matrix(exprs).jacobian(syms)
    for pt in ([0.7, 1.3, 0.4][:len(syms)], [1.9, 0.6, 2.2][:len(syms)]):
        got = pc.jacobian(f, pt)
        want = [[float(J[i, j].subs(dict(zip(syms, pt)))) for j in range(len(syms))]
                for i in range(len(exprs))]
        for g, w in zip(got, want):
            assert g == pytest.approx(w, rel=1e-9)


def test_gradient_of_a_swollen_expression_stays_small():
    # e_{k+1} = sin(e_k) × e_k: the sympy tree is exponential, the term is not
    e = x
    for _ in range(12):
        e = sympy.sin(e) * e
    f = pc.from_sympy([e], [x])
    r = pc.jacobian_row(f, [0.8], 0)
    want = float(sympy.diff(e, x).subs(x, 0.8))
    assert r.row[0] == pytest.approx(want, rel=1e-9)
    assert r.steps < 40 * 12
