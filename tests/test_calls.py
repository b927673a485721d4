"""Rule 8c's call analysis keeps, on a tail abstraction walked without reading the
helpers in scope, the names its body only calls (reduction/calls.py): a Church
list's nested cells are then walked once, not once per cell (issue 30).  What it
keeps must hold whatever the helpers; an answer that read them is not kept."""
from __future__ import annotations

import immutables

import pullback_calc as pc
from pullback_calc.reduction import calls


def test_an_answer_that_read_the_helpers_is_not_kept():
    # h calls its parameter, so (λt. x t) passed to h is a call of x -- with h known
    h = calls.Helper(pc.parse("λf. λd. f d"), (), immutables.Map())
    cell = pc.parse("λd. h (λt. x t) d")
    assert calls._calls_in("x", cell, immutables.Map({"h": h}))
    assert cell._memo is None
    assert not calls._calls_in("x", cell, None)  # (without h: x is passed, not called)


def test_an_answer_that_read_no_helper_is_kept_and_not_walked_again(monkeypatch):
    cells = pc.parse("λd. x 1 ((let x = x in λd. x 2 ((let x = x in λd. x 3 d) d)) d)")
    assert calls._calls_in("x", cells, None)
    assert cells._memo == frozenset({"x"})
    walked = []
    real = calls.pattern_vars
    monkeypatch.setattr(calls, "pattern_vars", lambda p: walked.append(p) or real(p))
    assert calls._calls_in("x", cells, immutables.Map({"h": None}))  # (whatever helpers)
    assert len(walked) == 1  # (the outer cell's binder: its body is not walked again)
    assert not calls._calls_in("x", pc.parse("λd. x (λd. x d)"), None)  # (passed: no call)


def test_a_let_in_a_helper_may_apply_the_helper_being_copied():
    """let p = λy. h y in Ω(p) ω (h a) 1 in g's body: p is only called (the pullback
    runs its body), and the let's abstraction applies h -- known code once h is
    copied to its calls (the thorough profile, 2026-11-29: 2,811 steps against 604
    with the helpers written in place, 622 now).  A function that is no helper, f,
    is still unknown there."""
    _copied_not_kept("let h = λb. sin(b) + x in let g = λa. (let p = λy. h y in "
                     "Ω(p) (λz. λw. w) (h a) 1) in let r = g 0.5 in r",
                     "let h = λb. sin(b) + x in let g = λa. (let p = λy. h y in "
                     "Ω(p) (λz. λw. w) (f (h a)) 1) in let r = g 0.5 in r")


def _copied_not_kept(copied: str, kept: str) -> None:
    """8c copies the first series' helper to its calls, and keeps the second's."""
    assert calls.inlined_at_calls(pc.parse(copied))
    assert not calls.inlined_at_calls(pc.parse(kept))


def test_an_argument_computed_for_a_partial_application_calls_what_it_calls():
    """h (E) in a helper's body, h a helper of two binders, is a partial application:
    a closure passed there may never run, but E, no value, is evaluated at the call all the
    same (call-by-value), and a call of q in it runs once (th63, 2026-12-01: the
    machine copied q where the decomposer's restatement kept it; the restatement
    was wrong)."""
    _copied_not_kept("let q = λb. x in let h = λa. λc. sin(q 1) in "
                     "let g = λm. (let r = h (let s = q 2 in s) in r m) in let y = g 3 in y",
                     "let q = λb. x in let h = λa. λc. sin(q 1) in "
                     "let g = λm. (let r = h (λs. q s) in r m) in let y = g 3 in y")


def test_a_call_in_the_map_of_a_pullback_applied_at_a_function_is_one():
    """Ω(λf. f (q a)) ω (λt. q t) D: the point is an abstraction that calls q (the
    pullback's rules apply it), and so does the map, whose body rule pb runs where
    the pullback is applied.  The map was walked as a bare abstraction, a use that
    is no call, and a helper so used stayed a coordinate (th62, 2026-12-01:
    29,547 steps for a row, 5,852 now, 5,687 with every helper written in place)."""
    src = ("let q = λb. sin(b) × x in let g = λa. Ω(λf. f (q a)) (λz. λw. w) (λt. q t) "
           "(λt. 1) in let r = g 0.5 in r")
    # (kept: the map returns a closure over q, which no rule applies there)
    _copied_not_kept(src, src.replace("Ω(λf. f (q a))", "Ω(λf. ⟨f, λs. q s⟩)")
                     .replace("(λz. λw. w)", "(λz. λw. 𝟎)"))


def test_a_call_in_a_list_that_a_fold_copied_to_its_call_calls_is_one():
    """``foldr g z l`` once 8c has copied foldr to its call is ``(let f = g in λz. λl.
    l f z) Z L``: the λs the series ends in take the arguments in turn, and a list L
    passed where its binder is called runs there, each call of q in it a call.  Only
    the one-argument case, ``(… in λl. B) A``, was read so, and a helper called in such
    a list (and in a function input's point) stayed a coordinate: th68 (2026-12-01),
    77,080 steps for a row against 46,961 with every helper written in place, 48,474
    now.  A list the fold returns as data is no call."""
    _copied_not_kept(
        "let q = λb. sin(b) × x in let h = λa. (let f = λe. λacc. e + acc in λz. λl. l f z) "
        "(cos(a)) (λf. λd. f (q 0.5) (f a d)) in let r = h 0.5 in r",
        "let q = λb. sin(b) × x in let h = λa. (let f = λe. λacc. e + acc in λz. λl. ⟨z, l⟩) "
        "(cos(a)) (λf. λd. f (q 0.5) (f a d)) in let r = h 0.5 in π1 r")


def test_a_named_point_of_a_named_pullback_that_calls_a_helper_is_a_call():
    """A-normal form names a pullback and the point it is applied at, ``let pb = Ω(S)
    ω in let fn = λt. q t in let app = pb fn in let r = app D``: rule pb applies the
    point where the map calls its variable (and the direction by 19a), as it does a
    point written in place, so fn's call of q is one.  Read as a use that is no call,
    fn, the helper q and those q calls stayed coordinates: th69 (2026-12-01), 8,846
    steps for a row against 5,501 with every helper written in place, 5,587 now.  A
    pullback applied to its point alone (its result returned) runs nothing, and q
    itself passed as the point is named again by A-name: both keep q."""
    src = ("let q = λb. sin(b) × x in let pb = Ω(λf. f (cos(x))) (λz. λw. w) in "
           "let fn = λt. q t in let app = pb fn in let r = app 1 in r")
    _copied_not_kept(src, src.replace("let r = app 1 in r", "app"))
    _copied_not_kept(src, src.replace("let app = pb fn", "let app = pb q"))
    # the direction, named as well
    _copied_not_kept(src.replace("let r = app 1", "let d = λt. q t in let r = app d"),
                     src.replace("let r = app 1", "let d = λt. q t in let r = ⟨app, d⟩"))
