#!/usr/bin/env python
"""Rendering benchmark: text, JSON and HTML traces take time linear in the number of steps.

    python benchmarks/bench_rendering.py                 # 1k, 2k, 5k, 10k steps (≈ 3–5 min here)
    python benchmarks/bench_rendering.py --quick         # 250, 500, 1k steps
    python benchmarks/bench_rendering.py --steps 1000,4000 --json out.json

The traces are gradients of the sin chain λx. sin(sin(…sin(x)…)) of depth n
by ``jacobian_row`` (about 9n steps; n is chosen to give the wanted number of
steps).  Each renderer runs with its defaults -- ``format_trace`` (lines of
100 columns), ``trace_to_json`` (terms abbreviated to 400 characters, delta
paths), ``trace_to_html`` (terms abbreviated to 160 characters, three frames
of context) -- and is timed (best of ``--repeats``, after ``gc.collect()``).
The redexes of this family are as large as the program (whole let series,
environments n deep), so printing them in full would make the output, and
the time, quadratic; bounded printing keeps each step O(1).

Per renderer the script prints µs per step and output bytes per step, and a
least-squares fit of log(time) against log(steps): an exponent ≈ 1.0 is
linear.  No assertion on times: ``tests/test_rendering_bench.py`` only runs
the smallest sizes to check the script works.
"""
from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import sys
import time

import pullback_calc as pc
from pullback_calc.rendering.html import trace_to_html
from pullback_calc.rendering.json_trace import trace_to_json
from pullback_calc.rendering.text import format_trace

RENDERERS = {
    "text": lambda tr: format_trace(tr),
    "json": lambda tr: trace_to_json(tr),
    "html": lambda tr: trace_to_html(tr, title="bench"),
}
FULL = [1000, 2000, 5000, 10000]
QUICK = [250, 500, 1000]


def sin_chain(n: int) -> str:
    return "λx. " + "sin(" * n + "x" + ")" * n


def trace_with_steps(steps: int):
    """The gradient trace of the sin chain with about ``steps`` steps."""
    n = max(1, math.ceil((steps + 2) / 9))
    r = pc.jacobian_row(sin_chain(n), [0.7], 0)
    return n, r.trace


def fit(xs, ys) -> float:
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    den = sum((a - mx) ** 2 for a in lx)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / den if den else float("nan")


def run(sizes, repeats: int = 1, renderers=tuple(RENDERERS), out=sys.stdout) -> dict:
    rows = []
    print(f"rendering benchmark: python {platform.python_version()}, {platform.machine()}, "
          f"{os.cpu_count()} cpu(s), {time.strftime('%Y-%m-%d %H:%M:%S %Z')}", file=out)
    print(f"{'steps':>7} {'n':>6} {'reduce s':>9}  " + "  ".join(
        f"{r + ' s':>8} {'µs/step':>8} {'B/step':>7}" for r in renderers), file=out)
    for size in sizes:
        t0 = time.perf_counter()
        n, trace = trace_with_steps(size)
        t_reduce = time.perf_counter() - t0
        row = {"target": size, "steps": len(trace), "n": n, "reduce_s": t_reduce}
        cells = []
        for name in renderers:
            best, length = math.inf, 0
            for _ in range(repeats):
                gc.collect()
                t0 = time.perf_counter()
                text = RENDERERS[name](trace)
                best = min(best, time.perf_counter() - t0)
                length = len(text.encode("utf-8"))
                del text
            row[name] = {"seconds": best, "bytes": length}
            cells.append(f"{best:>8.2f} {best / len(trace) * 1e6:>8.0f} "
                         f"{length / len(trace):>7.0f}")
        rows.append(row)
        print(f"{len(trace):>7} {n:>6} {t_reduce:>9.2f}  " + "  ".join(cells), file=out,
              flush=True)
    exps = {}
    if len(rows) >= 2:
        xs = [r["steps"] for r in rows]
        for name in renderers:
            exps[name] = {"time": fit(xs, [r[name]["seconds"] for r in rows]),
                          "bytes": fit(xs, [r[name]["bytes"] for r in rows])}
        print("growth exponents vs steps (1.0 = linear): " + ", ".join(
            f"{k} time {v['time']:.2f} / size {v['bytes']:.2f}" for k, v in exps.items()),
            file=out)
    return {"rows": rows, "exponents": exps}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help=f"sizes {QUICK}")
    ap.add_argument("--steps", help="comma-separated trace sizes (default 1000,2000,5000,10000)")
    ap.add_argument("--repeats", type=int, default=1, help="best of N runs (default 1)")
    ap.add_argument("--only", help="comma-separated renderers: text,json,html")
    ap.add_argument("--json", metavar="FILE", help="also write the numbers as JSON")
    a = ap.parse_args(argv)
    sizes = [int(s) for s in a.steps.split(",")] if a.steps else (QUICK if a.quick else FULL)
    renderers = tuple(a.only.split(",")) if a.only else tuple(RENDERERS)
    result = run(sizes, a.repeats, renderers)
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
