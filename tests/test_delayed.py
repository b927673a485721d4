"""Rule 1 by delayed substitution (reduction/delayed.py, issue 10).

The machine contracts a β-redex whose abstraction and value are closed
lazily.  These tests check that the lazy machine records exactly the steps of
the eager one (every redex, contractum and context), that a run without a
trace never builds the eager terms, and that evaluating a let chain costs
linear work in its length."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

import pullback_calc as pc
from pullback_calc.deep import deep
from pullback_calc.errors import PullbackCalcError
from pullback_calc.reduction import delayed as D
from pullback_calc.reduction import machine as M
from pullback_calc.reduction import rules as R
from pullback_calc.rendering import format_trace
from pullback_calc.syntax.subst import fv
from pullback_calc.syntax.terms import CLOSED, CLOSED_K, App, Lam, Num, subterms
from pullback_calc.testing import strategies as S

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import bench  # noqa: E402

PROGRAMS = [
    "let a = 1 in let b = a + 1 in let c = a × b in c + b + a",
    "let a = 1 in let a = a + 1 in let a = a × 3 in a",  # shadowing
    "let ⟨a, b⟩ = ⟨1, 2⟩ in let c = a + b in let ⟨d, e⟩ = ⟨c, a⟩ in d × e",
    "let f = λx. let y = x × x in let z = y + x in z × y in f 2 + f 3 + f (f 1)",  # shared env
    "let f = λx. let y = x × x in y in let g = λh. h 2 + h 3 in g f",
    "(λx. let y = sin(x) in let z = cos(y) in ⟨y, z, λw. w × y⟩) 0.3",
    "let k = 3 in Ω(λx. let y = x × k in let z = sin(y) in z) (λz. λw. w) 0.5",
    "let k = 3 in let f = λx. let y = x × k in y × y in Ω(f) (λz. λw. w) 0.5 1",
    "let c = 2 in J(λx. let y = x × c in y)·1 0.4",
    "let f = λx. λy. let s = x + y in s × s in let g = f 1 in g 2 + g 3",
    "let t = ⟨1, 2⟩ in let u = π₁ t in let v = π₂ t in u + v",
    "Ω(λx. let g = λy. x × y in Ω(g) (λz. λw. w) 3 1) (λz. λw. w) 2",
    "let f = λx. let a = x in let b = a in let c = b in c in f (f (f 1))",
    "(λ⟨x, y⟩. let a = x × y in let b = a + x in let c = b × y in c) ⟨1.5, 2⟩",
]


def _copy(t):
    """t rebuilt node by node: no cached facts shared between two runs."""
    if not t.children():
        return type(t)(*(getattr(t, n) for n in t.__match_args__))
    if isinstance(t, Lam):
        return Lam(t.pat, _copy(t.body), t.ann, t.pos)
    return D._rebuild(t, [_copy(c) for c in t.children()])


class EagerMachine(M.Machine):
    """The machine without delayed substitution: rule 1 is ``subst``."""

    def _contract(self, label, t):
        return R.RULES[label](t, self)


def _reduce(machine_cls, term, record=True):
    m = machine_cls(record=record)
    return deep(m.reduce)(term), m


def _same_trace(a, b):
    assert len(a) == len(b)
    for s, t in zip(a, b):
        assert (s.rule, s.path(), s.phase) == (t.rule, t.path(), t.phase)
        assert s.redex == t.redex and s.contractum == t.contractum
        assert s.term_before() == t.term_before() and s.term_after() == t.term_after()
        assert len(s.premises) == len(t.premises)
        for d, e in zip(s.premises, t.premises):
            assert (d.rule, d.start, d.result) == (e.rule, e.start, e.result)
            _same_trace(d.steps, e.steps)


@pytest.mark.parametrize("src", PROGRAMS)
def test_lazy_and_eager_machines_record_the_same_steps(src):
    (v1, tr1), m1 = _reduce(M.Machine, pc.parse(src))
    (v2, tr2), m2 = _reduce(EagerMachine, pc.parse(src))
    assert v1 == v2 and m1.rule_counts == m2.rule_counts
    _same_trace(tr1, tr2)
    assert format_trace(tr1, width=0) == format_trace(tr2, width=0)


@pytest.mark.parametrize("fam,n", [("mlp", 6), ("sop", 7), ("sin", 5)])
def test_benchmark_evaluations_record_the_same_steps(fam, n):
    F = bench.FAMILIES[fam]

    def term():
        return App(pc.parse(F.source(n)), bench.point_term(F.point(n)))
    (v1, tr1), _ = _reduce(M.Machine, term())
    (v2, tr2), _ = _reduce(EagerMachine, term())
    assert v1 == v2
    _same_trace(tr1, tr2)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(S.higher_order_programs(depth=2, as_program=True))
def test_generated_programs_record_the_same_steps(prog):
    try:
        (v1, tr1), m1 = _reduce(M.Machine, _copy(prog.term))
    except PullbackCalcError:
        return
    (v2, tr2), m2 = _reduce(EagerMachine, _copy(prog.term))
    assert v1 == v2 and m1.steps_taken == m2.steps_taken
    _same_trace(tr1, tr2)


def test_the_contractum_is_delayed_and_materialises_to_rule_1s():
    t = pc.parse("(λx. let y = x × 2 in let z = y + x in z × y) 3")
    lazy = D.beta(t)
    assert isinstance(lazy, D.Closure)
    assert D.materialise(lazy) == R.RULES["1"](t, None)
    open_ = pc.parse("λx. (λy. x + y) 1").body  # x free: substituted eagerly
    assert D.beta(open_) is None


def test_without_a_trace_nothing_is_materialised(monkeypatch):
    calls = []
    real = D.materialise
    monkeypatch.setattr(D, "materialise", lambda t: calls.append(1) or real(t))
    F = bench.FAMILIES["mlp"]
    term = App(pc.parse(F.source(30)), bench.point_term(F.point(30)))
    r = pc.reduce(term, record=False)
    assert r.steps == 152 and not calls
    r = pc.reduce(App(pc.parse(F.source(30)), bench.point_term(F.point(30))), record=True)
    assert not calls  # recorded, not yet read
    _ = r.trace[40].contractum  # read: built now
    assert calls


def _work(h: int) -> int:
    """Nodes built or inspected by substitution while evaluating the MLP."""
    count = [0]
    real_inst, real_cl = D.instantiate, D._closedness

    def inst(u, env):
        count[0] += 1
        return real_inst(u, env)

    def cl(root):
        count[0] += sum(1 for _ in subterms(root))
        return real_cl(root)
    D.instantiate, D._closedness = inst, cl
    try:
        F = bench.FAMILIES["mlp"]
        pc.reduce(App(pc.parse(F.source(h)), bench.point_term(F.point(h))), record=False)
    finally:
        D.instantiate, D._closedness = real_inst, real_cl
    return count[0]


def test_evaluating_a_let_chain_is_linear_work():
    a, b, c = _work(50), _work(100), _work(200)
    assert b / a <= 2.1 and c / b <= 2.1


def test_environments_extend_in_place_only_when_unshared():
    e = D.Env.of({"a": Num(1.0)})
    e1 = e.extend({"b": Num(2.0)})
    assert e1.store is e.store and "b" not in e and e1.get("b") == Num(2.0)
    e2 = e.extend({"c": Num(3.0)})  # e is no longer the newest: copy
    assert e2.store is not e.store and "b" not in e2 and e2.get("c") == Num(3.0)
    assert e1.get("c") is None and e.as_dict() == {"a": Num(1.0)}
    assert e1.without(["a"]).as_dict() == {"b": Num(2.0)} and e1.without(["z"]) is e1


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(S.terms(S.R, ctx={"u": S.R, "v": S.R}, depth=4))
def test_closedness_agrees_with_free_variables(t):
    nodes = list(subterms(t))
    expect = {id(u): not fv(u) for u in nodes}
    for u in nodes:  # fresh copies: no cached _fv
        u._fv = None
        u._flags &= ~(CLOSED_K | CLOSED)
    assert D.closed(t) == expect[id(t)]
    for u in nodes:
        assert D.closed(u) == expect[id(u)]
