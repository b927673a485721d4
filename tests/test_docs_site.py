"""The documentation site (issue 28): it builds with ``mkdocs build --strict``, the
generated pages say what the program is (every command and option, every rule), the
repository's own pages are part of it without copies, it opens from disk with nothing
fetched, and it lays out at a phone's width (in Chromium)."""
import html
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# without the docs extra this module skips (in CI it fails), as test_docs_examples does
import test_docs_examples  # noqa: E402,F401


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site") / "site"
    exe = Path(sys.executable).with_name("mkdocs")
    p = subprocess.run([str(exe), "build", "--strict", "--site-dir", str(out)], cwd=ROOT,
                       env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr[-4000:]
    return out


def text_of(page: Path) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")))


def test_the_cli_page_has_every_command_and_option(site):
    sys.path.insert(0, str(ROOT / "docs" / "_hooks"))
    import gen
    page = (site / "reference" / "cli.html").read_text(encoding="utf-8")
    for name, parser in gen.subcommands().items():
        assert f'id="{name}"' in page, name
        for action in parser._actions:
            if action.dest == "help":  # every command has --help: said once, at the top
                continue
            for option in action.option_strings:
                assert f"<code>{html.escape(option)}" in page, (name, option)


def test_the_rules_page_has_every_rule_typeset(site):
    from pullback_calc.reduction.rules import RULES
    from pullback_calc.reduction.typeset import TYPESET
    page = (site / "reference" / "rules.html").read_text(encoding="utf-8")
    for label in RULES:
        section = page.split(f'id="rule-{label}"', 1)[1].split('<h3 id="rule-', 1)[0]
        assert section.count("<math") == len(TYPESET[label].cases), label
        assert TYPESET[label].status in section, label
        # the link to the implementing function resolves to the API page's anchor
        assert re.search(r'href="api/rules\.html#pullback_calc\.(reduction\.rules|areduction\.'
                         r'anf)\.\w+"', section), label
        assert 'href="../papers/calculus.html#' in section, label


def test_the_repository_pages_are_included_not_copied(site):
    for rel in ("papers/calculus.md", "papers/engines.md", "papers/higher-order.md",
                "benchmarks/README.md"):
        assert not (ROOT / "docs" / rel).exists()
        built = site / (rel[:-3] + ".html") if not rel.endswith("README.md") else \
            site / "benchmarks" / "index.html"
        first = (ROOT / rel).read_text(encoding="utf-8").splitlines()[0].lstrip("# ")
        assert first in text_of(built), rel
    assert (site / "viz" / "running_example.trace.html").exists()
    assert (site / "examples" / "running_example.pb").exists()


def test_the_api_pages_come_from_the_docstrings(site):
    from pullback_calc.results.jacobian import jacobian_row
    page = text_of(site / "reference" / "api" / "results.html")
    first = " ".join(jacobian_row.__doc__.split("\n\n")[0].split())
    assert first[:60] in " ".join(page.split())


def test_the_site_fetches_nothing(site):
    """Opened from disk or served, no page loads anything from the network."""
    for page in site.rglob("*.html"):
        text = page.read_text(encoding="utf-8", errors="replace")
        loads = re.findall(r'<(?:script|link|img|iframe)[^>]+(?:src|href)="(https?:)?//', text)
        assert not loads, page


def test_the_readme_is_short():
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 150


# ---- in the browser ---------------------------------------------------------------------------

PAGES = ("index.html", "tutorial/running-example.html", "reference/rules.html",
         "reference/api/results.html", "gallery.html")


@pytest.mark.parametrize("width", [1280, 390], ids=["desktop", "phone"])
def test_pages_lay_out_at_desktop_and_phone_width(site, browser, width, tmp_path):
    """Each page renders without errors, its math is laid out by the browser, and at a
    phone's width nothing but code blocks and wide tables scrolls sideways."""
    page = browser.new_page(viewport={"width": width, "height": 900})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: errors.append("request " + r.url)
            if not r.url.startswith(("file:", "data:", "about:", "blob:")) else None)
    for rel in PAGES:
        page.goto((site / rel).as_uri())
        page.wait_for_load_state("load")
        overflow = page.evaluate("() => document.documentElement.scrollWidth - "
                                 "document.documentElement.clientWidth")
        assert overflow <= 1, (rel, width, overflow)
        heights = page.evaluate("() => [...document.querySelectorAll('math')]"
                                ".map(m => m.getBoundingClientRect().height)")
        if rel in ("tutorial/running-example.html", "reference/rules.html"):
            assert heights and min(h for h in heights if h) > 5, rel
        page.screenshot(path=str(tmp_path / (rel.replace("/", "_") + f".{width}.png")))
    page.close()
    assert errors == [], errors
