"""The independent oracle: its own semantics, then agreement with the engine."""
import math
from pathlib import Path

import pytest

import pullback_calc as pc
from pullback_calc.syntax.terms import Lam, Num, Prim, Tuple, Var, Zero, let
from pullback_calc.testing import (ZERO, DualNumber, OracleError, apply, central_difference,
                                   covector_apply, derivative, evaluate, jacobian_by_oracle,
                                   row_by_oracle, shape_point)
from pullback_calc.testing import oracle

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
LIST = "(λc. λn. c 1 (c 2 (c 3 n)))"          # the Church list [1, 2, 3]
TLIST = "(λc. λn. c 10 (c 20 (c 30 n)))"      # the tangent list [10, 20, 30]
SUM = "λl. l (λx. λacc. x + acc) 0"
RUNNING = "λ⟨x, y⟩. ((x + 1) × (2 × x + y ^ 2)) ^ 2"


def example(name):
    return (EXAMPLES / name).read_text(encoding="utf-8")


# ---- plain evaluation -----------------------------------------------------------------

def test_numerals_and_every_prim():
    assert evaluate("1 + 2 × 3 − 8 / 4") == 5.0
    assert evaluate("−2 ^ 3") == -8.0
    for op in ("sin", "cos", "tan", "exp", "log", "sqrt", "tanh"):
        assert evaluate(f"{op}(0.7)") == getattr(math, op)(0.7)
    with pytest.raises(ArithmeticError):
        evaluate("1 / 0")


def test_lambda_patterns_tuples_projections():
    assert evaluate("(λ⟨a, ⟨b, c⟩⟩. a × b − c) ⟨2, ⟨3, 4⟩⟩") == 2.0
    assert evaluate("⟨1, 2 + 3⟩") == (1.0, 5.0)
    assert evaluate("π3 ⟨1, 2, 7⟩") == 7.0
    assert evaluate("(λx y. x − y) 5 2") == 3.0


def test_zero_is_the_unit_at_every_type():
    assert evaluate("𝟎") is ZERO
    assert evaluate("π1 𝟎") is ZERO and evaluate("𝟎 3") is ZERO
    assert evaluate("𝟎 ⊕ 5") == 5.0
    assert evaluate("(𝟎 ⊕ (λx. x × 2)) 3") == 6.0
    assert evaluate("(λ⟨a, b⟩. a) 𝟎") is ZERO
    assert evaluate("sin(𝟎)") == 0.0


def test_formal_sums_are_vector_addition():
    assert evaluate("2 ⊕ 3 ⊕ 4") == 9.0
    assert evaluate("⟨1, 2⟩ ⊕ ⟨10, 20⟩") == (11.0, 22.0)
    assert evaluate("((λx. x) ⊕ (λx. x × x)) 3") == 12.0
    assert evaluate("((λx. ⟨x, 1⟩) ⊕ (λx. ⟨1, x⟩)) 5") == (6.0, 6.0)


def test_let_evaluates_the_bound_term_once():
    calls = []

    def f(x):
        calls.append(x)
        return x * 10

    assert evaluate("let y = f 2 in y × y + y", {"f": f}) == 420.0
    assert calls == [2.0]


def test_closures_are_lexically_scoped():
    assert evaluate("let a = 2 in let g = λx. a × x in let a = 100 in g 3") == 6.0
    adder = evaluate("λa. λb. a + b")
    assert apply(adder, 1.0, 2.0) == 3.0
    assert evaluate("x × y", {"x": 2.0, "y": 4.0}) == 8.0
    with pytest.raises(OracleError):
        evaluate("x + 1")
    with pytest.raises(OracleError):
        evaluate("sin(λx. x)")


def test_church_lists():
    assert evaluate(f"let sum = {SUM} in sum {LIST}") == 6.0
    assert evaluate("(λc. λn. c 2 (c 3 (c 4 n))) (λx. λacc. x × acc) 1") == 24.0
    assert evaluate(f"{LIST} (λx. λacc. x − acc) 0") == 2.0  # 1 − (2 − (3 − 0)): order matters


# ---- forward mode: J ------------------------------------------------------------------

def test_jacobian_of_sin():
    assert evaluate("(J(λx. sin(x))·1) 0.3") == math.cos(0.3)


def test_jacobian_of_a_product_along_each_axis():
    assert evaluate("(J(λ⟨x, y⟩. x × y)·⟨1, 0⟩) ⟨2, 5⟩") == 5.0
    assert evaluate("(J(λ⟨x, y⟩. x × y)·⟨0, 1⟩) ⟨2, 5⟩") == 2.0
    assert evaluate("(J(λ⟨x, y⟩. ⟨x × y, sin(x)⟩)·⟨1, 2⟩) ⟨0.3, 0.4⟩") == (
        pytest.approx(0.4 + 2 * 0.3), math.cos(0.3))


def test_jacobian_at_a_function_typed_input():
    # d/dε (f + εg)(2)·(f + εg)(3) = g 2 · f 3 + f 2 · g 3 = 2·9 + 4·3
    assert evaluate("(J(λf. f 2 × f 3)·(λx. x)) (λx. x × x)") == 30.0
    # f ↦ f∘f along g: g(f x) + f'(f x)·g(x) = 1 + 2·4·1
    assert evaluate("(J(λf. λx. f (f x))·(λx. 1)) (λx. x × x) 2") == 9.0


def test_jacobian_with_a_function_result_is_extracted_pointwise():
    d = evaluate("(J(λa. λx. a × x × x)·1) 3")  # ∂/∂a (a x²) = x²
    assert callable(d) and d(2.0) == 4.0 and d(5.0) == 25.0


def test_nested_jacobian_second_derivative():
    assert evaluate("(J(λx. (J(λy. cos(y))·1) x)·1) 0") == -1.0
    assert evaluate("let f = λx. x ^ 3 in (J(λx. (J(λy. f y)·1) x)·1) 2") == 12.0


@pytest.mark.parametrize("x", [-2.0, 0.0, 3.0, 7.5])
def test_no_perturbation_confusion(x):
    # d/dx (x · d/dy (x + y)) = d/dx (x · 1) = 1
    assert evaluate(f"(J(λx. x × (J(λy. x + y)·1) 2)·1) ({x})") == 1.0


def test_why_tags_matter():
    """With one shared tag (= untagged duals) the inner derivative also sees
    the outer perturbation of x, and the answer becomes 2."""
    def outer(tag):
        return derivative(lambda x: x * derivative(lambda y: x + y, 2.0, 1.0, tag=tag),
                          3.0, 1.0, tag=tag)
    assert derivative(lambda x: x * derivative(lambda y: x + y, 2.0, 1.0), 3.0, 1.0) == 1.0
    assert outer(tag=oracle.fresh_tag()) == 2.0


def test_no_confusion_when_a_derivative_is_a_function_used_twice():
    """Manzyuk et al.'s example: d = D(shift) at 0 is f ↦ f'; d (d exp) 1 = e.
    Both uses of d share one tag; the extraction renames it apart."""
    term = "let d = (J(λu. λf. λx. f (x + u))·1) 0 in d (d (λz. exp(z))) 1"
    assert evaluate(term) == pytest.approx(math.e)


def test_duals_nest_in_either_order():
    a = DualNumber(1, DualNumber(2, 3.0, 1.0), DualNumber(2, 1.0, 0.0))  # 3 + ε₂ + ε₁
    b = DualNumber(2, DualNumber(1, 3.0, 1.0), DualNumber(1, 1.0, 0.0))  # same number
    for v in (a, b):
        r = v * v  # 9 + 6ε₁ + 6ε₂ + 2ε₁ε₂
        assert oracle.tangent_value(oracle.tangent_value(r, 1), 2) == 2.0
        assert oracle.tangent_value(oracle.tangent_value(r, 2), 1) == 2.0
        assert oracle._split(oracle._split(r, 1)[0], 2) == (9.0, 6.0)


@pytest.mark.parametrize("op, x", [("sin", 0.7), ("cos", 0.7), ("tan", 0.7), ("exp", 0.7),
                                   ("log", 0.7), ("sqrt", 0.7), ("tanh", 0.7), ("neg", 0.7)])
def test_unary_derivative_table_against_finite_differences(op, x):
    f = lambda t: oracle.prim(op, t)  # noqa: E731
    assert derivative(f, x, 1.0) == pytest.approx(central_difference(f, x, 1.0), rel=1e-7)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "pow"])
def test_binary_derivative_table_against_finite_differences(op):
    f = lambda p: oracle.prim(op, p[0], p[1])  # noqa: E731
    for v in ((1.0, 0.0), (0.0, 1.0)):
        assert derivative(f, (1.3, 0.6), v) == pytest.approx(
            central_difference(f, (1.3, 0.6), v), rel=1e-7)


# ---- duals and pullbacks --------------------------------------------------------------

def test_dual_map():
    assert evaluate("((λv. ⟨v, 2 × v⟩)⋆(λw. π1 w + 3 × π2 w)) 5") == 35.0
    assert evaluate("((λv. v 2)⋆(λw. 3 × w)) (λx. x × x)") == 12.0


def test_pullback_running_example():
    cov = evaluate(f"Ω({RUNNING})(λz. λw. w) ⟨1.5, 2⟩")
    assert covector_apply(cov, (1.0, 0.0)) == 420.0
    assert covector_apply(cov, (0.0, 1.0)) == 350.0


def test_example_3_2_sum_of_church_lists():
    cov = evaluate(f"let sum = {SUM} in Ω(sum)(λz. λw. w) {LIST}")
    assert covector_apply(cov, evaluate(TLIST)) == 60.0
    assert evaluate(example("church_sum.pb")) == 60.0


def test_pullback_form_depends_on_the_point():
    # ω(y) = λw. y·w along sin: the covector at x is sin x · cos x · dx
    assert evaluate("Ω(λx. sin(x))(λz. λw. z × w) 0.5 1") == pytest.approx(
        math.sin(0.5) * math.cos(0.5))


# ---- agreement with the engine ---------------------------------------------------------

def engine_value(term, **kw):
    """The engine's normal form as a Python value (numerals and tuples of them)."""
    v = pc.reduce(term, **kw).value
    if isinstance(v, Num):
        return v.value
    if isinstance(v, Zero):
        return 0.0
    if isinstance(v, Tuple):
        return tuple(engine_value(i) for i in v.items)
    raise AssertionError(f"not a numeral: {v}")


AGREE = [
    "sin(0.3) × 2 + 1",
    "let x = 2 in let y = x × x in y + x",
    "(λf. f (f 3)) (λx. x × x)",
    f"let sum = {SUM} in sum {LIST}",
    "(J(λx. sin(x))·1) 0.3",
    "(J(λ⟨x, y⟩. x × y)·⟨1, 0⟩) ⟨2, 5⟩",
    "(J(λ⟨x, y⟩. ⟨x × y, sin(x)⟩)·⟨1, 2⟩) ⟨0.3, 0.4⟩",
    f"Ω({RUNNING})(λz. λw. w) ⟨1.5, 2⟩ ⟨1, 0⟩",
    f"Ω({RUNNING})(λz. λw. w) ⟨1.5, 2⟩ ⟨0, 1⟩",
    example("church_sum.pb"),
    f"let sq = λl. l (λx. λacc. x × x + acc) 0 in Ω(sq)(λz. λw. w) {LIST} {TLIST}",
    f"let p = λl. l (λx. λacc. sin(x) × acc) 1 in Ω(p)(λz. λw. z × w) {LIST} {TLIST}",
    "(J(λx. (J(λy. cos(y))·1) x)·1) 0",
    "(J(λx. x × (J(λy. x + y)·1) 2)·1) 3",
    "(J(λf. f 2 × f 3)·(λx. x)) (λx. x × x)",
    "(J(λf. λx. f (f x))·(λx. 1)) (λx. x × x) 2",
    "let d = (J(λu. λf. λx. f (x + u))·1) 0 in d (d (λz. exp(z))) 1",
    "(J(λx. Ω(λy. x × y × y)(λz. λw. z × w) x 1)·1) 1.3",
    "Ω(λx. Ω(λy. sin(x × y))(λz. λw. w) x 1)(λz. λw. w) 0.6 1",
    "Ω(λx. λy. sin(x × y))(λg. λh. h 3 + g 1 × h 2) 0.5 1",
    "Ω(λf. λx. f (f x))(λg. λh. h 2) (λx. x × x) (λx. 1)",
    "((λv. ⟨v, 2 × v⟩)⋆(λw. π1 w + 3 × π2 w)) 5",
    "(J(λx. tanh(x) + tan(x) + sqrt(x) + log(x) + exp(x) / x + x ^ x)·1) 0.4",
    "π2 ⟨1, 2 ⊕ 3⟩",
]


@pytest.mark.parametrize("term", AGREE, ids=[f"t{i}" for i in range(len(AGREE))])
def test_engine_agrees_with_the_oracle(term):
    assert engine_value(term) == pytest.approx(evaluate(term), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("term, want", [
    ("(J(λa. (J(λx. a x)·1) 2)·(λx. x)) (λx. x)", 1.0),
    ("(J(λf. (J(λx. f x × x)·1) 2)·(λx. x × x)) (λx. sin(x))", 12.0),  # g'(2)·2 + g(2)
])
def test_engine_inner_jacobian_applying_the_outer_function_variable(term, want):
    # found by this oracle: rule 13 now covers J(λq.S)·a linear in p through S
    assert evaluate(term) == want
    assert engine_value(term, max_steps=20000) == pytest.approx(want)


FIRST_ORDER = [pytest.param(f, pt, id=name) for name, f, pt in [
    ("running", RUNNING, [1.5, 2.0]), ("polar", example("polar.pb"), [2.0, 0.5]),
    ("elementary", example("elementary.pb"), [0.7, 1.3]),
    ("shared", example("shared.pb"), [0.5, 2.0]),
    ("tanh_layer", example("tanh_layer.pb"), [0.5, -1.0, 2.0]),
    ("nested_pattern", "λ⟨⟨a, b⟩, c⟩. ⟨a × c, b / c, a ^ b⟩", [1.2, 0.5, 3.0]),
    ("scalar", "λx. x × sin(x)", [0.9])]]


@pytest.mark.parametrize("f, point", FIRST_ORDER)
def test_jacobian_rows_agree_with_forward_mode(f, point):
    rows = jacobian_by_oracle(f, point)
    assert len(rows) == len(pc.jacobian(f, point))
    for p, row in enumerate(rows):
        assert row == row_by_oracle(f, point, p)
        assert pc.jacobian_row(f, point, p).row == pytest.approx(row, rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("f, point", FIRST_ORDER)
def test_finite_differences_agree_with_forward_mode(f, point):
    fn, t = evaluate(f), pc.parse(f)
    x = shape_point(t, point)
    v = shape_point(t, [0.3 * (i + 1) for i in range(len(point))])
    fwd, fd = derivative(fn, x, v), central_difference(fn, x, v)
    assert oracle._leaves(fd) == pytest.approx(oracle._leaves(fwd), rel=1e-6, abs=1e-8)


def test_zero_derivatives_keep_the_output_shape():
    assert jacobian_by_oracle("λ⟨x, y⟩. ⟨𝟎, 3, x⟩", [1, 2]) == [[0, 0], [0, 0], [1, 0]]


def test_shape_point_follows_the_binder():
    assert shape_point(pc.parse("λ⟨⟨a, b⟩, c⟩. a"), [1, 2, 3]) == ((1.0, 2.0), 3.0)
    assert shape_point(pc.parse("λx. x"), [4]) == 4.0
    assert shape_point(pc.parse("λx. π1 x"), [4, 5]) == (4.0, 5.0)


# ---- depth ----------------------------------------------------------------------------

def test_a_10000_deep_sin_chain():
    term = Var("x")
    for _ in range(10000):
        term = Prim("sin", (term,))
    x, d = 0.5, 1.0
    for _ in range(10000):
        x, d = math.sin(x), d * math.cos(x)
    assert evaluate(term, {"x": 0.5}) == x
    assert derivative(evaluate(Lam(Var("x"), term)), 0.5, 1.0) == pytest.approx(d, rel=1e-12)


def test_a_10000_deep_let_chain():
    body = Var("x10000")
    for i in range(10000, 0, -1):
        body = let(Var(f"x{i}"), Prim("add", (Var(f"x{i - 1}"), Num(1.0))), body)
    assert evaluate(Lam(Var("x0"), body))(0.5) == 10000.5


def _program(name):
    return (Path(__file__).parent / "data" / name).read_text(encoding="utf-8").strip()


def test_perturbed_rounding_tells_an_ill_conditioned_value_from_a_determined_one():
    """The thorough profile drew a program (tests/data/ill_conditioned_program.txt)
    whose value at −0.7 the engine gave as 0.63 and the oracle as −3.97: a second
    derivative near −257, scaled and fed to a derivative of a chain of sin(a × a),
    then to sin.  Neither is wrong: rounding each real operation differently by
    half an ulp moves the oracle itself over [−3, 1].  A well-conditioned program
    moves by a few ulps only, and outside the block the oracle rounds as before."""
    bad = oracle.evaluate(_program("ill_conditioned_program.txt"))
    exact = apply(bad, -0.7)
    moved = []
    for seed in range(3):
        with oracle.perturbed_rounding(1e-16, seed):
            moved.append(apply(bad, -0.7))
    assert max(abs(m - exact) for m in moved) > 0.5, moved
    assert apply(bad, -0.7) == exact
    good = oracle.evaluate("λx. sin(x × x) + exp(x) / (1 + x × x)")
    with oracle.perturbed_rounding(1e-15, 0):
        near = apply(good, -0.7)
    assert near != apply(good, -0.7) and math.isclose(near, apply(good, -0.7), rel_tol=1e-13)
