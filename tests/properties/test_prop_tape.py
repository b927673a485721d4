"""The tape (``pc.tape``, ``pullback-calc tape``) shows what the reduction computed:
every adjoint it prints for an entry is the derivative of the output along a
perturbation of that entry.

The check is independent of the reduction: the program's let series is rebuilt
with ``E + ε`` in place of the entry's ``E`` and its derivative in ε at 0 is taken
by the forward-mode oracle.  Programs are drawn first-order, and half of them get
copies ``let b = a in …`` of their intermediates (rule 8c substitutes a copy: it
is no stage of the reduction).  The tape used to count every let as a stage, so
after a copy it printed each later entry's adjoint against the entry before it
(``sin_1``'s adjoint as the copy's, and none for ``sin_1``).
"""
from hypothesis import assume, given, note
from hypothesis import strategies as st

import pullback_calc as pc
from pullback_calc.semantics import oracle
from pullback_calc.syntax.subst import subst
from pullback_calc.syntax.terms import App, Lam, Num, Prim, Var
from pullback_calc.syntax.types import Prod, R
from pullback_calc.testing import strategies as S

from common import assert_close_lists

PROGRAMS = st.integers(1, 3).flatmap(
    lambda n: st.tuples(S.first_order_functions(n, 1, budget=15),
                        S.points(R if n == 1 else Prod((R,) * n))))


def _flat(point) -> list:
    if isinstance(point, Num):
        return [point.value]
    return [v for it in point.items for v in _flat(it)]


def _series(t) -> list:
    """[(pattern, E)] of the tape's entries."""
    return [(pc.parse(e.name), e.term) for e in t.entries]


def _rebuild(pat, lets, result):
    body = result
    for q, E in reversed(lets):
        body = App(Lam(q, body), E)
    return Lam(pat, body)


def _with_copies(f, draw_positions):
    """f's let series with ``let c = x in …`` after some lets x, later uses renamed."""
    t = pc.tape(f)
    lets, result = _series(t), pc.parse(t.output)
    out, ren, k = [], {}, 0
    for i, (q, E) in enumerate(lets):
        E = subst(E, ren)
        out.append((q, E))
        if isinstance(q, Var) and i in draw_positions:
            k += 1
            c = Var(f"copy{k}")
            out.append((c, q))
            ren[q.name] = c
    return _rebuild(f.pat, out, subst(result, ren))


@given(PROGRAMS, st.sets(st.integers(0, 8), max_size=3))
def test_every_adjoint_the_tape_shows_is_the_derivative_along_its_entry(fp, copies):
    f, pt = fp
    point = _flat(pt)
    if copies:
        f = _with_copies(f, copies)
    note(pc.pretty(f))
    try:
        t = pc.tape(f, at=point)
    except pc.PullbackCalcError:
        assume(False)  # (outside the domain: no tape)
    lets, result = _series(t), pc.parse(t.output)
    checked = 0
    for i, e in enumerate(t.entries):
        q = lets[i][0]
        if not (isinstance(q, Var) and isinstance(e.adjoint, Num) and isinstance(e.value, Num)):
            continue
        eps = Var("eps_")
        moved = lets[:i] + [(q, Prim("add", (lets[i][1], eps)))] + lets[i + 1:]
        g = Lam(eps, App(_rebuild(f.pat, moved, result), pt))
        want = oracle.jacobian_by_oracle(g, [0.0])[0][0]
        assert_close_lists([e.adjoint.value], [want], f"the adjoint of {e.name}")
        checked += 1
    note(f"{checked} adjoints checked")
