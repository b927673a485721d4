"""Ships the repository's examples/ inside the wheel, as pullback_calc/examples/.

examples/ stays at the top of the repository (the README, the tests and the
gallery name its files there); only the built package gets a copy, so that
the gallery and `pullback_calc.examples_dir()` work from an installed wheel.
Everything else is in pyproject.toml.
"""
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithExamples(build_py):
    def run(self):
        super().run()
        src = Path(__file__).resolve().parent / "examples"
        dest = Path(self.build_lib) / "pullback_calc" / "examples"
        dest.mkdir(parents=True, exist_ok=True)
        for p in sorted(src.glob("*.pb")):
            self.copy_file(str(p), str(dest / p.name))


setup(cmdclass={"build_py": BuildWithExamples})
