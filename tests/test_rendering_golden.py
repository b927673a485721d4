"""Golden files: the text, LaTeX and JSON renderings of small traces, byte for byte.

To accept a deliberate change, regenerate them with

    PULLBACK_CALC_REGEN_GOLDEN=1 python -m pytest tests/test_rendering_golden.py

and review the diff of tests/golden/.
"""
import os
from pathlib import Path

import pytest

import pullback_calc as pc
from pullback_calc.rendering.json_trace import trace_to_json
from pullback_calc.rendering.latex import trace_to_latex
from pullback_calc.rendering.text import format_trace

GOLDEN = Path(__file__).resolve().parent / "golden"
F = "λ⟨x, y⟩. ((x + 1) × (2 × x + y ^ 2)) ^ 2"


def _cases():
    square = pc.reduce("(λx. x × x) (1 + 2)")
    premise = pc.reduce("(J(λx. λy. x × y)·1) 2")
    running = pc.jacobian_row(F, [1.5, 2], 0)
    return {
        "square.txt": format_trace(square.trace) + "\n",
        "premise.txt": format_trace(premise.trace) + "\n",
        "premise_ascii.txt": format_trace(premise.trace, unicode=False) + "\n",
        "running_example.txt": format_trace(running.trace) + "\n",
        "running_example_reverse.txt": format_trace(running.trace, phases="reverse") + "\n",
        "premise.tex": trace_to_latex(premise.trace, term=pc.parse("(J(λx. λy. x × y)·1) 2"),
                                      value=premise.value),
        # each step's redex boxed in its context, typeset (the A-phase and the reverse phase)
        "running_example_context.tex": trace_to_latex(running.trace, phases="A,reverse",
                                                      max_term=120),
        "premise.json": trace_to_json(premise.trace, indent=1, spelling="both") + "\n",
        "square.json": trace_to_json(square.trace, indent=1, paths="full") + "\n",
    }


@pytest.mark.parametrize("name", sorted(_cases()))
def test_golden(name):
    got = _cases()[name]
    path = GOLDEN / name
    if os.environ.get("PULLBACK_CALC_REGEN_GOLDEN"):
        path.write_text(got, encoding="utf-8")
    assert path.exists(), f"{path} missing: regenerate (see this module's docstring)"
    assert got == path.read_text(encoding="utf-8"), f"{name} differs from tests/golden/{name}"
