"""A chain of projections made in one node (``Proj.chain``, ``chain_of``) and rule 5
moving a covector's atom π (… (π dv)) through a stage without rebuilding it
(``linear._moved_chain``; issue 30, tuple-proj): the node is the term it stands for,
and a reduction without a trace counts the steps a traced one records."""
import pickle

import pytest

import pullback_calc as pc
from pullback_calc.reduction import rules
from pullback_calc.results.parallel import dumps
from pullback_calc.syntax.terms import Proj, ProjPath, Var, chain_of
from pullback_calc.testing.extreme import DEEP_FUNCTIONS
from pullback_calc.testing.work import count_calls


def test_a_chain_made_in_one_node_is_the_chain():
    eager = pc.parse("λv. π1 (π3 (π2 (π1 v)))").body
    v, path = chain_of(eager)
    assert v == Var("v") and list(path.indices()) == [1, 2, 3, 1]  # innermost first
    lazy = Proj.chain(Var("v"), path)
    assert hash(lazy) == hash(eager) and lazy == eager and eager == lazy
    assert pc.pretty(lazy) == "π1 (π3 (π2 (π1 v)))"
    assert lazy.arg == eager.arg and lazy.index == 1
    again = Proj.chain(Var("v"), path)
    assert pickle.loads(dumps(again)) == eager  # (the parallel rows' pickler reads arg)


def test_a_chain_grows_and_shrinks_at_its_innermost_end_sharing_the_rest():
    outer = ProjPath(2, ProjPath(1, None))  # π1 (π2 ·)
    deeper = ProjPath(3, outer)  # π1 (π2 (π3 ·))
    assert deeper.outer is outer and deeper.outermost == 1 and deeper.length == 3
    assert Proj.chain(Var("w"), deeper) == pc.parse("λw. π1 (π2 (π3 w))").body
    assert hash(Proj.chain(Var("w"), deeper)) == hash(pc.parse("λw. π1 (π2 (π3 w))").body)


def test_only_chains_of_a_variable_are_chains():
    assert chain_of(pc.parse("λv. π1 (π2 ⟨v, v⟩)").body) is None
    assert chain_of(Var("v")) is None
    t = pc.parse("λv. π1 (v 1)").body
    assert chain_of(t) is None and chain_of(t) is None  # (the answer is kept)


@pytest.mark.parametrize("src", [
    DEEP_FUNCTIONS["tuple-proj"](12),
    "λx. let t = ⟨⟨1, ⟨x, 2⟩⟩, x⟩ in let u = π1 t in let w = π2 u in π1 w × π2 t",
    "λ⟨x, y⟩. let p = ⟨⟨x, y⟩, ⟨y, x⟩⟩ in π1 (π2 p) × π2 (π1 p) + π1 (π1 p)",
])
def test_without_a_trace_the_same_steps_and_rows(src):
    traced = pc.jacobian(src, [0.5] * (2 if src.startswith("λ⟨") else 1), record=True)
    bare = pc.jacobian(src, [0.5] * (2 if src.startswith("λ⟨") else 1), record=False)
    for a, b in zip(traced.artefact, bare.artefact):
        assert (a.row, a.steps, a.rule_counts) == (b.row, b.steps, b.rule_counts)
        assert a.covector == b.covector


def test_the_projections_rule_5_takes_are_held_to_the_step_budget():
    f = DEEP_FUNCTIONS["tuple-proj"](30)
    full = pc.jacobian_row(f, [0.5], 0, record=False).steps
    for budget in range(full - 40, full):  # the reverse phase: rule 5, its projections
        with pytest.raises(pc.StepBudgetExceeded):
            pc.jacobian_row(f, [0.5], 0, record=False, max_steps=budget)
    assert pc.jacobian_row(f, [0.5], 0, record=False, max_steps=full).row == [1.0]


def test_the_projections_are_rule_2_from_the_table(monkeypatch):
    """A broken rule 2 breaks the reduction without a trace as it breaks the traced
    one: rule 5 takes the table's rule, not a copy of it."""
    def last_item(t, m):
        return t.arg.items[-1]
    monkeypatch.setitem(rules.RULES, "2", last_item)
    src = "λx. let t = ⟨⟨x, 3⟩, 1⟩ in let u = π1 t in π1 u × x"
    traced = pc.jacobian_row(src, [0.5], 0, record=True)
    bare = pc.jacobian_row(src, [0.5], 0, record=False)
    assert traced.row == bare.row != [1.0] and traced.steps == bare.steps


def test_a_deep_nest_costs_a_constant_per_level():
    def work(n):
        f = pc.parse(DEEP_FUNCTIONS["tuple-proj"](n))
        return count_calls(lambda: pc.jacobian_row(f, [0.5], 0, record=False))[0]
    work(4)
    a, b = work(200), work(400)
    assert b <= 2.2 * a, (a, b)
