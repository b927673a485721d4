#!/usr/bin/env python
"""Rendering benchmark: text, JSON, HTML and LaTeX traces take time linear in the number of steps.

    python benchmarks/bench_rendering.py                 # 1k, 2k, 5k, 10k steps (≈ 3–5 min here)
    python benchmarks/bench_rendering.py --quick         # 250, 500, 1k steps
    python benchmarks/bench_rendering.py --steps 1000,4000 --json out.json
    python benchmarks/bench_rendering.py --ratio          # 13,498 steps: rendering / reduction

The traces are gradients of the sin chain λx. sin(sin(…sin(x)…)) of depth n
by ``jacobian_row`` (about 9n steps; n is chosen to give the wanted number of
steps).  Each renderer runs with its defaults -- ``format_trace`` (lines of
100 columns), ``trace_to_json`` (terms abbreviated to 400 characters, delta
paths), ``trace_to_html`` (the page prints the terms itself, from a table of
the printer's pieces that the steps share: rendering/table.py) -- and is
timed (best of ``--repeats``, after ``gc.collect()``).  The redexes of this
family are as large as the program (whole let series, environments n deep),
so printing them in full would make the output, and the time, quadratic;
bounded printing (text, JSON) and the shared table (HTML) keep each step O(1).

Per renderer the script prints µs per step and output bytes per step, and a
least-squares fit of log(time) against log(steps): an exponent ≈ 1.0 is
linear.  No assertion on times: ``tests/test_rendering_bench.py`` only runs
the smallest sizes to check the script works.

``--ratio`` measures the goal of issue 13 (item 4): rendering the 13,498-step
trace (a 1,500-deep chain) takes at most ``GOAL_RATIO`` times the reduction
that recorded it.  CPU time (``time.process_time``), in one process, the
reduction and the renderings interleaved over ``--rounds`` rounds, each as the
command line runs it (the finished trace frozen out of the garbage collector's
reach, the memo of bounded printing empty); it prints each round's ratios and
PASS/FAIL on their median.
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
from pullback_calc.rendering.latex import trace_to_latex
from pullback_calc.rendering.text import format_trace

RENDERERS = {
    "text": lambda tr: format_trace(tr),
    "json": lambda tr: trace_to_json(tr),
    "json-table": lambda tr: trace_to_json(tr, terms="table"),
    "html": lambda tr: trace_to_html(tr, title="bench"),
    # every step (the command line shows 2,000 by default), terms as the CLI abbreviates them
    "latex": lambda tr: trace_to_latex(tr, max_term=200),
}
RATIO_RENDERERS = ("text", "json", "json-table", "html")  # issue 13's goal: not LaTeX's
FULL = [1000, 2000, 5000, 10000]
RATIO_DEPTH = 1500    # 13,498 steps
GOAL_RATIO = 2.0
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


def ratios(depth: int = RATIO_DEPTH, rounds: int = 3, renderers=RATIO_RENDERERS,
           out=sys.stdout) -> dict:
    """Each renderer's CPU time over the reduction's, ``rounds`` times, interleaved.

    Every rendering gets a reduction of its own, just before it, as on the command
    line: the first reading of a step builds its eager terms (the machine records
    them with substitutions delayed), and that is part of the rendering's time."""
    from pullback_calc.rendering import text as T
    cpu = time.process_time
    per: dict = {name: [] for name in renderers}
    print(f"rendering / reduction, CPU time: the gradient of a {depth}-deep sin chain "
          f"(python {platform.python_version()}, {os.cpu_count()} cpu(s), load "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())})", file=out)
    steps = main = 0
    for k in range(rounds):
        cells = []
        for name in renderers[k % len(renderers):] + renderers[:k % len(renderers)]:
            gc.collect()
            t0 = cpu()
            trace = pc.jacobian_row(sin_chain(depth), [0.7], 0).trace
            t_reduce = cpu() - t0
            steps, main = T.count_steps(trace), len(trace)
            gc.freeze()  # as the command line does (cli.show.settle)
            T._MEMO.clear()
            t0 = cpu()
            text = RENDERERS[name](trace)
            t = cpu() - t0
            del text, trace
            gc.unfreeze()
            per[name].append((t, t_reduce))
            cells.append(f"{name} {t:.2f} s / {t_reduce:.2f} s = {t / t_reduce:.2f}×")
        print(f"  round {k + 1}: " + ", ".join(cells), file=out, flush=True)
    result = {"depth": depth, "steps": main, "with_premises": steps, "goal": GOAL_RATIO}
    print(f"{main:,} steps ({steps:,} with the premises'); the median of the rounds:", file=out)
    for name in renderers:
        rs = sorted(t / r for t, r in per[name])
        med = rs[len(rs) // 2]
        result[name] = {"seconds": [t for t, _ in per[name]],
                        "reduce_s": [r for _, r in per[name]], "ratio_median": med}
        print(f"{name:>5}: {med:.2f}× the reduction (rounds {rs[0]:.2f}–{rs[-1]:.2f}×), "
              f"goal ≤ {GOAL_RATIO:g}×: {'PASS' if med <= GOAL_RATIO else 'FAIL'}", file=out)
    return result


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help=f"sizes {QUICK}")
    ap.add_argument("--steps", help="comma-separated trace sizes (default 1000,2000,5000,10000)")
    ap.add_argument("--repeats", type=int, default=1, help="best of N runs (default 1)")
    ap.add_argument("--only", help="comma-separated renderers: " + ",".join(RENDERERS))
    ap.add_argument("--json", metavar="FILE", help="also write the numbers as JSON")
    ap.add_argument("--ratio", action="store_true",
                    help=f"rendering / reduction CPU time at {RATIO_DEPTH * 9 - 2:,} steps, "
                         f"against the goal of {GOAL_RATIO:g}×")
    ap.add_argument("--rounds", type=int, default=3, help="--ratio: rounds (default 3)")
    ap.add_argument("--depth", type=int, default=RATIO_DEPTH,
                    help=f"--ratio: the chain's depth (default {RATIO_DEPTH})")
    a = ap.parse_args(argv)
    sizes = [int(s) for s in a.steps.split(",")] if a.steps else (QUICK if a.quick else FULL)
    renderers = (tuple(a.only.split(",")) if a.only else
                 RATIO_RENDERERS if a.ratio else tuple(RENDERERS))
    if a.ratio:
        result = ratios(a.depth, a.rounds, renderers)
    else:
        result = run(sizes, a.repeats, renderers)
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
