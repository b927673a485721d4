"""The full reduction graph as a page to explore (rendering/explorer.py, issue 29):
expand a term, find terms matching a pattern, follow the call-by-value path, for
graphs of a few thousand terms.  The data against ``graph.explore`` and a golden
file; the page in Debian's chromium (the ``browser`` fixture, tests/conftest.py)."""
import json
import os
import re
from pathlib import Path

import pytest

import pullback_calc as pc
from pullback_calc.cli import main
from pullback_calc.rendering.explorer import MEETING, NORMAL, ON_CBV, explorer_data, \
    graph_to_html
from pullback_calc.rendering.graph import full_graph
from pullback_calc.rendering.table import text as table_text

GOLDEN = Path(__file__).resolve().parent / "golden"
SMALL = "⟨1 + 1, 2 × 3, (λx. x) 4⟩"
SMALL_FULL = "(λx. x + 1) ((λy. y × 2) 3) + sin(0)"  # test_graph.py's golden DOT graph
WIDE = "⟨" + ", ".join(["1 + 1"] * 11) + "⟩"      # 2¹¹ = 2048 terms, 11,264 steps


def embedded(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="pc-data">(.*?)</script>', page, re.S)
    return json.loads(m[1])


# ---- the data ---------------------------------------------------------------------------------

def test_the_data_is_the_explored_graph():
    d = explorer_data(SMALL_FULL, node_budget=60)
    g = full_graph(SMALL_FULL, node_budget=60)  # what the drawing shows
    assert len(d["nodes"]) == len(g.nodes) and len(d["edges"]) == len(g.edges)
    ids = [n.id for n in g.nodes]
    for (term, depth, flags, hidden, via, left, mid, right), n in zip(d["nodes"], g.nodes):
        assert table_text(d["N"], term) == pc.pretty(n.term)  # the whole, unfolded term
        assert (depth, hidden, via if via >= 0 else None) == (n.depth, n.hidden, n.via)
        assert flags == NORMAL * n.normal | MEETING * n.meeting | ON_CBV * n.on_cbv
        assert left + mid + right  # a label
    for (src, dst, rule, redex, contractum, cbv, path), e in zip(d["edges"], g.edges):
        assert (ids[src], ids[dst], d["rules"][rule], bool(cbv)) == (e.source, e.target, e.rule,
                                                                     e.on_cbv)
        assert table_text(d["N"], redex) == pc.pretty(e.redex)
        assert table_text(d["N"], contractum) == pc.pretty(e.contractum)
        assert path == (".".join(map(str, e.path)) or "root")
    assert [ids[k] for k in d["cbv"]] == g.info["cbv_path"] and d["cbv_complete"]
    assert d["docs"]["1"].startswith("(1)")


def test_a_node_is_labelled_by_what_the_step_into_it_made():
    d = explorer_data("(1 + 2) × (3 + 4)")
    by_mid = {n[6]: n for n in d["nodes"]}
    assert by_mid["3"][5:] == ["", "3", " × (3 + 4)"]  # 1 + 2 ⟶ 3, bold in its place
    assert d["nodes"][0][5:] == ["(1 + 2) × (3 + 4)", "", ""]  # the start: nothing made yet


def test_golden_explorer_data():
    text = json.dumps(explorer_data(SMALL_FULL), ensure_ascii=False, indent=1) + "\n"
    path = GOLDEN / "graph_explorer.json"
    if os.environ.get("PULLBACK_CALC_REGEN_GOLDEN") or os.environ.get(
            "PULLBACK_CALC_UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), (
        "graph_explorer.json differs from the golden file; if the change is intended, "
        "regenerate it with PULLBACK_CALC_REGEN_GOLDEN=1")


def test_the_page_is_self_contained_and_a_few_thousand_terms_fit():
    page = graph_to_html(WIDE, node_budget=3000, title="wide </script>")
    assert page.startswith("<!DOCTYPE html>") and "<title>wide &lt;/script&gt;</title>" in page
    assert not re.search(r"(src|href)\s*=|https?://|@import|url\((?!#)",
                         page.replace("http://www.w3.org", ""))  # (url(#…): its own markers
    d = embedded(page)
    assert len(d["nodes"]) == 2048 and len(d["edges"]) == 11 * 1024 and not d["budget_reached"]
    # every term once in the table: each of the 2048 terms shares its untouched items
    assert len(d["N"]) < 2048 * 4


# ---- the command line -------------------------------------------------------------------------

def test_graph_full_writes_the_explorer_for_an_html_name(tmp_path, capsys):
    out = tmp_path / "g.html"
    assert main(["graph", "-e", SMALL, "--full", "-o", str(out)]) == 0
    d = embedded(out.read_text(encoding="utf-8"))
    assert len(d["nodes"]) == 8 and d["title"] == f"All one-step reductions of {SMALL}"
    assert d["budget"] == 2000  # the explorer's default, not the drawing's 60
    assert main(["graph", "-e", SMALL, "--full", "--format", "html", "--budget", "3"]) == 0
    d = embedded(capsys.readouterr().out)
    assert len(d["nodes"]) == 3 and d["budget_reached"]
    assert main(["graph", "examples/running_example.pb", "--full", "--at", "1.5,2",
                 "--budget", "20", "-o", str(out)]) == 0
    d = embedded(out.read_text(encoding="utf-8"))
    assert d["title"] == "All one-step reductions of row 0 of the Jacobian at (1.5, 2)"


def test_html_is_for_the_full_graph(capsys, tmp_path):
    assert main(["graph", "-e", SMALL, "-o", str(tmp_path / "g.html")]) == 2
    err = capsys.readouterr().err
    assert "--format html is the full graph to explore: add --full" in err
    assert not (tmp_path / "g.html").exists()


# ---- in a real browser ------------------------------------------------------------------------

try:
    from playwright.sync_api import expect
except ImportError:  # the browser fixture skips (or fails in CI) before expect is used
    expect = None
else:
    expect.set_options(timeout=15_000)


@pytest.fixture
def open_graph(open_in, tmp_path):
    pages = []

    def load(html: str):
        path = tmp_path / f"graph{len(pages)}.html"
        path.write_text(html, encoding="utf-8")
        page, errors = open_in(path, "window.pcGraph !== undefined", 1400, 800)
        pages.append((page, errors))
        return page

    yield load
    for page, errors in pages:
        assert errors == [], errors
        page.close()


def shown(page) -> list:
    return page.evaluate("() => window.pcGraph.shown()")


def test_browser_expands_a_term(open_graph, tmp_path):
    d = explorer_data(SMALL)
    page = open_graph(graph_to_html(SMALL))
    starts = sorted({0} | {e[1] for e in d["edges"] if e[0] == 0})
    assert shown(page) == starts  # the start and its reducts
    expect(page.locator("g.node")).to_have_count(len(starts))
    expect(page.locator("#facts")).to_contain_text("n0")
    # a click selects a term, a second one expands it
    page.click("g.node[data-node='1']")
    expect(page.locator("#facts")).to_contain_text("n1 · 1 step from the start")
    expect(page.locator("#term")).to_have_text(table_text(d["N"], d["nodes"][1][0]))
    page.click("g.node[data-node='1']")
    grown = sorted(set(starts) | {e[1] for e in d["edges"] if e[0] == 1})
    assert len(grown) > len(starts)
    expect(page.locator("g.node")).to_have_count(len(grown))
    assert shown(page) == grown
    expect(page.locator("#expand")).to_be_disabled()  # nothing more to show from n1
    # its steps: one a reduct, clicking one goes there
    outs = [e for e in d["edges"] if e[0] == 1]
    expect(page.locator("#out li")).to_have_count(len(outs))
    page.click("#out li >> nth=0")
    expect(page.locator("#facts")).to_contain_text(f"n{outs[0][1]} ")
    page.keyboard.press("e")  # expand it by key
    expect(page.locator("#expand")).to_be_disabled()
    page.screenshot(path=str(tmp_path / "expanded.png"))


def test_browser_prints_every_term_as_the_printer_does(open_graph):
    d = explorer_data(SMALL_FULL)
    page = open_graph(graph_to_html(SMALL_FULL))
    texts = page.evaluate("() => Array.from({length: window.pcGraph.count}, "
                          "(_, n) => window.pcGraph.text(n))")
    assert texts == [table_text(d["N"], n[0]) for n in d["nodes"]]


def test_browser_finds_terms_by_text_and_by_regular_expression(open_graph):
    d = explorer_data(SMALL)
    page = open_graph(graph_to_html(SMALL))
    texts = [table_text(d["N"], n[0]) for n in d["nodes"]]
    page.fill("#find", "6")
    page.press("#find", "Enter")
    want = [k for k, t in enumerate(texts) if "6" in t]
    expect(page.locator("#found")).to_have_text(f"{len(want)} terms match")
    expect(page.locator("#results li")).to_have_count(len(want))
    assert page.evaluate("() => window.pcGraph.current()") == want[0]
    assert set(want[:1]) <= set(shown(page))  # the first match, and the way to it
    page.click("#find-show")
    assert set(want) <= set(shown(page))
    page.fill("#find", "/^⟨2, 6/")
    page.click("#find-go")
    want = [k for k, t in enumerate(texts) if t.startswith("⟨2, 6")]
    expect(page.locator("#found")).to_have_text(f"{len(want)} terms match" if len(want) != 1
                                                else "1 term matches")
    page.fill("#find", "/(/")
    page.click("#find-go")
    expect(page.locator("#found")).to_contain_text("not a regular expression")


def test_browser_follows_the_call_by_value_path(open_graph, tmp_path):
    d = explorer_data(SMALL_FULL)
    page = open_graph(graph_to_html(SMALL_FULL))
    seen = [page.evaluate("() => window.pcGraph.current()")]
    for _ in d["cbv"][1:]:
        page.keyboard.press("c")
        page.wait_for_function(f"() => window.pcGraph.current() !== {seen[-1]}")
        seen.append(page.evaluate("() => window.pcGraph.current()"))
    assert seen == d["cbv"]
    expect(page.locator("#facts")).to_contain_text("a normal form")
    expect(page.locator("#cbv-next")).to_be_disabled()  # the end of the path
    page.click("#reset")
    page.click("#cbv-all")
    assert set(d["cbv"]) <= set(shown(page))
    expect(page.locator("g.edge.cbv")).to_have_count(len(d["cbv"]) - 1)
    page.screenshot(path=str(tmp_path / "cbv.png"))


def test_browser_a_few_thousand_terms(open_graph):
    """2048 terms and 11,264 steps: the page draws what is shown (12 terms at first),
    and a search reads every term."""
    page = open_graph(graph_to_html(WIDE, node_budget=3000))
    assert page.evaluate("() => window.pcGraph.count") == 2048
    assert page.evaluate("() => window.pcGraph.drawn()") == 12  # the start and 11 reducts
    hits = page.evaluate("() => window.pcGraph.find('/^⟨2, 2, 2,/')")
    assert len(hits) == 2 ** 8  # the first three items reduced, the other eight anything
    page.click("#find-show")
    n = page.evaluate("() => window.pcGraph.drawn()")
    assert 256 < n == len(shown(page)) <= 1500
    page.click("#cbv-all")
    page.keyboard.press("c")
    expect(page.locator("#facts")).to_contain_text("call-by-value step")
