"""record= and workers= (issue 10): no trace when none is asked for, rows in a
process pool -- the same rows, steps and traces as one process, one row at a time."""
import pytest

import pullback_calc as pc
from pullback_calc.cli import main
from pullback_calc.rendering import format_trace
from pullback_calc.results.jacobian import jacobian_rows

POLAR = "λ⟨r, t⟩. ⟨r × cos(t), r × sin(t)⟩"
LAYER = "λ⟨x, y, z⟩. ⟨tanh(x × y + z), tanh(x − y × z), x × y × z⟩"
SCALAR = "λ⟨x, y⟩. x × x × y + sin(x × y)"


def _texts(rows):
    return [format_trace(r.trace, width=0) for r in rows]


def test_record_switch_keeps_steps_and_rows():
    on = pc.jacobian_row(POLAR, [2, 0.5], 1)
    off = pc.jacobian_row(POLAR, [2, 0.5], 1, record=False)
    assert on.trace and off.trace == []
    assert (on.row, on.steps, on.rule_counts) == (off.row, off.steps, off.rule_counts)
    assert on.covector == off.covector
    h_on, h_off = pc.hessian_row(SCALAR, [0.7, 1.3], 0), pc.hessian_row(SCALAR, [0.7, 1.3], 0,
                                                                        record=False)
    assert h_off.trace == [] and (h_on.row, h_on.steps) == (h_off.row, h_off.steps)


def test_jacobian_and_hessian_defaults_unchanged():
    assert pc.jacobian(POLAR, [2, 0.5]) == [r.row for r in pc.jacobian(POLAR, [2, 0.5],
                                                                        record=True).artefact]
    assert pc.hessian("λ⟨x, y⟩. x × x × y", [2, 3]) == [[6.0, 4.0], [4.0, 0.0]]


@pytest.mark.parametrize("f, pt", [(POLAR, [2, 0.5]), (LAYER, [0.5, -1.0, 2.0])])
def test_workers_give_identical_rows_and_traces(f, pt):
    one = pc.jacobian(f, pt, record=True).artefact
    two = pc.jacobian(f, pt, record=True, workers=2).artefact
    assert [r.row for r in one] == [r.row for r in two]
    assert [r.steps for r in one] == [r.steps for r in two]
    assert [r.rule_counts for r in one] == [r.rule_counts for r in two]
    assert _texts(one) == _texts(two)
    assert [r.covector for r in one] == [r.covector for r in two]
    assert pc.jacobian(f, pt, workers=2) == pc.jacobian(f, pt)


def test_hessian_workers():
    one = pc.hessian(SCALAR, [0.7, 1.3], record=True).artefact
    two = pc.hessian(SCALAR, [0.7, 1.3], record=True, workers=2).artefact
    assert [r.row for r in one] == [r.row for r in two]
    assert _texts(one) == _texts(two)
    assert pc.hessian(SCALAR, [0.7, 1.3], workers=0) == [r.row for r in one]


def test_errors_cross_the_process_boundary():
    with pytest.raises(pc.StepBudgetExceeded) as e:
        pc.jacobian(POLAR, [2, 0.5], max_steps=5, workers=2)
    assert e.value.rule is not None
    with pytest.raises(pc.JacobianError):
        jacobian_rows(POLAR, [2, 0.5], [7], workers=2)


def test_cli_jobs(capsys):
    def _cli(*argv) -> str:
        assert main(list(argv)) == 0
        return capsys.readouterr().out

    base = ["jacobian", "-e", LAYER, "--at", "0.5,-1,2"]
    assert _cli(*base, "--jobs", "2") == _cli(*base)
    assert _cli(*base, "--jobs", "2", "--trace") == _cli(*base, "--trace")
    assert _cli(*base, "-j", "0", "--json") == _cli(*base, "--json")
    chk = ["check", "-e", POLAR, "--at", "2,0.5"]
    assert _cli(*chk, "--jobs", "2") == _cli(*chk)
