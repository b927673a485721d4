"""The lint and type checks CI runs (issue 29), so that a plain ``pytest`` runs them too:
``ruff check`` on the repository and ``mypy pullback_calc`` (configured in
pyproject.toml), each through its command line, as CI and .pre-commit-config.yaml call
it.  Each check is first shown to find a planted fault, so a silent tool cannot pass.
Skipped, with the reason, where the tools are not installed (the ``test`` extra has them).
"""
import importlib.util
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tool(name: str):
    if importlib.util.find_spec(name) is None:
        pytest.skip(f"{name} is not installed (pip install -e '.[test]')")
    return [sys.executable, "-m", name]


def _run(args, cwd=ROOT):
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=600)


def test_ruff_finds_a_planted_fault(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n")
    r = _run(_tool("ruff") + ["check", "--config", str(ROOT / "pyproject.toml"), str(bad)])
    assert r.returncode == 1 and "F401" in r.stdout, r.stdout + r.stderr


def test_ruff_is_clean():
    r = _run(_tool("ruff") + ["check"])
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_sees_the_fields_of_each_term_class(tmp_path):
    """The term classes are written out, so mypy knows their fields: reading one a class
    lacks is an error (before, the classes were made by type() and exec, and mypy knew
    no field of any of them)."""
    bad = tmp_path / "uses_terms.py"
    bad.write_text("from pullback_calc.syntax.terms import Lam, Var\n"
                   "lam = Lam(Var('x'), Var('x'))\n"
                   "ok: str = lam.pat.name if isinstance(lam.pat, Var) else ''\n"
                   "wrong = Var('x').items\n")
    r = _run(_tool("mypy") + ["--config-file", str(ROOT / "pyproject.toml"), str(bad)])
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stdout.count("error:") == 1 and '"Var" has no attribute "items"' in r.stdout, \
        r.stdout


def test_mypy_is_clean():
    r = _run(_tool("mypy") + ["pullback_calc"])
    assert r.returncode == 0, r.stdout + r.stderr


def test_term_classes_are_written_out():
    """Their methods are in terms.py's source (a reader, a debugger and a compiler find
    them), not compiled from generated text."""
    from pullback_calc.syntax import terms
    for cls in terms.TERM_CLASSES:
        for name in ("__init__", "children", "_data", "_shape", "_own_hash"):
            fn = cls.__dict__[name]
            assert inspect.getsourcefile(fn) == terms.__file__, (cls, name)
        assert cls.__match_args__[-1] == "pos"
        assert set(cls.__match_args__) <= {s for k in cls.__mro__
                                           for s in getattr(k, "__slots__", ())}
