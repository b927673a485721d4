"""The AD subcommands (cli_ad.py): grad, jvp, tape, and --unknown."""
import json
import subprocess
import sys
from pathlib import Path

from pullback_calc.cli import main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
RUNNING = str(EXAMPLES / "running_example.pb")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_grad(capsys):
    code, out, err = run(capsys, "grad", "-e", "λ⟨x, y⟩. x × x + y", "--at", "2,3")
    assert code == 0 and err == ""
    assert out == "gradient at (2, 3), by reduction: [4, 1]    (16 steps)\n"
    code, out, _ = run(capsys, "grad", RUNNING, "--at", "1.5,2", "--json")
    assert json.loads(out) == {"point": [1.5, 2], "gradient": [420, 350], "steps": 57}
    code, out, _ = run(capsys, "grad", RUNNING, "--at", "1.5,2", "--json", "--trace")
    doc = json.loads(out)["trace"]  # the one trace schema (rendering/json_trace.py)
    assert doc["format"] == "pullback-calc-trace" and len(doc["trace"]) == 52
    code, out, _ = run(capsys, "grad", RUNNING, "--at", "1.5,2", "--trace")
    assert "[A-name]" in out and out.endswith("[420, 350]    (57 steps)\n")


def test_jvp(capsys):
    code, out, err = run(capsys, "jvp", RUNNING, "--at", "1.5,2", "--tangent", "1,0")
    assert code == 0 and err == ""
    assert out.splitlines() == ["at (1.5, 2) along (1, 0), by forward mode (J):",
                                "primal:  306.25", "tangent: 420    (48 steps)"]
    code, out, _ = run(capsys, "jvp", "-e", "λ⟨x, y⟩. ⟨x × x, y⟩", "--at", "2,3",
                       "--tangent", "-1,1", "--json")
    assert json.loads(out) == {"point": [2, 3], "direction": [-1, 1], "primal": [4, 3],
                               "tangent": [-4, 1], "steps": 15}


def test_tape_running_example(capsys):
    """The six elementary operations, forward values, adjoints 420 and 350 at the inputs."""
    code, out, err = run(capsys, "tape", RUNNING, "--at", "1.5,2")
    assert code == 0 and err == ""
    lines = out.splitlines()
    ops = [line.split() for line in lines if line.split()[:1] and line.split()[0].isdigit()]
    assert [o[:3] for o in ops] == [["1", "add_2", "="], ["2", "mul_4", "="],
                                    ["3", "pow_5", "="], ["4", "add_3", "="],
                                    ["5", "mul_1", "="], ["6", "pow_6", "="]]
    assert [o[-2:] for o in ops] == [["2.5", "245"], ["3", "87.5"], ["4", "87.5"],
                                     ["7", "87.5"], ["17.5", "35"], ["306.25", "1"]]
    inputs = [line.split() for line in lines if line.split()[:1] == ["in"]]
    assert inputs == [["in", "x", "1.5", "420"], ["in", "y", "2", "350"]]
    code, out, _ = run(capsys, "tape", RUNNING, "--at", "1.5,2", "--json")
    doc = json.loads(out)
    assert [e["adjoint"] for e in doc["inputs"]] == [420, 350] and len(doc["entries"]) == 6
    code, out, _ = run(capsys, "tape", RUNNING, "--ascii")
    assert out.startswith("tape of \\<x, y>.") and "pow_6 = pow mul_1 2" in out


FREE_H = ("--free", "h : R -> R")  # a free function, declared (typed by default)


def test_unknown_policy_on_the_command_line(capsys):
    code, out, err = run(capsys, "grad", "-e", "λx. x × x + h x", "--at", "0.5")
    assert code == 1 and "unbound variable `h`" in err  # undeclared: a typo until declared
    code, out, err = run(capsys, "grad", "-e", "λx. x × x + h x", "--at", "0.5", *FREE_H)
    assert code == 1 and out == ""
    assert err.startswith("pullback-calc: error: <-e>:1:13: the derivative of h is unknown")
    assert err.splitlines()[1:] == ["    λx. x × x + h x", "                ^"]
    code, out, _ = run(capsys, "grad", "-e", "λx. x × x + h x", "--at", "0.5",
                       "--unknown", "zero", *FREE_H)
    assert code == 0 and "[1]" in out
    code, out, _ = run(capsys, "jacobian", "-e", "λx. x × x + h x", "--at", "0.5",
                       "--unknown", "zero", *FREE_H)
    assert code == 0 and "row 0: [1]" in out
    code, _, err = run(capsys, "grad", "-e", "λx. x", "--at", "0.5", "--unknown", "maybe")
    assert code == 2 and "invalid choice" in err


def test_errors(capsys):
    code, _, err = run(capsys, "jvp", "-e", "λx. x × x", "--at", "0.5", "--tangent", "1,2")
    assert code == 1 and "the tangent has 2 component(s) but the point has 1" in err
    code, _, err = run(capsys, "grad", "-e", "λ⟨x, y⟩. ⟨x, y⟩", "--at", "1,2")
    assert code == 1 and "real-valued" in err
    code, _, err = run(capsys, "tape", "-e", "λx. x +")
    assert code == 1 and "<-e>:1:8: unexpected end of input" in err
    code, _, err = run(capsys, "tape", RUNNING, "--at", "1,2", "--row", "3")
    assert code == 1 and "row 3 does not exist" in err
    code, _, err = run(capsys, "jvp", RUNNING, "--at", "1,2")
    assert code == 2 and "--tangent" in err


def test_as_a_subprocess():
    r = subprocess.run([sys.executable, "-m", "pullback_calc", "tape", RUNNING, "--at", "1.5,2"],
                       capture_output=True, text=True, encoding="utf-8", timeout=120)
    assert r.returncode == 0 and "306.25" in r.stdout
