"""Renderers that scale (issues 13 and 14): big traces are streamed (text, JSON) or
capped with a note of what was cut (HTML, LaTeX, ``--show-steps``), in size linear
in the trace, without recursion on the terms' depth, and with a bounded memo.

No timed assertions: sizes and counts stand for the time (benchmarks/bench_rendering.py
measures it).
"""
import json
import sys

import jsonschema
import pytest

import pullback_calc as pc
from pullback_calc import deep as deep_mod
from pullback_calc.cli import main
from pullback_calc.rendering import text as T
from pullback_calc.rendering.html import trace_data, trace_to_html
from pullback_calc.rendering.json_trace import TRACE_SCHEMA, iter_trace_json, trace_to_json
from pullback_calc.rendering.latex import trace_to_latex
from pullback_calc.rendering.text import (bounded, cap_steps, count_steps, iter_trace_lines,
                                          trace_lines)
from pullback_calc.syntax.printer import folding_env, pretty
from pullback_calc.testing.extreme import sin_chain


def _trace(n: int):
    return pc.jacobian_row(sin_chain(n), [0.5], 0).trace   # 9n - 2 steps


@pytest.fixture(scope="module")
def chain():
    return _trace(120)


def test_cap_steps_keeps_the_first_and_last():
    steps = list(range(10))
    assert cap_steps(steps, None) == (steps, None, 0)
    assert cap_steps(steps, 10) == (steps, None, 0)
    assert cap_steps(steps, 4) == ([0, 1, 8, 9], 2, 6)
    assert cap_steps(steps, 3) == ([0, 1, 9], 2, 7)
    assert cap_steps(steps, 1) == ([0], 1, 9)


def test_text_caps_with_a_note_and_streams(chain):
    lines = trace_lines(chain, show_steps=10)
    cut = [ln for ln in lines if "steps not shown" in ln]
    assert len(cut) == 1 and f"{len(chain) - 10:,} steps not shown" in cut[0]
    assert f"(steps 5 to {len(chain) - 6:,})" in cut[0]
    assert lines[0].startswith("    0 [") and any(ln.startswith(f"{len(chain) - 1:>5} [")
                                                   for ln in lines)
    it = iter_trace_lines(chain)
    assert next(it) == trace_lines(chain[:1])[0]   # a generator: line by line


def test_json_streams_the_same_text_and_caps_by_schema(chain):
    whole = trace_to_json(chain)
    assert "".join(iter_trace_json(chain)) == whole
    assert json.loads(whole)["trace"][-1]["index"] == len(chain) - 1
    doc = json.loads(trace_to_json(chain, show_steps=6))
    jsonschema.validate(doc, TRACE_SCHEMA)
    assert [s["index"] for s in doc["trace"]] == [0, 1, 2] + [len(chain) - 3 + k for k in range(3)]
    assert doc["omitted"] == {"after": 2, "count": len(chain) - 6, "first": 3,
                              "last": len(chain) - 4}
    assert doc["steps"] == count_steps(chain)   # the whole reduction, still


def test_html_caps_with_a_note(chain):
    data = trace_data(chain, show_steps=8)
    assert data["top"] == 8 and data["main"] == len(chain) and data["gap"] == 4
    assert f"{len(chain) - 8:,} steps not shown" in data["note"]
    page = trace_to_html(chain, show_steps=8)
    assert "steps not shown" in page and '"gap":4' in page
    assert "note" not in trace_data(chain)


def test_latex_caps_with_a_note(chain):
    tex = trace_to_latex(chain, show_steps=8)
    assert tex.count("steps not shown") == 1 and "-{}-show-steps 0" in tex
    assert tex.isascii()


@pytest.mark.parametrize("fmt, default", [("html", 20_000), ("latex", 2_000)])
def test_cli_defaults_cap_html_and_latex(fmt, default):
    from pullback_calc.cli.trace import SHOW_STEPS
    assert SHOW_STEPS[fmt] == default and SHOW_STEPS["text"] is None


def test_cli_show_steps(capsys, tmp_path):
    f = tmp_path / "sin.pb"
    f.write_text(sin_chain(40), encoding="utf-8")
    for fmt, probe in (("text", "steps not shown"), ("json", '"omitted"'),
                       ("html", "steps not shown"), ("latex", "steps not shown")):
        assert main(["trace", str(f), "--at", "0.5", "-f", fmt, "--show-steps", "6"]) == 0
        out, err = capsys.readouterr()
        assert probe in out and err == "", fmt
        assert main(["trace", str(f), "--at", "0.5", "-f", fmt, "--show-steps", "0"]) == 0
        out, _ = capsys.readouterr()
        assert probe not in out, fmt
    assert main(["trace", str(f), "--at", "0.5", "--show-steps", "-1"]) == 2
    assert "--show-steps: expected a whole number" in capsys.readouterr().err


def test_output_grows_linearly_with_the_trace():
    """Bytes per step stay flat from 450 to 1,800 steps (terms are printed bounded)."""
    small, big = _trace(50), _trace(200)
    for render in (lambda tr: "\n".join(trace_lines(tr)), trace_to_json,
                   lambda tr: trace_to_html(tr), lambda tr: trace_to_latex(tr, max_term=200)):
        a, b = len(render(small)) / len(small), len(render(big)) / len(big)
        assert b < 1.3 * a, (a, b)


def _cut_whole(t, limit: int):
    """What ``bounded`` means: the whole term printed, then its beginning and end kept,
    each cut at a token boundary (with two characters of context for the cut)."""
    p = pretty(t)
    if len(p) <= limit:
        return p, True
    keep = limit - 1
    return (T._cut_head(p[:limit + 2], keep - keep // 2) + "…"
            + T._cut_tail(p[-(keep // 2 + 2):], keep // 2)), False


def test_the_memo_changes_nothing_and_stays_bounded(chain):
    """Bounded printing with the memo gives what printing whole terms and cutting does,
    and what it keeps is about `limit` characters a node, for a bounded number of nodes."""
    T._MEMO.clear()
    for fold in (False, True):
        with folding_env(fold):
            for s in chain[::7]:
                for t in (s.redex, s.contractum):
                    for limit in (12, 40, 400):
                        assert bounded(t, True, limit) == _cut_whole(t, limit)
    sizes = [len(v[0]) for gen in (T._MEMO.young, T._MEMO.old) for _, kept in gen.values()
             for v in kept.values() if isinstance(v, tuple) and isinstance(v[0], str)]
    assert max(sizes) <= 400 + 64
    assert len(T._MEMO.young) <= T._MEMO.cap and len(T._MEMO.old) <= T._MEMO.cap


def test_renderers_do_not_recurse_on_depth(monkeypatch):
    """A 2,000-deep chain renders under a recursion limit of 600 (no big-stack thread)."""
    trace = _trace(2000)
    T._MEMO.clear()
    old = sys.getrecursionlimit()
    monkeypatch.setattr(deep_mod, "RECURSION_LIMIT", 600)
    sys.setrecursionlimit(600)
    try:
        trace_lines(trace, width=None if False else 100)
        trace_to_json(trace)
        trace_to_html(trace)
        from pullback_calc.rendering.json_trace import term_text, trace_to_dict
        doc = trace_to_dict(trace, terms="table")
        assert len(term_text(doc, doc["trace"][0]["redex"])) > 2000 * 4  # whole, iteratively
        trace_to_latex(trace, show_steps=400)
        from pullback_calc.rendering.graph import strategy_graph
        strategy_graph(trace, max_steps=100)
    finally:
        sys.setrecursionlimit(old)
