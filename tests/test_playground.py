"""The browser playground (playground/): the engine itself, on Pyodide, in Chromium.

The built folder (``.venv/bin/python playground/build.py``, which CI runs before the
tests) is served on 127.0.0.1 and driven with Playwright in Debian's chromium, as the
stepper's tests do.  Every answer is compared with what the command line prints for the
same command (run here, as a process), never with a constant.  Any request to a host
other than 127.0.0.1 fails the test.  Without a build the tests fail and say how to
build; without chromium or Playwright they skip, except in CI.
"""
import importlib.util
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import quote, urlparse

import pytest


ROOT = Path(__file__).resolve().parent.parent
BUILT = ROOT / "build" / "playground"
BUILD = ".venv/bin/python playground/build.py"
F = "λ⟨x, y⟩. ((x + 1) × (2 × x + y ^ 2)) ^ 2"
LOAD = 240_000   # ms: a cold start of Pyodide on a loaded 2-core machine
RUN = 120_000    # ms: one command


def _module(name: str):
    spec = importlib.util.spec_from_file_location(f"playground_{name}",
                                                  ROOT / "playground" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def nested_derivative(k: int) -> str:
    """The k-th derivative of sin at 0.5 by k nested pullbacks: shallow terms, and a
    reduction twice as long for each k (k = 10: 23,497 steps)."""
    f = "λx. sin(x)"
    for _ in range(k):
        f = f"λx : ℝ. Ω({f}) (λz. λw. w) x 1"
    return f"({f}) 0.5"


LONG = nested_derivative(16)  # minutes of reduction: only ever stopped


@pytest.fixture(scope="module")
def site():
    if not (BUILT / "manifest.json").is_file():
        pytest.fail(f"the playground is not built: run `{BUILD}` (npm fetches Pyodide and "
                    f"Viz.js, pip the wheels; CI runs it before the tests)")
    import json
    built = json.loads((BUILT / "manifest.json").read_text())["source_digest"]
    if built != _module("build").source_digest():
        pytest.fail(f"build/playground was built from other sources than these: rebuild it "
                    f"with `{BUILD}`")
    return BUILT


def _served(site, isolated: bool):
    server = _module("serve").make_server(site, 0, isolated)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture(scope="module")
def isolated_url(site):
    server = _served(site, True)
    yield f"http://127.0.0.1:{server.server_port}/"
    server.shutdown()


@pytest.fixture(scope="module")
def plain_url(site):
    server = _served(site, False)
    yield f"http://127.0.0.1:{server.server_port}/"
    server.shutdown()


class Guarded:
    """A page in a fresh browser context (cold caches) whose every request off
    127.0.0.1 is refused and recorded, as are the page's errors."""

    def __init__(self, browser, url: str, width: int = 1280, height: int = 900):
        self.foreign: list = []
        self.seen: list = []
        self.errors: list = []
        self.context = browser.new_context(viewport={"width": width, "height": height})
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("console", lambda m: self.errors.append(m.text)
                     if m.type == "error" else None)
        self.started = time.monotonic()
        self.page.goto(url)

    def _route(self, route):
        url = route.request.url
        self.seen.append(url)
        if urlparse(url).hostname == "127.0.0.1":
            route.continue_()
        else:
            self.foreign.append(url)
            route.abort()

    def ready(self):
        self.page.wait_for_function("() => window.pcPlayground.bootMs !== null", timeout=LOAD)

    def check(self):
        assert self.foreign == [], f"requests off 127.0.0.1: {self.foreign}"
        assert self.errors == [], self.errors

    def close(self):
        self.context.close()


@pytest.fixture(scope="module")
def pg(browser, isolated_url):  # noqa: F811
    g = Guarded(browser, isolated_url)
    g.ready()
    assert g.page.evaluate("crossOriginIsolated")
    yield g
    g.check()
    g.close()


@pytest.fixture(autouse=True)
def _guard(request):
    yield
    if "pg" in request.fixturenames:
        request.getfixturevalue("pg").check()


def run(page, term: str, command: str, at: str = "", steps: str = "100000",
        wait: bool = True) -> dict:
    """Type a term and a command into the page and run it; the page's record of the
    result: argv, status, stdout, stderr, file, ms."""
    n = page.evaluate("window.pcPlayground.runs")
    page.fill("#term", term)
    page.select_option("#command", command)
    if page.is_enabled("#point"):
        page.fill("#point", at)
    page.fill("#budget", steps)
    page.click("#run")
    if not wait:
        return {}
    page.wait_for_function(f"() => window.pcPlayground.runs > {n}", timeout=RUN)
    return page.evaluate("window.pcPlayground.last")


def cli(argv: list, cwd=None, interrupt_after=None) -> dict:
    """The command line's answer to the same arguments (in a process of its own)."""
    p = subprocess.Popen([sys.executable, "-m", "pullback_calc", *argv], cwd=cwd,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         encoding="utf-8")
    if interrupt_after is not None:
        time.sleep(interrupt_after)
        p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=300)
    return {"status": p.returncode, "stdout": out, "stderr": err}


def same_as_cli(got: dict, cwd=None) -> dict:
    want = cli(got["argv"], cwd)
    assert (got["status"], got["stdout"], got["stderr"]) == \
        (want["status"], want["stdout"], want["stderr"])
    return want


# ---- the engine where Pyodide runs it: no threads, no processes ------------------------------

def test_engine_runs_without_threads_or_processes(monkeypatch, capsys):
    """Pyodide starts neither threads nor processes: @deep work runs inline (deep.py)
    and check's sympy reference in-process (results/crosscheck.py)."""
    import multiprocessing.process
    import threading

    from pullback_calc import deep
    from pullback_calc.cli import main
    from pullback_calc.results import crosscheck

    def refuse(*args, **kwargs):
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(deep, "THREADS", False)
    monkeypatch.setattr(crosscheck, "THREADS", False)
    monkeypatch.setattr(threading.Thread, "start", refuse)
    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", refuse)
    assert main(["check", "-e", F, "--at", "1.5,2"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"sympy +\[420, 350\] +OK", out), out
    assert main(["check", "-e", "λx. log(x)", "--at", "-1"]) == 1  # errors as before


# ---- the page, against the command line ---------------------------------------------------

def test_running_example_as_the_cli_prints_it(pg):
    got = run(pg.page, F, "jacobian", at="1.5,2")
    same_as_cli(got)
    assert got["status"] == 0 and re.search(r"row 0: \[.*\]    \(\d+ steps\)", got["stdout"])
    text = pg.page.inner_text("#stdout")
    assert text.strip() == got["stdout"].strip()
    # the engine, and every file it needs, came from this server (the worker's requests too)
    names = {Path(urlparse(u).path).name for u in pg.seen}
    assert {"pyodide.asm.wasm", "python_stdlib.zip", "manifest.json"} <= names
    assert any(n.startswith("pullback_calc-") and n.endswith(".whl") for n in names)


def test_reduce_prints_the_clis_trace(pg):
    got = run(pg.page, f"({F}) ⟨1.5, 2⟩", "reduce")
    same_as_cli(got)
    assert "normal form:" in got["stdout"]


def test_stepper_steps_to_a_rule_5_step(pg, tmp_path):
    got = run(pg.page, F, "trace", at="1.5,2")
    want = cli(got["argv"], cwd=tmp_path)
    assert got["status"] == want["status"] == 0
    # the page `pullback-calc trace --format html` writes, byte for byte
    assert got["file"] == (tmp_path / "trace.html").read_text(encoding="utf-8")
    frame = pg.page.frame_locator("#stepper")
    from playwright.sync_api import expect
    expect(frame.locator("#pos")).to_have_text(re.compile("^step 0 "), timeout=30_000)
    option = frame.locator("#rule-select option", has_text=re.compile(r"^\(5\)"))
    frame.locator("#rule-select").select_option(option.first.get_attribute("value"))
    expect(frame.locator("#rule")).to_have_text("(5)")
    expect(frame.locator("#phase")).to_have_text("reverse")


def test_syntax_error_is_located_as_the_cli_locates_it(pg):
    got = run(pg.page, "(λ⟨x, y⟩. x × y) ⟨2", "reduce")
    same_as_cli(got)
    assert got["status"] == 1 and got["stderr"].startswith("pullback-calc: error: <-e>:1:")
    assert pg.page.inner_text("#stderr").strip() == got["stderr"].strip()


def test_exhausted_step_budget_stops_cleanly(pg):
    got = run(pg.page, F, "jacobian", at="1.5,2", steps="5")
    same_as_cli(got)
    assert "step budget of 5 steps exhausted" in got["stderr"]
    assert pg.page.is_enabled("#run") and not pg.page.is_enabled("#stop")
    assert run(pg.page, F, "grad", at="1.5,2")["status"] == 0  # and the engine goes on


def test_graph_is_drawn_from_the_engines_dot(pg):
    got = run(pg.page, "(λx. x × x) (1 + 2)", "graph")
    same_as_cli(got)
    assert got["stdout"].startswith("digraph")
    nodes = len(re.findall(r"^\s+(?!graph|node|edge)\w+ \[", got["stdout"], re.M))
    assert nodes >= 4  # the three steps' terms and the normal form
    from playwright.sync_api import expect
    expect(pg.page.locator("#graph svg g.node")).to_have_count(nodes, timeout=60_000)


def test_check_against_sympy(pg):
    got = run(pg.page, F, "check", at="1.5,2")
    # the page asks sympy in-process, with no time limit; the command line's child
    # process gets 10 s, which a loaded machine may need for sympy's import alone
    want = cli(got["argv"] + ["--sympy-timeout", "600"])
    assert (got["status"], got["stdout"], got["stderr"]) == \
        (want["status"], want["stdout"], want["stderr"])
    assert re.search(r"sympy +\[.*\] +OK", got["stdout"]) and got["status"] == 0


def test_examples_menu(pg):
    page = pg.page
    page.select_option("#examples", "church_sum")
    source = (ROOT / "examples" / "church_sum.pb").read_text(encoding="utf-8")
    assert page.input_value("#term") == source
    assert page.input_value("#command") == "reduce"
    n = page.evaluate("window.pcPlayground.runs")
    page.click("#run")
    page.wait_for_function(f"() => window.pcPlayground.runs > {n}", timeout=RUN)
    same_as_cli(page.evaluate("window.pcPlayground.last"))


def test_symbol_buttons_and_shortcuts(pg):
    page = pg.page
    page.fill("#term", "")
    page.click(".sym[data-insert='λ']")
    page.keyboard.type("x. ")
    page.keyboard.press("Alt+KeyO")
    page.keyboard.type("(x) ")
    page.keyboard.press("Alt+Comma")
    page.keyboard.press("Alt+Period")
    assert page.input_value("#term") == "λx. Ω(x) ⟨⟩"


def test_stop_interrupts_the_reduction_as_ctrl_c_does(pg):
    page = pg.page
    boot = page.evaluate("window.pcPlayground.bootMs")
    run(page, LONG, "reduce", steps="100000000", wait=False)
    page.wait_for_function("() => document.querySelector('#outcome').textContent "
                           "=== 'running…'", timeout=RUN)
    time.sleep(1.5)
    n = page.evaluate("window.pcPlayground.runs")
    page.click("#stop")
    page.wait_for_function(f"() => window.pcPlayground.runs > {n}", timeout=RUN)
    got = page.evaluate("window.pcPlayground.last")
    want = cli(got["argv"], interrupt_after=1.5)  # the command line, interrupted by SIGINT
    assert (got["status"], got["stderr"]) == (want["status"], want["stderr"])
    assert got["status"] == 130
    # interrupted in place: the same engine, no reload
    assert page.evaluate("window.pcPlayground.bootMs") == boot
    assert run(page, F, "grad", at="1.5,2")["status"] == 0


def test_a_term_too_deep_for_the_browsers_stack_restarts_the_engine(pg):
    """The browser's stack is far smaller than the command line's 512 MB thread
    (deep.py): a 2,000-deep chain overflows it inside Python's C code, which Pyodide
    cannot survive.  The page says why and starts a fresh engine."""
    page = pg.page
    deep = "λx. " + "sin(" * 2000 + "x" + ")" * 2000
    got = run(page, deep, "grad", at="0.5")
    assert got["status"] is None
    assert got["stderr"].startswith("playground: error: the engine stopped: ")
    assert "nested too deeply for the browser's stack" in got["stderr"]
    # Pyodide's own report of its fatal error, on the console, is expected here
    pg.errors[:] = [e for e in pg.errors if not re.search(
        r"fatal error|Maximum call stack|^Stack \(most recent|^\s+File ", e)]
    assert cli(got["argv"])["status"] == 0  # the command line's big stack copes
    assert run(page, F, "grad", at="1.5,2")["status"] == 0  # the new engine works


def test_permalink_and_stop_without_isolation(browser, plain_url):  # noqa: F811
    """Served without COOP/COEP (as by `python3 -m http.server`): a permalink runs its
    command on load, and Stop ends the engine's worker and starts another."""
    link = plain_url + "#cmd=grad&at=1.5%2C2&term=" + quote(F)
    g = Guarded(browser, link)
    try:
        page = g.page
        page.wait_for_function("() => window.pcPlayground.runs > 0", timeout=LOAD + RUN)
        assert not page.evaluate("crossOriginIsolated")
        assert page.input_value("#term") == F and page.input_value("#point") == "1.5,2"
        same_as_cli(page.evaluate("window.pcPlayground.last"))
        run(page, LONG, "reduce", steps="100000000", wait=False)
        time.sleep(1.0)
        page.click("#stop")
        page.wait_for_function("() => window.pcPlayground.runs > 1", timeout=RUN)
        assert page.evaluate("window.pcPlayground.last.status") is None
        assert page.inner_text("#outcome") == "stopped (the engine restarts)"
        # the link now names what ran last
        assert "cmd=reduce" in page.evaluate("location.hash")
        got = run(page, F, "jacobian", at="1.5,2")  # waits for the new engine
        same_as_cli(got)
        g.check()
    finally:
        g.close()


def test_layout_at_phone_width(browser, isolated_url):  # noqa: F811
    g = Guarded(browser, isolated_url, width=390, height=844)
    try:
        page = g.page
        page.wait_for_function("() => document.querySelector('#examples').options.length > 2")
        # nothing but the output panes scrolls sideways on a phone
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        for sel in ("#term", "#run", "#stop", "#command", "#examples"):
            box = page.locator(sel).bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= 390, sel
        g.check()
    finally:
        g.close()
