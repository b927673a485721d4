"""The typeset rules (``pullback_calc.reduction.typeset``): one entry per rule label, the
MathML written at build time up to date, the statuses as papers/calculus.md states them,
and the HTML stepper's rule hover showing the same typeset rule, in a real browser.

The stepper's screenshot in the README (docs/images/stepper.png) is made here:
``PULLBACK_CALC_SCREENSHOTS=1 .venv/bin/python -m pytest tests/test_docs_stepper.py``
writes it again."""
import os
import re
from pathlib import Path

import pytest

import pullback_calc as pc
from pullback_calc.reduction.rules import RULES
from pullback_calc.reduction.typeset import STATUSES, TYPESET, implementation, rule_html
from pullback_calc.rendering.html import trace_data, trace_to_html

from test_rendering_html import expect, open_page, shows  # noqa: F401 (fixtures)

ROOT = Path(__file__).resolve().parent.parent
F = "λ⟨x, y⟩. ((x + 1) × (2 × x + y ^ 2)) ^ 2"


def test_every_rule_label_is_typeset():
    assert list(TYPESET) and set(TYPESET) == set(RULES)
    for label, e in TYPESET.items():
        assert e.label == label and e.cases and e.kind in STATUSES, label
        assert all(latex.strip() for latex, _ in e.cases), label
        module, name = implementation(label)
        fn = getattr(__import__(module, fromlist=[name]), name)
        assert callable(fn), label


def test_the_mathml_is_up_to_date(tmp_path):
    """typeset_mathml.py is what ``python -m pullback_calc.reduction.typeset`` writes."""
    pytest.importorskip("latex2mathml") if not os.environ.get("CI") else None
    from pullback_calc.reduction import typeset
    out = tmp_path / "typeset_mathml.py"
    typeset._write(out)
    current = (ROOT / "pullback_calc" / "reduction" / "typeset_mathml.py").read_text("utf-8")
    assert out.read_text("utf-8") == current, (
        "typeset.py changed: run python -m pullback_calc.reduction.typeset")


def _status_table() -> dict:
    """label -> status, from calculus.md's table "How sure we are"."""
    text = (ROOT / "papers" / "calculus.md").read_text(encoding="utf-8")
    section = text.split("## How sure we are", 1)[1].split("\n## ", 1)[0]
    out = {}
    for row in re.findall(r"^\| (.+?) \| (.+?) \|", section, re.M):
        cells, status = row
        if cells in ("label", "---"):
            continue
        for cell in cells.replace("`", "").split(","):
            cell = cell.strip()
            m = re.fullmatch(r"(\d+)[–-](\d+)", cell)
            labels = [str(n) for n in range(int(m[1]), int(m[2]) + 1)] if m else [cell]
            for label in labels:
                out[label] = status.strip()
    return out


def test_statuses_agree_with_the_calculus():
    table = _status_table()
    assert set(table) == set(TYPESET), set(table) ^ set(TYPESET)
    wrong = {k: (e.status, table[k]) for k, e in TYPESET.items() if e.status != table[k]}
    assert not wrong, f"typeset.py vs calculus.md's 'How sure we are': {wrong}"


def test_each_rule_points_at_its_section_of_the_calculus():
    import sys
    # the docs hooks import the docs extra (pymdownx); CI installs it, so there it must run
    pytest.importorskip("pymdownx") if not os.environ.get("CI") else None
    sys.path.insert(0, str(ROOT / "docs" / "_hooks"))
    import gen
    text = (ROOT / "papers" / "calculus.md").read_text(encoding="utf-8")
    for label, e in TYPESET.items():
        anchor, title = gen._heading_anchor(e.section, text)
        assert anchor and title.startswith(e.section), label


def test_the_page_embeds_the_typeset_rules_it_uses():
    r = pc.jacobian_row(F, [1.5, 2], 0)
    doc = trace_data(r.trace)
    assert set(doc["typeset"]) == set(doc["rules"])
    for label, html in doc["typeset"].items():
        assert html == rule_html(label) and html.count("<math") == len(TYPESET[label].cases)


# ---- in the browser ---------------------------------------------------------------------------

def test_browser_hover_shows_the_typeset_rule(open_page, tmp_path):
    r = pc.jacobian_row(F, [1.5, 2], 0)
    page, _ = open_page(trace_to_html(r.trace, title="Running example", term=r.term,
                                      value=r.covector))
    tip = page.locator("#rule-tip")
    expect(tip).to_be_hidden()
    page.hover("#rule")
    expect(tip).to_be_visible()
    expect(tip.locator("math")).to_have_count(len(TYPESET["A-name"].cases))
    # the same MathML as the rules page: compare the math elements' markup as the page parsed it
    want = page.evaluate("h => { const d = document.createElement('div'); d.innerHTML = h; "
                         "return [...d.querySelectorAll('math')].map(m => m.outerHTML); }",
                         rule_html("A-name"))
    got = tip.locator("math").evaluate_all("ms => ms.map(m => m.outerHTML)")
    assert got == want
    # rendered as math (laid out by the browser's MathML), not shown as source text
    assert page.evaluate("() => document.querySelector('#rule-tip math').getBoundingClientRect()"
                         ".height") > 10
    assert "\\" not in tip.inner_text()
    page.mouse.move(0, 0)
    expect(tip).to_be_hidden()
    # a reverse step with a premise: the rule of the premise has its tip too
    page.keyboard.press("End")
    shows(page, rule="(5)")
    page.hover("#premises summary >> nth=0")
    expect(tip).to_be_visible()
    expect(tip.locator(".tip-head")).to_have_text("rule (5)")
    # keyboard: the rule label takes the focus and shows its tip
    page.mouse.move(0, 0)
    page.focus("#rule")
    expect(tip).to_be_visible()


def test_browser_screenshot_of_the_stepper(open_page, tmp_path):
    """The README's picture: the running example's last reverse step, its rule typeset."""
    r = pc.jacobian_row(F, [1.5, 2], 0)
    page, _ = open_page(trace_to_html(r.trace, title="The running example: row 0 of its "
                                      "Jacobian at (1.5, 2)", term=r.term, value=r.covector))
    page.set_viewport_size({"width": 1200, "height": 640})
    step = next(s.index for s in r.trace if s.rule == "pb")
    page.fill("#goto", str(step))
    page.press("#goto", "Enter")
    shows(page, rule="(pb)")
    page.hover("#rule")
    expect(page.locator("#rule-tip")).to_be_visible()
    out = tmp_path / "stepper.png"
    page.screenshot(path=str(out))
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    committed = ROOT / "docs" / "images" / "stepper.png"
    if os.environ.get("PULLBACK_CALC_SCREENSHOTS"):
        committed.write_bytes(out.read_bytes())
    assert committed.exists(), "run with PULLBACK_CALC_SCREENSHOTS=1 to write it"
