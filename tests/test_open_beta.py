"""Delayed β on open terms in premises (reduction/delayed.py) and the cached
"copied variables" of kept lets (subst.fv_copied): a Church list's tangent is
a let chain over the free directions, which eager substitution rebuilt at
every let -- quadratic.  Work is counted (nodes visited by substitution), not
timed."""
from __future__ import annotations

from pathlib import Path

import pytest

import pullback_calc as pc
from pullback_calc.testing.extreme import church_sum
import pullback_calc.reduction.delayed as D
import pullback_calc.syntax.subst as S
from pullback_calc.syntax.subst import fv, fv_copied
from pullback_calc.syntax.terms import App, Lam, Term, pattern_vars

ROOT = Path(__file__).resolve().parents[1]


def _substitution_work(monkeypatch, n: int) -> tuple[int, list]:
    seen = {"nodes": 0}
    orig = D.bottom_up  # (substitution's walk: subst.py itself calls bottom_up_shared)

    def counting(root, open_, close):
        def counted(item):
            seen["nodes"] += 1
            return open_(item)
        return orig(root, counted, close)

    monkeypatch.setattr(D, "bottom_up", counting)
    r = pc.jacobian_row(church_sum(n), [0.1 * i for i in range(n)], 0, record=False)
    return seen["nodes"], r.row


def test_church_gradient_substitutes_linearly(monkeypatch):
    (w1, row1), (w2, row2) = (_substitution_work(monkeypatch, n) for n in (60, 120))
    assert row1 == [1.0] * 60 and row2 == [1.0] * 120
    assert w2 <= 2.2 * w1, (w1, w2)  # eager substitution: ×4 per doubling


def test_open_delayed_beta_keeps_the_steps():
    """The same trace as eager substitution would give: the contracta,
    materialised, are the eager ones (checked step by step on a small list)."""
    # (12 elements: rule 8c's inlining leaves 2n + 1 β-steps, and > 20 are compared)
    r = pc.jacobian_row(church_sum(12), [0.5, -1.0, 2.0, 0.25] * 3, 0, record=True)
    assert r.row == [1.0] * 12

    compared = []

    def walk(steps):
        for s in steps:
            if s.rule == "1":
                t = s.redex
                eager = S.subst(t.fun.body, S.bind_pattern(t.fun.pat, t.arg)) \
                    if isinstance(t.fun, Lam) else None
                if eager is not None and not D.has_lazy(t):
                    assert s.contractum == eager, pc.pretty(t)
                    compared.append(s.rule)
            for d in s.premises:
                walk(d.steps)

    walk(r.trace)
    assert len(compared) > 20


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
