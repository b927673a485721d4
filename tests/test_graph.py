"""Reduction graphs (pullback_calc.rendering.graph): the strategy's path, the full
reduction graph, rendering with graphviz, and ``pullback-calc graph``.

Golden DOT files live in tests/golden/graph_*.dot; regenerate them with

    PULLBACK_CALC_UPDATE_GOLDEN=1 python -m pytest tests/test_graph.py
"""
import os
import re
import shutil
from pathlib import Path

import pytest

import pullback_calc as pc
from pullback_calc.cli import main
from pullback_calc.reduction.closure import Reduct, canonical, one_step_reducts
from pullback_calc.rendering import graph as G
from pullback_calc.rendering.graph import Graph, full_graph, strategy_graph
from pullback_calc.results.jacobian import jacobian_term

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("PULLBACK_CALC_UPDATE_GOLDEN") not in (None, "", "0")
EXAMPLES = Path(__file__).parent.parent / "examples"

SMALL_PULLBACK = "Ω(λx. ⟨x × 2, x⟩) (λz. λw. π1 w) 1"   # all four phases and a premise
SMALL_FULL = "(λx. x + 1) ((λy. y × 2) 3) + sin(0)"
RUNNING = "λ⟨x, y⟩. ((x + 1) × (2 × x + y × y)) ^ 2"

needs_dot = pytest.mark.skipif(
    shutil.which("dot") is None and not os.environ.get("CI"),
    reason="graphviz's `dot` is not installed (in CI it must be: the test then fails)")


def _golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE or not path.exists():
        if not UPDATE and os.environ.get("CI"):
            pytest.fail(f"{path} is missing; generate it with PULLBACK_CALC_UPDATE_GOLDEN=1")
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    expected = path.read_text(encoding="utf-8")
    assert text == expected, (f"{name} differs from the golden file; if the change is "
                              f"intended, regenerate with PULLBACK_CALC_UPDATE_GOLDEN=1")


def _strategy_small() -> Graph:
    term = pc.parse(SMALL_PULLBACK)
    return strategy_graph(pc.reduce(term).trace, term=term)


# ---- golden DOT ---------------------------------------------------------------------------

def test_golden_strategy_graph():
    _golden("graph_strategy.dot", _strategy_small().dot)


def test_golden_full_graph():
    _golden("graph_full.dot", full_graph(SMALL_FULL).dot)


def test_output_is_deterministic():
    assert _strategy_small().dot == _strategy_small().dot
    assert full_graph(SMALL_FULL).dot == full_graph(SMALL_FULL).dot


# ---- node keys ----------------------------------------------------------------------------

def _alpha(t):
    return G.alpha_key(t)


def test_alpha_key_is_alpha_equivalence():
    same = [("λa. λb. a b c", "λx. λy. x y c"), ("λ⟨x, y⟩. x × y", "λ⟨u, v⟩. u × v"),
            ("let z = 1 in λw. z + w", "let q = 1 in λr. q + r"),
            ("Ω(λx. x) (λz. λw. w) 2", "Ω(λy. y) (λq. λp. p) 2"), ("1", "1.0")]
    different = [("λa. λb. a b", "λa. λb. b a"), ("λx. x c", "λx. x d"),
                 ("λ⟨x, y⟩. x", "λ⟨x, y⟩. y"), ("λx. λx. x", "λx. λy. x"), ("1", "2"),
                 ("π1 ⟨1, 2⟩", "π2 ⟨1, 2⟩"), ("sin(1)", "cos(1)"), ("⟨1, 2⟩", "1 ⊕ 2")]
    for a, b in same:
        assert _alpha(pc.parse(a)) == _alpha(pc.parse(b)), (a, b)
        assert canonical(pc.parse(a)) == canonical(pc.parse(b))
    for a, b in different:
        assert _alpha(pc.parse(a)) != _alpha(pc.parse(b)), (a, b)
        assert canonical(pc.parse(a)) != canonical(pc.parse(b))


def test_alpha_key_agrees_with_canonical_on_reduction_graph_terms():
    terms = []
    for src in ("Ω(λ⟨x, y⟩. x × y) (λz. λw. w) ⟨1, 2⟩", "Ω(λx. sin(cos(x))) (λz. λw. w) 2"):
        t = pc.parse(src)
        terms += [t] + [r.term for r in one_step_reducts(t)]
        terms += [s.term_after() for s in pc.reduce(t).trace]
    for a in terms:
        for b in terms:
            assert (_alpha(a) == _alpha(b)) == (canonical(a) == canonical(b))


# ---- the strategy graph -------------------------------------------------------------------

def test_strategy_graph_is_the_trace():
    term = pc.parse(SMALL_PULLBACK)
    trace = pc.reduce(term).trace
    g = strategy_graph(trace, term=term)
    main = [n for n in g.nodes if n.cluster == "main"]
    steps = [e for e in g.edges if e.kind == "step" and e.source.startswith("s")]
    assert len(main) == len(trace) + 1 and len(steps) == len(trace)
    assert [e.rule for e in steps] == [s.rule for s in trace]
    for e in steps:  # each edge joins the terms before and after its step
        s = trace[e.index]
        assert g.node(e.source).key == _alpha(s.term_before())
        assert g.node(e.target).key == _alpha(s.term_after())
        assert f'label=" {s.index} [{s.rule}]' in g.dot
    assert main[0].key == _alpha(term) and main[-1].normal


def test_strategy_graph_tells_the_phases_apart():
    row = pc.jacobian_row(RUNNING, [1.5, 2], 0)
    g = strategy_graph(row)
    # reverse: 21 steps before back-propagation arithmetic was made visible; the
    # extra one is rule 4 adding 2 + 2 after rule 3 collects 2 × dy ⊕ 2 × dy
    assert g.info["phases"] == {"A": 10, "decompose": 6, "forward": 13, "reverse": 22}
    for style in G.PHASES.values():  # one coloured cluster per phase, and a legend row
        assert f'label="{style.title}"' in g.dot
        assert f'fillcolor="{style.fill}"' in g.dot
        assert style.blurb in g.dot.replace("&#160;", " ")  # labels use no-break spaces
    for e in g.edges:
        if e.kind == "step" and e.source.startswith("s"):  # (p…: a premise's own steps)
            assert e.phase == row.trace[e.index].phase
    # edges are coloured by their step's phase
    for line in g.dot.splitlines():
        m = re.match(r'\s*s\d+ -> s\d+ \[label=" (\d+) ', line)
        if m:
            phase = row.trace[int(m.group(1))].phase
            assert f'color="{G.PHASES[phase].color}"' in line


def test_premises_are_clusters_linked_to_their_step():
    g = _strategy_small()
    assert g.info["premises"] == 1
    assert "subgraph cluster_p0 {" in g.dot and "premise [5] of step 11" in g.dot
    links = [e for e in g.edges if e.kind in ("premise", "result")]
    assert [e.kind for e in links] == ["premise", "result"]
    trace = pc.reduce(SMALL_PULLBACK).trace
    step = trace[11]
    assert g.node(links[0].source).key == _alpha(step.term_before())
    assert g.node(links[1].target).key == _alpha(step.term_after())
    d = step.premises[0]
    assert g.node(links[0].target).key == _alpha(d.start)
    assert g.node(links[1].source).key == _alpha(d.result)
    assert g.dot.count('style="dashed"') >= 2
    # premises of premises are drawn too (a list, an input, folded by a function
    # that depends on a: 11 of them, some nested)
    church = ("Ω(λ⟨a, l⟩. l (λx. λacc. a × x + acc) 0) (λz. λw. w) "
              "⟨2, λc. λn. c 1 (c 2 (c 3 n))⟩ ⟨1, λc. λn. n⟩")
    g2 = strategy_graph(pc.reduce(church).trace, term=pc.parse(church))
    assert g2.info["premises"] == 11 and "(nested: depth 2)" in g2.dot
    assert not strategy_graph(pc.reduce(church).trace, premises=False).info["premises"]


def test_long_terms_are_abbreviated_with_the_full_term_as_tooltip():
    row = pc.jacobian_row(RUNNING, [1.5, 2], 0)
    g = strategy_graph(row, label_width=40)
    longest = max((n for n in g.nodes), key=lambda n: len(pc.pretty(n.term)))
    assert len(pc.pretty(longest.term)) > 400
    for line in g.dot.splitlines():
        m = re.match(r"\s*(s\d+) \[label=<(.*)>, tooltip=\"(.*)\", color", line)
        if m:
            text = re.sub(r"<[^>]*>", "", m.group(2)).replace("&lt;", "<").replace(
                "&gt;", ">").replace("&#160;", " ")
            assert len(text) <= 44, text
            node = g.node(m.group(1))
            assert m.group(3) == pc.pretty(node.term).replace('"', '\\"')
    # the redex of the step leaving a node is in bold in its label
    assert '<b>1.5&#160;+&#160;1</b>' in g.dot


def test_long_traces_are_elided_in_the_middle():
    row = pc.jacobian_row(RUNNING, [1.5, 2], 0)
    g = strategy_graph(row, max_steps=10)
    assert "41 steps not shown" in g.dot
    assert len([n for n in g.nodes if n.term is None]) == 1
    main_steps = [e for e in g.edges if e.kind == "step" and e.source.startswith("s")]
    assert len(main_steps) == 10
    # …and the two rule-5 steps shown bring their arithmetic premises (rule 4)
    assert [e.rule for e in g.edges if e.kind == "step" and e.source.startswith("p")] == ["4", "4"]
    last = [n for n in g.nodes if n.id.startswith("s")][-1]
    assert last.normal and last.key == _alpha(row.covector)


def test_an_empty_trace_is_one_node():
    g = strategy_graph([], term=pc.parse("λx. x"))
    assert len(g.nodes) == 1 and g.nodes[0].normal
    with pytest.raises(ValueError):
        strategy_graph([])


# ---- the full graph -------------------------------------------------------------------------

def test_alpha_equivalent_reducts_are_one_node(monkeypatch):
    start = pc.parse("(λu. λa. a) 1")

    def fake(t, *args, **kwargs):
        if t is not start:
            return []
        return [Reduct((), "1", t, pc.parse("λa. a"), pc.parse("λa. a"), []),
                Reduct((), "1", t, pc.parse("λb. b"), pc.parse("λb. b"), [])]

    monkeypatch.setattr(G, "one_step_reducts", fake)
    g = full_graph(start)
    assert len(g.nodes) == 2 and len(g.edges) == 2
    assert {e.target for e in g.edges} == {"n1"}
    assert not g.nodes[1].meeting  # two edges, but from one term: no meeting point
    assert g.node_of("λc. c") is g.nodes[1]


def test_alpha_equivalence_joins_the_machines_names_and_the_closures():
    # the machine and the closure invent let names independently (mul_1 / add_2 …):
    # the call-by-value path is found in the graph only up to α-equivalence
    term = jacobian_term(pc.parse(RUNNING), [1.5, 2], 0)
    g = full_graph(term, node_budget=20)
    trace = pc.reduce(term).trace
    renamed = 0
    for node_id, step in zip(g.info["cbv_path"][1:], trace):
        node = g.node(node_id)
        assert node.key == _alpha(step.term_after())
        assert canonical(node.term) == canonical(step.term_after())
        renamed += node.term != step.term_after()
    assert renamed > 0


@pytest.mark.parametrize("src", [
    SMALL_FULL,
    "(1 + 2) + (3 + 4)",
    "Ω(λx. sin(cos(x))) (λz. λw. w) 2",
    "⟨1 + 2, (λx. x) 4⟩",
    "(λv. (J(λx. sin(x))·v) 1) (2 + 3)",
])
def test_the_cbv_path_is_highlighted_and_is_a_path_in_the_full_graph(src):
    g = full_graph(src, node_budget=200)
    path = g.info["cbv_path"]
    assert g.info["cbv_complete"] and not g.info["budget_reached"]
    trace = pc.reduce(src).trace
    assert len(path) == len(trace) + 1
    assert g.node(path[0]).key == _alpha(pc.parse(src))
    assert g.node(path[-1]).normal
    for (a, b), step in zip(zip(path, path[1:]), trace):
        edges = [e for e in g.edges if e.source == a and e.target == b and e.on_cbv]
        assert len(edges) == 1 and not edges[0].strategy_only and edges[0].rule == step.rule
    assert sum(e.on_cbv for e in g.edges) == len(trace)
    assert {n.id for n in g.nodes if n.on_cbv} == set(path)
    cbv_lines = [ln for ln in g.dot.splitlines() if "->" in ln and G.CBV_COLOR in ln]
    assert len(cbv_lines) == len(trace) and all('penwidth="2.8"' in ln for ln in cbv_lines)


def test_a_meeting_point_where_two_orders_meet():
    g = full_graph("(1 + 2) + (3 + 4)")
    assert len(g.nodes) == 5 and len(g.edges) == 5
    meet = [n for n in g.nodes if n.meeting]
    assert [pc.pretty(n.term) for n in meet] == ["3 + 7"]
    assert {g.node(e.source).term for e in g.edges if e.target == meet[0].id} == {
        pc.parse("3 + (3 + 4)"), pc.parse("(1 + 2) + 7")}
    line = next(ln for ln in g.dot.splitlines() if ln.strip().startswith(meet[0].id + " ["))
    assert "peripheries=2" in line
    assert [pc.pretty(n.term) for n in g.nodes if n.normal] == ["10"]


def test_the_node_budget_marks_unexpanded_terms():
    g = full_graph("(1 + 2) + (3 + 4) + (5 + 6)", node_budget=4)
    assert len(g.nodes) == 4 and g.info["budget_reached"]
    hidden = [n for n in g.nodes if n.hidden]
    assert hidden and all(n.expanded for n in g.nodes)
    assert "not shown" in g.dot and 'style="rounded,filled,dashed"' in g.dot
    assert not g.info["cbv_complete"]
    with pytest.raises(ValueError):
        full_graph("1", node_budget=0)


def test_full_graph_of_a_normal_form():
    g = full_graph("λx. x")
    assert len(g.nodes) == 1 and g.nodes[0].normal and g.info["cbv_complete"]


# ---- rendering ------------------------------------------------------------------------------

@needs_dot
def test_rendering_to_svg_png_pdf(tmp_path):
    g = _strategy_small()
    svg = g.pipe("svg").decode()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    # the full term is the node's tooltip (hovering shows it)
    assert 'xlink:title="Ω(λx. ⟨x × 2, x⟩) (λz. λw. π1 w) 1"' in svg
    assert g.pipe("png").startswith(b"\x89PNG")
    assert g.pipe("pdf").startswith(b"%PDF")
    for fmt in ("dot", "svg", "png", "pdf"):
        out = g.render(tmp_path / f"g.{fmt}")
        assert out.stat().st_size > 100
    assert (tmp_path / "g.dot").read_text(encoding="utf-8") == g.dot
    assert g.render(tmp_path / "x.out", format="svg").read_bytes().lstrip().startswith(b"<?xml")
    assert g._repr_svg_().count("<svg") == 1
    assert full_graph("(1 + 2) + (3 + 4)")._repr_svg_().count("<g id=\"node") == 5


def test_render_errors(monkeypatch):
    g = full_graph("1 + 2")
    with pytest.raises(G.RenderError):
        g.pipe("gif")
    monkeypatch.setattr(G.shutil, "which", lambda name: None)
    with pytest.raises(G.RenderError, match="apt-get install graphviz"):
        g.pipe("svg")
    assert g._repr_svg_() is None          # Jupyter then falls back to repr()
    assert g.pipe("dot").decode() == g.dot  # DOT needs no graphviz
    assert repr(g) == "<full reduction graph: 2 nodes, 1 edges>"


# ---- pullback-calc graph --------------------------------------------------------------------

def run(argv, capsys):
    status = main(["graph", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_graph_command_writes_dot_to_stdout(capsys):
    status, out, err = run(["-e", "(1 + 2) + (3 + 4)", "--full"], capsys)
    assert status == 0 and err == "" and out.startswith("digraph full {")
    status, out, _ = run(["-e", "(λx. x × x) (1 + 2)"], capsys)
    assert status == 0 and out.startswith("digraph strategy {")


def test_graph_command_jacobian(capsys, tmp_path):
    out = tmp_path / "g.dot"
    status, _, err = run([str(EXAMPLES / "running_example.pb"), "--jacobian", "--at", "1.5,2",
                          "-o", str(out)], capsys)
    assert status == 0 and err == ""
    assert "reverse phase" in out.read_text(encoding="utf-8")
    status, _, err = run([str(EXAMPLES / "polar.pb"), "--at", "2,0.5", "--row", "1", "--full",
                          "--budget", "5", "--format", "dot", "-o", str(out)], capsys)
    assert status == 0, err
    assert "π2 w" in out.read_text(encoding="utf-8")


@needs_dot
def test_graph_command_renders_files(capsys, tmp_path):
    for fmt, magic in (("svg", b"<?xml"), ("png", b"\x89PNG"), ("pdf", b"%PDF")):
        out = tmp_path / f"g.{fmt}"
        status, _, err = run(["-e", "(1 + 2) + (3 + 4)", "--full", "-o", str(out)], capsys)
        assert status == 0, err
        assert out.read_bytes().lstrip().startswith(magic)


@pytest.mark.parametrize("argv, status, message", [
    (["no/such/file.pb"], 1, "no/such/file.pb: No such file or directory"),
    (["-e", "(λx. x"], 1, "<-e>:1:7: unexpected end of input"),
    (["-e", "1 2"], 1, "type mismatch"),
    (["-e", "λx. x", "--jacobian"], 2, "--jacobian needs the point"),
    (["-e", "λx. x", "--row", "1"], 2, "--row needs --jacobian"),
    (["-e", "1 + 2", "--format", "gif"], 2, "invalid choice: 'gif'"),
    (["-e", "1 + 2", "-o", "out.xyz"], 2, "cannot tell the format from 'out.xyz'"),
    (["-e", "1 + 2", "--budget", "0"], 2, "expected a positive integer"),
    (["-e", "1 + 2", "--bogus"], 2, "unrecognized arguments: --bogus"),
    ([], 2, "one of the arguments FILE -e/--expr is required"),
    (["-e", "λ⟨x, y⟩. x × y", "--at", "1,2,3"], 1, "the point has 3 coordinate(s)"),
    (["-e", "λ⟨x, y⟩. x × y", "--at", "1,2", "--row", "4"], 1, "row 4 does not exist"),
    (["-e", "λ⟨x, y⟩. x × y", "--at", "1,x"], 2, "'x' is not a number"),
    (["-e", "(λx. x × x) (1 + 2)", "--max-steps", "1"], 1, "step budget of 1 steps"),
    (["-e", "1 + 2", "-o", "/no/such/dir/g.dot"], 1, "No such file or directory"),
])
def test_graph_command_errors(argv, status, message, capsys):
    got, out, err = run(argv, capsys)
    assert got == status
    assert err.startswith("pullback-calc: error: ") and message in err
    assert "Traceback" not in err and out == ""


def test_graph_command_help(capsys):
    status, out, _ = run(["--help"], capsys)
    assert status == 0 and "--full" in out and "--budget" in out


# ---- the gallery ----------------------------------------------------------------------------

@needs_dot
def test_gallery(tmp_path, monkeypatch):
    from pullback_calc.cli import gallery
    ex = tmp_path / "examples"
    ex.mkdir()
    (ex / "square.pb").write_text("# Squaring, at a point.\n# pullback-calc jacobian "
                                  "square.pb --at 3\nλx. x × x\n", encoding="utf-8")
    (ex / "plain.pb").write_text("# A plain term.\n(1 + 2) + (3 + 4)\n", encoding="utf-8")
    monkeypatch.setattr(gallery, "SMALL_TERMS", gallery.SMALL_TERMS[:1])
    out = tmp_path / "viz"
    out.mkdir()
    (out / "keep.txt").write_text("not ours")  # (--force: a folder with files of others)
    assert main(["gallery", "--out", str(out), "--examples", str(ex), "--force"]) == 0
    names = sorted(p.name for p in out.iterdir() if p.name != gallery.MANIFEST)
    assert names == sorted(["index.html", "keep.txt", "plain.full.svg", "plain.strategy.svg",
                            "plain.trace.html", "plain.whole.svg", "square.full.svg",
                            "square.strategy.svg", "square.trace.html", "square.whole.svg",
                            "two-orders.full.svg", "two-orders.strategy.svg",
                            "two-orders.trace.html", "two-orders.whole.svg"])
    index = (out / "index.html").read_text(encoding="utf-8")
    for n in names:
        if n not in ("index.html", "keep.txt"):
            assert f'href="{n}"' in index
    assert "row 0 of the Jacobian at (3)" in index
    svg = (out / "square.strategy.svg").read_text(encoding="utf-8")
    assert "reverse phase" in svg and "Ω(λx. x × x) (λz. λw. w) 3" in svg
    assert "<html" in (out / "square.trace.html").read_text(encoding="utf-8").lower()
    assert main(["gallery", "--out", str(out), "--examples", str(tmp_path / "none")]) == 1


def test_svg_labels_keep_their_spaces():
    """graphviz writes each font run as its own <text>, and browsers drop the spaces at
    the ends of one: labels use no-break spaces, so bold and plain text stay apart."""
    row = pc.jacobian_row(RUNNING, [1.5, 2], 0)
    dot = strategy_graph(row).dot
    assert "</b>&#160;" in dot  # the legend: "A-reduction name every …"
    for line in dot.splitlines():
        if "label=<" in line:
            assert not re.search(r"<b>[^<]* <|> [^<]*</b>", line.split("label=<", 1)[1]), line


def test_environment_tuples_fold_in_labels_not_in_tooltips():
    row = pc.jacobian_row(RUNNING, [1.5, 2], 0)
    g = strategy_graph(row)
    labels = [l.split("tooltip=")[0] for l in g.dot.splitlines() if "label=<" in l]
    assert any("⟨…,&#160;" in l for l in labels)  # a label: ⟨…, mul_4⟩
    assert not any("⟨⟨⟨" in l for l in labels)
    tips = [l.split("tooltip=")[1] for l in g.dot.splitlines() if "tooltip=" in l]
    assert any("⟨⟨⟨x, y⟩, " in t for t in tips)  # the tooltips: whole terms


# ---- the whole reduction, with the other orders beside it (graph --whole) ------------------

def test_golden_whole_graph():
    term = pc.parse(SMALL_PULLBACK)
    _golden("graph_whole.dot", G.whole_graph(pc.reduce(term).trace, term=term).dot)


def test_whole_graph_covers_every_step_of_the_running_example():
    row = pc.jacobian_row(RUNNING, [1.5, 2], 0)
    g = G.whole_graph(row)
    steps = [e for e in g.edges if e.kind == "step"]
    assert len(steps) == len(row.trace) and g.kind == "whole"   # every step, none elided
    assert sorted(e.index for e in steps) == list(range(len(row.trace)))
    # beside the path: other orders that rejoin it, and reducts that leave it
    back = sum(b for b, _ in g.info["alternatives"].values())
    away = sum(a for _, a in g.info["alternatives"].values())
    assert back > 0 and away > 0
    assert f"{away}&#160;other&#160;one-step&#160;reducts&#160;off&#160;the&#160;path" in g.dot
    # the full graph's breadth-first budget reaches only the start of the same reduction
    full = full_graph(jacobian_term(RUNNING, [1.5, 2], 0), node_budget=30)
    assert len(full.info["cbv_path"]) - 1 < len(row.trace)


def test_graph_whole_through_the_cli(capsys, tmp_path):
    out = tmp_path / "w.dot"
    status, _, err = run([str(EXAMPLES / "running_example.pb"), "--at", "1.5,2", "--whole",
                          "-o", str(out)], capsys)
    assert status == 0, err
    dot = out.read_text(encoding="utf-8")
    assert "off&#160;the&#160;path" in dot and "_alt [" in dot
    status, out_, err = run(["-e", "1 + 2", "--whole", "--full"], capsys)
    assert status == 2 and "not allowed with argument" in err and out_ == ""
