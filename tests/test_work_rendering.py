"""Issue 30, item 2: every renderer does work linear in the trace -- counted, not
timed: the printer's tasks expanded (one per node visited) for the gradient trace
of a sin chain n and 2n deep, whose steps' terms are as large as the program.

The LaTeX printer walked the end of every redex from its root: the rest of a let
series, as deep as the series is long (×2.9 per doubling before it kept what a
walk cut short printed of each node, ``latex._CUTS``)."""
import pytest

import pullback_calc as pc
from pullback_calc.rendering import latex
from pullback_calc.rendering.json_trace import trace_to_json
from pullback_calc.rendering.text import format_trace
from pullback_calc.syntax import printer
from pullback_calc.testing.extreme import sin_chain

N = 120         # 1,078 steps; 2N: 2,158
RATIO = 2.2     # work per doubling of the trace

RENDER = {
    "latex": lambda tr: latex.trace_to_latex(tr, max_term=200),   # the CLI's default
    "text": lambda tr: format_trace(tr),
    "json": lambda tr: trace_to_json(tr),
}


def _work(monkeypatch, name: str, n: int) -> int:
    """Tasks expanded rendering the trace of depth n: the LaTeX printer's own
    (``latex._task``, which its cache answers without the printer), the others'
    through the printer's (``Printer.task``, below their memo)."""
    trace = pc.jacobian_row(sin_chain(n), [0.5], 0).trace
    latex._TASKS.clear()
    latex._CUTS.clear()
    from pullback_calc.rendering import text
    text._MEMO.clear()
    count = [0]
    if name == "latex":
        orig = latex._task

        def counted(t, need):
            count[0] += 1
            return orig(t, need)
        monkeypatch.setattr(latex, "_task", counted)
    else:
        orig = printer.Printer.task

        def counted(self, t, need):
            count[0] += 1
            return orig(self, t, need)
        monkeypatch.setattr(printer.Printer, "task", counted)
    RENDER[name](trace)
    monkeypatch.undo()
    return count[0]


@pytest.mark.parametrize("name", sorted(RENDER))
def test_rendering_work_is_linear_in_the_trace(monkeypatch, name):
    small, big = _work(monkeypatch, name, N), _work(monkeypatch, name, 2 * N)
    assert small > 1000
    assert big <= RATIO * small, f"{name}: {small} → {big} tasks (×{big / small:.2f})"
