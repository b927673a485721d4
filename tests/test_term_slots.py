"""Terms keep their cached facts in slots, not in an instance dict (memory:
a node takes ≈ 60 % of the memory; issue 10).  Structure only, no timing."""
from __future__ import annotations

import pickle
from types import SimpleNamespace

import pullback_calc as pc
from pullback_calc.results.parallel import dumps
from pullback_calc.syntax.terms import NF, TERM_CLASSES, Num, Sum, Term, Var


def test_every_term_class_has_slots_and_no_dict():
    for cls in (Term,) + TERM_CLASSES:
        assert "__slots__" in cls.__dict__, cls
    for t in (pc.parse("λ⟨x, y⟩. let a = x × y in ⟨a, π₁ ⟨x, y⟩⟩ ⊕ 𝟎"),
              Sum.lazy(SimpleNamespace(summands=lambda: (Var("a"), Var("b"))))):
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
    assert Num.__match_args__ == ("value", "pos")
    assert pickle.loads(pickle.dumps(Num(2.0))) == Num(2.0)


# ---- a class has the cache slots its nodes can use, and no others (memory) ------

def test_each_class_has_only_the_cache_slots_its_nodes_use():
    """8 bytes a slot on every node of a class: a λ, a tuple, J, a dual map and
    a pullback never keep a linear combination; a variable, a numeral, 𝟎 and a
    λ never need their copied variables stored (none, or all of fv)."""
    def has(cls, slot):
        return any(slot in getattr(k, "__slots__", ()) for k in cls.__mro__)
    lc = {c.__name__ for c in TERM_CLASSES if has(c, "_lcobj")}
    fvc = {c.__name__ for c in TERM_CLASSES if has(c, "_fvc")}
    assert lc == {"Var", "Num", "Prim", "Proj", "Sum"}
    assert fvc == {"Prim", "App", "Tuple", "Proj", "Sum", "Jac", "Dual", "Pullback"}
    assert not has(Var, "_pidx")


def test_facts_a_class_keeps_no_slot_for_are_still_read():
    """Read on any node; written only where there is a slot."""
    from pullback_calc.reduction.linear import LC, lincomb_of, term_of
    from pullback_calc.syntax.subst import fv_copied
    from pullback_calc.reduction.linear import ONE
    from pullback_calc.syntax.terms import Lam, Tuple, pattern_index
    lam = Lam(Var("x"), pc.parse("x × y"))
    for atom in (lam, Tuple((Var("a"), Var("b"))), pc.parse("f y")):
        t = term_of(LC.of({atom: ONE}, frozenset()))  # a summand with no slot for it
        assert t is atom and lincomb_of(t, frozenset()).coeffs == {atom: ONE}
    assert fv_copied(lam) == {"y"} and fv_copied(Var("x")) == frozenset()
    assert fv_copied(pc.parse("let z = x in λw. z × x")) == {"x"}
    idx, level = pattern_index(Var("x"))
    assert level == 0 and idx.names == {"x": (0, ())}


def test_no_class_derives_from_a_term_class():
    # (the engine tests a node's class by identity -- ``type(t) is App`` in
    # is_let, the machine's dispatch tables -- which a subclass would escape)
    for cls in TERM_CLASSES:
        assert cls.__subclasses__() == [], cls
