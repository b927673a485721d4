"""Build the browser playground: one static folder that runs pullback-calc itself
in the browser and loads nothing from the network.

    .venv/bin/python playground/build.py            # into build/playground/
    .venv/bin/python playground/serve.py            # then open http://127.0.0.1:8000/

What goes in (everything is fetched here, at build time, and nothing is committed):

- Pyodide (CPython compiled to WebAssembly) and Viz.js (Graphviz compiled to
  WebAssembly), from the npm packages pinned in playground/package-lock.json
  (``npm ci``, its cache under build/);
- the project's own wheel (``pip wheel .``), examples included;
- wheels of its dependencies for the browser's Python, by ``pip download``:
  pure-Python wheels only.  A dependency that ships only compiled wheels needs
  a pure-Python fallback, listed in FALLBACKS: ``immutables`` (persistent maps
  for large free-variable sets, syntax/fvsets.py) has its own pure-Python
  ``Map`` (immutables/map.py, imported by the package when its C extension is
  missing), so its wheel here is built from the sdist without the C code;
- the page itself (playground/site/).

A failure (no npm, no network, a dependency without a pure-Python wheel) is one
line on stderr and exit status 1; the folder is replaced only by a complete build.
"""
from __future__ import annotations

import argparse
import base64
import csv
import hashlib
import io
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from email.parser import Parser
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_OUT = ROOT / "build" / "playground"

#: Pyodide's files the page loads (the rest of the npm package is for Node.js)
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
                 "pyodide-lock.json")
#: dependencies without a pure-Python wheel: the package whose own pure-Python
#: code replaces the C extension in the browser (see the module docstring)
FALLBACKS = {"immutables": "immutables"}
#: wheels unpacked only when a command needs them (sympy: check and compare), so the
#: page is ready sooner
LAZY = {"sympy", "mpmath"}


class BuildError(Exception):
    pass


def source_digest() -> str:
    """A digest of everything the built folder is made from (the package, its
    examples, the page): tests compare it with the built folder's, so that a
    stale build is reported as such, not as a wrong answer."""
    h = hashlib.sha256()
    parts = [ROOT / "pyproject.toml", ROOT / "setup.py", HERE / "package-lock.json",
             HERE / "build.py"]
    for d, pattern in ((ROOT / "pullback_calc", "*"), (ROOT / "examples", "*.pb"),
                       (HERE / "site", "*")):
        parts += [p for p in d.rglob(pattern)
                  if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"]
    for p in sorted(parts):
        h.update(p.relative_to(ROOT).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def run(cmd: list, what: str, cwd: Path | None = None) -> str:
    print("+ " + " ".join(str(c) for c in cmd), file=sys.stderr, flush=True)
    try:
        p = subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True)
    except FileNotFoundError:
        raise BuildError(f"{what}: {cmd[0]} is not installed") from None
    if p.returncode != 0:
        tail = "\n".join((p.stderr or p.stdout).strip().splitlines()[-12:])
        raise BuildError(f"{what} failed (exit status {p.returncode}):\n{tail}")
    return p.stdout


# ---- npm: Pyodide and Viz.js ----------------------------------------------------------

def npm_packages(work: Path) -> Path:
    """``npm ci`` of playground/package-lock.json in ``work``; its node_modules."""
    work.mkdir(parents=True, exist_ok=True)
    for f in ("package.json", "package-lock.json"):
        shutil.copy2(HERE / f, work / f)
    npm = shutil.which("npm")
    if npm is None:
        raise BuildError("npm is not installed (apt-get install npm): it fetches Pyodide and "
                         "Viz.js")
    run([npm, "ci", "--no-audit", "--no-fund", "--omit=peer", "--cache", work / ".npm-cache"],
        "npm ci (downloading Pyodide and Viz.js from the npm registry)", cwd=work)
    return work / "node_modules"


# ---- pip: the project's wheel and its dependencies' ---------------------------------------

#: what the project's wheel is built from (a copy: setuptools' build/ in the checkout
#: could carry stale modules into the wheel)
PROJECT_FILES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "LICENSE",
                 "pullback_calc", "examples")


def project_wheel(dest: Path, work: Path) -> Path:
    src = work / "project"
    for name in PROJECT_FILES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            src.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, src / name)
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", dest, src],
        "building the project's wheel (pip wheel)")
    (wheel,) = dest.glob("pullback_calc-*.whl")
    return wheel


def requirements(wheel: Path) -> list[str]:
    """The wheel's run-time requirements (Requires-Dist without an extra)."""
    with zipfile.ZipFile(wheel) as z:
        meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        msg = Parser().parsestr(z.read(meta).decode())
    return [r for r in msg.get_all("Requires-Dist", []) if "extra ==" not in r]


def _name(req: str) -> str:
    return re.match(r"[A-Za-z0-9._-]+", req)[0].lower().replace("_", "-")


def dependency_wheels(reqs: list[str], dest: Path, python: str) -> None:
    """Pure-Python wheels of ``reqs`` and what they need, for the browser's Python."""
    pure = [r for r in reqs if _name(r) not in FALLBACKS]
    major_minor = ".".join(python.split(".")[:2])
    run([sys.executable, "-m", "pip", "download", "-q", "--only-binary=:all:",
         "--platform", "any", "--implementation", "py", "--abi", "none",
         "--python-version", major_minor, "-d", dest, *pure],
        f"downloading pure-Python wheels of {', '.join(map(_name, pure))} (pip download; a "
        f"dependency with only compiled wheels needs an entry in FALLBACKS in "
        f"playground/build.py)")
    for r in reqs:
        if _name(r) in FALLBACKS:
            fallback_wheel(r, FALLBACKS[_name(r)], dest)


def fallback_wheel(req: str, package: str, dest: Path) -> Path:
    """A py3-none-any wheel of ``req``'s Python files, from its sdist: the C
    extension is left out, and the package's own pure-Python code stands in."""
    with tempfile.TemporaryDirectory() as tmp:
        run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary=:all:",
             "-d", tmp, req], f"downloading the source of {_name(req)} (pip download)")
        (sdist,) = Path(tmp).glob("*.tar.gz")
        with tarfile.open(sdist) as tar:
            members = {m.name: m for m in tar.getmembers() if m.isfile()}
            top = sdist.name[: -len(".tar.gz")]
            meta = tar.extractfile(members[f"{top}/PKG-INFO"]).read()
            files = {name[len(top) + 1:]: tar.extractfile(m).read()
                     for name, m in members.items()
                     if name.startswith(f"{top}/{package}/")
                     and not name.endswith((".c", ".h"))}
            licenses = {Path(n).name: tar.extractfile(m).read() for n, m in members.items()
                        if Path(n).parent.name == top and Path(n).name.startswith("LICENSE")}
    version = Parser().parsestr(meta.decode())["Version"]
    dist = f"{package}-{version}.dist-info"
    files[f"{dist}/METADATA"] = meta
    files[f"{dist}/WHEEL"] = (b"Wheel-Version: 1.0\nGenerator: pullback-calc playground/build.py"
                              b"\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    for name, data in licenses.items():
        files[f"{dist}/licenses/{name}"] = data
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    for name, data in sorted(files.items()):
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        writer.writerow([name, f"sha256={digest}", len(data)])
    writer.writerow([f"{dist}/RECORD", "", ""])
    files[f"{dist}/RECORD"] = record.getvalue().encode()
    out = dest / f"{package}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in sorted(files.items()):
            z.writestr(name, data)
    return out


def examples() -> list[dict]:
    """The examples menu: examples/*.pb read as the gallery reads them (its point is the
    ``--at`` its header mentions)."""
    sys.path.insert(0, str(ROOT))  # this checkout's package, whatever the venv holds
    from pullback_calc.cli.gallery import read_example
    return [{"name": e.name, "description": e.description, "source": e.source,
             "point": e.point}
            for e in map(read_example, sorted((ROOT / "examples").glob("*.pb")))]


# ---- the folder ----------------------------------------------------------------------------

def build(out: Path) -> dict:
    out = out.resolve()
    work = out.parent / (out.name + ".work")
    if work.exists():
        shutil.rmtree(work)
    stage = work / "site"
    (stage / "wheels").mkdir(parents=True)
    modules = npm_packages(work / "npm")
    (stage / "pyodide").mkdir()
    for f in PYODIDE_FILES:
        shutil.copy2(modules / "pyodide" / f, stage / "pyodide" / f)
    (stage / "viz").mkdir()
    shutil.copy2(modules / "@viz-js" / "viz" / "dist" / "viz-global.js", stage / "viz")
    lock = json.loads((modules / "pyodide" / "pyodide-lock.json").read_text())
    python = lock["info"]["python"]

    wheel = project_wheel(stage / "wheels", work)
    dependency_wheels(requirements(wheel), stage / "wheels", python)
    for f in (HERE / "site").iterdir():
        shutil.copy2(f, stage / f.name)

    def version(pkg: str) -> str:
        return json.loads((modules / pkg / "package.json").read_text())["version"]

    (stage / "examples.json").write_text(json.dumps(examples(), ensure_ascii=False))
    wheels = sorted(stage.glob("wheels/*.whl"))
    manifest = {
        "pyodide": version("pyodide"), "python": python, "viz": version("@viz-js/viz"),
        "source_digest": source_digest(),
        "wheels": [{"file": w.name, "name": _name(w.name.split("-")[0]),
                    "lazy": _name(w.name.split("-")[0]) in LAZY} for w in wheels],
        "fallbacks": sorted(FALLBACKS),
    }
    (stage / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    if out.exists():
        shutil.rmtree(out)
    stage.rename(out)
    shutil.rmtree(work)
    return manifest


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="playground/build.py", description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT,
                    help=f"the folder to build (default {DEFAULT_OUT.relative_to(ROOT)})")
    args = ap.parse_args(argv)
    try:
        m = build(args.out)
    except BuildError as e:
        shutil.rmtree(args.out.resolve().parent / (args.out.name + ".work"), ignore_errors=True)
        print(f"playground/build.py: error: {e}", file=sys.stderr)
        return 1
    size = sum(p.stat().st_size for p in args.out.rglob("*") if p.is_file())
    print(f"built {args.out} ({size / 2**20:.1f} MB): Pyodide {m['pyodide']} (Python "
          f"{m['python']}), Viz.js {m['viz']}, {len(m['wheels'])} wheels; serve it with "
          f"`python3 playground/serve.py`")
    return 0


if __name__ == "__main__":
    sys.exit(main())
