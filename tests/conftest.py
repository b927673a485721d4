"""Test-suite configuration: Hypothesis profiles, the rule-coverage report, mutants.

Profiles (tests/properties): ``ci`` (the default, bounded in time) and
``thorough`` (long runs, failures kept in the local example database);
choose with ``--hypothesis-profile=thorough`` or the environment variable
``PULLBACK_CALC_PROFILE=thorough``.  ``ci`` is derandomized: every run draws
the same examples (seeded from each test's name), so a red CI always means a
change broke something, never an unlucky draw.  ``thorough`` stays random and
keeps its failures in ``.hypothesis/``; a counterexample it finds is added as
an explicit ``@example`` (the lists in tests/properties/regressions.py), so
that ``ci`` checks it on every run from then on.  ``--rule-coverage``
prints, at the end of the session, how often each rule fired in the
reductions the property tests ran.  ``PULLBACK_CALC_MUTANT=NAME`` runs
everything with a deliberately broken rule (``python -m
pullback_calc.testing.mutants`` lists them).
"""
import os
import shutil

import pytest
from hypothesis import HealthCheck, Phase, settings

from pullback_calc.testing.mutants import install_from_environment

_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
settings.register_profile("ci", max_examples=40, deadline=None, database=None,
                          derandomize=True, suppress_health_check=_QUIET, print_blob=True)
# "kill": ci without shrinking -- for runs that only ask whether a property
# fails (a mutant is caught), not for the smallest counterexample
settings.register_profile("kill", settings.get_profile("ci"),
                          phases=[Phase.explicit, Phase.reuse, Phase.generate])
settings.register_profile("thorough", max_examples=1000, deadline=None,
                          suppress_health_check=_QUIET, print_blob=True)
settings.load_profile(os.environ.get("PULLBACK_CALC_PROFILE", "ci"))
install_from_environment()


def pytest_addoption(parser):
    parser.addoption("--rule-coverage", action="store_true", default=False,
                     help="print the rule coverage of the property tests' reductions")


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if config.getoption("--rule-coverage"):
        from pullback_calc.testing.coverage import SESSION
        terminalreporter.write_sep("=", "rule coverage (tests/properties)")
        terminalreporter.write_line(SESSION.table())


# ---- a browser for the pages' tests (test_rendering_html.py, test_rendering_explorer.py) ----

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def browser():
    """Debian's chromium driven by Playwright (which downloads no browser); the tests
    using it skip without either, except in CI (.ci/run installs both)."""
    missing = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing = "playwright is not installed (pip install -e '.[test,browser]')"
    if missing is None and not shutil.which("chromium") and not os.path.exists(CHROMIUM):
        missing = "chromium is not installed (apt-get install chromium)"
    if missing:
        if os.environ.get("CI"):
            pytest.fail(missing + ": .ci/run installs it")
        pytest.skip(missing)
    exe = CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def open_in(browser):
    """``open_in(path, ready)`` -> (page, errors): the file ``path`` opened in a new
    page, once the script says it is ``ready`` (a JS expression); ``errors`` collects
    script errors and any request off the page (it must load nothing)."""
    def load(path, ready: str, width: int = 1280, height: int = 760):
        page = browser.new_page(viewport={"width": width, "height": height})
        errors: list = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("request", lambda r: errors.append("request " + r.url)
                if not r.url.startswith(("file:", "data:", "about:")) else None)
        page.goto(path.as_uri())
        page.wait_for_function(f"() => {ready}")
        return page, errors
    return load
