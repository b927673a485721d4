"""The HTML stepper: a self-contained page, tested in a real headless browser
(Debian's chromium driven by Playwright; .ci/run installs both, and in CI these
tests must run: they skip only outside CI when chromium or playwright is missing).

The browser tests never read the page right after an action: every check after
a click or a key press is one of Playwright's auto-waiting assertions
(``expect(locator).to_have_text/to_have_count/...``), which retry until the
page has caught up.  Opening a premise renders its steps in the ``toggle``
event, which the browser fires in a later task than the click, so an immediate
``count()`` raced it (issue 15).  Checks of invariants (at most so many rows)
come after ``settled(page)``, which waits for pending animation frames."""
import json
import re
import subprocess
import sys
from collections import deque

import pytest

import pullback_calc as pc
from pullback_calc.cli import main
from pullback_calc.rendering.html import TraceView, result_repr_html, trace_data, \
    trace_to_html, view
from pullback_calc.rendering.table import text as table_text
from pullback_calc.rendering.text import bounded, context_around
from pullback_calc.syntax.printer import folding_env

F = "λ⟨x, y⟩. ((x + 1) × (2 × x + y ^ 2)) ^ 2"
PREMISE = "(J(λx. λy. x × y)·1) 2"


@pytest.fixture(scope="module")
def running():
    return pc.jacobian_row(F, [1.5, 2], 0)


def embedded(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="pc-data">(.*?)</script>', page, re.S)
    return json.loads(m[1])


def whole(doc: dict, k: int) -> str:
    """Entry k of the page's term table printed whole and unfolded (the page's own
    printer is checked against ``text.bounded`` in the browser below)."""
    return table_text(doc["N"], k)


# ---- the page, without a browser ------------------------------------------------------

def test_page_is_self_contained(running):
    page = trace_to_html(running.trace, title="Running <example>", term=running.term,
                         value=running.covector)
    assert page.startswith("<!DOCTYPE html>") and "<title>Running &lt;example&gt;</title>" in page
    assert not re.search(r"(src|href)\s*=|https?://|@import|url\(", page.replace(
        "http://www.w3.org", "")), "the page must not load anything"
    doc = embedded(page)
    # 52 steps in the main derivation, 57 in all: rule 5's arithmetic premises hold 5
    assert doc["top"] == 52 and len(doc["S"]) == 57 and len(doc["D"]) == 4
    start, result = doc["D"][0][1:3]
    assert (whole(doc, start), whole(doc, result)) == ("⟨35 × 7, 35 × 2.5⟩", "⟨245, 87.5⟩")
    assert doc["value"] == "λ⟨dx, dy⟩. 350 × dy ⊕ 420 × dx"
    assert set(doc["docs"]) == set(doc["rules"]) and doc["docs"]["pb"].startswith("(pb)")


def test_script_breakout_is_escaped():
    r = pc.reduce("(λx. x) 1")
    page = trace_to_html(r.trace, title="</script><b>", term=pc.parse("(λx. x) 1"))
    assert page.count("</script>") == 3  # the term printer's, the data block's, the program's
    doc = trace_data(r.trace, term=pc.parse("1 + 1"), unicode=False)
    assert doc["term"] == "1 + 1"


def test_premises_are_flattened_breadth_first():
    r = pc.reduce(PREMISE)
    doc = trace_data(r.trace)
    assert doc["top"] == 1 and doc["total"] == 4
    (prem,) = doc["D"]  # rule 18's premise: a pullback along a free 1-form, applied to P
    assert doc["rules"][prem[0]] == "18"
    assert [whole(doc, k) for k in prem[1:3]] == ["Ω(λx. x × y) omega_1 2 1",
                                                  "omega_1 (2 × y) (y × 1)"]
    assert prem[3:] == [1, 3]
    assert doc["S"][0][7] == [0]
    assert [doc["rules"][s[0]] for s in doc["S"][1:]] == ["pb", "15", "dual-app"]


def test_page_size_is_linear():
    small = pc.reduce("0" + " + 1" * 500)
    big = pc.reduce("0" + " + 1" * 2000)
    a, b = len(trace_to_html(small.trace)), len(trace_to_html(big.trace))
    assert len(big.trace) == 4 * len(small.trace)
    assert b < 4.5 * a


def steps_in_page_order(trace) -> list:
    """The steps as the page lists them: the main derivation's, then each premise's
    (breadth first)."""
    out, todo = list(trace), deque(s for s in trace if s.premises)
    while todo:
        for d in todo.popleft().premises:
            out.extend(d.steps)
            todo.extend(s for s in d.steps if s.premises)
    return out


def test_the_term_table_holds_every_step_once():
    """Every step's redex, contractum and premise terms are entries of the table that
    print back to the term; a node shared by many steps is one entry, so the table
    grows with the steps, not with steps × term size."""
    sizes = []
    for n in (20, 40, 80):
        r = pc.jacobian_row("λx. " + "sin(" * n + "x" + ")" * n, [0.7], 0)
        doc = trace_data(r.trace)
        steps = steps_in_page_order(r.trace)
        assert len(doc["S"]) == len(steps)
        for row, s in zip(doc["S"], steps):
            assert whole(doc, row[4]) == pc.pretty(s.redex)
            assert whole(doc, row[5]) == pc.pretty(s.contractum)
        sizes.append((len(steps), len(doc["N"]), len(doc["F"])))
    (s1, n1, f1), _, (s3, n3, f3) = sizes
    assert s3 > 3.5 * s1
    assert n3 < 1.2 * (s3 / s1) * n1 and f3 < 1.2 * (s3 / s1) * f1  # linear, not quadratic


def test_trace_view(running):
    v = view(running)
    assert isinstance(v, TraceView) and len(v) == 52  # the main derivation's steps
    html = v._repr_html_()
    assert html.startswith("<iframe srcdoc=") and "&lt;!DOCTYPE html&gt;" in html
    assert "[420.0, 350.0]" in v.title  # the count reduce gives, and the main derivation's:
    assert "57 steps (52 in the main derivation)>" in repr(v)
    assert "<TraceView" in repr(view(running.trace))
    assert "λ⟨dx, dy⟩. 350 × dy ⊕ 420 × dx" in result_repr_html(running)
    assert "57 steps" in result_repr_html(running)
    assert "\\documentclass" in v.to_latex(standalone=True)
    assert json.loads(v.to_json())["steps"] == 57  # every step, premises included


def test_results_show_as_the_stepper_in_a_notebook(running):
    """``_repr_html_``, which any notebook front end calls: the results (a lower layer)
    reach the renderer through pullback_calc.display, set by the package."""
    from IPython.core.formatters import HTMLFormatter
    assert running._repr_html_() == result_repr_html(running)
    assert HTMLFormatter()(running) == result_repr_html(running)  # as IPython asks for it
    assert "&lt;!DOCTYPE html&gt;" in pc.reduce("(λx. x × x) 3")._repr_html_()


def test_a_notebook_shows_results_as_the_stepper():
    """The route a notebook takes: IPython running, then ``import pullback_calc``."""
    probe = ("from IPython.core.interactiveshell import InteractiveShell\n"
             "shell = InteractiveShell.instance()\n"
             "import pullback_calc as pc\n"
             "data, _ = shell.display_formatter.format(pc.jacobian_row("
             "'λ⟨x, y⟩. ((x + 1) × (2 × x + y ^ 2)) ^ 2', [1.5, 2], 0))\n"
             "print('57 steps' in data['text/html'], 'srcdoc=' in data['text/html'])\n")
    r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and r.stdout.split() == ["True", "True"], r.stdout + r.stderr


def test_trace_view_save(tmp_path, running):
    v = view(running)
    for suffix in (".txt", ".tex", ".json", ".html"):
        v.save(tmp_path / f"t{suffix}")
        assert (tmp_path / f"t{suffix}").stat().st_size > 100
    with pytest.raises(ValueError):
        v.save(tmp_path / "t.doc")


def test_trace_view_saves_json_lines_as_the_json_document(tmp_path, running):
    """.jsonl: the kept steps as the stream a reduction with on_step= writes."""
    from pullback_calc.rendering.json_trace import read_jsonl, trace_to_dict
    v = view(running)
    v.save(tmp_path / "t.jsonl")
    lines = (tmp_path / "t.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(v.trace) + 2  # a head, a line a step, the end
    doc, whole = read_jsonl(lines), trace_to_dict(v.trace, term=v.term, value=v.value)
    assert doc["trace"] == whole["trace"] and doc["steps"] == whole["steps"]


def test_cli_html(tmp_path, capsys):
    out = tmp_path / "p.html"
    assert main(["trace", "-e", PREMISE, "--format", "html", "-o", str(out),
                 "--title", "premise"]) == 0
    doc = embedded(out.read_text(encoding="utf-8"))
    assert doc["title"] == "premise" and len(doc["D"]) == 1
    assert main(["trace", "-e", PREMISE, "--format", "html", "--no-premises"]) == 0
    assert embedded(capsys.readouterr()[0])["D"] == []


# ---- in a real browser --------------------------------------------------------------------

try:
    from playwright.sync_api import expect
except ImportError:  # the browser fixture skips (or fails in CI) before expect is used
    expect = None
else:
    expect.set_options(timeout=15_000)  # generous under load; a pass returns at once


@pytest.fixture
def open_page(open_in, tmp_path):
    pages = []

    def load(html: str, name: str = "page"):
        path = tmp_path / f"{name}.html"
        path.write_text(html, encoding="utf-8")
        # the script publishes window.pcStepper once it has built the page and shown step 0
        page, errors = open_in(path, "window.pcStepper !== undefined")
        pages.append((page, errors))
        return page, errors

    yield load
    for page, errors in pages:
        assert errors == [], errors
        page.close()


def settled(page):
    """Wait until the page has run its pending animation frames (the list re-renders
    on scroll in one), so that a read of an invariant sees the page at rest."""
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => "
                  "requestAnimationFrame(() => r())))")


def starts(text: str) -> re.Pattern:
    return re.compile("^" + re.escape(text))


def at(page, index: int):
    """Wait until the stepper shows the step numbered ``index``."""
    expect(page.locator("#pos")).to_have_text(starts(f"step {index} "))


def shows(page, **fields):
    """Wait until each of #rule, #phase, #redex, #contractum, #pos shows its text
    (a string: exactly, up to white space; a pattern: matching)."""
    for k, want in fields.items():
        expect(page.locator("#" + k)).to_have_text(want)


def test_browser_steps_through_the_running_example(open_page, running, tmp_path):
    page, _ = open_page(trace_to_html(running.trace, title="Running example",
                                      term=running.term, value=running.covector))
    shows(page, rule="(A-name)", phase="A", redex="((x + 1) × (2 × x + y ^ 2)) ^ 2",
          contractum=starts("let mul_1 = "), pos=starts("step 0 "))
    expect(page.locator("#doc")).to_have_text(starts("A-name"))  # hover: test_docs_stepper
    page.click("#next")
    shows(page, pos=starts("step 1 "), redex="(x + 1) × (2 × x + y ^ 2)",
          contractum="let add_2 = x + 1 in add_2 × (2 × x + y ^ 2)")
    page.click("#prev")
    shows(page, pos=starts("step 0 "), rule="(A-name)")
    expect(page.locator("#prev")).to_be_disabled()
    # the highlighted redex sits in its context, the contractum in the same context
    expect(page.locator("#before")).to_have_text(starts("Ω(λ⟨x, y⟩. ((x + 1)"),
                                                 use_inner_text=True)
    assert page.eval_on_selector("#redex", "e => getComputedStyle(e).backgroundColor") != \
        page.eval_on_selector("#contractum", "e => getComputedStyle(e).backgroundColor")
    # jump to the reverse phase
    page.click("button[data-phase=reverse]")
    first_rev = next(s for s in running.trace if s.phase == "reverse")
    shows(page, pos=starts(f"step {first_rev.index} "), phase="reverse",
          rule=f"({first_rev.rule})")
    expect(page.locator("button.phase.active")).to_have_attribute("data-phase", "reverse")
    # keys: → and j forward, ← and k back, End, Home
    page.keyboard.press("ArrowRight")
    page.keyboard.press("j")
    at(page, first_rev.index + 2)
    page.keyboard.press("k")
    at(page, first_rev.index + 1)
    page.keyboard.press("End")
    shows(page, pos=starts(f"step {len(running.trace) - 1} "), rule="(5)",
          contractum="λ⟨dx, dy⟩. 350 × dy ⊕ 420 × dx")
    expect(page.locator("#next")).to_be_disabled()
    page.screenshot(path=str(tmp_path / "running_end.png"))
    page.keyboard.press("Home")
    at(page, 0)
    # jump to a rule: the next step of rule 15, then the next one
    fifteens = [s.index for s in running.trace if s.rule == "15"]
    value = page.eval_on_selector(
        "#rule-select", "(e) => [...e.options].find(o => o.text.startsWith('(15)')).value")
    page.select_option("#rule-select", value)
    at(page, fifteens[0])
    page.click("#rule-next")
    at(page, fifteens[1])
    # the list: the current row is highlighted, clicking a row goes there
    expect(page.locator(".row.current .i")).to_have_text(str(fifteens[1]))
    page.click(".row >> text=(pb)")
    shows(page, rule="(pb)")
    expect(page.locator(".row.current .r")).to_have_text("(pb)")


def test_browser_n_and_p_follow_the_current_rule(browser, tmp_path, running):
    """Issue 29: opened at #step-36 (a rule-5 step), n went to step 0 -- the menu's
    first rule, not the current one."""
    fives = [s.index for s in running.trace if s.rule == "5"]
    assert running.trace[36].rule == "5" and 36 in fives[1:-1]
    path = tmp_path / "running.html"
    path.write_text(trace_to_html(running.trace, title="running"), encoding="utf-8")
    page = browser.new_page(viewport={"width": 1280, "height": 760})
    try:
        page.goto(path.as_uri() + "#step-36")
        page.wait_for_function("() => window.pcStepper !== undefined")
        at(page, 36)
        expect(page.locator("#rule-select option:checked")).to_have_text(starts("(5)"))
        page.keyboard.press("n")
        at(page, fives[fives.index(36) + 1])
        page.keyboard.press("p")
        at(page, 36)
        page.keyboard.press("p")
        at(page, fives[fives.index(36) - 1])
        page.keyboard.press("Home")  # the rule of step 0 now: n goes to its next step
        at(page, 0)
        first = running.trace[0].rule
        page.keyboard.press("n")
        at(page, next(s.index for s in running.trace[1:] if s.rule == first))
    finally:
        page.close()


def test_browser_expands_a_premise(open_page):
    r = pc.reduce(PREMISE)
    page, _ = open_page(trace_to_html(r.trace, title="premise"))
    shows(page, rule="(18)")
    expect(page.locator("#premises details")).to_have_count(1)
    rows = page.locator("#premises .prow")
    expect(rows).to_have_count(0)  # rendered only when opened
    page.click("#premises summary")
    expect(page.locator("#premises details")).to_have_attribute("open", "")
    expect(rows).to_have_count(3)  # rendered in the toggle event, after the click returns
    for i, part in enumerate(("(pb)", "(15)", "(dual-app)")):
        expect(rows.nth(i)).to_contain_text(part)
    expect(rows.nth(1)).to_contain_text("J(λx. x × y)·dx 2")
    expect(page.locator("#premises summary")).to_contain_text("⇓ omega_1 (2 × y) (y × 1)")


def test_browser_nested_premises(open_page):
    # a fold whose folding function depends on a: rules 18 and 19b, nested premises
    r = pc.reduce("Ω(λ⟨a, l⟩. l (λx. λacc. a × x + acc) 0) (λz. λw. w) "
              "⟨2, λc. λn. c 1 (c 2 (c 3 n))⟩ ⟨1, λc. λn. n⟩")
    doc = trace_data(r.trace)
    S, D, top = doc["S"], doc["D"], doc["top"]
    premises = [s[7] or [] for s in S]  # the premise ids of each step (0: none)

    def steps_of(pid):
        return range(D[pid][3], D[pid][3] + D[pid][4])

    reverse = next(i for i in range(top) if doc["phases"][S[i][1]] == "reverse")
    # the first reverse step with premises, and a later one whose premise has premises itself
    first = next(i for i in range(reverse, top) if premises[i])
    nested = next(i for i in range(first + 1, top)  # (a later step: the rows of first close)
                  if any(premises[j] for pid in premises[i] for j in steps_of(pid)))
    outer = next(pid for pid in premises[nested] if any(premises[j] for j in steps_of(pid)))
    inner = next(premises[j][0] for j in steps_of(outer) if premises[j])
    page, _ = open_page(trace_to_html(r.trace))
    page.click("button[data-phase=reverse]")
    at(page, reverse)
    for i in range(reverse + 1, first + 1):
        page.click("#next")
        at(page, i)
    details, rows = page.locator("#premises details"), page.locator("#premises .prow")
    expect(details).to_have_count(len(premises[first]))
    expect(rows).to_have_count(0)
    page.click("#premises summary >> nth=0")
    expect(rows).to_have_count(min(D[premises[first][0]][4], 200))
    # a premise whose derivation has premises: they appear (closed) when it is opened
    for i in range(first + 1, nested + 1):
        page.click("#next")
        at(page, i)
    expect(rows).to_have_count(0)
    k = premises[nested].index(outer)
    page.click(f"#premises > details >> nth={k} >> summary >> nth=0")
    n_outer = min(D[outer][4], 200)
    expect(rows).to_have_count(n_outer)
    nested_details = page.locator("#premises details details")
    expect(nested_details.first).to_be_visible()
    expect(nested_details.first.locator(".prow")).to_have_count(0)
    nested_details.first.locator("summary").first.click()
    n_inner = min(D[inner][4], 200)
    expect(nested_details.first.locator(":scope > div > .prow")).to_have_count(n_inner)
    expect(rows).to_have_count(n_outer + n_inner)


def test_browser_ten_thousand_steps(open_page):
    r = pc.reduce("0" + " + 1" * 10000)
    assert len(r.trace) == 10000
    page, _ = open_page(trace_to_html(r.trace, title="10,000 steps"), "big")
    at(page, 0)
    # virtualised: a window of rows, never 10,000 nodes
    settled(page)
    assert page.locator(".row").count() < 100
    assert page.evaluate("document.getElementsByTagName('*').length") < 600
    for _ in range(50):
        page.keyboard.press("ArrowRight")
    at(page, 50)
    page.keyboard.press("End")
    shows(page, pos=starts("step 9999 "), contractum="10000")
    expect(page.locator(".row.current .i")).to_have_text("9999")
    page.fill("#goto", "5000")
    page.press("#goto", "Enter")
    at(page, 5000)
    # a click 2 px into the phase bar goes to the step under that pixel column
    width = page.eval_on_selector("#bar", "e => e.getBoundingClientRect().width")
    near = int(2 * 10000 / width)
    page.click("#bar", position={"x": 2, "y": 5})
    expect(page.locator("#pos")).to_have_text(
        re.compile(r"^step (%s) " % "|".join(str(n) for n in range(max(near - 1, 0), near + 2))))
    settled(page)
    assert page.locator(".row").count() < 100


def test_browser_prints_as_the_text_renderer_does(open_page):
    """The page prints its terms itself, from the table: every step's redex and
    contractum -- abbreviated at several lengths and whole, folded and not, in both
    spellings -- and its context are exactly what ``text.bounded`` and
    ``text.context_around`` print in Python."""
    traces = {"sin": pc.jacobian_row("λx. " + "sin(" * 30 + "x" + ")" * 30, [0.7], 0).trace,
              "running": pc.jacobian_row(F, [1.5, 2], 0).trace,
              "premises": pc.reduce("Ω(λ⟨a, l⟩. l (λx. λacc. a × x + acc) 0) (λz. λw. w) "
                                    "⟨2, λc. λn. c 1 (c 2 (c 3 n))⟩ ⟨1, λc. λn. n⟩").trace,
              "precedence": pc.reduce("(λx. x - (x - 1) × (2 - x) - (x - 3) ^ 2 ^ x) 2").trace}
    for name, trace in traces.items():
        steps = steps_in_page_order(trace)
        for unicode in (True, False):
            page, _ = open_page(trace_to_html(trace, unicode=unicode), f"{name}-{unicode}")
            doc = trace_data(trace, unicode=unicode)
            ks = [row[4] for row in doc["S"]] + [row[5] for row in doc["S"]]
            terms = [s.redex for s in steps] + [s.contractum for s in steps]
            for limit in (160, 40, None):
                for fold in (True, False):
                    got = page.evaluate("([ks, l, f]) => ks.map(k => "
                                        "window.pcStepper.bounded(k, l, f))", [ks, limit, fold])
                    with folding_env(fold):
                        want = [bounded(t, unicode, limit)[0] for t in terms]
                    assert got == want, (name, unicode, limit, fold)
            got = page.evaluate("(n) => Array.from({length: n}, "
                                "(_, i) => window.pcStepper.context(i))", len(steps))
            with folding_env(True):
                want = [list(context_around(s, unicode, frames=3)) for s in steps]
            assert got == want, (name, unicode)


def test_browser_shows_whole_terms_on_demand(open_page):
    r = pc.jacobian_row("λx. " + "sin(" * 40 + "x" + ")" * 40, [0.7], 0)
    i, step = next((i, s) for i, s in enumerate(r.trace) if len(pc.pretty(s.redex)) > 400)
    page, _ = open_page(trace_to_html(r.trace, fold=False))
    page.fill("#goto", str(i))
    page.press("#goto", "Enter")
    at(page, step.index)
    expect(page.locator("#redex")).to_have_text(bounded(step.redex, True, 160)[0])
    page.check("#whole")
    expect(page.locator("#redex")).to_have_text(pc.pretty(step.redex))
    expect(page.locator("#contractum")).to_have_text(pc.pretty(step.contractum))
    page.uncheck("#whole")
    expect(page.locator("#redex")).to_have_text(bounded(step.redex, True, 160)[0])


def test_browser_whole_terms_show_the_whole_term_around_the_redex(open_page):
    """With "whole terms", the context is every frame with its siblings whole: the text
    before and after is the whole term before and after the step, for every step."""
    for trace in (pc.jacobian_row(F, [1.5, 2], 0).trace,
                  pc.reduce("(λx. x - (x - 1) × (2 - x) - (x - 3) ^ 2 ^ x) 2").trace,
                  pc.reduce(PREMISE).trace):
        steps = steps_in_page_order(trace)
        page, _ = open_page(trace_to_html(trace, fold=False))
        doc = trace_data(trace, fold=False)
        for after in (False, True):
            got = page.evaluate("([n, a]) => Array.from({length: n}, "
                                "(_, i) => window.pcStepper.context(i, true, a))",
                                [len(steps), after])
            for (left, right, more), row, s in zip(got, doc["S"], steps):
                assert not more
                if after:
                    assert left + whole(doc, row[5]) + right == pc.pretty(s.term_after())
                else:
                    assert left + whole(doc, row[4]) + right == pc.pretty(s.term_before())
    page.check("#whole")
    expect(page.locator("#before")).to_have_text(pc.pretty(steps[0].term_before()),
                                                 use_inner_text=True)


def test_browser_steps_inside_a_notebook_iframe(browser, tmp_path, running):
    """In Jupyter the stepper is a sandboxed srcdoc iframe, which has no URL of its own:
    stepping must not fail on the permalink, and the list and buttons follow."""
    path = tmp_path / "notebook.html"
    path.write_text("<!DOCTYPE html><html><body>" + result_repr_html(running) +
                    "</body></html>", encoding="utf-8")
    page = browser.new_page(viewport={"width": 1280, "height": 760})
    errors: list = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    try:
        page.goto(path.as_uri())
        frame = page.frame_locator("iframe")
        expect(frame.locator("#pos")).to_have_text(starts("step 0 "))
        frame.locator("#next").click()
        expect(frame.locator("#pos")).to_have_text(starts("step 1 "))
        expect(frame.locator(".row.current .i")).to_have_text("1")
        expect(frame.locator("#prev")).to_be_enabled()
        assert errors == []
    finally:
        page.close()


def test_the_table_holds_unfolded_pieces_whatever_the_folding_mode():
    """The page folds; the table's nodes and frames are the same whether or not the
    caller prints folded when it builds them."""
    from pullback_calc.rendering.table import TermTable
    trace = pc.jacobian_row("λx. " + "sin(" * 12 + "x" + ")" * 12, [0.7], 0).trace
    tables = []
    for fold in (False, True):
        t = TermTable()
        with folding_env(fold):
            for s in trace:
                t.node(s.redex), t.node(s.contractum), t.frame(s.ctx)
        tables.append((t.N, t.F))
    assert tables[0] == tables[1] and any(f and f[5] for f in tables[0][1])
