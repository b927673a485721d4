"""JSON traces: validated against TRACE_SCHEMA (jsonschema), paths checked against the
terms they point into, delta paths rebuilt, abbreviation, filters, the CLI."""
import json

import pytest

import pullback_calc as pc
from pullback_calc.cli import main
from pullback_calc.rendering.json_trace import (FRAME_KINDS, TRACE_SCHEMA, expand_paths,
                                                trace_to_dict, trace_to_json)
from pullback_calc.syntax.terms import Dual, Jac

jsonschema = pytest.importorskip("jsonschema")

F = "λ⟨x, y⟩. ((x + 1) × (2 × x + y ^ 2)) ^ 2"
PREMISE = "(J(λx. λy. x × y)·1) 2"
CHURCH = ("Ω(λl. l (λx. λacc. x + acc) 0) (λz. λw. w) (λc. λn. c 1 (c 2 (c 3 n))) "
          "(λc. λn. c 10 (c 20 (c 30 n)))")


def validate(doc):
    jsonschema.Draft202012Validator.check_schema(TRACE_SCHEMA)
    jsonschema.Draft202012Validator(TRACE_SCHEMA).validate(doc)


def child(t, kind, index):
    """Follow one frame of a path (the JSON's documented meaning of each kind)."""
    if kind == "prim":
        return t.args[index]
    if kind in ("tuple", "sum"):
        return t.items[index]
    if kind in ("app-fun", "pb-fun"):
        return t.fun
    if kind in ("app-arg", "let-bound", "proj"):
        return t.arg
    if kind == "jac-along":
        return t.along
    if kind == "dual-fun":
        return t.functional
    if kind == "pb-form":
        return t.form
    if kind == "dual-body":
        return t.lam.body
    if kind in ("let-body", "let-inert"):
        return t.fun.body
    assert kind == "a-root"
    return (t.lam if isinstance(t, (Jac, Dual)) else t.fun).body


@pytest.mark.parametrize("source", [F, PREMISE, CHURCH])
def test_valid_against_the_schema_in_every_mode(source):
    r = pc.jacobian_row(source, [1.5, 2], 0) if source == F else pc.reduce(source)
    for options in ({}, {"paths": "full"}, {"paths": "none", "spelling": "both"},
                    {"spelling": "ascii", "max_term": 20}, {"phases": {"forward"}, "every": 2}):
        doc = json.loads(trace_to_json(r.trace, term=pc.parse(source) if source != F else r.term,
                                       value=getattr(r, "value", None), **options))
        validate(doc)
        assert doc["steps"] == r.steps


def test_paths_point_at_the_redex():
    r = pc.jacobian_row(F, [1.5, 2], 0)
    doc = trace_to_dict(r.trace, paths="full", max_term=None)
    for step, d in zip(r.trace, doc["trace"]):
        t = step.term_before()
        for kind, index in d["path"]:
            assert kind in FRAME_KINDS
            t = child(t, kind, index)
        assert t == step.redex, step.index
        assert d["depth"] == len(d["path"])
        assert d["redex"] == pc.pretty(step.redex)


@pytest.mark.parametrize("source", [F, CHURCH])
def test_delta_paths_rebuild_the_full_paths(source):
    r = pc.jacobian_row(source, [1.5, 2], 0) if source == F else pc.reduce(source)
    full = trace_to_dict(r.trace, paths="full")
    delta = json.loads(trace_to_json(r.trace))
    assert delta["paths"] == "delta"
    assert expand_paths(delta) == full
    # consecutive steps share their context: the deltas are short
    assert sum(len(s["path_add"]) for s in trace_to_dict(r.trace)["trace"]) < \
        sum(len(s["path"]) for s in full["trace"])


def test_premises_nest_and_both_spellings():
    r = pc.reduce(PREMISE)
    doc = trace_to_dict(r.trace, spelling="both")
    (step,) = doc["trace"]
    assert step["rule"] == "18" and step["phase"] == "forward"
    (prem,) = step["premises"]
    assert prem["rule"] == "18" and prem["result"] == "omega_1 (2 × y) (y × 1)"
    assert prem["result_ascii"] == "omega_1 (2 * y) (y * 1)"
    assert prem["start_ascii"] == "pullback(\\x. x * y) omega_1 2 1"
    assert [s["rule"] for s in prem["steps"]] == ["pb", "15", "dual-app"]
    assert trace_to_dict(r.trace, premises=False)["trace"][0]["premises"] == []


def test_abbreviation_is_flagged():
    r = pc.jacobian_row(F, [1.5, 2], 0)
    doc = trace_to_dict(r.trace, max_term=30)
    assert all(len(s["redex"]) <= 30 and len(s["contractum"]) <= 30 for s in doc["trace"])
    flagged = [s for s in doc["trace"] if s.get("abbreviated")]
    assert flagged and all("…" in s["redex"] + s["contractum"] for s in flagged)
    assert not any(s.get("abbreviated") for s in trace_to_dict(r.trace, max_term=None)["trace"])


def test_bad_options():
    r = pc.reduce("1 + 2")
    with pytest.raises(ValueError):
        trace_to_dict(r.trace, spelling="latin")
    with pytest.raises(ValueError):
        trace_to_dict(r.trace, paths="some")


def test_cli_json(capsys):
    assert main(["trace", "-e", CHURCH, "--format", "json", "--ascii", "--paths", "full"]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    validate(doc)
    assert out.isascii() and doc["spelling"] == "ascii" and doc["value"] == "60"
    assert main(["trace", "-e", F, "--at", "1.5,2", "-f", "json", "--rule", "5"]) == 0
    doc = json.loads(capsys.readouterr()[0])
    validate(doc)
    assert {s["rule"] for s in doc["trace"]} == {"5"}
    assert doc["value"] == "λ⟨dx, dy⟩. 350 × dy ⊕ 420 × dx"
