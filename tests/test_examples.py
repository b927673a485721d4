"""The bundled examples: each parses, type-checks and computes what its
header says; the first-order ones agree with sympy at their points."""
import math
import re
from pathlib import Path

import pytest

import pullback_calc as pc
from pullback_calc.cli import DEMO_POINT, DEMO_SOURCE, parse_point

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
FILES = sorted(EXAMPLES.glob("*.pb"))
NAMES = [f.name for f in FILES]


def text(name: str) -> str:
    return (EXAMPLES / name).read_text(encoding="utf-8")


def points(name: str) -> list:
    """The points of the `--at` commands in an example's header."""
    return [parse_point(m) for m in re.findall(r"--at[ =](\S+)", text(name))]


FIRST_ORDER = [n for n in NAMES if points(n)]


def test_the_examples_are_there():
    assert {"running_example.pb", "church_sum.pb"} <= set(NAMES)
    assert len(FIRST_ORDER) >= 5


@pytest.mark.parametrize("name", NAMES)
def test_header_comment_says_what_and_how(name):
    lines = text(name).splitlines()
    assert lines[0].startswith("# ")
    header = "\n".join(l for l in lines if l.startswith("#"))
    assert "pullback-calc " in header  # how to run it


@pytest.mark.parametrize("name", NAMES)
def test_parses_and_typechecks(name):
    t = pc.parse(text(name))
    pc.typecheck(t)
    assert pc.parse(pc.pretty(t)) == t


@pytest.mark.parametrize("name", FIRST_ORDER)
def test_first_order_examples_agree_with_sympy(name):
    from pullback_calc.results.sympy_bridge import sympy_jacobian
    f = pc.parse(text(name))
    for pt in points(name):
        ours = pc.jacobian(f, pt)
        theirs = sympy_jacobian(f, pt)
        assert len(ours) == len(theirs)
        for a_row, b_row in zip(ours, theirs):
            assert len(a_row) == len(b_row) == len(pt)
            for a, b in zip(a_row, b_row):
                assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12), (name, pt, ours, theirs)


def test_running_example_jacobian():
    assert pc.jacobian(text("running_example.pb"), [1.5, 2]) == [[420.0, 350.0]]


def test_running_example_is_the_demo():
    assert text("running_example.pb") == DEMO_SOURCE
    assert tuple(points("running_example.pb")[0]) == DEMO_POINT


def test_church_sum_is_60():
    r = pc.reduce(text("church_sum.pb"))
    assert r.value == pc.parse("60")


def test_church_sum_without_tangent_is_the_covector():
    r = pc.reduce(text("church_sum_covector.pb"))
    assert pc.pretty(r.value) == "λdl. dl (λx. λacc. x + acc) 0"
    assert str(pc.typecheck(pc.parse(text("church_sum_covector.pb")))).endswith("⋆")


def test_documented_values():
    """Values quoted in the headers."""
    assert pc.jacobian(text("sum_of_products.pb"), [1, 2, 3, 4]) == [[6.0, 4.0, 6.0, 4.0]]
    (a, b), (c, d) = pc.jacobian(text("polar.pb"), [2, 0.5])
    assert [round(v, 4) for v in (a, b, c, d)] == [0.8776, -0.9589, 0.4794, 1.7552]
