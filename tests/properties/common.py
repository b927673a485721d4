"""Helpers shared by the property tests: comparing reals, reading values,
reducing with rule coverage, and setting aside the open engine bugs."""
import math

from hypothesis import event, note, reject

import pullback_calc as pc
from pullback_calc.syntax.terms import Num, Zero
from pullback_calc.testing import oracle
from pullback_calc.testing.coverage import reduce_recorded

import regressions

#: the step budget of every reduction (progress and termination within it)
MAX_STEPS = 50_000


def close(a: float, b: float, rel: float = 1e-9, abs_: float = 1e-9) -> bool:
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_)


def assert_close_lists(xs, ys, what: str, rel: float = 1e-9, abs_: float = 1e-9):
    assert len(xs) == len(ys) and all(close(a, b, rel, abs_) for a, b in zip(xs, ys)), \
        f"{what}: {xs} != {ys}"


def _as_list(v) -> list:
    return [float(x) for x in v] if isinstance(v, (list, tuple)) else [float(v)]


def oracle_verdict(got, want_of, rel: float = 1e-7, abs_: float = 1e-7) -> str:
    """"agrees" if ``got`` (a real or a list of them) is the oracle's ``want_of()``;
    else "ill-conditioned" if floating point does not determine it -- the oracle,
    run again with its rounding perturbed by one part in 10¹⁵ (three draws), moves
    beyond the tolerance itself -- else what differs.  (A second derivative near
    −257 of a chain of sin(a × a), fed to sin: half an ulp moves the value from
    −3.97 to 0.62, and the engine, computing the same reals in another order, gave
    0.63.)"""
    want = _as_list(want_of())
    have = _as_list(got)
    if len(have) == len(want) and all(close(a, b, rel, abs_) for a, b in zip(have, want)):
        return "agrees"
    for seed in range(3):
        with oracle.perturbed_rounding(1e-15, seed):
            moved = _as_list(want_of())
        if not all(close(a, b, rel, abs_) for a, b in zip(moved, want)):
            return "ill-conditioned"
    return f"{have} != the oracle's {want}"


def assert_oracle_agrees(got, want_of, what: str = "value", rel: float = 1e-7,
                         abs_: float = 1e-7) -> None:
    """The oracle's value, or the example rejected where rounding decides it."""
    verdict = oracle_verdict(got, want_of, rel, abs_)
    if verdict == "ill-conditioned":
        event("ill-conditioned: rounding moves the oracle's value")
        reject()
    assert verdict == "agrees", f"{what}: {verdict}"


def numeral(v):
    """The real a value of type ℝ stands for (𝟎 is 0), or None if it is not a numeral."""
    if isinstance(v, Zero):
        return 0.0
    return v.value if isinstance(v, Num) else None


def reject_known_bug(value) -> None:
    """Reject the example if the stuck ``value`` shows an open engine bug of
    ``regressions.KNOWN_ENGINE_BUGS``."""
    bug = regressions.known_engine_bug(value)
    if bug:
        event(f"known engine bug: {bug}")
        reject()


def reduce_noted(t, max_steps: int = MAX_STEPS):
    """Reduce t (recording its rule coverage), noting the term and its normal form."""
    note(f"term: {pc.pretty(t)}")
    r = reduce_recorded(t, max_steps)
    note(f"normal form: {pc.pretty(r.value)}")
    return r


def engine_real(t) -> float:
    """The numeral the closed term t : ℝ reduces to (stuck: a failure, unless
    it is an open engine bug, which rejects the example)."""
    v = reduce_noted(t).value
    x = numeral(v)
    if x is None:
        reject_known_bug(v)
    assert x is not None, f"stuck: {pc.pretty(v)}"
    return x


def oracle_real(t, env=None) -> float:
    """The oracle's value of a term of type ℝ (ZERO is 0)."""
    return float(oracle.evaluate(t, env))
