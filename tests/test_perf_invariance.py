"""Performance work must not change a single reduction step (issue 10).

For every bundled example and a few generated benchmark programs, the exact
sequence of rule labels -- premises included, recursively -- the step count
and the final value are compared with ``tests/golden/perf_invariance.json``,
recorded from the engine before any optimisation.  For the examples (small
terms) a hash of the whole rendered trace (every redex and contractum in
full) is compared too.

A change of the *rules* (another issue) changes these on purpose: regenerate
with ``python tests/test_perf_invariance.py --regen`` and review the diff.
"""
from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if __name__ == "__main__":  # regenerating: use this checkout's package
    sys.path.insert(0, str(ROOT))

import pullback_calc as pc  # noqa: E402
from pullback_calc.cli import parse_point  # noqa: E402
from pullback_calc.syntax.terms import Num, church_list  # noqa: E402

GOLDEN = ROOT / "tests" / "golden" / "perf_invariance.json"
EXAMPLES = ROOT / "examples"


# ---- what is recorded -------------------------------------------------------------------

def labels(trace) -> list:
    """Rule labels, a step with premises as [label, [[premise rule, [labels…]], …]]."""
    out = []
    for s in trace:
        if s.premises:
            out.append([s.rule, [[d.rule, labels(d.steps)] for d in s.premises]])
        else:
            out.append(s.rule)
    return out


def text_hash(trace) -> str:
    from pullback_calc.rendering import format_trace
    return hashlib.sha256(format_trace(trace, width=0).encode()).hexdigest()


def record_reduce(src: str, full: bool) -> dict:
    r = pc.reduce(src, record=True)
    d = {"steps": r.steps, "value": pc.pretty(r.value), "labels": labels(r.trace)}
    if full:
        d["text"] = text_hash(r.trace)
    return d


def record_row(row, full: bool) -> dict:
    d = {"steps": row.steps, "row": [repr(v) for v in row.row],
         "covector": pc.pretty(row.covector), "labels": labels(row.trace)}
    if full:
        d["text"] = text_hash(row.trace)
    return d


# ---- the cases ------------------------------------------------------------------------

def _points(text: str) -> list:
    return [parse_point(m) for m in re.findall(r"--at[ =](\S+)", text)]


def example_cases() -> dict:
    cases = {}
    for f in sorted(EXAMPLES.glob("*.pb")):
        cases[f"example:{f.name}"] = ("example", f.name)
    return cases


def _church(xs) -> str:
    return pc.pretty(church_list(Num(float(x)) for x in xs))


def _swell(k: int) -> str:
    lets = "".join(f"let f{i + 1} = sin(f{i}) × cos(f{i}) in " for i in range(k))
    return f"λf0. {lets}f{k}"


def generated_cases() -> dict:
    n = 40
    sop_n = 12
    h = 4
    sop = "λ⟨" + ", ".join(f"x{i}" for i in range(1, sop_n + 1)) + "⟩. " + \
        " + ".join(f"x{i} × x{i + 1}" for i in range(1, sop_n))
    mlp = ("λ⟨" + ", ".join([f"w{i}" for i in range(1, h + 1)] + [f"v{i}" for i in range(1, h + 1)])
           + "⟩. " + "".join(f"let s{i} = tanh(w{i} × 0.5) in " for i in range(1, h + 1))
           + "(" + " + ".join(f"v{i} × s{i}" for i in range(1, h + 1)) + " − 0.3) ^ 2")
    church = ("let sum = λl. l (λx. λacc. x + acc) 0 in Ω(sum) (λz. λw. w) "
              f"({_church(range(1, 9))}) ({_church(range(10, 90, 10))})")
    return {
        "sin-chain": ("row", "λx. " + "sin(" * n + "x" + ")" * n, [0.7], 0),
        "sin-chain-eval": ("reduce", f"(λx. {'sin(' * n}x{')' * n}) 0.7"),
        "sum-of-products": ("row", sop, [0.1 * i - 0.5 for i in range(sop_n)], 0),
        "mlp": ("row", mlp, [0.3, -0.2, 0.5, 0.1, 0.25, -0.25, 0.125, 0.2], 0),
        "mlp-eval": ("reduce", f"({mlp}) ⟨0.3, -0.2, 0.5, 0.1, 0.25, -0.25, 0.125, 0.2⟩"),
        "swell": ("row", _swell(6), [0.7], 0),
        "hessian-row-0": ("hessian", "λ⟨x, y⟩. x × x × y + sin(x × y)", [0.7, 1.3], 0),
        "hessian-row-1": ("hessian", "λ⟨x, y⟩. x × x × y + sin(x × y)", [0.7, 1.3], 1),
        "church-sum": ("reduce", church),
    }


def compute(name: str, spec) -> dict:
    kind = spec[0]
    if kind == "example":
        text = (EXAMPLES / spec[1]).read_text(encoding="utf-8")
        out = {"reduce": record_reduce(text, full=True)}
        f = pc.parse(text)
        for pt in _points(text):
            m = len(pc.jacobian(f, pt))
            out[f"at {list(pt)}"] = [record_row(pc.jacobian_row(f, pt, p), full=True)
                                     for p in range(m)]
        return out
    if kind == "reduce":
        return record_reduce(spec[1], full=False)
    if kind == "row":
        return record_row(pc.jacobian_row(spec[1], spec[2], spec[3]), full=False)
    if kind == "hessian":
        return record_row(pc.hessian_row(spec[1], spec[2], spec[3]), full=False)
    raise AssertionError(kind)


def all_cases() -> dict:
    return {**example_cases(), **generated_cases()}


# ---- the test -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def golden() -> dict:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


def test_golden_covers_every_case(golden):
    assert set(golden) == set(all_cases())


@pytest.mark.parametrize("name", sorted(all_cases()))
def test_steps_unchanged(golden, name):
    got = compute(name, all_cases()[name])
    assert got == golden[name]


if __name__ == "__main__":
    if "--regen" not in sys.argv:
        sys.exit("usage: python tests/test_perf_invariance.py --regen")
    data = {name: compute(name, spec) for name, spec in sorted(all_cases().items())}
    GOLDEN.write_text(json.dumps(data, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN} ({len(data)} cases)")
