"""Every example in the documentation (docs/**/*.md) and the README runs here (issue 28).

Conventions the pages follow (docs/how-to/develop.md, "Writing documentation", says
the same for authors):

- A ```` ```python ```` block runs; if it starts with ``>>>`` it is a doctest, and
  what it shows is compared with what the code prints (``…`` or ``...`` is
  ``ELLIPSIS``). A page's blocks share one namespace, in order.
- A ```` ```sh ```` block holds commands to copy, one a line: each must run (status 0).
- A ```` ```console ```` block is a terminal session: each ``$ command`` runs and what
  follows it, up to the next ``$``, is compared with its standard output and error
  (interleaved, as a terminal shows them). ``…`` stands for any text within a line, a
  line holding only ``…`` for any number of lines. The exit status must be 0, unless
  the expected output shows ``pullback-calc: error:`` (then it must not be 0), and
  ``$ echo $?`` prints it. A block of commands with no output at all checks the
  status only.
- ``<!-- figures: $ COMMAND -->`` (or ``<!-- figures: >>> EXPRESSION -->``) before a
  paragraph: every **bold** figure of that paragraph must occur in what the command
  prints (or in the expression's value). Prose quotes step counts only so: a
  ``N steps`` elsewhere in prose fails ``test_prose_step_counts_are_checked``.

How each command runs: ``pullback-calc`` (also ``.venv/bin/pullback-calc`` and
``python -m pullback_calc``) in-process through ``pullback_calc.cli.main``, the
documented entry point of the console script, in a temporary directory that holds the
repository's ``examples/``; ``python -m pytest …`` collects only (``--collect-only``:
the paths, options and profiles it names must exist; running the suites is the
rest of the test suite's job, and the long profiles' whole point is to take long);
``mkdocs build`` builds into a temporary directory; ``pdflatex`` runs if installed
(in CI it is); the set-up commands (``python3 -m venv``, ``pip install``, ``apt-get
install``, ``bash .ci/run``) are what CI itself runs, so the test checks that
``.ci/run`` runs them verbatim.
"""
from __future__ import annotations

import contextlib
import doctest
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

try:
    from sybil import Document, Region
    from sybil.parsers.markdown import CodeBlockParser, PythonCodeBlockParser
except ImportError:  # in CI the docs extra is installed, and these tests must run
    if os.environ.get("CI"):
        raise
    pytest.skip("the docs extra is not installed (pip install -e '.[test,browser,docs]')",
                allow_module_level=True)

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted((ROOT / "docs").rglob("*.md")) + [ROOT / "README.md"]
PROG = "pullback-calc"


def _page_id(p: Path) -> str:
    return p.relative_to(ROOT).as_posix()


# ---- comparing outputs ------------------------------------------------------------------------

_ELLIPSIS = ("…", "...")


def matches(expected: str, actual: str) -> bool:
    """Does ``actual`` show what ``expected`` shows (``…`` as above)?  Trailing blanks
    of each line and blank lines at either end do not count."""
    exp = [ln.rstrip() for ln in expected.strip("\n").split("\n")]
    act = [ln.rstrip() for ln in actual.strip("\n").split("\n")]
    return _match_lines(exp, act)


def _line_rx(line: str) -> re.Pattern:
    pieces = re.split(r"(…|\.\.\.)", line)
    return re.compile("".join(".*?" if p in _ELLIPSIS else re.escape(p) for p in pieces))


def _match_lines(exp: list, act: list) -> bool:
    """Line by line; a line of only ``…`` matches any number of lines (searched)."""
    memo: dict = {}

    def go(i: int, j: int) -> bool:
        key = (i, j)
        if key in memo:
            return memo[key]
        if i == len(exp):
            r = j == len(act)
        elif exp[i].strip() in _ELLIPSIS:
            r = any(go(i + 1, k) for k in range(j, len(act) + 1))
        else:
            r = j < len(act) and bool(_line_rx(exp[i]).fullmatch(act[j])) and go(i + 1, j + 1)
        memo[key] = r
        return r

    return go(0, 0)


# ---- running commands -------------------------------------------------------------------------

class Shell:
    """Runs the commands of one page, in its own directory; remembers the last status."""

    def __init__(self, cwd: Path):
        self.cwd = cwd
        self.status = 0

    def run(self, line: str) -> str:
        out = []
        for part in re.split(r"\s&&\s", line):
            text, self.status = self._one(part.strip())
            out.append(text)
            if self.status != 0:
                break
        return "".join(out)

    def _one(self, command: str) -> tuple[str, int]:
        if command == "echo $?":
            return f"{self.status}\n", 0
        words = shlex.split(command, comments=True)
        env = {}
        while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", words[0]):
            k, _, v = words.pop(0).partition("=")
            env[k] = v
        if not words:
            raise AssertionError(f"nothing to run in {command!r}")
        quiet = "2>/dev/null" in words  # standard error discarded
        words = [w for w in words if w != "2>/dev/null"]
        prog = words[0].removeprefix(".venv/bin/")
        args = words[1:]
        if prog in ("python", "python3") and args[:2] == ["-m", "pullback_calc"]:
            prog, args = PROG, args[2:]
        if prog == PROG:
            if args[:1] == ["graph"] and _draws(args) and not shutil.which("dot"):
                if os.environ.get("CI"):
                    pytest.fail("graphviz's dot is not installed: .ci/run installs it")
                pytest.skip("graphviz's dot is not installed")
            return self._cli(args, env, quiet)
        if prog in ("python", "python3") and args[:2] == ["-m", "pytest"]:
            return self._collect(args[2:], env)
        if prog == "mkdocs":
            return self._mkdocs(args)
        if prog == "pdflatex":
            return self._pdflatex(args)
        if prog in ("python", "python3") and args[:1] == ["-m"] and args[1].startswith(
                "pullback_calc."):
            return self._subprocess([sys.executable, *args], env)
        raise AssertionError(f"the documentation runs {command!r}, which this test does "
                             f"not know how to run: teach Shell._one")

    def _cli(self, args: list, env: dict, quiet: bool = False) -> tuple[str, int]:
        from pullback_calc.cli import main
        buf = io.StringIO()
        err = io.StringIO() if quiet else buf
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(err):
                status = main(args)
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        return buf.getvalue(), status

    def _subprocess(self, argv: list, env: dict, cwd=None) -> tuple[str, int]:
        p = subprocess.run(argv, cwd=cwd or self.cwd, env={**os.environ, **env},
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=900)
        return p.stdout, p.returncode

    def _collect(self, args: list, env: dict) -> tuple[str, int]:
        keep, skip = [], False
        for a in args:  # one process is enough to collect
            if skip:
                skip = False
            elif a == "-n":
                skip = True
            elif not a.startswith("-n"):
                keep.append(a)
        argv = [sys.executable, "-m", "pytest", *keep, "--collect-only", "-q",
                "-p", "no:cacheprovider"]
        out, status = self._subprocess(argv, env, cwd=ROOT)
        assert status == 0, f"pytest {' '.join(args)} does not collect:\n{out[-3000:]}"
        return "", 0

    def _mkdocs(self, args: list) -> tuple[str, int]:
        if args[:1] != ["build"]:
            raise AssertionError(f"mkdocs {' '.join(args)}: only 'build' can run in a test")
        exe = Path(sys.executable).with_name("mkdocs")
        out, status = self._subprocess(
            [str(exe), *args, "--site-dir", str(self.cwd / "site")], {}, cwd=ROOT)
        assert status == 0, out[-3000:]
        return "", 0

    def _pdflatex(self, args: list) -> tuple[str, int]:
        if not shutil.which("pdflatex"):
            if os.environ.get("CI"):
                pytest.fail("pdflatex is not installed: .ci/run installs it")
            pytest.skip("pdflatex is not installed")
        return self._subprocess(["pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                                 *args], {})


def _draws(args: list) -> bool:
    """Does this ``graph`` command need graphviz's dot (not DOT text)?"""
    out = next((args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-o", "--output")), "")
    fmt = next((args[i + 1] for i, a in enumerate(args[:-1]) if a == "--format"), "")
    return fmt not in ("", "dot") or (not fmt and out and not out.endswith((".dot", ".gv")))


# ---- the parsers --------------------------------------------------------------------------------

#: commands CI runs itself (.ci/run): the docs show them, the test checks .ci/run has them
SETUP = re.compile(r"^(python3 -m venv|\.venv/bin/pip install|(sudo )?apt-get|bash \.ci/run)")


def _ci_script() -> str:
    return (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def _check_setup(command: str) -> None:
    ci = _ci_script()
    if command.startswith(("apt-get", "sudo apt-get")):
        packages = [w for w in shlex.split(command) if not w.startswith("-")][2:]
        if command.startswith("sudo"):
            packages = packages[1:]
        for p in packages:
            assert p in ci, f"{command!r}: .ci/run does not install {p}"
    elif command.startswith("bash .ci/run"):
        assert (ROOT / ".ci" / "run").exists()
    else:
        for part in re.split(r"\s&&\s", command):
            assert part.strip() in ci, f"{part.strip()!r} is not what .ci/run runs"


def _sessions(source: str) -> list:
    """[(command, expected output or None)] of a console block."""
    items, cmd, out = [], None, []
    lines = source.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("$ "):
            if cmd is not None:
                items.append((cmd, "\n".join(out)))
            cmd, out = line[2:], []
            while cmd.endswith("\\") and i + 1 < len(lines):  # continuation lines
                i += 1
                cmd = cmd[:-1] + " " + lines[i].strip()
        elif cmd is None:
            if line.strip():
                raise AssertionError(f"console block: output before any '$ ' command: {line!r}")
        else:
            out.append(line)
        i += 1
    if cmd is not None:
        items.append((cmd, "\n".join(out)))
    return items


def _evaluate_console(example) -> None:
    shell = example.namespace.setdefault("_shell", Shell(Path.cwd()))
    items = _sessions(str(example.parsed))
    outputs_shown = any(exp.strip() for _, exp in items)
    for cmd, expected in items:
        if SETUP.match(cmd):
            _check_setup(cmd)
            continue
        actual = shell.run(cmd)
        where = f"{example.path}, line {example.line}: $ {cmd}"
        if outputs_shown:
            assert matches(expected, actual), (
                f"{where}\n--- the page shows:\n{expected}\n--- the command prints:\n{actual}")
        if cmd != "echo $?":
            failing = f"{PROG}: error:" in expected
            if failing:
                assert shell.status != 0, f"{where}: the page shows an error, status 0"
            elif not any(c == "echo $?" for c, _ in items):
                assert shell.status == 0, (
                    f"{where}: exit status {shell.status}\n{actual[-2000:]}")


FIGURES = re.compile(r"<!--\s*figures:\s*(.*?)\s*-->\n((?:[^\n]+\n?)+)", re.S)
BOLD = re.compile(r"\*\*(.+?)\*\*", re.S)


def _norm(s: str) -> str:
    return " ".join(s.replace("`", "").split())


def _figures_parser(document):
    for m in FIGURES.finditer(document.text):
        yield Region(m.start(), m.end(), (m[1], m[2]), _evaluate_figures)


def _evaluate_figures(example) -> None:
    source, paragraph = example.parsed
    figures = [_norm(b) for b in BOLD.findall(paragraph)]
    assert figures, f"{example.path}, line {example.line}: no **figure** in the paragraph"
    if source.startswith("$ "):
        shell = example.namespace.setdefault("_shell", Shell(Path.cwd()))
        printed = shell.run(source[2:])
    elif source.startswith(">>> "):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            value = eval(source[4:], example.namespace)  # noqa: S307 - the page's own code
        printed = buf.getvalue() + "\n" + str(value) + "\n" + repr(value)
    else:
        raise AssertionError(f"figures: expected '$ command' or '>>> expression': {source!r}")
    text = _norm(printed)
    for f in figures:
        assert f in text, (f"{example.path}, line {example.line}: the page says **{f}**, "
                           f"but {source!r} prints:\n{printed[-3000:]}")


def _evaluate_sh(example) -> None:
    """A ```sh block: commands to copy, one a line, without output: each must run."""
    lines = [ln for ln in str(example.parsed).split("\n") if ln.strip()]

    class Commands:  # the block as a console session of commands only
        parsed = "\n".join("$ " + ln for ln in lines)
        namespace, path, line = example.namespace, example.path, example.line
    _evaluate_console(Commands)


PARSERS = [
    PythonCodeBlockParser(doctest_optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE),
    CodeBlockParser(language="console", evaluator=_evaluate_console),
    CodeBlockParser(language="sh", evaluator=_evaluate_sh),
    _figures_parser,
]


# ---- the tests ----------------------------------------------------------------------------------

@pytest.fixture
def page_dir(tmp_path, monkeypatch):
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_examples_run(page, page_dir):
    import pullback_calc as pc
    document = Document.parse(str(page), *PARSERS)
    with pc.primitive_scope():  # a page that registers symbols leaves none behind
        for example in document:
            example.evaluate()


def _prose(text: str) -> list:
    """(line, paragraph) of every paragraph outside fences, HTML comments and tables'
    code, with the figures directive that governs it (or None)."""
    text = re.sub(r"<!--(?!\s*figures:).*?-->", lambda m: "\n" * m[0].count("\n"), text,
                  flags=re.S)
    out, fence, para, start, directive, pending = [], None, [], 0, None, None
    for n, line in enumerate(text.split("\n"), 1):
        s = line.strip()
        if fence:
            if s.startswith(fence):
                fence = None
            continue
        if s.startswith(("```", "~~~")):
            fence = s[:3]
            continue
        m = re.match(r"<!--\s*figures:.*-->", s)
        if m:
            pending = s
            continue
        if not s:
            if para:
                out.append((start, "\n".join(para), directive))
                para, directive = [], None
            continue
        if not para:
            start, directive, pending = n, pending, None
        para.append(line)
    if para:
        out.append((start, "\n".join(para), directive))
    return out


#: a step count: "57 steps", "**57** steps", "a 43-step row" (not "rule 4 steps")
STEPS = re.compile(r"(?<!rule )(?<!rule-)\b\d[\d,]*(?:\*\*)?(?:\s|-)steps?\b")


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_prose_step_counts_are_checked(page):
    """A step count in prose has its number in bold, in a paragraph that a figures
    directive checks (step counts in code blocks are checked with their block)."""
    bad = []
    for line, para, directive in _prose(page.read_text(encoding="utf-8")):
        plain = re.sub(r"`[^`]*`", "", para)
        spans = [m.span() for m in BOLD.finditer(plain)] if directive else []
        for m in STEPS.finditer(plain):
            if not any(a <= m.start() < b for a, b in spans):
                bad.append(f"line {line}: {m[0]!r}")
    assert not bad, f"{_page_id(page)}: step counts no test checks: {bad}"


# ---- the harness itself --------------------------------------------------------------------------

def test_matching_of_outputs():
    assert matches("a\nb", "a\nb\n")
    assert not matches("a\nb", "a\nc")
    assert matches("row 0: […]    (43 steps)", "row 0: [1, 2]    (43 steps)")
    assert not matches("row 0: […]    (42 steps)", "row 0: [1, 2]    (43 steps)")
    assert matches("first\n…\nlast", "first\nx\ny\nlast")
    assert matches("first\n…\nlast", "first\nlast")
    assert not matches("first\n…\nlast", "first\nx\nlast but not")
    assert matches("J(λ…)·1", "J(λx. x …cc)·1")  # the printer's own … is matched too


def test_a_stale_figure_fails(page_dir, tmp_path):
    """The checks fail on a stale number, both in a console block and in prose."""
    page = tmp_path / "stale.md"
    page.write_text("```console\n$ pullback-calc jacobian examples/polar.pb --at 2,0.5\n"
                    "Jacobian at (2, 0.5), by reduction:\nrow 0: […]    (1 steps)\n…\n```\n",
                    encoding="utf-8")
    with pytest.raises(AssertionError, match="the page shows"):
        for example in Document.parse(str(page), *PARSERS):
            example.evaluate()
    page.write_text("<!-- figures: $ pullback-calc jacobian examples/polar.pb --at 2,0.5 -->\n"
                    "Each row takes **1 steps**.\n", encoding="utf-8")
    with pytest.raises(AssertionError, match=r"the page says \*\*1 steps\*\*"):
        for example in Document.parse(str(page), *PARSERS):
            example.evaluate()
