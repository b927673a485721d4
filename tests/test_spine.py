"""Rule 8's check that a pullback's let spine binds no name twice
(reduction/spine.py): the answer is the plain walk's, and a check of a map
rebuilt at its top reads the new lets, not the spine (issue 30: church-map)."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pullback_calc.reduction import spine
from pullback_calc.syntax.terms import SPINE, App, Lam, Num, Tuple, Var, is_let, pattern_vars


def _let(name: str, body):
    return App(Lam(Var(name), body), Num(1.0))


def _series(names: list[str]):
    t = Var(names[-1]) if names else Num(0.0)
    for n in reversed(names):
        t = _let(n, t)
    return t


def _plain(lam: Lam) -> bool:
    seen = set(pattern_vars(lam.pat))
    t = lam.body
    while is_let(t):
        vs = pattern_vars(t.fun.pat)
        if any(v in seen for v in vs):
            return False
        seen.update(vs)
        t = t.fun.body
    return True


def _check(lam: Lam) -> Lam:
    """ensure_spine_unique on a fresh λ (no flag), its answer against the plain walk."""
    lam = Lam(lam.pat, lam.body)
    known = spine.spine_unique(Lam(lam.pat, lam.body))
    expected = _plain(lam)
    assert known in (None, expected)
    out = spine.ensure_spine_unique(lam)
    assert out._flags & SPINE and _plain(out)
    assert (out is lam) == expected
    return out


NAMES = st.sampled_from("abcdefgh")


@given(st.lists(NAMES, min_size=1, max_size=12),
       st.lists(st.tuples(st.sampled_from(["push", "peel", "swap", "bind"]), NAMES),
                max_size=30))
def test_the_check_answers_as_the_plain_walk_through_rebuilds(names, ops):
    """Rule 8 moves the first binder into the pattern (peel); 8c and the A-rules
    put new lets on top (push) or rebuild the first (swap); another λ over the
    same series may extend the pattern with any name (bind): after each, the
    check over what earlier checks kept must agree with a walk of everything."""
    lam = _check(Lam(Var("p"), _series(sorted(set(names)))))
    for op, name in ops:
        body = lam.body
        if op == "peel" and is_let(body):
            lam = Lam(Tuple((lam.pat, body.fun.pat)), body.fun.body)
        elif op == "push":
            lam = Lam(lam.pat, _let(name, body))
        elif op == "swap" and is_let(body):
            lam = Lam(lam.pat, _let(name, body.fun.body))
        elif op == "bind":
            lam = Lam(Tuple((lam.pat, Var(name))), body)
        lam = _check(lam)


def test_a_check_after_a_rebuild_reads_the_new_lets_only(monkeypatch):
    tail = _series([f"x{i}" for i in range(2000)])
    read = [0]
    real = spine.pattern_vars

    def counted(p):
        read[0] += 1
        return real(p)
    monkeypatch.setattr(spine, "pattern_vars", counted)
    spine.ensure_spine_unique(Lam(Var("p"), tail))          # the first: a plain walk
    spine.ensure_spine_unique(Lam(Var("p"), _let("a", tail)))  # the second keeps facts
    read[0] = 0
    pat = Tuple((Var("p"), Var("a")))  # (rule 8 moved a into the pattern)
    for k in range(20):  # (8c and the A-rules rebuilt the top: new lets on the tail)
        lam = Lam(pat, _let(f"b{k}", tail))
        assert spine.ensure_spine_unique(lam) is lam
    assert read[0] <= 20 * 4, read[0]
    clash = Lam(pat, _let("x1999", tail))  # a new let binding a name of the tail
    assert spine.ensure_spine_unique(clash) is not clash
    assert spine.spine_unique(Lam(Tuple((pat, Var("x7"))), tail)) is False  # one of p's
