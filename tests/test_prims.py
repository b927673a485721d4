"""Rules are data: every function symbol has an entry in every table."""

import pytest

import pullback_calc as pc
from pullback_calc.results.sympy_bridge import SYMPY
from pullback_calc.syntax import prims


@pytest.mark.parametrize("table", sorted(prims.TABLES) + ["SYMPY"])
def test_every_symbol_is_in_every_table(table):
    t = SYMPY if table == "SYMPY" else prims.TABLES[table]
    assert set(t) == set(prims.PRIMS)


POINTS = {2: (1.3, 0.7), 1: (0.6,)}


@pytest.mark.parametrize("op", prims.PRIMS)
def test_partials_agree_with_central_differences(op):
    args = POINTS[prims.ARITY[op]]
    f = prims.EVAL[op]
    parts = prims.PARTIALS[op](*(pc.parse(repr(a)) for a in args))
    for i, d in enumerate(parts):
        h = 1e-6
        up = list(args)
        up[i] += h
        dn = list(args)
        dn[i] -= h
        fd = (f(*up) - f(*dn)) / (2 * h)
        exact = 1.0 if d is None else pc.reduce(d).value.value
        assert exact == pytest.approx(fd, rel=1e-6, abs=1e-8), (op, i)


@pytest.mark.parametrize("op", prims.PRIMS)
def test_rule_15_differentiates_every_symbol(op):
    n = prims.ARITY[op]
    names = ["a", "b"][:n]
    args = POINTS[n]
    src = f"λ⟨{', '.join(names)}⟩. {op}({', '.join(names)})" if n > 1 else f"λa. {op}(a)"
    row = pc.jacobian_row(src, list(args), 0).row
    for i in range(n):
        h = 1e-6
        up = list(args)
        up[i] += h
        dn = list(args)
        dn[i] -= h
        assert row[i] == pytest.approx((prims.EVAL[op](*up) - prims.EVAL[op](*dn)) / (2 * h),
                                       rel=1e-6, abs=1e-8)


def test_registered_symbols_are_in_every_table_too():
    """A symbol registered at run time (registry.py) has an entry in every table,
    the oracle's and the strategies' included; unregistering removes them all."""
    from pullback_calc.registry import GENERATORS
    from pullback_calc.testing import oracle
    builtin = set(prims.PRIMS)
    with pc.extras.registered() as extra:
        assert set(extra) == set(pc.extras.NAMES)
        everything = builtin | set(extra)
        assert set(prims.PRIMS) == everything
        for table in [*prims.TABLES.values(), SYMPY, oracle.FLOATS, oracle.DERIVATIVES]:
            assert set(table) == everything
        assert set(GENERATORS) == set(extra)
    for table in [*prims.TABLES.values(), SYMPY, oracle.FLOATS, oracle.DERIVATIVES]:
        assert set(table) == builtin
    assert set(prims.PRIMS) == builtin and not GENERATORS
