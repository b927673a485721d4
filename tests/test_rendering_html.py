"""The HTML stepper: a self-contained page, tested in a real headless browser
(Debian's chromium driven by Playwright; .ci/run installs both, and in CI these
tests must run: they skip only outside CI when chromium or playwright is missing)."""
import json
import os
import re
import shutil

import pytest

import pullback_calc as pc
from pullback_calc.cli import main
from pullback_calc.rendering.html import TraceView, result_repr_html, trace_data, \
    trace_to_html, view

F = "λ⟨x, y⟩. ((x + 1) × (2 × x + y ^ 2)) ^ 2"
PREMISE = "(J(λx. λy. x × y)·1) 2"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def running():
    return pc.jacobian_row(F, [1.5, 2], 0)


def embedded(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="pc-data">(.*?)</script>', page, re.S)
    return json.loads(m[1])


# ---- the page, without a browser ------------------------------------------------------

def test_page_is_self_contained(running):
    page = trace_to_html(running.trace, title="Running <example>", term=running.term,
                         value=running.covector)
    assert page.startswith("<!DOCTYPE html>") and "<title>Running &lt;example&gt;</title>" in page
    assert not re.search(r"(src|href)\s*=|https?://|@import|url\(", page.replace(
        "http://www.w3.org", "")), "the page must not load anything"
    doc = embedded(page)
    assert doc["top"] == 52 and len(doc["S"]) == 52 and doc["D"] == []
    assert doc["value"] == "λ⟨dx, dy⟩. 350 × dy ⊕ 420 × dx"
    assert set(doc["docs"]) == set(doc["rules"]) and doc["docs"]["pb"].startswith("(pb)")


def test_script_breakout_is_escaped():
    r = pc.reduce("(λx. x) 1")
    page = trace_to_html(r.trace, title="</script><b>", term=pc.parse("(λx. x) 1"))
    assert page.count("</script>") == 2  # the data block's and the program's
    doc = trace_data(r.trace, term=pc.parse("1 + 1"), unicode=False)
    assert doc["term"] == "1 + 1"


def test_premises_are_flattened_breadth_first():
    r = pc.reduce(PREMISE)
    doc = trace_data(r.trace)
    assert doc["top"] == 1 and doc["total"] == 2
    (prem,) = doc["D"]
    assert doc["rules"][prem[0]] == "18" and prem[1:] == ["J(λx. x × y)·1 2", "y × 1", 1, 1]
    assert doc["S"][0][9] == [0] and doc["rules"][doc["S"][1][0]] == "15"


def test_page_size_is_linear():
    small = pc.reduce("0" + " + 1" * 500)
    big = pc.reduce("0" + " + 1" * 2000)
    a, b = len(trace_to_html(small.trace)), len(trace_to_html(big.trace))
    assert len(big.trace) == 4 * len(small.trace)
    assert b < 4.5 * a


def test_trace_view(running):
    v = view(running)
    assert isinstance(v, TraceView) and len(v) == 52
    html = v._repr_html_()
    assert html.startswith("<iframe srcdoc=") and "&lt;!DOCTYPE html&gt;" in html
    assert "[420.0, 350.0]" in v.title and "52 steps" in repr(v)
    assert "<TraceView" in repr(view(running.trace))
    assert "λ⟨dx, dy⟩. 350 × dy ⊕ 420 × dx" in result_repr_html(running)
    assert "52 steps" in result_repr_html(running)
    assert "\\documentclass" in v.to_latex(standalone=True)
    assert json.loads(v.to_json())["steps"] == 52


def test_trace_view_save(tmp_path, running):
    v = view(running)
    for suffix in (".txt", ".tex", ".json", ".html"):
        v.save(tmp_path / f"t{suffix}")
        assert (tmp_path / f"t{suffix}").stat().st_size > 100
    with pytest.raises(ValueError):
        v.save(tmp_path / "t.doc")


def test_cli_html(tmp_path, capsys):
    out = tmp_path / "p.html"
    assert main(["trace", "-e", PREMISE, "--format", "html", "-o", str(out),
                 "--title", "premise"]) == 0
    doc = embedded(out.read_text(encoding="utf-8"))
    assert doc["title"] == "premise" and len(doc["D"]) == 1
    assert main(["trace", "-e", PREMISE, "--format", "html", "--no-premises"]) == 0
    assert embedded(capsys.readouterr()[0])["D"] == []


# ---- in a real browser --------------------------------------------------------------------

@pytest.fixture(scope="module")
def browser():
    missing = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing = "playwright is not installed (pip install -e '.[test]')"
    if missing is None and not shutil.which("chromium") and not os.path.exists(CHROMIUM):
        missing = "chromium is not installed (apt-get install chromium)"
    if missing:
        if os.environ.get("CI"):
            pytest.fail(missing + ": .ci/run installs it")
        pytest.skip(missing)
    exe = CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def open_page(browser, tmp_path):
    pages = []

    def load(html: str, name: str = "page"):
        path = tmp_path / f"{name}.html"
        path.write_text(html, encoding="utf-8")
        page = browser.new_page(viewport={"width": 1280, "height": 760})
        errors: list = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("request", lambda r: errors.append("request " + r.url)
                if not r.url.startswith(("file:", "data:", "about:")) else None)
        page.goto(path.as_uri())
        page.wait_for_selector("#rule")
        pages.append((page, errors))
        return page, errors

    yield load
    for page, errors in pages:
        assert errors == [], errors
        page.close()


def state(page):
    return {k: page.inner_text("#" + k) for k in ("rule", "phase", "redex", "contractum", "pos")}


def test_browser_steps_through_the_running_example(open_page, running, tmp_path):
    page, _ = open_page(trace_to_html(running.trace, title="Running example",
                                      term=running.term, value=running.covector))
    s = state(page)
    assert s["rule"] == "(A-name)" and s["phase"] == "A"
    assert s["redex"] == "((x + 1) × (2 × x + y ^ 2)) ^ 2"
    assert s["contractum"].startswith("let mul_1 = ")
    assert page.get_attribute("#rule", "title").startswith("A-name")
    page.click("#next")
    assert state(page)["redex"] == "(x + 1) × (2 × x + y ^ 2)"
    assert state(page)["contractum"] == "let add_2 = x + 1 in add_2 × (2 × x + y ^ 2)"
    page.click("#prev")
    assert state(page)["rule"] == "(A-name)" and state(page)["pos"].startswith("step 0 ")
    assert page.is_disabled("#prev")
    # the highlighted redex sits in its context, the contractum in the same context
    assert page.inner_text("#before").startswith("Ω(λ⟨x, y⟩. ((x + 1)")
    assert page.eval_on_selector("#redex", "e => getComputedStyle(e).backgroundColor") != \
        page.eval_on_selector("#contractum", "e => getComputedStyle(e).backgroundColor")
    # jump to the reverse phase
    page.click("button[data-phase=reverse]")
    first_rev = next(s for s in running.trace if s.phase == "reverse")
    s = state(page)
    assert s["phase"] == "reverse" and s["rule"] == f"({first_rev.rule})"
    assert s["pos"].startswith(f"step {first_rev.index} ")
    # keys: → and j forward, ← and k back, End, Home
    page.keyboard.press("ArrowRight")
    page.keyboard.press("j")
    assert state(page)["pos"].startswith(f"step {first_rev.index + 2} ")
    page.keyboard.press("k")
    assert state(page)["pos"].startswith(f"step {first_rev.index + 1} ")
    page.keyboard.press("End")
    s = state(page)
    assert s["rule"] == "(5)" and s["contractum"] == "λ⟨dx, dy⟩. 350 × dy ⊕ 420 × dx"
    assert page.is_disabled("#next")
    page.screenshot(path=str(tmp_path / "running_end.png"))
    page.keyboard.press("Home")
    assert state(page)["pos"].startswith("step 0 ")
    # jump to a rule: the next step of rule 15, then the next one
    fifteens = [s.index for s in running.trace if s.rule == "15"]
    value = page.eval_on_selector(
        "#rule-select", "(e) => [...e.options].find(o => o.text.startsWith('(15)')).value")
    page.select_option("#rule-select", value)
    assert state(page)["pos"].startswith(f"step {fifteens[0]} ")
    page.click("#rule-next")
    assert state(page)["pos"].startswith(f"step {fifteens[1]} ")
    # the list: the current row is highlighted, clicking a row goes there
    assert page.inner_text(".row.current .i") == str(fifteens[1])
    page.click(".row >> text=(pb)")
    assert state(page)["rule"] == "(pb)"


def test_browser_expands_a_premise(open_page):
    r = pc.reduce(PREMISE)
    page, _ = open_page(trace_to_html(r.trace, title="premise"))
    assert state(page)["rule"] == "(18)"
    assert page.locator("#premises details").count() == 1
    assert page.locator("#premises .prow").count() == 0  # rendered only when opened
    page.click("#premises summary")
    rows = page.locator("#premises .prow")
    assert rows.count() == 1
    row = rows.first.inner_text()
    assert "(15)" in row and "J(λx. x × y)·1 2" in row and "y × 1" in row
    assert "⇓ y × 1" in page.inner_text("#premises summary")


def test_browser_nested_premises(open_page):
    r = pc.reduce("Ω(λl. l (λx. λacc. x + acc) 0) (λz. λw. w) (λc. λn. c 1 (c 2 (c 3 n))) "
                  "(λc. λn. c 10 (c 20 (c 30 n)))")
    page, _ = open_page(trace_to_html(r.trace))
    page.click("button[data-phase=reverse]")
    for _ in range(len(r.trace)):
        if page.locator("#premises details").count():
            break
        page.click("#next")
    page.click("#premises summary >> nth=0")
    assert page.locator("#premises .prow").count() >= 1


def test_browser_ten_thousand_steps(open_page):
    r = pc.reduce("0" + " + 1" * 10000)
    assert len(r.trace) == 10000
    page, _ = open_page(trace_to_html(r.trace, title="10,000 steps"), "big")
    # virtualised: a window of rows, never 10,000 nodes
    assert page.locator(".row").count() < 100
    assert page.evaluate("document.getElementsByTagName('*').length") < 600
    for _ in range(50):
        page.keyboard.press("ArrowRight")
    assert state(page)["pos"].startswith("step 50 ")
    page.keyboard.press("End")
    s = state(page)
    assert s["pos"].startswith("step 9999 ") and s["contractum"] == "10000"
    assert page.inner_text(".row.current .i") == "9999"
    page.fill("#goto", "5000")
    page.press("#goto", "Enter")
    assert state(page)["pos"].startswith("step 5000 ")
    page.click("#bar", position={"x": 2, "y": 5})
    assert state(page)["pos"].startswith("step 0 ") or state(page)["pos"].startswith("step 1")
    assert page.locator(".row").count() < 100
