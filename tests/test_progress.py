"""Progress bars (issue 13): on a terminal's stderr only, never under --json or in a pipe.

Driven through a pseudo-terminal as tests/test_stepper.py drives the stepper;
PULLBACK_CALC_PROGRESS_DELAY=0 shows the bars at once (by default they wait half
a second, so quick commands print nothing).
"""
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

from pullback_calc.testing.extreme import sin_chain

ROOT = Path(__file__).resolve().parent.parent
POLAR = ROOT / "examples" / "polar.pb"   # two rows


def _on_a_terminal(args, timeout: float = 120) -> tuple[int, str]:
    """Run the CLI with stdin, stdout and stderr on a pty; (status, what the screen got)."""
    master, slave = pty.openpty()
    env = dict(os.environ, COLUMNS="100", TERM="xterm", PULLBACK_CALC_PROGRESS_DELAY="0")
    proc = subprocess.Popen([sys.executable, "-m", "pullback_calc", *args], stdin=slave,
                            stdout=slave, stderr=slave, cwd=ROOT, env=env, close_fds=True)
    os.close(slave)
    seen = b""
    end = time.monotonic() + timeout
    try:
        while time.monotonic() < end:
            r, _, _ = select.select([master], [], [], 0.2)
            if r:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # the program ended
                    chunk = b""
                if not chunk:
                    break
                seen += chunk
            elif proc.poll() is not None:
                break
        return proc.wait(timeout=30), seen.decode("utf-8", "replace")
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)


def _chain(tmp_path, n=400) -> Path:
    f = tmp_path / "sin.pb"
    f.write_text(sin_chain(n), encoding="utf-8")
    return f


def test_progress_on_a_terminal(tmp_path):
    f = _chain(tmp_path)
    status, screen = _on_a_terminal(["trace", str(f), "--at", "0.5", "-f", "html", "-o",
                                     str(tmp_path / "t.html")])
    assert status == 0, screen
    assert "reducing" in screen and "rendering" in screen and "%|" in screen, screen
    status, screen = _on_a_terminal(["jacobian", str(POLAR), "--at", "2,0.5"])
    assert status == 0 and "rows:" in screen and "/2 [" in screen, screen
    assert "row 1: [0.479425538604203, 1.7551651237807455]" in screen


def test_no_progress_under_json_even_on_a_terminal(tmp_path):
    status, screen = _on_a_terminal(["jacobian", str(POLAR), "--at", "2,0.5", "--json"])
    assert status == 0 and screen.lstrip().startswith('{"point"'), screen
    assert "rows" not in screen.split("}", 1)[1] and "%|" not in screen and "\r" not in \
        screen.replace("\r\n", "\n"), screen


def test_no_progress_in_a_pipe(tmp_path):
    f = _chain(tmp_path)
    env = dict(os.environ, PULLBACK_CALC_PROGRESS_DELAY="0")
    for args in (["trace", str(f), "--at", "0.5", "-f", "json"],
                 ["jacobian", str(POLAR), "--at", "2,0.5"],
                 ["reduce", "-e", "(λx. x × x) (1 + 2)"]):
        r = subprocess.run([sys.executable, "-m", "pullback_calc", *args], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0 and r.stderr == "", r.stderr


def test_progress_callbacks_reach_the_total():
    """The renderers report progress through a plain callback (no tqdm in rendering/)."""
    import pullback_calc as pc
    from pullback_calc.rendering.html import trace_to_html
    from pullback_calc.rendering.json_trace import trace_to_json
    from pullback_calc.rendering.latex import trace_to_latex
    from pullback_calc.rendering.text import count_steps, trace_lines
    trace = pc.jacobian_row(sin_chain(100), [0.5], 0).trace
    total = count_steps(trace)
    for render in (lambda p: trace_lines(trace, progress=p),
                   lambda p: trace_to_json(trace, progress=p),
                   lambda p: trace_to_html(trace, progress=p),
                   lambda p: trace_to_latex(trace, progress=p)):
        seen = []
        render(seen.append)
        assert seen and seen == sorted(seen) and total - 256 < seen[-1] <= total
