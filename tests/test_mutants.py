"""The mutants (deliberately broken rules) really break their rule, and only
inside the block.  That the property suite *kills* each of them is checked
in tests/properties/test_prop_mutants.py."""
import pytest

import pullback_calc as pc
from pullback_calc.reduction.rules import RULES
from pullback_calc.rendering.text import walk
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
    "5-drop-accumulation": ("Ω(λx. let y = 2 × x in x × y) (λz. λw. w) 3", "λdx. 12 × dx"),
    "19b-premise-zero": ("(J(λ⟨f, x⟩. f x)·⟨g, 1⟩) ⟨λu. 3 × u, 2⟩", "g 2 ⊕ 3"),
    "19c-drop-function": ("(J(λ⟨f, x⟩. f x)·⟨g, 0⟩) ⟨λu. 3 × u, 2⟩", "g 2"),
    "18-premise-reads-point": ("(J(λx. λy. x × y)·1) 2", "λy. y × 1"),
    "18L-zero": ("(J(λv. λk. let c = 2 in let g = λx. v × x in g c)·1) 5", "λk. 2"),
    "19m-drop-argument": ("(J(λ⟨f, x⟩. f x)·⟨λy. (J(λa. a × y)·1) 3, 1⟩) ⟨λy. 3 × y, 2⟩", "5"),
    "8h-first-operand": ("Ω(λx. let c = 2 × 3 in let y = x × c in y) (λz. λw. w) 1",
                         "λdx. 6 × dx"),
    "8Jc-first-operand": ("(J(λx. let c = 2 × 3 in let y = x × c in y)·1) 2", "6"),
    # (h passed on in a pair, not only called: used only by calls, 8c would copy it)
    "8f-first-operand": ("Ω(λx. let h = λs. exp(sin(x)) × s in let ⟨g, o⟩ = ⟨h, 0⟩ in "
                         "let y = g 1 in y) "
                         "(λz. λw. w) 1",
                         "λdx. 1.253380767493447 × dx"),
    "pb-named-map-zero": ("Ω(λx. Ω(λy. sin(sin(sin(sin(y))))) (λa. λw. w) x 1) (λz. λw. w) 0.5",
                          "λdx. -1.0838100914915594 × dx"),
}


def rules_fired(trace) -> set:
    """The labels of the steps of a derivation, its premises' included (18L
    fires only inside a forward premise)."""
    return {s.rule for _, s in walk(trace) if hasattr(s, "redex")}


def test_every_mutant_has_a_witness():
    assert set(WITNESS) == set(MUTANTS)


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_a_mutant_breaks_its_rule_inside_the_block_only(name):
    src, value = WITNESS[name]
    original = RULES[MUTANTS[name].label]
    assert pc.reduce(src, check=False).value == pc.parse(value)
    with mutant(name) as mu:
        assert RULES[mu.label] is not original
        broken = pc.reduce(src, check=False)
        assert broken.value != pc.parse(value)
        assert set(mu.fires or (mu.label,)) <= rules_fired(broken.trace)
    assert RULES[mu.label] is original
    assert pc.reduce(src, check=False).value == pc.parse(value)


def test_an_unknown_mutant_is_named_in_the_error():
    with pytest.raises(KeyError, match="no mutant 'nope'.*16c-drop-summand"):
        with mutant("nope"):
            pass


def test_the_listing(capsys):
    assert main([]) == 0
    out = capsys.readouterr().out
    for name in MUTANTS:
        assert name in out


def _pytest_under(env_value, *args):
    import os
    import subprocess
    import sys
    from pathlib import Path
    env = {k: v for k, v in os.environ.items() if k != "PULLBACK_CALC_MUTANT"}
    if env_value is not None:
        env["PULLBACK_CALC_MUTANT"] = env_value
    root = Path(__file__).resolve().parent.parent
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                           *args], cwd=root, env=env, capture_output=True, text=True,
                          timeout=600)


def test_a_mutant_named_in_the_environment_is_in_force_for_the_whole_run():
    """The documented route, end to end: PULLBACK_CALC_MUTANT=15-swap-partials
    makes the Jacobian tests fail (the installer once let its context manager
    be garbage-collected, which restored the rule at once), and the same run
    without it passes."""
    target = "tests/test_jacobian.py::test_running_example_row_and_normal_form"
    clean = _pytest_under(None, target)
    assert clean.returncode == 0, clean.stdout[-2000:]
    broken = _pytest_under("15-swap-partials", target)
    assert broken.returncode == 1, broken.stdout[-2000:]
    failed = "FAILED tests/test_jacobian.py::test_running_example_row_and_normal_form"
    assert failed in broken.stdout


def test_install_replaces_the_rule_for_the_process():
    import pullback_calc.testing.mutants as M
    original = RULES["20a"]
    try:
        mu = M.install("20a-reverse")
        import gc
        gc.collect()  # nothing may put the original back behind our back
        assert RULES["20a"] is not original and M.INSTALLED is mu
        src, value = WITNESS["20a-reverse"]
        assert pc.reduce(src, check=False).value != pc.parse(value)
    finally:
        RULES["20a"] = original
        M.INSTALLED = None
