"""Truly higher-order and nested differentiation, by reduction."""
import math

import pytest
import sympy

import pullback_calc as pc
from pullback_calc.syntax.subst import alpha_eq

LISTS = """
let nil = λf. λd. d in
let cons = λx. λl. λf. λd. f x (l f d) in
let sum = λl. l (λx. λacc. x + acc) 0 in
let map = λg. λl. λf. λd. l (λx. λacc. f (g x) acc) d in
let foldr = λg. λz0. λl. l g z0 in
"""
LIST123 = "(cons 1 (cons 2 (cons 3 nil)))"
TANGENT = "(cons 10 (cons 20 (cons 30 nil)))"


def value(src, **kw):
    return pc.reduce(src, max_steps=500_000, **kw).value


def test_example_3_2_sum_covector_and_its_value():
    cov = value(LISTS + f"Ω(sum) (λz. λw. w) {LIST123}")
    assert alpha_eq(cov, pc.parse("λdl. dl (λx. λacc. x + acc) 0"))
    assert value(LISTS + f"Ω(sum) (λz. λw. w) {LIST123} {TANGENT}") == pc.parse("60")
    assert pc.apply_covector(cov, pc.parse(LISTS + TANGENT)) == pc.parse("60")


def test_functions_of_lists_are_differentiated_in_the_function_space():
    # l ↦ sum (map square l) is linear in the Church list l (a function), so
    # its derivative along the Church list [10,20,30] is Σ vᵢ² = 1400
    src = LISTS + f"Ω(λl. sum (map (λx. x × x) l)) (λz. λw. w) {LIST123} {TANGENT}"
    assert value(src) == pc.parse("1400")
    # foldr (+) 0 ∘ map (2×) along [1, 1] is 4
    src = LISTS + "Ω(λl. foldr (λx. λacc. x + acc) 0 (map (λx. 2 × x) l)) (λz. λw. w) " \
                  "(cons 1 (cons 2 nil)) (cons 1 (cons 1 nil))"
    assert value(src) == pc.parse("4")


def test_the_tangent_of_a_curve_of_lists_gives_the_usual_gradient():
    # the tangent at [1,2,3] of t ↦ [1 + 10t, 2 + 20t, 3 + 30t] is a function
    # built by J; along it, sum ∘ map square has derivative Σ 2xᵢvᵢ = 280
    curve = "(λt. cons (1 + 10 × t) (cons (2 + 20 × t) (cons (3 + 30 × t) nil)))"
    src = LISTS + f"Ω(λl. sum (map (λx. x × x) l)) (λz. λw. w) {LIST123} ((J({curve[1:-1]})·1) 0)"
    assert value(src) == pc.parse("280")


def test_function_typed_inputs():
    assert alpha_eq(value("Ω(λg. g 3) (λz. λw. w) (λx. x × x)"), pc.parse("λdg. dg 3"))
    assert value("Ω(λg. g 3) (λz. λw. w) (λx. x × x) (λx. 5 × x)") == pc.parse("15")
    # g ↦ g (g 2) at g = square along dg = const 1: 1 + g'(4)·1 = 9
    assert value("Ω(λg. g (g 2)) (λz. λw. w) (λx. x × x) (λx. 1)") == pc.parse("9")


def test_curried_outputs_rule_18():
    r = pc.reduce("Ω(λx. λy. x × y) (λh. λdh. dh 3) 2")
    assert alpha_eq(r.value, pc.parse("λdx. 3 × dx"))
    assert "18" in {s.rule for s in r.trace}


def test_free_variables_stay_symbolic():
    r = pc.reduce("Ω(λx. h x) (λz. λw. w) 2", check=False)
    assert alpha_eq(r.value, pc.parse("λdx. (J(λx. h x)·dx) 2"))


def test_second_derivative_of_cos_by_nested_pullbacks():
    for at in (0.0, 0.4, 2.0):
        r = pc.jacobian_row("λx. Ω(λy. cos(y)) (λz. λw. w) x 1", [at], 0)
        assert r.row == pytest.approx([-math.cos(at)])
    assert pc.jacobian("λx. Ω(λy. cos(y)) (λz. λw. w) x 1", [0.0]) == [[-1.0]]


def test_perturbation_confusion():
    # d/dx (x · d/dy (x + y)) = 1 at every x (2 would mean confused perturbations)
    for at in (-1.0, 0.0, 2.5):
        assert pc.jacobian("λx. x × (Ω(λy. x + y) (λz. λw. w) 3 1)", [at]) == [[1.0]]


x, y, z = sympy.symbols("x y z")
HESSIAN_CASES = [
    x ** 2 * y, sympy.sin(x * y) + z ** 3, sympy.exp(x) * sympy.cos(y) * z,
    (x + 1) * (2 * x + y ** 2), ((x + 1) * (2 * x + y ** 2)) ** 2,
    sympy.log(1 + x ** 2 + y ** 2), sympy.tanh(x * y * z), sympy.sqrt(x ** 2 + y ** 2 + z ** 2),
    x / (1 + y * z), sympy.tan(x) * y ** 3, x ** y, sympy.exp(-(x ** 2 + y ** 2) / 2) * z,
]


@pytest.mark.parametrize("e", HESSIAN_CASES, ids=[str(e)[:30] for e in HESSIAN_CASES])
def test_hessians_by_nested_pullbacks_match_sympy(e):
    syms = sorted(e.free_symbols, key=str)
    f = pc.from_sympy([e], syms)
    pt = [0.7, 1.3, 0.4][:len(syms)]
    H = pc.hessian(f, pt)
    Hs = sympy.hessian(e, syms).subs(dict(zip(syms, pt)))
    for i in range(len(syms)):
        assert H[i] == pytest.approx([float(Hs[i, j]) for j in range(len(syms))], rel=1e-9,
                                     abs=1e-12)


def test_hessian_errors():
    with pytest.raises(pc.JacobianError, match="real-valued"):
        pc.hessian("λ⟨x, y⟩. ⟨x, y⟩", [1.0, 2.0])
    with pytest.raises(pc.JacobianError, match="row 2"):
        pc.hessian_row("λ⟨x, y⟩. x × y", [1.0, 2.0], 2)


def test_covectors_over_function_spaces_read_readably():
    src = LISTS + f"Ω(λl. sum (map (λx. x × x) l)) (λz. λw. w) {LIST123}"
    weak = pc.reduce(src).value
    strong = pc.strong_normal_form(src)
    assert alpha_eq(strong, pc.parse("λdl. dl (λx. λacc. x × x + acc) 0"))
    assert len(pc.pretty(strong)) < len(pc.pretty(weak))
    # both read the same number off a tangent
    tangent = pc.parse(LISTS + TANGENT)
    assert pc.apply_covector(strong, tangent) == pc.apply_covector(weak, tangent)
