"""Honest packaging (issue 13 item 6): a version, a licence, py.typed, the examples
as package data of the wheel; the README's quick start names the system packages."""
import subprocess
import sys
import zipfile
from pathlib import Path

import pullback_calc as pc
from pullback_calc.cli import main

ROOT = Path(__file__).resolve().parent.parent


def test_version(capsys):
    assert pc.__version__ and pc.__version__[0].isdigit()
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"pullback-calc {pc.__version__}"


def test_licence_and_py_typed_exist():
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    assert (ROOT / "pullback_calc" / "py.typed").is_file()


def test_examples_dir_finds_the_examples():
    d = pc.examples_dir()
    assert (d / "running_example.pb").is_file()
    assert {p.name for p in d.glob("*.pb")} == {p.name for p in (ROOT / "examples").glob("*.pb")}


def test_the_wheel_ships_examples_license_and_py_typed(tmp_path):
    # built from a copy, so that setuptools' build/ and egg-info stay out of the checkout
    import shutil
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    for name in ("pullback_calc", "examples"):
        shutil.copytree(ROOT / name, src / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    out = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                          str(tmp_path), str(src)], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    (whl,) = tmp_path.glob("pullback_calc-*.whl")
    names = set(zipfile.ZipFile(whl).namelist())
    examples = {p.name for p in (ROOT / "examples").glob("*.pb")}
    assert {f"pullback_calc/examples/{n}" for n in examples} <= names
    assert "pullback_calc/py.typed" in names
    assert "pullback_calc/rendering/static/stepper.html" in names
    assert any(n.endswith("licenses/LICENSE") for n in names)
    assert f"pullback_calc-{pc.__version__}-py3-none-any.whl" == whl.name


def test_readme_quick_start_names_the_system_packages_and_ci_runs_it():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick = readme[readme.index("## Quick start"):readme.index("## What this is")]
    for pkg in ("graphviz", "chromium", "texlive-latex-base"):
        assert pkg in quick
    install = "python3 -m venv .venv && .venv/bin/pip install -e '.[test,browser,docs]'"
    assert install in quick
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "run .venv/bin/pip install -e '.[test,browser,docs]'" in ci
    test = ".venv/bin/python -m pytest -n auto\n"  # on every core (pytest-xdist)
    assert f"run {test}" in ci and test in quick
