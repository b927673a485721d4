"""Delayed β on open terms in premises (reduction/delayed.py) and the cached
"copied variables" of kept lets (subst.fv_copied): a Church list's tangent is
a let chain over the free directions, which eager substitution rebuilt at
every let -- quadratic.  Work is counted (nodes visited by substitution), not
timed."""
from __future__ import annotations

from pathlib import Path

import pytest

import pullback_calc as pc
import pullback_calc.reduction.delayed as D
import pullback_calc.syntax.subst as S
from pullback_calc.syntax.subst import fv, fv_copied
from pullback_calc.syntax.terms import App, Lam, Term, pattern_vars

ROOT = Path(__file__).resolve().parents[1]


# Horner's rule by a continuation-building foldl over a Church list of numerals:
# the gradient's premises differentiate the step closure under the open
# continuation, where β is delayed (since rule 8c moved the closures of a list
# of the inputs into the series, the sum over one has no premise left)
FOLDL = ("let foldl = λg. λz0. λl. l (λx. λk. λacc. k (g acc x)) (λacc. acc) z0 in "
         "Ω(λx. foldl (λacc. λc. acc × x + c) 0 ({})) (λz. λw. w) 0.5 1")


def _horner(n: int) -> tuple[str, float]:
    cs = [float(1 + i % 7) for i in range(n)]
    lst = "λf. λd. " + "".join(f"f {c} (" for c in cs) + "d" + ")" * n
    d = 0.0  # d/dx of acc × x + c, folded at x = 0.5
    acc = 0.0
    for c in cs:
        d, acc = d * 0.5 + acc, acc * 0.5 + c
    return FOLDL.format(lst), d


def _substitution_work(monkeypatch, n: int) -> tuple[int, float, float]:
    seen = {"nodes": 0}
    orig = D.bottom_up  # (substitution's walk: subst.py itself calls bottom_up_shared)

    def counting(root, open_, close):
        def counted(item):
            seen["nodes"] += 1
            return open_(item)
        return orig(root, counted, close)

    monkeypatch.setattr(D, "bottom_up", counting)
    src, want = _horner(n)
    r = pc.reduce(src, record=False)
    return seen["nodes"], r.value.value, want


def test_delayed_substitution_is_linear(monkeypatch):
    (w1, got1, want1), (w2, got2, want2) = (_substitution_work(monkeypatch, n) for n in (60, 120))
    assert got1 == pytest.approx(want1) and got2 == pytest.approx(want2)
    assert w1 > 0  # (delayed β happens here)
    assert w2 <= 2.2 * w1, (w1, w2)  # eager substitution: ×4 per doubling


def test_open_delayed_beta_keeps_the_steps():
    """The same trace as eager substitution would give: the contracta,
    materialised, are the eager ones (checked step by step, premises too)."""
    # (the folding function stored in a pair taken apart by a pattern: a coordinate,
    # differentiated in premises -- let-bound or written in place, 8c copies it into the
    # list's closure, and so it does when the pair is only projected, π1 gp)
    src = (ROOT / "examples" / "ho_list_foldl.pb").read_text(encoding="utf-8").replace(
        "Ω(λx. foldl (λacc. λc. acc × x + c) 0",
        "Ω(λx. let gp = ⟨λacc. λc. acc × x + c, 1⟩ in let ⟨g, u⟩ = gp in foldl g 0")
    assert "gp" in src
    r = pc.reduce(src, record=True)
    assert r.rule_counts.get("19m") and r.rule_counts.get("18L"), r.rule_counts
    assert r.value.value == pytest.approx(3 * 12 - 2 * 2 + 2)  # d/dx (3x³ − x² + 2x + 5) at 2

    compared = []

    def walk(steps, depth):
        for s in steps:
            if s.rule == "1":
                t = s.redex
                eager = S.subst(t.fun.body, S.bind_pattern(t.fun.pat, t.arg)) \
                    if isinstance(t.fun, Lam) else None
                if eager is not None and not D.has_lazy(t):
                    assert s.contractum == eager, pc.pretty(t)
                    compared.append(depth)
            for d in s.premises:
                walk(d.steps, depth + 1)

    walk(r.trace, 0)
    assert len([d for d in compared if d > 0]) > 20


# ---- fv_copied against a direct count ------------------------------------------------

def _copied(t: Term) -> frozenset:
    """The variables of fv(t) occurring twice, or once inside a λ that is not
    a let's: by counting, recursively (small terms only)."""
    counts: dict = {}

    def go(u: Term, bound: frozenset, under: bool) -> None:
        if isinstance(u, S.Var):
            if u.name not in bound:
                c = counts.setdefault(u.name, [0, False])
                c[0] += 1
                c[1] |= under
        elif isinstance(u, App) and isinstance(u.fun, Lam):
            go(u.arg, bound, under)
            go(u.fun.body, bound | frozenset(pattern_vars(u.fun.pat)), under)
        elif isinstance(u, Lam):
            go(u.body, bound | frozenset(pattern_vars(u.pat)), True)
        else:
            for c in u.children():
                go(c, bound, under)

    go(t, frozenset(), False)
    return frozenset(x for x, (k, lam) in counts.items() if k > 1 or lam)


def _subterms(t: Term):
    stack = [t]
    while stack:
        u = stack.pop()
        yield u
        stack.extend((u.body,) if isinstance(u, Lam) else u.children())


EXAMPLES = sorted((ROOT / "examples").glob("*.pb"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_fv_copied_counts(path):
    term = pc.parse(path.read_text(encoding="utf-8"))
    checked = 0
    for u in _subterms(term):
        if fv(u):
            assert fv_copied(u) == _copied(u), pc.pretty(u)
            checked += 1
    assert checked or not fv(term)


@pytest.mark.parametrize("src,copied", [
    ("let y = x in y + y", set()),          # a let's body runs once: x is not copied
    ("let y = 1 in x + x", {"x"}),
    ("λz. x", {"x"}),                        # under a λ: every call recomputes it
    ("let x = 1 in x + x", set()),           # shadowed: not the free x
    ("⟨x, let x = 2 in x⟩", set()),
    ("⟨x, x⟩", {"x"}),
])
def test_fv_copied_cases(src, copied):
    assert fv_copied(pc.parse(src)) == frozenset(copied)
