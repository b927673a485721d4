"""Rule 3 on a fold's tangent (issue 10): the tangent of a Church-list sum
grows by one summand per element, dxₖ ⊕ (dxₖ₊₁ ⊕ … ⊕ dxₙ), and rule 3
flattens it at each element.  Deciding that a sum needs normalising and
normalising it read rule 3's facts cached beside the sum
(``linear.sum_facts``, ``linear.plain_concat``) instead of walking its
summands: the summands looked at grow linearly with the list.  Work is
counted, not timed."""
from __future__ import annotations

import pullback_calc as pc
from pullback_calc.testing.extreme import church_sum
import pullback_calc.reduction.linear as L
import pullback_calc.reduction.rules as R
from pullback_calc.syntax.parser import parse
from pullback_calc.syntax.subst import fv, fv_copied
from pullback_calc.syntax.terms import App, Jac, Num, Prim, Sum, Var


def _summands_read(monkeypatch, n: int) -> tuple[int, list, int]:
    """(summands looked at by rule 3's decision and normalisation, the row,
    the steps) for the gradient of the n-element Church-list sum."""
    seen = {"summands": 0}
    facts_of, flatten, concat = L._facts_of, R._flatten, L.plain_concat

    def counted_facts(items):
        seen["summands"] += len(items)
        return facts_of(items)

    def counted_flatten(items):
        out = flatten(items)
        seen["summands"] += len(out)
        return out

    def counted_concat(items):
        seen["summands"] += sum(1 for u in items if not isinstance(u, Sum))
        return concat(items)

    monkeypatch.setattr(L, "_facts_of", counted_facts)
    monkeypatch.setattr(R, "_flatten", counted_flatten)
    monkeypatch.setattr(L, "plain_concat", counted_concat)
    r = pc.jacobian_row(church_sum(n), [0.1 * i for i in range(n)], 0, record=False)
    return seen["summands"], r.row, r.steps


def test_rule_3_reads_the_church_tangent_linearly(monkeypatch):
    (w1, row1, s1), (w2, row2, s2) = (_summands_read(monkeypatch, n) for n in (60, 120))
    assert row1 == [1.0] * 60 and row2 == [1.0] * 120
    assert s2 == 2 * s1 - 11  # 13n + 11 steps: linear
    # a walk of the tangent at each element would be n²/2 summands: ×4 per doubling
    assert w2 <= 2.2 * w1, (w1, w2)


def test_plain_concat_is_rule_3s_normal_form(monkeypatch):
    """The concatenation is what the general normalisation gives."""
    a = Sum((Var("a"), Var("b"), Prim("mul", (Num(2.0), Var("c")))))
    t = Sum((Var("x"), a, Var("y")))
    assert R.sum_needs_normalizing(t)
    fast = L.plain_concat(t.items)
    assert fast is not None and fast == Sum((Var("x"), Var("a"), Var("b"),
                                             Prim("mul", (Num(2.0), Var("c"))), Var("y")))
    assert not R.sum_needs_normalizing(fast)
    assert L.sum_facts(fast).plain  # known by construction: no walk
    # the general path (no plain concatenation) gives the same term
    monkeypatch.setattr(L, "plain_concat", lambda items: None)
    assert R._normalize_sum(t) == fast


def test_plain_concat_declines_what_it_would_change():
    a = Sum((Var("a"), Var("b")))
    # an atom the sum has already: collected, not concatenated
    assert L.plain_concat((Prim("mul", (Num(2.0), Var("a"))), a)) is None
    # 1 × x is written x, 0 × x dropped: not plain
    assert L.plain_concat((Prim("mul", (Num(1.0), Var("x"))), a)) is None
    assert L.plain_concat((Prim("mul", (Num(0.0), Var("x"))), a)) is None
    # a numeral goes first
    assert L.plain_concat((Num(3.0), a)) is None
    # two sums, or a sum that is not plain (A ⊕ A)
    assert L.plain_concat((a, Sum((Var("c"), Var("d"))))) is None
    assert L.plain_concat((Var("x"), Sum((Var("a"), Var("a"))))) is None
    # two new atoms that are equal
    assert L.plain_concat((Var("x"), a, Prim("mul", (Num(2.0), Var("x"))))) is None


def test_sum_facts_agree_with_the_definition():
    """sum_needs_normalizing, by the facts, on the cases of its definition."""
    x, y = Var("x"), Var("y")
    two_x = Prim("mul", (Num(2.0), x))
    cases = {
        (x, y): False,
        (x, x): False,              # A ⊕ A stays: nothing shows A is real
        (x, two_x): True,           # c × A shows it: collected
        (two_x, x): True,
        (Num(1.0), x): False,
        (Num(1.0), Num(2.0)): True,
        (x, Sum((y, x))): True,     # a nested sum
    }
    for items, needs in cases.items():
        assert R.sum_needs_normalizing(Sum(items)) is needs, items


def test_wide_free_variable_sets_are_not_copied_per_child():
    """fv and fv_copied of a wide sum: one union, and a node whose set equals
    its child's shares it."""
    s = Sum(tuple(Var(f"d{i}") for i in range(200)))
    assert fv(s) == frozenset(f"d{i}" for i in range(200))
    assert fv_copied(s) == frozenset()
    lam = parse("λz. z")
    j = App(Jac(lam, s), Num(1.0))
    assert fv(j) is fv(s)  # the Jacobian along s: s's set, not a copy


def test_formal_sum_keeps_a_whole_sum_and_flattens_the_degenerate_ones():
    from pullback_calc.syntax.terms import ZERO, Zero, formal_sum
    a, b = Var("a"), Var("b")
    s = Sum((a, b))
    assert formal_sum([s]) is s and formal_sum([ZERO, s, ZERO]) is s  # its cached facts too
    assert formal_sum([Sum((a,))]) is a  # [P] is P, a one-summand sum too
    assert isinstance(formal_sum([Sum(())]), Zero)  # [] is 0
    assert formal_sum([s, a]) == Sum((a, b, a))
