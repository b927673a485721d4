"""Issue 30, item 3: a streamed trace (``trace -f jsonl``, ``on_step=JsonlTrace(…)``)
writes each step as it is taken and keeps none: the same document as the JSON
trace, a step a line, in memory that does not grow with the trace (counted in
step records alive, not bytes)."""
import io
import json

import jsonschema
import pytest

import pullback_calc as pc
from pullback_calc.cli import main
from pullback_calc.reduction import machine
from pullback_calc.rendering.json_trace import (TRACE_SCHEMA, JsonlTrace, read_jsonl,
                                                trace_to_dict)
from pullback_calc.testing.extreme import sin_chain

PROGRAMS = ["running_example.pb", "ho_list_foldl.pb", "ho_third_derivative_sin.pb",
            "ho_list_sum_squares_curve.pb"]


def _streamed(run, **options) -> tuple:
    buf = io.StringIO()
    w = JsonlTrace(buf, **options)
    r = run(w)
    w.finish(getattr(r, "value", None) or r.covector, term=getattr(r, "term", None))
    return r, buf.getvalue()


@pytest.mark.parametrize("name", PROGRAMS)
def test_the_stream_is_the_json_trace_a_step_a_line(name):
    src = (pc.examples_dir() / name).read_text()
    kept = pc.reduce(src)
    r, text = _streamed(lambda w: pc.reduce(src, on_step=w))
    assert r.trace == [] and r.steps == kept.steps and pc.pretty(r.value) == pc.pretty(kept.value)
    lines = text.splitlines()
    assert len(lines) == len(kept.trace) + 2   # the head, a line a step, the last line
    doc = read_jsonl(lines)
    jsonschema.validate(doc, TRACE_SCHEMA)
    assert doc == trace_to_dict(kept.trace, value=kept.value)


def test_a_jacobian_row_streamed_with_choices():
    f = "λ⟨x, y⟩. ((x + 1) × (2 × x + y ^ 2)) ^ 2"
    kept = pc.jacobian_row(f, [1.5, 2], 0)
    opts = dict(spelling="ascii", max_term=30, rules="5,15", every=2, premises=False)
    r, text = _streamed(lambda w: pc.jacobian_row(f, [1.5, 2], 0, on_step=w), **opts)
    assert r.row == kept.row and r.trace == []
    assert text.isascii()
    doc = read_jsonl(text.splitlines())
    assert doc == trace_to_dict(kept.trace, term=kept.term, value=kept.covector, **opts)
    assert doc["trace"] and {s["rule"] for s in doc["trace"]} <= {"5", "15"}


def test_cli_jsonl_file_is_the_json_trace(tmp_path, capsys):
    out = tmp_path / "t.jsonl"   # the suffix names the format
    args = ["trace", str(pc.examples_dir() / "running_example.pb"), "--at", "1.5,2"]
    assert main(args + ["-o", str(out), "--rule", "5"]) == 0
    assert main(args + ["-f", "json", "--rule", "5"]) == 0
    want = json.loads(capsys.readouterr().out)
    assert read_jsonl(out.read_text().splitlines()) == want
    assert main(args + ["-f", "jsonl"]) == 0   # standard output
    assert read_jsonl(capsys.readouterr().out.splitlines())["steps"] == 57


def test_cli_jsonl_errors(tmp_path, capsys):
    out = tmp_path / "t.jsonl"
    out.write_text("before\n")
    long = ["trace", "-e", sin_chain(50), "--at", "0.5", "-o", str(out)]
    assert main(long + ["--max-steps", "100"]) != 0
    assert "step budget" in capsys.readouterr().err
    assert out.read_text() == "before\n"   # written whole or not at all
    assert main(long + ["--show-steps", "10"]) == 2
    assert "--show-steps is not for --format jsonl" in capsys.readouterr().err
    assert main(long + ["--terms", "table"]) == 2
    assert list(tmp_path.iterdir()) == [out]   # no temporary file left


def test_read_jsonl_names_what_is_wrong():
    w = io.StringIO()
    t = JsonlTrace(w)
    pc.reduce("(λx. x × x) (1 + 2)", on_step=t)
    lines = w.getvalue().splitlines()   # (not finished: no last line)
    with pytest.raises(ValueError, match="did not finish"):
        read_jsonl(lines)
    with pytest.raises(ValueError, match="line 2: not JSON"):
        read_jsonl([lines[0], lines[1][:-3]])
    with pytest.raises(ValueError, match="line 1: not the head"):
        read_jsonl(lines[1:])


class _Live:
    """Step records alive (machine.Step, counted as they are made and freed)."""
    alive = peak = 0


class _CountedStep(machine.Step):
    __slots__ = ()

    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        _Live.alive += 1
        _Live.peak = max(_Live.peak, _Live.alive)

    def __del__(self):
        _Live.alive -= 1


def _peak_steps_alive(monkeypatch, n: int, stream: bool) -> tuple:
    monkeypatch.setattr(machine, "Step", _CountedStep)
    _Live.alive = _Live.peak = 0
    sink = io.StringIO()
    w = JsonlTrace(sink) if stream else None
    r = pc.jacobian_row(sin_chain(n), [0.5], 0, on_step=w)
    peak, steps = _Live.peak, r.steps
    del r
    return peak, steps


def test_a_streamed_trace_keeps_no_steps(monkeypatch):
    """Streamed, the steps alive at once do not grow with the trace (one, and
    the premises inside it); kept, every step is (the count counts)."""
    small, steps_small = _peak_steps_alive(monkeypatch, 100, stream=True)
    big, steps_big = _peak_steps_alive(monkeypatch, 200, stream=True)
    assert steps_big > 1.9 * steps_small > 1000
    assert big == small <= 4, (small, big)
    kept, _ = _peak_steps_alive(monkeypatch, 100, stream=False)
    assert kept >= steps_small
