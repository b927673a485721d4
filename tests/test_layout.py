"""The layout: the layers read top-down, no module imports itself round a cycle, and
private names stay inside their package.

The layers, lowest first: syntax → semantics (the oracle) → typing → areduction →
reduction → results → engines → api → rendering → cli.  A module of one may use a module of
an earlier one, directly or through the support modules (errors, budgets, deep, tracing, registry,
testing, …), never one of a later one.  Between modules -- within a package too --
there is no import cycle.  The command line (``pullback_calc/cli/``) and the renderers
(``pullback_calc/rendering/``) do not know each other's insides (issue 13), and a
name with a leading underscore is used only inside its own package (issue 29).

Checks: a static import graph of every module (function-local imports included:
they are real dependencies, only deferred), and importing each rendering module
in a fresh interpreter, which must not load the command line.
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


def _known() -> set:
    return {_module_name(p) for p in PKG.rglob("*.py")}


def _imports(path: Path, known: set = frozenset()) -> set:
    """Every pullback_calc module ``path`` imports, anywhere in it.  ``from pkg import
    name`` imports the module ``pkg.name`` when there is one (given ``known``), else
    ``pkg`` itself; a package's ``__init__`` that runs first is not counted."""
    return {m for m, _ in _imported_names(path, known)}


def _imported_names(path: Path, known: set = frozenset(), name: str = "") -> set:
    """``(module, name)`` for everything ``path`` (the module ``name``) imports
    (``name`` None for a whole module)."""
    name = name or _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update((a.name, None) for a in node.names if a.name.startswith("pullback_calc"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if not mod.startswith("pullback_calc"):
                continue
            for a in node.names:
                sub = f"{mod}.{a.name}"
                if sub in known or not known:  # `from . import x`: the module x
                    out.add((sub, None))
                if sub not in known:
                    out.add((mod, a.name))
    return out


def _unit(module: str) -> str:
    """The package a module belongs to: ``pullback_calc.cli``, ``…rendering``, … (a
    top-level module such as ``pullback_calc.budgets`` is its own unit)."""
    parts = module.split(".")
    return ".".join(parts[:2])


def _module_graph() -> dict:
    """module → the modules it imports (not itself; not the package ``pullback_calc``,
    whose ``__init__`` loads every layer on demand, by name, for the user)."""
    known = _known()
    graph: dict = {}
    for p in PKG.rglob("*.py"):
        src = _module_name(p)
        for m in _imports(p, known):
            while m and m not in known:  # `from .x import name`: the module is x
                m = m.rpartition(".")[0]
            if m and m != src and m != "pullback_calc":
                graph.setdefault(src, set()).add(m)
    return graph


def _graph() -> dict:
    """The same graph between packages (``_unit``)."""
    graph: dict = {}
    for src, dsts in _module_graph().items():
        for m in dsts:
            if _unit(m) != _unit(src):
                graph.setdefault(_unit(src), set()).add(_unit(m))
    return graph


def _cycles(graph: dict) -> list:
    """The strongly connected components with more than one node (Tarjan, iterative)."""
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
    from pullback_calc.cli.graph import GRAPHVIZ
    from pullback_calc.rendering.graph import FORMATS as RENDERED
    assert GRAPHVIZ == RENDERED


# ---- the layers, and no cycle between modules ------------------------------------------------

LAYERS = ("syntax", "semantics", "typing", "areduction", "reduction", "results", "engines",
          "api", "rendering", "cli")


def _layer(module: str):
    """The rank of the layer ``module`` is in (None: a support module, in no layer)."""
    parts = module.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else None


def test_no_module_is_in_an_import_cycle():
    """Within a package too: each module can be read knowing only what it imports."""
    assert _cycles(_module_graph()) == []


def test_the_layers_read_top_down():
    """No module reaches a module of a later layer, directly or through support
    modules (``registry`` imports the renderers: a results module must not import it)."""
    graph = _module_graph()
    upward = []
    for src in sorted(graph):
        rank = _layer(src)
        if rank is None:
            continue
        seen, todo = {src}, [src]
        while todo:
            for m in graph.get(todo.pop(), ()):
                if m in seen:
                    continue
                seen.add(m)
                if _layer(m) is not None and _layer(m) > rank:
                    upward.append(f"{src} -> … -> {m}")
                else:
                    todo.append(m)
    assert upward == []


def test_the_layer_checks_find_what_they_look_for():
    g = {"a.x": {"a.y"}, "a.y": {"a.x"}, "a.z": set()}
    assert _cycles(g) == [["a.x", "a.y"]]
    assert _layer("pullback_calc.results.jacobian") < _layer("pullback_calc.rendering.html")
    assert _layer("pullback_calc.api") > _layer("pullback_calc.engines.common")
    assert _layer("pullback_calc.budgets") is None


# ---- private names stay in their package ------------------------------------------------------

def _private_uses(path: Path, known: set, name: str = "") -> list:
    """``module.name`` for each private name of another package ``path`` (the module
    ``name``) uses: imported (``from m import _x``) or read off an imported module
    (``m._x``)."""
    name = name or _module_name(path)
    here = _unit(name)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules = {}  # a local name → the module it is bound to
    out = []
    imported = _imported_names(path, known, name)
    for mod, what in imported:
        if what is not None and what.startswith("_") and not what.startswith("__") \
                and _unit(mod) != here:
            out.append(f"{mod}.{what}")
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                for mod, what in imported:
                    if what is None and mod.rpartition(".")[2] == a.name.rpartition(".")[2]:
                        modules[a.asname or a.name] = mod
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            mod = modules.get(node.value.id)
            if mod is not None and node.attr.startswith("_") and not node.attr.startswith(
                    "__") and _unit(mod) != here:
                out.append(f"{mod}.{node.attr}")
    return sorted(set(out))


def test_no_private_name_crosses_a_package_border():
    """What another package needs is public (and documented) or lives where it is used."""
    known = _known()
    found = {_module_name(p): _private_uses(p, known) for p in sorted(PKG.rglob("*.py"))}
    assert {m: uses for m, uses in found.items() if uses} == {}


def test_the_private_name_check_sees_both_spellings(tmp_path):
    probe = tmp_path / "probe.py"  # read as if it were pullback_calc/cli/probe.py
    probe.write_text("from ..results import jacobian as J\nfrom ..syntax.printer import _Secret\n"
                     "from .options import _mine\nx = J._hidden\n", encoding="utf-8")
    assert _private_uses(probe, _known(), "pullback_calc.cli.probe") == [
        "pullback_calc.results.jacobian._hidden", "pullback_calc.syntax.printer._Secret"]
