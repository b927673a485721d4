"""The property tests' comparison with the oracle (``common.oracle_verdict``)
excuses a disagreement only where floating point does not determine the value."""
from pathlib import Path

from pullback_calc.testing import oracle

from common import oracle_verdict

ILL = (Path(__file__).parent.parent / "data" / "ill_conditioned_program.txt").read_text(
    encoding="utf-8").strip()


def _value(src, x):
    return lambda: oracle.apply(oracle.evaluate(src), x)


def test_a_wrong_value_of_a_determined_program_is_a_disagreement():
    f = _value("λx. sin(x × x) + exp(x) / (1 + x × x)", -0.7)
    assert oracle_verdict(f() * (1 + 1e-12), f) == "agrees"
    assert "the oracle's" in oracle_verdict(f() + 1e-3, f)
    assert "the oracle's" in oracle_verdict([f(), 1.0], lambda: [f(), 1.001])


def test_an_ill_conditioned_program_is_told_apart():
    """The engine's value of the program the thorough profile drew (0.63; the
    oracle's −3.97) is excused, and only because rounding moves the oracle."""
    assert oracle_verdict(0.6313782072411178, _value(ILL, -0.7)) == "ill-conditioned"
