"""Issue 30, item 2: work linear in the size in the families whose steps are
(counted, not timed: Python function calls made by the reduction, at n and 2n).

- ``church-foldl`` (benchmarks/bench.py): d/dx foldl (λacc. λc. acc × x + c) 0 [x1…xn],
  Horner's rule as a continuation foldl builds; steps and work ×2 per doubling.
- ``nested-sin``: d/dx of the reverse-mode derivative of sin∘…∘sin; its steps grew
  faster than ×2 (``lift`` out of nested dual maps, quadratic) until rule pb named the
  functional at an open point (papers/calculus.md §5.8); steps and work ×2 now.
- ``church-map``, ``church-cons``, ``church-numeral`` (benchmarks/bench.py, issue 26's
  shapes: a list built by ``cons``, mapped and summed): steps were linear, work was not
  (×2.31 from 64 to 128 in church-map): after each 8c of a helper the machine walked
  the whole let series again, rule 8 checked the whole spine for names bound twice,
  and 8c's call analysis walked the rest of the list's nested cells, once per cell
  (papers/calculus.md §8).
- ``church`` (the --compare family, testing.extreme.church_sum): linear until 9d3f466,
  quadratic in work after it, linear again since 8c's run takes the cells' closures
  together; a list of computed elements built by ``cons`` was quadratic in work
  until the run went on past the stages computing the elements.
- ``tuple-proj`` (testing.extreme): π1 π1 … ⟨⟨x, 1⟩, 1⟩ n deep; its reverse phase was
  quadratic -- each rule-5 step made a new projection atom as deep as the nest
  (167,396 → 557,930 calls from 60 to 120, ×3.33) -- until rule 5 moved such an atom
  in one node (``linear._moved_chain``, papers/calculus.md §5.4): linear without a
  trace.  With one, the premises' terms are as deep as the nest, as the trace shows.
"""
import importlib.util
import sys
from pathlib import Path

import pytest

import pullback_calc as pc
from pullback_calc.testing.extreme import DEEP_FUNCTIONS, church_sum
from pullback_calc.testing.work import count_calls

FOLDL = ("let foldl = λg. λz0. λl. l (λx. λk. λacc. k (g acc x)) (λacc. acc) z0 in "
         "Ω(λx. foldl (λacc. λc. acc × x + c) 0 {}) (λz. λw. w) 0.5")


def _church(n: int) -> str:
    return "(" + pc.pretty(pc.syntax.terms.church_list(pc.syntax.terms.Num(float(1 + i % 7))
                                                       for i in range(n))) + ")"


def _nested(n: int) -> str:
    body = "y"
    for _ in range(n):
        body = f"sin({body})"
    return f"Ω(λx. Ω(λy. {body}) (λz. λw. w) x 1) (λz. λw. w) 0.7"


_counted = count_calls


def _reduce(src: str):
    t = pc.parse(src)
    return _counted(lambda: pc.reduce(t, record=False, max_steps=10_000_000))


def test_church_foldl_work_is_linear():
    (a, ra), (b, rb) = _reduce(FOLDL.format(_church(40))), _reduce(FOLDL.format(_church(80)))
    assert 1.9 <= rb.steps / ra.steps <= 2.1
    # (×2.18 when 8Jd's walk went to the reader of each partial application c k that a
    # Church list's spine names first and reads at its end: rules.DEAD_REACH; ×1.95 now)
    assert b <= 2.1 * a, f"{a} → {b} calls (×{b / a:.2f})"


def test_nested_sin_work_is_linear():
    (a, ra), (b, rb) = _reduce(_nested(15)), _reduce(_nested(30))
    assert 1.9 <= rb.steps / ra.steps <= 2.1, (ra.steps, rb.steps)  # (×2.57 with lift)
    assert b <= 2.2 * a, f"{a} → {b} calls (×{b / a:.2f})"


def _bench():
    spec = importlib.util.spec_from_file_location(
        "pullback_calc_bench_work", Path(__file__).resolve().parent.parent / "benchmarks" /
        "bench.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look the module up by name
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.modules.pop(spec.name, None)
    return mod


@pytest.mark.parametrize("family, n", [("church-map", 64), ("church-cons", 64),
                                       ("church-numeral", 64)])
def test_church_shapes_work_is_linear(family, n):
    bench = _bench()

    def grad(k):
        return _reduce(bench.church_sources(bench.CHURCH[family], k)[1])
    (a, ra), (b, rb) = grad(n), grad(2 * n)
    assert 1.9 <= rb.steps / ra.steps <= 2.1, (ra.steps, rb.steps)
    assert b <= 2.1 * a, f"{a} → {b} calls (×{b / a:.2f})"


def test_church_sum_gradient_work_is_linear():
    """The --compare family ``church``: the gradient of Σ xᵢ folded over the written
    list λc. λn. c x1 (c x2 (… n)).  Each cell's closure is named at the top of the
    series and called at its far end; 8c moved them to their calls one at a time, a
    rebuild of the series each (calls ×3.99 per doubling, 40 → 80, since 9d3f466).
    8c's run takes them all in one walk now (×2.08 from 80 to 160)."""
    def row(n):
        f = pc.parse(church_sum(n))
        return _counted(lambda: pc.jacobian_row(f, [0.1 * (i % 5) for i in range(n)], 0,
                                                record=False))
    row(10)  # (the first reduction's one-time work, out of the count)
    (a, ra), (b, rb) = row(80), row(160)
    assert rb.steps <= 2.1 * ra.steps, (ra.steps, rb.steps)
    assert b <= 2.2 * a, f"{a} → {b} calls (×{b / a:.2f})"


@pytest.mark.parametrize("builder, consumer", [("cons", "sum"), ("literal", "sum"),
                                               ("cons", "map")])
def test_church_lists_of_computed_elements_work_is_linear(builder, consumer):
    """sum (cons (x × x) (cons (x × x) … nil)): the cells' closures are named between
    the stages computing the elements, and 8c's run ended at each stage: a run per
    cell, each a walk to the far end of the series (calls ×2.5–2.8 per doubling,
    3,949,933 at 128 entries).  The run now keeps such a stage in place and goes on
    past it: one run for the whole list (487,839 calls at 128, ×1.98).  Written out,
    the cells' closures are named after the stages, each a helper at the top of the
    series when 8c copies it: the run starts at such a helper too (720,304 calls at
    64 entries, 120,528 now)."""
    from pullback_calc.testing.programs import ChurchBuild

    def grad(k):
        t = pc.parse(ChurchBuild(builder, consumer, "x × x", 0.3).text(k))
        return _counted(lambda: pc.grad(t, [0.3], max_steps=2_000_000, record=False))
    (a, ra), (b, rb) = grad(32), grad(64)
    assert rb.steps <= 2.1 * ra.steps, (ra.steps, rb.steps)
    assert b <= 2.2 * a, f"{a} → {b} calls (×{b / a:.2f})"


def test_tuple_proj_work_is_linear():
    def row(n, record=False):
        f = pc.parse(DEEP_FUNCTIONS["tuple-proj"](n))
        return _counted(lambda: pc.jacobian_row(f, [0.5], 0, record=record))
    (a, ra), (b, rb) = row(60), row(120)
    assert rb.steps <= 2.1 * ra.steps
    assert b <= 2.2 * a, f"{a} → {b} calls (×{b / a:.2f})"
    traced = row(60, record=True)[1]  # the projections of tuples counted as recorded
    assert (traced.row, traced.steps, traced.rule_counts) == (ra.row, ra.steps, ra.rule_counts)
