"""`check` for every program (issue 13 item 3, issue 14 item 3): sympy when it can
express the program in time, else the forward-mode oracle and central finite
differences; the reference is always named, and `check` never hangs."""
import re
import time
from pathlib import Path

import pytest

from pullback_calc.cli import main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def _check_point(path: Path):
    """The point an example's own comments give `check` (None: a closed term)."""
    m = re.search(r"pullback-calc check +\S+ --at (\S+)", path.read_text(encoding="utf-8"))
    return m[1] if m else None


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.pb")), ids=lambda p: p.stem)
def test_check_succeeds_on_every_example(capsys, path):
    at = _check_point(path)
    code, out, err = run(capsys, "check", str(path), *([f"--at={at}"] if at else []))
    assert code == 0, out + err
    first = out.splitlines()[0]
    if at:
        assert re.match(r"Jacobian at .*: reduction vs (sympy|the forward-mode oracle and "
                        r"central finite differences) \(tolerance", first), first
        assert out.rstrip().splitlines()[-1] == "all rows agree" or "all rows agree" in out
    else:
        assert first.startswith("Value by reduction vs the forward-mode oracle"), first
        assert "all values agree" in out
    assert "MISMATCH" not in out


def test_function_typed_inputs_get_the_function_space_note(capsys):
    code, out, err = run(capsys, "check", str(EXAMPLES / "ho_list_sum_squares.pb"))
    assert code == 0 and err.startswith("pullback-calc: note: ")
    assert "derivative is taken in the function space" in err
    assert "Σ tᵢ²" in err and "Derivatives in a function space" in err
    code, out, err = run(capsys, "reduce", str(EXAMPLES / "ho_list_sum_squares.pb"),
                         "--no-trace")
    assert code == 0 and "function space" in err and out.splitlines()[-1] == "steps: 120"
    code, out, err = run(capsys, "reduce", str(EXAMPLES / "ho_second_derivative_cos.pb"),
                         "--no-trace")
    assert code == 0 and err == ""  # real inputs: no note


@pytest.mark.parametrize("text, at, why", [
    ("λx. Ω(λy. cos(y)) (λz. λw. w) x 1", "0.3", "Pullback is not supported"),
    ("let sq = λx. x × x in λ⟨a, b⟩. sq a + sin(b)", "1,2", "not written as one λ"),
])
def test_programs_sympy_cannot_express_use_the_oracle(capsys, text, at, why):
    code, out, _ = run(capsys, "check", "-e", text, "--at", at)
    assert code == 0, out
    assert "reduction vs the forward-mode oracle and central finite differences" in out
    assert "(not sympy: sympy cannot express it: " in out and why in out
    assert "oracle      [" in out and "differences [" in out and "all rows agree" in out


def test_oracle_mismatch_is_reported(capsys, monkeypatch):
    import pullback_calc.results.crosscheck as X
    monkeypatch.setattr(X, "oracle_rows", lambda *a: [[0.0]])
    code, out, _ = run(capsys, "check", "-e", "λx. Ω(λy. cos(y)) (λz. λw. w) x 1",
                       "--at", "0.3")
    assert code == 1 and "MISMATCH" in out


def test_value_mismatch_is_reported(capsys, monkeypatch):
    import pullback_calc.testing.oracle as O
    real = O.evaluate
    monkeypatch.setattr(O, "evaluate", lambda t, env=None: 1.0 + real(t, env)
                        if isinstance(real(t, env), float) else real(t, env))
    code, out, _ = run(capsys, "check", str(EXAMPLES / "church_sum.pb"))
    assert code == 1 and "MISMATCH" in out


def test_a_slow_sympy_is_killed_and_the_oracle_used(capsys, monkeypatch):
    import pullback_calc.results.sympy_bridge as bridge
    monkeypatch.setattr(bridge, "sympy_jacobian", lambda f, pt: time.sleep(600))
    t0 = time.monotonic()
    code, out, _ = run(capsys, "check", str(EXAMPLES / "polar.pb"), "--at", "2,0.5",
                       "--sympy-timeout", "1")
    assert time.monotonic() - t0 < 60
    assert code == 0 and "(not sympy: sympy did not finish within 1 s)" in out
    assert "all rows agree" in out


@pytest.mark.parametrize("depth", [500, 10_000])
def test_deep_sin_chains_return(capsys, tmp_path, depth):
    p = tmp_path / "chain.pb"
    p.write_text("λx. " + "sin(" * depth + "x" + ")" * depth + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "check", str(p), "--at", "0.5", "--sympy-timeout", "2")
    assert code == 0, out
    assert "all rows agree" in out
    assert "reduction vs sympy" in out or "(not sympy: " in out


def test_check_open_program_samples_its_free_variables(capsys):
    code, out, _ = run(capsys, "check", str(EXAMPLES / "ho_free_variable.pb"))
    assert code == 0 and "free variables, for this check: h = λ" in out
    code, out, _ = run(capsys, "check", "-e", "λx. x × c", "--free", "c : R", "--at", "2")
    assert code == 0 and "c = " in out and "all rows agree" in out


def test_check_without_point_on_a_first_order_function(capsys):
    code, _, err = run(capsys, "check", str(EXAMPLES / "polar.pb"))
    assert code == 2 and "--at" in err
