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


@pytest.mark.parametrize("source", [F, PREMISE, CHURCH, "(λx. x - (x - 1) × (2 - x) - (x - 3)) 5"])
def test_a_table_of_terms_holds_every_term_whole(source):
    """terms="table": every term is an index into "nodes" that prints back to the
    term, whole; the document validates, and streaming gives the same text."""
    from collections import deque

    from pullback_calc.rendering.json_trace import iter_trace_json, term_text
    r = pc.jacobian_row(source, [1.5, 2], 0) if source == F else pc.reduce(source)
    value = r.covector if source == F else r.value
    for spelling in ("unicode", "ascii"):
        u = spelling == "unicode"
        doc = trace_to_dict(r.trace, term=r.term if source == F else pc.parse(source),
                            value=value, spelling=spelling, terms="table")
        validate(doc)
        assert doc["terms"] == "table" and doc["max_term"] is None
        assert term_text(doc, doc["value"]) == pc.pretty(value, u)
        assert term_text(doc, doc["term"]) == pc.pretty(r.term if source == F else
                                                         pc.parse(source), u)
        todo = deque([(doc["trace"], r.trace)])
        n = 0
        while todo:
            rows, steps = todo.popleft()
            assert len(rows) == len(steps)
            for row, s in zip(rows, steps):
                n += 1
                assert term_text(doc, row["redex"]) == pc.pretty(s.redex, u)
                assert term_text(doc, row["contractum"]) == pc.pretty(s.contractum, u)
                for pd, d in zip(row["premises"], s.premises):
                    assert term_text(doc, pd["start"]) == pc.pretty(d.start, u)
                    assert term_text(doc, pd["result"]) == pc.pretty(d.result, u)
                    todo.append((pd["steps"], d.steps))
        assert n == doc["steps"] == r.steps
        text = trace_to_json(r.trace, value=value, spelling=spelling, terms="table")
        assert text == "".join(iter_trace_json(r.trace, value=value, spelling=spelling,
                                               terms="table"))
        assert json.loads(text)["nodes"]
    with pytest.raises(ValueError):
        trace_to_dict(r.trace, spelling="both", terms="table")
    with pytest.raises(ValueError):
        trace_to_dict(r.trace, terms="tree")


def test_a_table_of_terms_grows_with_the_steps():
    sizes = []
    for n in (25, 100):
        r = pc.jacobian_row("λx. " + "sin(" * n + "x" + ")" * n, [0.7], 0)
        doc = trace_to_dict(r.trace, terms="table")
        sizes.append((doc["steps"], len(doc["nodes"]), len(json.dumps(doc))))
    (s1, n1, b1), (s2, n2, b2) = sizes
    assert s2 > 3.5 * s1
    assert n2 < 1.2 * n1 * s2 / s1 and b2 < 1.2 * b1 * s2 / s1  # not steps × term size


def test_cli_json_table(capsys, tmp_path):
    from pullback_calc.rendering.json_trace import term_text
    assert main(["trace", "-e", F, "--at", "1.5,2", "-f", "json", "--terms", "table"]) == 0
    doc = json.loads(capsys.readouterr()[0])
    validate(doc)
    assert term_text(doc, doc["value"]) == "λ⟨dx, dy⟩. 350 × dy ⊕ 420 × dx"
    assert term_text(doc, doc["trace"][0]["redex"]) == "((x + 1) × (2 × x + y ^ 2)) ^ 2"
    assert main(["trace", "-e", F, "--at", "1.5,2", "-f", "json", "--terms", "table",
                 "--ascii"]) == 0
    out = capsys.readouterr()[0]
    assert out.isascii() and term_text(json.loads(out), json.loads(out)["value"]) == \
        r"\<dx, dy>. 350 * dy ++ 420 * dx"
    assert main(["trace", "-e", F, "--at", "1.5,2", "-f", "text", "--terms", "table"]) == 2
    err = capsys.readouterr()[1]
    assert "--terms table is for --format json" in err and "Traceback" not in err


@pytest.mark.parametrize("argv, add", [
    (["reduce", "-e", "1 + 2", "--terms", "table"], "add --json"),
    (["reduce", "-e", "1 + 2", "--max-term", "40"], "add --json"),
    (["jacobian", "-e", F, "--at", "1.5,2", "--terms", "table"], "add --json --trace"),
    (["jacobian", "-e", F, "--at", "1.5,2", "--json", "--terms", "table"], "add --trace"),
    (["grad", "-e", F, "--at", "1.5,2", "--trace", "--terms", "table"], "add --json"),
    (["jvp", "-e", F, "--at", "1.5,2", "--tangent", "1,0", "--terms", "table"],
     "add --json --trace"),
])
def test_json_trace_options_without_a_json_trace_are_usage_errors(argv, add, capsys):
    # (they used to be silently ignored: the user got printed terms, or no trace)
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert not out and add in err and "Traceback" not in err
    assert ("--terms table" in err) == ("table" in argv) and ("--max-term" in err) == \
        ("--max-term" in argv)


def test_every_command_writes_a_table_of_terms(capsys):
    """--terms table wherever a command writes a JSON trace: reduce --json (also the
    state and the next redex of --depth), jacobian/grad/jvp --json --trace."""
    from pullback_calc.rendering.json_trace import term_text
    assert main(["reduce", "-e", "(λx. x × x) (1 + 2)", "--json", "--terms", "table",
                 "--depth", "1"]) == 0
    doc = json.loads(capsys.readouterr()[0])
    validate(doc)
    assert term_text(doc, doc["state"]) == "let x = 3 in x × x"
    assert term_text(doc, doc["next"]["redex"]) == "let x = 3 in x × x"
    assert doc["next"]["rule"] == "1" and doc["next"]["path"] == []
    assert main(["reduce", "-e", "(λx. x × x) (1 + 2)", "--json", "--terms", "table"]) == 0
    doc = json.loads(capsys.readouterr()[0])
    validate(doc)
    assert term_text(doc, doc["value"]) == "9" and "state" not in doc
    for argv, key in ((["jacobian", "-e", F, "--at", "1.5,2", "--trace"], "traces"),
                      (["grad", "-e", F, "--at", "1.5,2", "--trace"], "trace"),
                      (["jvp", "-e", F, "--at", "1.5,2", "--tangent", "1,0", "--trace"],
                       "trace")):
        assert main(argv + ["--json", "--terms", "table"]) == 0, argv
        got = json.loads(capsys.readouterr()[0])[key]
        for t in (got if isinstance(got, list) else [got]):
            validate(t)
            assert t["terms"] == "table" and t["trace"]
            assert term_text(t, t["trace"][0]["redex"])  # prints
