"""The layout of issue 13: the command line (``pullback_calc/cli/``) and the renderers
(``pullback_calc/rendering/``) do not know each other's insides, and no two packages
import each other.

Two checks: a static import graph of every module (function-local imports
included: they are real dependencies, only deferred), and importing each
rendering module in a fresh interpreter, which must not load the command line.
"""
import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "pullback_calc"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set:
    """Every pullback_calc module ``path`` imports, anywhere in it."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("pullback_calc"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod.startswith("pullback_calc"):
                out.add(mod)
                out.update(f"{mod}.{a.name}" for a in node.names)  # `from . import x`
    return out


def _unit(module: str) -> str:
    """The package a module belongs to: ``pullback_calc.cli``, ``…rendering``, … (a
    top-level module such as ``pullback_calc.budgets`` is its own unit)."""
    parts = module.split(".")
    return ".".join(parts[:2])


def _graph() -> dict:
    known = {_module_name(p) for p in PKG.rglob("*.py")}
    graph: dict = {}
    for p in PKG.rglob("*.py"):
        src = _unit(_module_name(p))
        for m in _imports(p):
            while m and m not in known:  # `from .x import name`: the module is x
                m = m.rpartition(".")[0]
            if m:
                dst = _unit(m)
                if dst != src and dst != "pullback_calc":
                    graph.setdefault(src, set()).add(dst)
    return graph


def _cycles(graph: dict) -> list:
    """The strongly connected components with more than one package (Tarjan, iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        x = stack.pop()
                        on.discard(x)
                        comp.append(x)
                        if x == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
            elif w not in index:
                index[w] = low[w] = len(index)
                stack.append(w)
                on.add(w)
                work.append((w, iter(sorted(graph.get(w, ())))))
            elif w in on:
                low[v] = min(low[v], index[w])
    return out


def test_nothing_but_the_entry_points_imports_the_command_line():
    users = sorted(_module_name(p) for p in PKG.rglob("*.py")
                   if not _module_name(p).startswith("pullback_calc.cli")
                   and any(_unit(m) == "pullback_calc.cli" for m in _imports(p)))
    assert users == ["pullback_calc.__main__"]


def test_the_renderers_and_the_command_line_are_in_no_import_cycle():
    graph = _graph()
    assert "pullback_calc.cli" not in graph.get("pullback_calc.rendering", set())
    cycles = [c for c in _cycles(graph)
              if "pullback_calc.cli" in c or "pullback_calc.rendering" in c]
    assert cycles == []


def test_the_cycle_finder_finds_cycles():  # the check above would catch one
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


RENDERING = sorted(p.stem for p in (PKG / "rendering").glob("*.py") if p.stem != "__init__")


@pytest.mark.parametrize("name", ["__init__", *RENDERING])
def test_importing_a_renderer_does_not_load_the_command_line(name):
    module = "pullback_calc.rendering" + ("" if name == "__init__" else f".{name}")
    probe = (f"import sys, {module}; "
             "bad = sorted(m for m in sys.modules if m.startswith('pullback_calc.cli')); "
             "print(bad); sys.exit(1 if bad else 0)")
    r = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


def test_the_command_line_package_is_quick_to_import():
    """``import pullback_calc.cli`` must not load the engine (main guards first)."""
    probe = ("import sys, pullback_calc.cli; "
             "heavy = [m for m in ('lark', 'sympy', 'pullback_calc.reduction.machine', "
             "'pullback_calc.rendering') if m in sys.modules]; print(heavy); "
             "sys.exit(1 if heavy else 0)")
    r = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


def test_one_module_per_subcommand():
    from pullback_calc.cli.options import DEFAULT_MAX_STEPS
    from pullback_calc.cli.parser import SUBCOMMANDS, build_parser
    from pullback_calc.reduction.machine import DEFAULT_MAX_STEPS as MACHINE
    assert DEFAULT_MAX_STEPS == MACHINE
    names = build_parser()._subparsers._group_actions[0].choices
    assert sorted(names) == sorted(m.__name__.rpartition(".")[2] for m in SUBCOMMANDS)
    from pullback_calc.cli.graph import FORMATS
    from pullback_calc.rendering.graph import FORMATS as RENDERED
    assert FORMATS == RENDERED
