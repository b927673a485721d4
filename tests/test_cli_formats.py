"""The CLI produces every trace format and a reduction graph for every example."""
import re
from pathlib import Path

import pytest

from pullback_calc.cli import main
from pullback_calc.rendering.graph import dot_available

EXAMPLES = sorted(Path(__file__).parent.parent.joinpath("examples").glob("*.pb"))


def _at(path):
    m = re.search(r"--at[ =](\S+)", path.read_text())
    return [f"--at={m.group(1)}"] if m else []


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_format_for_every_example(path, tmp_path, capsys):
    for fmt in ("text", "latex", "json", "html"):
        out = tmp_path / f"t.{fmt}"
        assert main(["trace", str(path), *_at(path), "--format", fmt, "-o", str(out)]) == 0
        assert out.stat().st_size > 0
    out = tmp_path / "g.dot"
    assert main(["graph", str(path), *_at(path), "--format", "dot", "-o", str(out)]) == 0
    assert out.read_text().startswith("digraph")


@pytest.mark.skipif(not dot_available(), reason="graphviz's dot is not installed")
@pytest.mark.parametrize("name", ["elementary", "ho_list_map"])
def test_large_graphs_render_to_svg(name, tmp_path):
    # long tooltips (> graphviz's 16 KiB strings) and premise clusters dot cannot rank
    path = Path(__file__).parent.parent / "examples" / f"{name}.pb"
    out = tmp_path / "g.svg"
    assert main(["graph", str(path), *_at(path), "--format", "svg", "-o", str(out)]) == 0
    assert "<svg" in out.read_text()


def test_every_command_writes_traces_in_the_one_schema(capsys, tmp_path):
    """reduce --json, jacobian --json --trace and trace -f json: one JSON schema."""
    import json

    import jsonschema

    from pullback_calc.cli import main
    from pullback_calc.rendering.json_trace import TRACE_SCHEMA
    docs = []
    assert main(["reduce", "-e", "(λx. x × x) (1 + 2)", "--json"]) == 0
    docs.append(json.loads(capsys.readouterr().out))
    assert main(["jacobian", "-e", "λ⟨x, y⟩. x × y", "--at", "1,2", "--json", "--trace"]) == 0
    docs += json.loads(capsys.readouterr().out)["traces"]
    assert main(["trace", "-e", "(λx. x × x) (1 + 2)", "-f", "json"]) == 0
    docs.append(json.loads(capsys.readouterr().out))
    assert len(docs) == 3
    for d in docs:
        jsonschema.validate(d, TRACE_SCHEMA)
        assert d["format"] == "pullback-calc-trace" and d["trace"]
