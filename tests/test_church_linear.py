"""Reverse mode over Church lists takes linearly many steps (issue 9, item 5).

A Church list [x1, …, xn] is λc. λn. c x1 (c x2 (… (c xn n))).  The gradient
of sum, of map-then-sum and of foldr over it, and applying the covector of
sum or map-then-sum to a tangent list, must take O(n) reduction steps: the
step counts (deterministic) may grow at most ×2.2 when n doubles (25 → 50 →
100 here; benchmarks/bench.py --families church goes to 800).  The
arithmetic of the gradient (rule-4 steps) is at most 4× the evaluation's
(the cheap-gradient principle).  The gradients are checked against plain
Python and the oracle.

What made them quadratic, and the fix:

* sum: rule 18's premise differentiated the list's body with n free; the
  partial sums 3 + n, 2 + (3 + n), … were copied (open call-by-value: 8J
  names inert point components, rule 1 keeps a let whose inert value it
  would copy, rule lift);
* sum, map+sum: A-normal forms named the closed folding function (and map's
  λx. x × x) by a variable, a coordinate of the environment, so reverse
  mode computed its adjoint -- the derivative of the whole fold along it --
  only to multiply it by 0 at the stage that binds it.  A closed abstraction
  is now an atom, like a numeral, and rule 8c substitutes one bound in a
  pullback's let series: sum's covector is λdl. dl (λx. λacc. x + acc) 0
  with no premise at all, as in Example 3.2;
* foldr: rule 5's composition distributes the nested tangent c₁ × (A₁ ⊕
  c₂ × (A₂ ⊕ …)) into the products c₁c₂, c₁c₂c₃, …, one shared node each,
  but its arithmetic premise reduced them as separate trees (n²/2 rule-4
  steps); it now binds every shared closed operation once by a let.

* foldl (foldr building a continuation): the forward premise of the
  list's body differentiated the rest of the fold once per element (D-eval's
  J(k_{j+1})·(dg acc_j x_j)), n²/2 stages; rule 18L keeps the folding
  function's tangent as λx. (J(λp. λk. λacc. …)·P) V inside forward
  premises, and 19m merges D-eval's two summands on such a tangent into one
  Jacobian of the continuation's body, carrying the accumulated direction.
"""
import math
from functools import lru_cache

import pytest

import pullback_calc as pc
from pullback_calc.syntax.terms import App, Num, church_list
from pullback_calc.testing.oracle import covector_apply, evaluate

SUM = "let sum = λl. l (λx. λacc. x + acc) 0 in "
MAP = "let map = λg. λl. λf. λd. l (λx. λacc. f (g x) acc) d in "
FOLDL = "let foldl = λg. λz0. λl. l (λx. λk. λacc. k (g acc x)) (λacc. acc) z0 in "
FOLDR = "let foldr = λg. λz0. λl. l g z0 in "
SIZES = [25, 50, 100]


def church(xs) -> str:
    return f"({pc.pretty(church_list(Num(float(x)) for x in xs))})"


def elements(n: int) -> list:
    return [round(1 + 0.1 * math.sin(i), 6) for i in range(1, n + 1)]


def tangent(n: int) -> list:
    return [round(0.5 * math.cos(i), 6) for i in range(1, n + 1)]


def horner(xs, x):
    p = dp = 0.0
    for c in xs:
        p, dp = p * x + c, dp * x + p
    return dp


def product_derivative(xs):
    p, dp = 1.0, 0.0
    for c in xs:
        p, dp = p * c, dp * c + p
    return dp


#: family -> (prelude, f, point, tangent, expected derivative along the tangent), given n
FAMILIES = {
    "sum": lambda n: (SUM, "sum", church(elements(n)), church(tangent(n)), sum(tangent(n))),
    # linear in l as a function: the derivative along the Church list v is Σ vᵢ²
    "mapsum": lambda n: (SUM + MAP, "λl. sum (map (λx. x × x) l)", church(elements(n)),
                         church(tangent(n)), sum(v * v for v in tangent(n))),
    "foldl": lambda n: (FOLDL, f"λx. foldl (λacc. λc. acc × x + c) 0 {church(elements(n))}",
                        "0.5", "1", horner(elements(n), 0.5)),
    "foldr": lambda n: (FOLDR, f"λa. foldr (λx. λacc. (x + a) × acc) 1 {church(elements(n))}",
                        "0", "1", product_derivative(elements(n))),
}


@lru_cache(maxsize=None)
def run(family: str, n: int):
    """(steps of the gradient Ω(f) (λz. λw. w) V, steps of applying it to the
    tangent, the applied value, the expected value, rule-4 steps of the
    gradient, rule-4 steps of evaluating f V)."""
    prelude, f, point, tan, expected = FAMILIES[family](n)
    g = pc.reduce(f"{prelude}Ω({f}) (λz. λw. w) {point}", max_steps=10_000_000, record=False)
    a = pc.reduce(App(g.value, pc.parse(tan)), max_steps=10_000_000, record=False)
    e = pc.reduce(f"{prelude}({f}) {point}", max_steps=10_000_000, record=False)
    assert isinstance(a.value, Num), pc.pretty(a.value)
    return (g.steps, a.steps, a.value.value, expected, g.rule_counts.get("4", 0),
            e.rule_counts.get("4", 0))


def doubling_ratios(counts: list) -> list:
    return [b / a for a, b in zip(counts, counts[1:])]


@pytest.mark.parametrize("family", ["sum", "mapsum", "foldr", "foldl"])
def test_gradient_steps_grow_linearly(family):
    steps = [run(family, n)[0] for n in SIZES]
    ratios = doubling_ratios(steps)
    assert all(r <= 2.2 for r in ratios), (family, dict(zip(SIZES, steps)), ratios)


@pytest.mark.parametrize("family", ["sum", "mapsum"])
def test_applying_the_covector_grows_linearly(family):
    steps = [run(family, n)[1] for n in SIZES]
    ratios = doubling_ratios(steps)
    assert all(r <= 2.2 for r in ratios), (family, dict(zip(SIZES, steps)), ratios)


@pytest.mark.parametrize("family", ["sum", "mapsum", "foldr", "foldl"])
@pytest.mark.parametrize("n", SIZES)
def test_cheap_gradient_in_arithmetic_steps(family, n):
    """Rule-4 steps of the gradient ≤ 4 × those of the evaluation."""
    grad4, eval4 = run(family, n)[4:]
    assert grad4 <= 4 * eval4, (family, n, grad4, eval4)


def test_sum_is_its_own_covector_without_premises():
    """Example 3.2: sum is linear, its covector is sum itself; the folding
    function is a constant (rule 19a, no premise)."""
    r = pc.reduce(SUM + "Ω(sum) (λz. λw. w) " + church([1.0, 2.0, 3.0]))
    assert pc.pretty(r.value) == "λdl. dl (λx. λacc. x + acc) 0"
    assert all(not s.premises for s in r.trace)


@pytest.mark.parametrize("family", ["sum", "mapsum", "foldr", "foldl"])
@pytest.mark.parametrize("n", SIZES)
def test_gradients_are_right(family, n):
    got, want = run(family, n)[2:4]
    assert got == pytest.approx(want, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("family", ["sum", "mapsum", "foldl", "foldr"])
def test_gradients_agree_with_the_oracle(family):
    n = 12
    prelude, f, point, tan, expected = FAMILIES[family](n)
    cov = evaluate(f"{prelude}Ω({f}) (λz. λw. w) {point}")
    want = covector_apply(cov, evaluate(tan))
    assert want == pytest.approx(expected, rel=1e-9)
    assert run(family, n)[2] == pytest.approx(want, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("n", [50, 100])
def test_partial_sums_are_computed_once(n):
    """A weighted sum, λa. l (λx. λacc. a × x + acc) 0: the folding function
    depends on a, so rule 18's premise differentiates the list's body with n
    free; the partial sums a × x + n, … are inert values, named by 8J and
    shared (kept by rule 1), so rule 4 runs a constant number of times per
    element (6: the tangent's and the covector's arithmetic), not n²/2."""
    body = f"{church(elements(n))} (λx. λacc. a × x + acc) 0"
    r = pc.reduce(f"Ω(λa. {body}) (λz. λw. w) 1", max_steps=10_000_000, record=False)
    e = pc.reduce(f"(λa. {body}) 1", max_steps=10_000_000, record=False)
    assert r.rule_counts["4"] <= 6 * n and r.rule_counts["4"] <= 4 * e.rule_counts["4"]
    a = pc.reduce(App(r.value, Num(1.0)), record=False).value
    assert a.value == pytest.approx(sum(elements(n)), rel=1e-12)


def test_foldl_gradient_steps_grow_linearly():
    """foldl is foldr building a continuation; the forward premise of the
    list's body differentiated, for each element k, the continuation of the
    rest along dg acc_k x_k -- n − k stages each, quadratic.  With rule 18L
    the folding function's tangent stays a Jacobian of its body, and 19m
    merges D-eval's two summands into one Jacobian of the continuation's
    body: O(1) steps per element (papers/calculus.md §5.9, §7.2)."""
    sizes = [10, 20, 40]
    steps = [run("foldl", n)[0] for n in sizes]
    assert all(r <= 2.2 for r in doubling_ratios(steps)), dict(zip(sizes, steps))


@pytest.mark.parametrize("n", [10, 20, 40])
def test_foldl_gradient_is_right(n):
    got, want = run("foldl", n)[2:4]
    assert got == pytest.approx(want, rel=1e-9, abs=1e-9)
