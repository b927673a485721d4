#!/usr/bin/env python
"""The engines table: every AD engine on bench.py's program families.

    python benchmarks/engines.py [--quick] [--json out.json] [--markdown]

For each family of ``bench.py`` (sin chain, sum of products, tanh MLP) and
size n, each engine of ``pullback_calc.engines`` (pullback, ps, forward,
tape) computes the gradient; its rows are checked against bench.py's
plain-Python gradient (a mismatch makes the script exit with status 1) and
its cost counters are printed: real operations (primal and derivative),
allocations (dual maps, closures, tape cells) and steps.  Per family and
engine a least-squares fit of log(operations) and log(allocations) against
log(program nodes) gives the growth exponent (1.0: linear).  Forward mode
runs one pass per input, so on families whose number of inputs grows with n
its totals grow like n × program size (exponent ≈ 2); per pass it is linear.

The module is importable (``tests/test_engines.py`` does not need it, but
``tests/test_bench_smoke.py``-style use works): see ``measure``.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench  # noqa: E402  (the families)

import pullback_calc as pc  # noqa: E402
from pullback_calc import engines  # noqa: E402
from pullback_calc.syntax.terms import size  # noqa: E402

SIZES = {"sin": [10, 30, 100, 300], "sop": [5, 10, 30, 100], "mlp": [2, 5, 10, 30]}
QUICK = {k: v[:3] for k, v in SIZES.items()}


@dataclass(frozen=True)
class Row:
    family: str
    n: int
    nodes: int
    inputs: int
    engine: str
    primal_ops: int
    derivative_ops: int
    allocations: int
    allocation_kind: str
    steps: int | None
    ms: float
    ok: bool


def measure(family: str, n: int, engine: str) -> Row:
    fam = bench.FAMILIES[family]
    f = pc.parse(fam.source(n))
    pt = fam.point(n)
    t0 = time.perf_counter()
    r = engines.jacobian(f, pt, engine)
    ms = (time.perf_counter() - t0) * 1e3
    ref = fam.grad(n, pt)
    got = r.rows[0]
    scale = max(1.0, max(abs(v) for v in ref))
    ok = len(got) == len(ref) and max(abs(a - b) for a, b in zip(got, ref)) / scale \
        <= fam.grad_tol
    c = r.costs
    return Row(family, n, size(f), len(pt), engine, c.primal_ops, c.derivative_ops,
               c.allocations, c.allocation_kind, c.steps, ms, ok)


def fits(rows: list[Row]) -> list[dict]:
    out = []
    for family in dict.fromkeys(r.family for r in rows):
        for engine in engines.METHODS:
            rs = [r for r in rows if r.family == family and r.engine == engine]
            xs = [r.nodes for r in rs]
            out.append({"family": family, "engine": engine,
                        "ops": bench.growth_exponent(xs, [r.primal_ops + r.derivative_ops
                                                          for r in rs]),
                        "ops_per_input": bench.growth_exponent(
                            xs, [(r.primal_ops + r.derivative_ops) / r.inputs for r in rs]),
                        "allocations": bench.growth_exponent(xs, [r.allocations for r in rs]),
                        "steps": bench.growth_exponent(xs, [r.steps for r in rs])
                        if rs and rs[0].steps is not None else None})
    return out


def _e(v) -> str:
    return "—" if v is None or v != v else f"{v:.2f}"


def markdown(rows: list[Row], fit: list[dict]) -> str:
    lines = ["| family | n | nodes | engine | primal ops | derivative ops | allocations | "
             "steps | ms |", "|---|---:|---:|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r.family} | {r.n} | {r.nodes} | {r.engine} | {r.primal_ops} | "
                     f"{r.derivative_ops} | {r.allocations} {r.allocation_kind} | "
                     f"{'' if r.steps is None else r.steps} | {r.ms:.1f} |")
    lines += ["", "Growth exponents against program nodes (1.0 = linear):", "",
              "| family | engine | operations | operations per input | allocations | steps |",
              "|---|---|---:|---:|---:|---:|"]
    for f in fit:
        lines.append(f"| {f['family']} | {f['engine']} | {_e(f['ops'])} | "
                     f"{_e(f['ops_per_input'])} | {_e(f['allocations'])} | {_e(f['steps'])} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="the three smallest sizes only")
    ap.add_argument("--json", metavar="FILE", help="write the rows and fits as JSON")
    ap.add_argument("--markdown", action="store_true", help="print Markdown tables")
    args = ap.parse_args(argv)
    sizes = QUICK if args.quick else SIZES
    rows = []
    for family, ns in sizes.items():
        for n in ns:
            for engine in engines.METHODS:
                r = measure(family, n, engine)
                rows.append(r)
                if not args.markdown:
                    print(f"{family:4} n={n:<4} nodes={r.nodes:<5} {engine:9} "
                          f"primal={r.primal_ops:<6} deriv={r.derivative_ops:<7} "
                          f"alloc={r.allocations:<6} {r.allocation_kind:11} "
                          f"steps={'' if r.steps is None else r.steps:<7} {r.ms:8.1f} ms"
                          f"{'' if r.ok else '  WRONG'}", flush=True)
    fit = fits(rows)
    if args.markdown:
        print(markdown(rows, fit))
    else:
        print()
        for f in fit:
            print(f"{f['family']:4} {f['engine']:9} growth: ops {_e(f['ops'])}, per input "
                  f"{_e(f['ops_per_input'])}, allocations {_e(f['allocations'])}, "
                  f"steps {_e(f['steps'])}")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": [asdict(r) for r in rows],
                                               "fits": fit}, indent=1))
    return 0 if all(r.ok for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
