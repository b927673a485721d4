"""Smoke test of benchmarks/bench.py: the smallest sizes of each family.

Checks correctness (value and gradient against the plain-Python references)
and that gradient steps per program node are roughly constant between the two
smallest sizes.  No timing assertions.
"""
import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "bench.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("pullback_calc_bench", BENCH)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look the module up by name
    try:
        spec.loader.exec_module(mod)
        yield mod
    finally:
        sys.modules.pop(spec.name, None)


@pytest.mark.parametrize("family", ["sin", "sop", "mlp"])
def test_smallest_sizes(bench, family):
    n1, n2 = bench.FAMILIES[family].quick_sizes[:2]
    c1 = bench.run_case(family, n1, repeats=1)
    c2 = bench.run_case(family, n2, repeats=1)
    for c in (c1, c2):
        assert c.ok, (c.n, c.value_err, c.grad_err)
        assert c.grad_err <= bench.FAMILIES[family].grad_tol
        assert c.nodes > 0 and c.eval_steps > 0 and c.grad_steps > c.eval_steps
    a, b = c1.steps_per_node, c2.steps_per_node
    assert max(a, b) / min(a, b) < 1.5, (a, b)
    # the cheap-gradient principle in arithmetic (rule-4) steps, which are deterministic
    for c in (c1, c2):
        assert c.eval_arith > 0 and c.grad_arith > c.eval_arith
        assert c.arith_ratio <= bench.CHEAP_GRADIENT_BOUND, (c.n, c.eval_arith, c.grad_arith)


@pytest.mark.parametrize("family", ["church-sum", "church-mapsum", "church-foldr"])
def test_church_smallest_sizes(bench, family):
    """Correct, and the gradient's steps about double with n (no timing)."""
    c1, c2 = (bench.run_church_case(family, n) for n in bench.CHURCH[family].quick_sizes[:2])
    for c in (c1, c2):
        assert c.ok, (c.n, c.value_err, c.deriv_err)
    assert bench.doubling_ratios([c1, c2]) == [c2.grad_steps / c1.grad_steps]
    assert c2.grad_steps / c1.grad_steps <= 2.2, (c1.grad_steps, c2.grad_steps)


def test_references_agree(bench):
    """The plain-Python references themselves: the MLP finite differences
    agree with the analytic gradient, the sin-chain product with a difference
    quotient."""
    h = 3
    pt = bench.mlp_point(h)
    ws, vs = pt[:h], pt[h:]
    import math
    s = [math.tanh(w * bench.MLP_X0) for w in ws]
    r = sum(v * si for v, si in zip(vs, s)) - bench.MLP_Y0
    exact = ([2 * r * v * (1 - si ** 2) * bench.MLP_X0 for v, si in zip(vs, s)]
             + [2 * r * si for si in s])
    assert bench._rel_err(bench.mlp_grad(h, pt), exact) < 1e-8
    x, eps = 0.7, 1e-6
    fd = (bench.sin_chain_value(5, [x + eps]) - bench.sin_chain_value(5, [x - eps])) / (2 * eps)
    assert abs(fd - bench.sin_chain_grad(5, [x])[0]) < 1e-8


def test_growth_exponent(bench):
    xs = [10, 100, 1000]
    assert abs(bench.growth_exponent(xs, [3 * x for x in xs]) - 1.0) < 1e-12
    assert abs(bench.growth_exponent(xs, [x * x for x in xs]) - 2.0) < 1e-12


def test_sources_parse(bench):
    import pullback_calc as pc
    for fam in bench.FAMILIES.values():
        f = pc.parse(fam.source(3))
        assert pc.typecheck(f) is not None
    for name, fam in bench.CHURCH.items():
        for src in bench.church_sources(fam, 3):
            assert pc.typecheck(pc.parse(src)) is not None, (name, src)


@pytest.mark.parametrize("family", ["sin", "sop", "mlp", "swell", "church"])
def test_compare_families_agree(bench, family):
    """--compare: the engine's gradient, the pure-Python tape's (and autograd's, when
    installed) agree with the reference at the smallest size; no timing."""
    cf = bench.COMPARE[family]
    n = cf.quick_sizes[0]
    case = bench.compare_case(cf, n, rounds=1)
    assert case.grad_steps > 0 and case.eval_steps > 0 and case.ops > 0
    for what, err in case.err.items():
        assert err <= max(cf.family.grad_tol, 1e-9), (what, err)
    assert set(case.cpu) >= {"grad", "tape", "eval"}


def test_tape_reference():
    import importlib.util
    spec = importlib.util.spec_from_file_location("pullback_calc_bench_tape", BENCH)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    try:
        spec.loader.exec_module(mod)
        pt = [0.3, -0.2, 0.5, 0.1, 0.25, -0.25]
        assert mod._rel_err(mod.tape_grad(mod._mlp_py(3), pt), mod.mlp_grad(3, pt)) < 1e-8
        assert mod._rel_err(mod.tape_grad(mod._swell_py(5), [0.7]),
                            mod.swell_grad(5, [0.7])) < 1e-12
    finally:
        sys.modules.pop(spec.name, None)
