"""A term object outlives its reductions: the user reduces it again, at another
point, by another entry point, or in several threads at once.  What a reduction
caches on the nodes must not change what a later one computes.

Found by the user-program properties once the generator gave binders the
engine's own names (``dx2 = λa1. …``): the direction pattern cached on a pattern
node (``terms.direction_pattern``) held the names of the reduction that made
it, and a later reduction of the same object read ``dy`` where its own supply
called that direction ``ddy`` -- a wrong number, silently (-0.605 for -3.685
below), or an output tangent that is not a number.
"""
from concurrent.futures import ThreadPoolExecutor

import pytest

import pullback_calc as pc

PROGRAMS = [
    "λ⟨x, y⟩. let dy = λa. a × a in dy y × x",
    "λ⟨x1, x2⟩. let dx2 = λa1. ⟨a1 × a1, cos(a1)⟩ in let q = dx2 x2 in π1 q + π2 q",
    "λ⟨x, y⟩. let dx = λa. sin(a) × y in let ddx = λb. b × x in dx x + ddx y",
]
PT, DIR = [-0.7, -1.1], [-0.5, -2.0]


def fresh(src):
    return pc.parse(src)


@pytest.mark.parametrize("src", PROGRAMS)
def test_a_term_reduced_before_gives_the_same_jvp(src):
    want = pc.jvp(fresh(src), PT, DIR).tangent
    t = fresh(src)
    pc.grad(t, PT)
    assert pc.jvp(t, PT, DIR).tangent == want


@pytest.mark.parametrize("src", PROGRAMS)
def test_every_entry_point_after_every_other(src):
    """grad, jvp, vjp and hessian on one term object, in turn, equal to fresh parses."""
    t = fresh(src)
    calls = [lambda u: list(pc.grad(u, PT)), lambda u: pc.jvp(u, PT, DIR).tangent,
             lambda u: list(pc.vjp(u, PT)(1.0)), lambda u: [list(r) for r in pc.hessian(u, PT)]]
    want = [c(fresh(src)) for c in calls]
    for _ in range(2):
        assert [c(t) for c in calls] == want


def test_one_term_object_in_many_threads():
    """Eight threads share one term object, each reducing it by another entry point."""
    src = PROGRAMS[0]
    t = fresh(src)
    want_g, want_j = list(pc.grad(fresh(src), PT)), pc.jvp(fresh(src), PT, DIR).tangent

    def work(k):
        return ("g", list(pc.grad(t, PT))) if k % 2 else ("j", pc.jvp(t, PT, DIR).tangent)

    with ThreadPoolExecutor(8) as ex:
        got = list(ex.map(work, range(64)))
    assert all(v == (want_g if k == "g" else want_j) for k, v in got)
