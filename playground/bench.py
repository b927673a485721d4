"""Time the playground: a cold load, and the running example's reduction in the
browser against the command line's.  Needs the built folder and Chromium.

    .venv/bin/python playground/bench.py [--cold 3] [--runs 10]

Cold: a fresh browser context each time (no HTTP cache, no compiled WebAssembly),
the files read from disk through a server on 127.0.0.1; the running example is typed
and Run pressed as soon as the page has loaded (a run waits for the engine).
Reduction: ``jacobian -e F --at 1.5,2`` once the engine is warm, measured around the
command line's ``main`` in the page's worker and in CPython (the same call), and the
whole ``pullback-calc`` process for reference.  Medians; wall-clock time.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from serve import DEFAULT_DIR, make_server  # noqa: E402

F = "λ⟨x, y⟩. ((x + 1) × (2 × x + y ^ 2)) ^ 2"
ARGV = ["jacobian", "-e", F, "--at", "1.5,2", "--max-steps", "100000"]
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


def descendants_cpu() -> float:
    """CPU seconds used so far by this process's descendants (Playwright's driver,
    the browser and its renderers): on a shared machine, the time an idle core takes."""
    parent, ticks = {}, {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                f = (d / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parent[int(d.name)] = int(f[1])
            ticks[int(d.name)] = int(f[11]) + int(f[12])
    me, total = os.getpid(), 0
    for pid in ticks:
        p = parent.get(pid)
        while p and p != me:
            p = parent.get(p)
        if p == me:
            total += ticks[pid]
    return total / os.sysconf("SC_CLK_TCK")


def cold_load(browser, url: str) -> dict:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    t0, c0 = time.perf_counter(), descendants_cpu()
    page.goto(url)
    page.wait_for_function("() => document.querySelector('#examples').options.length > 2")
    interactive = time.perf_counter() - t0
    page.fill("#term", F)
    page.select_option("#command", "jacobian")
    page.fill("#point", "1.5,2")
    page.click("#run")
    page.wait_for_function("() => window.pcPlayground.runs > 0", timeout=600_000)
    first, cpu = time.perf_counter() - t0, descendants_cpu() - c0
    info = page.evaluate("({boot: window.pcPlayground.bootMs, "
                         "phases: window.pcPlayground.phasesMs, "
                         "out: window.pcPlayground.last.stdout})")
    ctx.close()
    return {"interactive": interactive, "first": first, "cpu": cpu, "boot": info["boot"] / 1000,
            "phases": {k: v / 1000 for k, v in info["phases"].items()}, "out": info["out"]}


def browser_runs(browser, url: str, runs: int) -> list[float]:
    ctx = browser.new_context()
    page = ctx.new_page()
    page.goto(url)
    page.wait_for_function("() => window.pcPlayground.bootMs !== null", timeout=600_000)
    page.fill("#term", F)
    page.select_option("#command", "jacobian")
    page.fill("#point", "1.5,2")
    out = []
    for k in range(runs + 1):  # the first run is a warm-up
        page.click("#run")
        page.wait_for_function(f"() => window.pcPlayground.runs > {k}", timeout=600_000)
        if k:
            out.append(page.evaluate("window.pcPlayground.last.ms") / 1000)
    ctx.close()
    return out


def cpython_runs(runs: int) -> list[float]:
    import contextlib
    import io

    from pullback_calc.cli import main
    out = []
    for k in range(runs + 1):
        t = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            main(ARGV)
        if k:
            out.append(time.perf_counter() - t)
    return out


def process_runs(runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "pullback_calc", *ARGV], check=True,
                       capture_output=True)
        out.append(time.perf_counter() - t)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="playground/bench.py", description=__doc__.split("\n")[0])
    ap.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    ap.add_argument("--cold", type=int, default=3, help="cold loads (default 3)")
    ap.add_argument("--runs", type=int, default=10, help="warm reductions (default 10)")
    args = ap.parse_args(argv)
    if not (args.dir / "manifest.json").is_file():
        print(f"playground/bench.py: error: {args.dir} holds no built playground; build it "
              f"with `.venv/bin/python playground/build.py`", file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright
    server = make_server(args.dir)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}/"
    print(f"load average before: {os.getloadavg()[0]:.1f} (on {os.cpu_count()} cores)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        cold = [cold_load(b, url) for _ in range(args.cold)]
        warm = browser_runs(b, url, args.runs)
        b.close()
    server.shutdown()
    cpy, proc = cpython_runs(args.runs), process_runs(max(3, args.runs // 3))
    med = statistics.median
    for c in cold:
        ph = ", ".join(f"{k} {v:.1f} s" for k, v in c["phases"].items())
        print(f"cold load: page usable {c['interactive']:.2f} s, engine ready {c['boot']:.1f} s "
              f"({ph}), first result {c['first']:.1f} s using {c['cpu']:.1f} s of CPU")
    print(f"cold load, median of {len(cold)}: first result "
          f"{med(c['first'] for c in cold):.1f} s, {med(c['cpu'] for c in cold):.1f} s of CPU")
    print(f"running example (jacobian, 57 steps), median of {args.runs}: browser "
          f"{med(warm):.3f} s, CPython {med(cpy):.3f} s (×{med(warm) / med(cpy):.1f}); "
          f"the whole pullback-calc process {med(proc):.2f} s")
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
