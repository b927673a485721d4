"""The mutants (deliberately broken rules) really break their rule, and only
inside the block.  That the property suite *kills* each of them is checked
in tests/properties/test_prop_mutants.py."""
import pytest

import pullback_calc as pc
from pullback_calc.reduction.rules import RULES
from pullback_calc.testing.mutants import MUTANTS, main, mutant

#: a redex of each mutant's rule and its correct value
WITNESS = {
    "16c-drop-summand": ("(J(λ⟨x, ω⟩. (λv. x × v)⋆ ω)·⟨1, δ⟩) ⟨2, k⟩",
                         "(λv. 2 × v)⋆ δ ⊕ (λv. v × 1)⋆ k"),
    "19b-drop-summand": ("(J(λ⟨f, x⟩. f x)·⟨g, 1⟩) ⟨λu. 3 × u, 2⟩", "g 2 ⊕ 3"),
    "13-drop-summand": ("(J(λ⟨a, x⟩. (J(λy. a × y)·x) 2)·⟨3, 5⟩) ⟨7, 11⟩", "68"),
    "12-drop-summand": ("(J(λ⟨x, y⟩. x ⊕ y ⊕ 7)·⟨3, 4⟩) ⟨1, 2⟩", "7"),
    "15-swap-partials": ("(J(λ⟨x, y⟩. x × y)·⟨1, 0⟩) ⟨2, 3⟩", "3"),
    "20a-reverse": ("(J(λ⟨x, y⟩. ⟨y, x⟩)·⟨3, 4⟩) ⟨1, 2⟩", "⟨4, 3⟩"),
}


def test_every_mutant_has_a_witness():
    assert set(WITNESS) == set(MUTANTS)


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_a_mutant_breaks_its_rule_inside_the_block_only(name):
    src, value = WITNESS[name]
    original = RULES[MUTANTS[name].label]
    assert pc.reduce(src).value == pc.parse(value)
    with mutant(name) as mu:
        assert RULES[mu.label] is not original
        broken = pc.reduce(src)
        assert broken.value != pc.parse(value)
        assert mu.label in {s.rule for s in broken.trace}
    assert RULES[mu.label] is original
    assert pc.reduce(src).value == pc.parse(value)


def test_an_unknown_mutant_is_named_in_the_error():
    with pytest.raises(KeyError, match="no mutant 'nope'.*16c-drop-summand"):
        with mutant("nope"):
            pass


def test_the_listing(capsys):
    assert main([]) == 0
    out = capsys.readouterr().out
    for name in MUTANTS:
        assert name in out
