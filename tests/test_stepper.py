"""Stop and look (issue 13 item 2): `reduce(t, stop_after=N)`, `reduce --depth N`,
the state offered on budget exhaustion, and `pullback-calc step`, driven through a
pseudo-terminal as a person would use it."""
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

import pullback_calc as pc
from pullback_calc.cli import main
from pullback_calc.rendering.text import context_around

ROOT = Path(__file__).resolve().parent.parent
CHURCH = ROOT / "examples" / "church_sum.pb"
# a reduction with a premise (19b's, by pullback reductions) in its main derivation
PREMISED = ROOT / "examples" / "ho_fun_eval_twice.pb"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


# ---- the API -------------------------------------------------------------------------

def test_stop_after_returns_the_state_and_the_next_redex():
    src = CHURCH.read_text(encoding="utf-8")
    full = pc.reduce(src)
    r = pc.reduce(src, stop_after=20)
    assert r.stopped and len(r.trace) == 20
    assert [s.rule for s in r.trace] == [s.rule for s in full.trace[:20]]
    nxt = full.trace[20]
    assert r.next_step.index == 20 and r.next_step.rule == nxt.rule
    assert r.next_step.redex == nxt.redex
    assert r.value == nxt.term_before()  # the whole term reached
    left, right, _ = context_around(r.next_step)
    assert left or right
    # reducing on from the state reaches the same normal form
    assert pc.reduce(r.value).value == full.value
    # past the end: the normal form, not stopped
    done = pc.reduce(src, stop_after=10_000)
    assert not done.stopped and done.value == full.value and done.steps == full.steps


def test_budget_exhaustion_offers_the_state():
    src = PREMISED.read_text(encoding="utf-8")
    with pytest.raises(pc.StepBudgetExceeded) as e:
        pc.reduce(src, max_steps=13)  # runs out inside step 11's premise
    nxt = e.value.next_step
    full = pc.reduce(src)
    # the main derivation's state: the step whose premise ran out of budget
    assert e.value.trace and len(e.value.trace) == nxt.index
    assert nxt.redex == full.trace[nxt.index].redex
    assert e.value.term == full.trace[nxt.index].term_before()


# ---- reduce --depth ------------------------------------------------------------------

def test_reduce_depth_shows_the_state_at_step_20(capsys):
    code, out, _ = run(capsys, "reduce", str(CHURCH), "--depth", "20")
    assert code == 0
    lines = out.splitlines()
    assert lines[19].split()[0] == "19" and not any(l.split()[:1] == ["20"] for l in lines)
    assert "state after 20 steps (not a normal form; --depth 20):" in out
    nxt = pc.reduce(CHURCH.read_text(encoding="utf-8")).trace[20]
    assert f"next: step 20, rule [{nxt.rule}] ({nxt.phase})" in out
    assert "⟪" in out and "⟫" in out
    assert "normal form:" not in out and lines[-1] == "steps: 20"
    code, out, _ = run(capsys, "reduce", str(CHURCH), "--depth", "20", "--json")
    import json

    import jsonschema
    from pullback_calc.rendering.json_trace import TRACE_SCHEMA
    doc = json.loads(out)
    jsonschema.validate(doc, TRACE_SCHEMA)
    assert "value" not in doc and len(doc["trace"]) == 20 and doc["state"]
    assert doc["next"]["rule"] == nxt.rule and doc["next"]["redex"] == pc.pretty(nxt.redex)


def test_reduce_budget_shows_the_state(capsys):
    code, out, err = run(capsys, "reduce", str(PREMISED), "--max-steps", "13")
    assert code == 1 and "step budget of 13 steps exhausted" in err
    assert out.startswith("state after 11 steps (the step budget ran out):")
    assert "next: step 11, rule [19b]" in out and "--depth 11" in out


# ---- the terminal stepper, through a pty ------------------------------------------------

class Terminal:
    """A program on a pseudo-terminal: type lines, read what the screen shows."""

    def __init__(self, argv):
        self.master, slave = pty.openpty()
        env = dict(os.environ, COLUMNS="120", LINES="50", TERM="xterm", NO_COLOR="1")
        self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave,
                                     cwd=ROOT, env=env, close_fds=True)
        os.close(slave)
        self.seen = ""

    def read_until(self, pattern: str, timeout: float = 60) -> str:
        """Everything up to and including the next match of ``pattern``."""
        end = time.monotonic() + timeout
        while True:
            m = re.search(pattern, self.seen)
            if m:
                got, self.seen = self.seen[:m.end()], self.seen[m.end():]
                return got.replace("\r\n", "\n")
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {pattern!r} within {timeout} s; screen: {self.seen!r}")
            r, _, _ = select.select([self.master], [], [], left)
            if r:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:  # the program ended
                    chunk = b""
                if not chunk:
                    raise AssertionError(f"ended before {pattern!r}; screen: {self.seen!r}")
                self.seen += chunk.decode("utf-8", "replace")

    def type(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def close(self) -> int:
        try:
            return self.proc.wait(timeout=30)
        finally:
            os.close(self.master)


PROMPT = r"step> "


def test_step_driven_through_a_pty():
    full = pc.reduce(PREMISED.read_text(encoding="utf-8"))
    n = len(full.trace)  # 18 steps in the main derivation; step 11 (19b) has a premise
    k = next(s.index for s in full.trace if s.premises)
    r5 = next(s.index for s in full.trace if s.index > k and s.rule == "5")
    t = Terminal([sys.executable, "-m", "pullback_calc", "step", str(PREMISED)])
    try:
        first = t.read_until(PROMPT)
        # the count reduce and jacobian give (issue 29), and the steps walked here
        assert f"{full.steps} steps ({n} in the main derivation, walked here; " in first
        assert f"[0/{n}]" in first
        assert f"rule [{full.trace[0].rule}]" in first
        t.type("next")
        assert f"[1/{n}]" in t.read_until(PROMPT)
        t.type("")  # Enter: next
        assert f"[2/{n}]" in t.read_until(PROMPT)
        t.type("back")
        assert f"[1/{n}]" in t.read_until(PROMPT)
        t.type(f"goto {k}")
        screen = t.read_until(PROMPT)
        assert f"[{k}/{n}]" in screen and f"rule [{full.trace[k].rule}]" in screen
        assert "⟪J(" in screen and "1 premise(s)" in screen
        t.type("premise")
        screen = t.read_until(PROMPT)
        assert f"⊢ premise [{full.trace[k].rule}]" in screen and "[pb]" in screen
        t.type("context")
        assert f"context of step {k}" in t.read_until(PROMPT)
        t.type("latex")
        screen = t.read_until(PROMPT)
        assert f"% step {k}, rule ({full.trace[k].rule})" in screen and r"\fbox{$" in screen
        t.type("run 5")
        assert f"[{r5}/{n}]" in t.read_until(PROMPT)  # stops before the next rule-5 step
        t.type(f"goto {n}")
        assert f"normal form: {pc.pretty(full.value)}" in t.read_until(PROMPT)
        t.type("goto 99")
        assert "no state 99" in t.read_until(PROMPT)
        t.type("frobnicate")
        assert "unknown command 'frobnicate'" in t.read_until(PROMPT)
        t.type("help")
        assert "run RULE" in t.read_until(PROMPT)
        t.type("quit")
        assert t.close() == 0
    finally:
        if t.proc.poll() is None:
            t.proc.kill()


def test_step_commands_from_a_pipe(tmp_path):
    out = subprocess.run([sys.executable, "-m", "pullback_calc", "step", "-e",
                          "(λx. x × x) (1 + 2)"], input="n\nn\nn\n", capture_output=True,
                         text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0 and "Traceback" not in out.stderr
    assert "[3/3] normal form: 9" in out.stdout
