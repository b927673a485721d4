"""Any argument a user may pass to the API's front door gets an answer or the project's
own error -- never another exception, never a silent reading of something else.

Drawn: points (numbers of every Python and NumPy kind, lists and tuples of them, text,
bytes, complex numbers, None, nested lists, non-finite reals), step budgets and time
budgets of every kind, and terms that are not terms.  (Found by hand: ``pc.grad(f,
"12")`` read the text as the point (1, 2); ``max_steps=-1`` reported a budget of -1
steps exhausted; ``timeout=0`` raised a bare ValueError; ``pc.reduce(b"1 + 2")`` an
internal AttributeError; ``np.float32(1.5)`` and ``Fraction(1, 3)`` were refused.)
"""
import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
from hypothesis import given, settings, strategies as st

import pullback_calc as pc

F1 = "λx. x × x + sin(x)"
F2 = "λ⟨x, y⟩. x × y + y"

REALS = st.one_of(
    st.integers(-5, 5), st.floats(-3, 3), st.booleans(),
    st.fractions(min_value=-3, max_value=3, max_denominator=9),
    st.decimals(min_value=-3, max_value=3, places=3),
    st.floats(-3, 3).map(np.float32), st.floats(-3, 3).map(np.float64),
    st.integers(-5, 5).map(np.int64), st.floats(-3, 3).map(np.array))  # (0-d array)
NOT_REALS = st.one_of(
    st.text(max_size=3), st.binary(max_size=3), st.complex_numbers(max_magnitude=3),
    st.none(), st.just([[1.0], [2.0]]), st.sampled_from([math.inf, -math.inf, math.nan]),
    st.just({1.0: 2.0}), st.just({1.5}), st.just(object()),
    # (beyond the floats, or no float at all: OverflowError, ValueError, TypeError)
    st.sampled_from([10 ** 400, -(10 ** 400)]),
    st.just(Fraction(10 ** 400)),
    st.sampled_from(["sNaN", "NaN", "1e999"]).map(Decimal),
    st.just(np.array(1j)))


def _is_real(v) -> bool:
    if isinstance(v, (str, bytes, complex, dict, list, set)) or v is None:
        return False
    try:
        return math.isfinite(float(v))
    except (TypeError, ValueError, OverflowError):
        return False


@settings(max_examples=150)
@given(st.one_of(REALS, NOT_REALS, st.lists(st.one_of(REALS, NOT_REALS), max_size=3),
                 st.tuples(REALS, REALS)))
def test_a_point_is_read_as_numbers_or_refused(point):
    coords = [point] if not isinstance(point, (list, tuple)) else list(point)
    single = not isinstance(point, (list, tuple))
    ok = all(_is_real(v) for v in coords) and len(coords) in (1, 2)
    f = F1 if len(coords) == 1 else F2
    try:
        g = pc.grad(f, point)
    except pc.PullbackCalcError:
        assert not ok or (single and len(coords) != 1), f"{point!r} refused"
        return
    assert ok, f"{point!r} was read as a point: {g}"
    xs = [float(v) for v in coords]
    want = [2 * xs[0] + math.cos(xs[0])] if len(xs) == 1 else [xs[1], xs[0] + 1]
    assert all(math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9) for a, b in zip(g, want))


BUDGETS = st.one_of(st.integers(-3, 3), st.floats(allow_nan=True), st.booleans(), st.none(),
                    st.text(max_size=2), st.just(10 ** 6), st.floats(0.01, 5).map(np.float32),
                    st.just(10 ** 400))


@settings(max_examples=120)
@given(max_steps=BUDGETS, timeout=BUDGETS, term=st.one_of(
    st.just("(λx. x × x) 3"), st.just(b"1 + 2"), st.integers(), st.none(),
    st.just(["1 + 2"])))
def test_budgets_and_terms_are_checked(max_steps, timeout, term):
    kw = {} if max_steps is None else {"max_steps": max_steps}
    try:
        r = pc.reduce(term, timeout=timeout, **kw)
    except pc.StepBudgetExceeded:  # (the term takes two steps)
        assert type(max_steps) in (int, bool) and max_steps < 2, max_steps
        return
    except pc.PullbackCalcError:
        steps_ok = max_steps is None or (type(max_steps) is int and max_steps >= 1)
        time_ok = timeout is None or (not isinstance(timeout, (bool, str)) and
                                      _is_real(timeout) and 0 < float(timeout) <= 10 ** 7)
        assert not (steps_ok and time_ok and isinstance(term, str)), \
            (max_steps, timeout, term)
        return
    assert isinstance(term, str) and r.value == pc.parse("9")
