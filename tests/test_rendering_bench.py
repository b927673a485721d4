"""Smoke test of benchmarks/bench_rendering.py at tiny sizes (no timing assertions)."""
import importlib.util
import io
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_rendering.py"


def test_bench_rendering_runs():
    spec = importlib.util.spec_from_file_location("pullback_calc_bench_rendering", BENCH)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    try:
        spec.loader.exec_module(mod)
        out = io.StringIO()
        result = mod.run([50, 100], out=out)
    finally:
        sys.modules.pop(spec.name, None)
    rows = result["rows"]
    assert [r["steps"] for r in rows] == [52, 106]  # 9n - 2 steps for depth n
    assert all(r[k]["bytes"] > 0 for r in rows
               for k in ("text", "json", "json-table", "html", "latex"))
    assert set(result["exponents"]) == {"text", "json", "json-table", "html", "latex"}
    assert "growth exponents" in out.getvalue()
