"""Terms keep their cached facts in slots, not in an instance dict (memory:
a node takes ≈ 60 % of the memory; issue 10).  Structure only, no timing."""
from __future__ import annotations

import dataclasses
import pickle

import pullback_calc as pc
from pullback_calc.results.parallel import dumps
from pullback_calc.syntax.terms import NF, TERM_CLASSES, Num, Sum, Term, Var


def test_every_term_class_has_slots_and_no_dict():
    for cls in (Term,) + TERM_CLASSES:
        assert "__slots__" in cls.__dict__, cls
    for t in (pc.parse("λ⟨x, y⟩. let a = x × y in ⟨a, π₁ ⟨x, y⟩⟩ ⊕ 𝟎"),
              Sum.lazy(lambda: (Var("a"), Var("b")))):
        for u in [t] + list(pc.syntax.terms.subterms(t)):
            assert not hasattr(u, "__dict__"), type(u)


def test_a_new_node_knows_nothing_yet():
    t = pc.parse("sin(x) + 1")
    for u in pc.syntax.terms.subterms(t):
        assert u._hash is None and u._fv is None and u._flags == 0


def test_terms_pickle_by_their_fields_without_caches():
    t = pc.parse("λx. sin(x) × x")
    hash(t)
    t._flags |= NF
    u = pickle.loads(dumps(t))
    assert u == t and u._flags == 0 and u._hash is None
    assert [f.name for f in dataclasses.fields(Num)] == ["value", "pos"]
    assert pickle.loads(pickle.dumps(Num(2.0))) == Num(2.0)
