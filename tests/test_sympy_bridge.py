"""The sympy bridge: to_sympy (an interpreter independent of the engine),
from_sympy (sharing-preserving) and the sympy Jacobian oracle."""
import math
import time

import pytest
import sympy as sp

from pullback_calc.errors import JacobianError, PullbackCalcError
from pullback_calc.results.sympy_bridge import SYMPY, from_sympy, sympy_jacobian, to_sympy
from pullback_calc.syntax import prims
from pullback_calc.syntax.subst import fv
from pullback_calc.syntax.terms import (App, Dual, Jac, Lam, Num, Prim, Proj, Pullback, Sum,
                                        Tuple, Var, Zero, let, pattern_vars, size, subterms)
from pullback_calc.syntax.types import R, Prod

x, y, z = sp.symbols("x y z")
x1, x2, x3 = sp.symbols("x1 x2 x3")
X, Y = Var("x"), Var("y")


def P(op, *args):
    return Prim(op, tuple(args))


def same(a, b):
    return sp.simplify(a - b) == 0


def num_eval(e, vals):
    """Numeric value of a sympy DAG, each distinct node once (no tree blow-up)."""
    memo = {}
    stack = [e]
    while stack:
        u = stack[-1]
        if u in memo:
            stack.pop()
            continue
        todo = [a for a in u.args if a not in memo]
        if todo:
            stack.extend(todo)
            continue
        stack.pop()
        a = [memo[v] for v in u.args]
        if u.is_Symbol:
            memo[u] = vals[u]
        elif not u.args:
            memo[u] = float(u)
        elif isinstance(u, sp.Add):
            memo[u] = math.fsum(a)
        elif isinstance(u, sp.Mul):
            memo[u] = math.prod(a)
        elif isinstance(u, sp.Pow):
            memo[u] = a[0] ** a[1]
        else:
            memo[u] = getattr(math, type(u).__name__)(a[0])
    return memo[e]


def dag_tree_size(e):
    """Size of e as a tree, computed over its DAG."""
    memo = {}
    stack = [e]
    while stack:
        u = stack[-1]
        todo = [a for a in u.args if a not in memo]
        if todo:
            stack.extend(todo)
            continue
        stack.pop()
        memo[u] = 1 + sum(memo[a] for a in u.args)
    return memo[e]


# ---- the table ---------------------------------------------------------------------

def test_every_prim_has_a_sympy_entry_agreeing_with_eval():
    assert set(SYMPY) == set(prims.PRIMS)
    for op in prims.PRIMS:
        args = [0.7, 1.3][: prims.ARITY[op]]
        got = float(SYMPY[op](*map(sp.Float, args)))
        assert got == pytest.approx(prims.EVAL[op](*args)), op


# ---- to_sympy ----------------------------------------------------------------------

def test_to_sympy_tuple_pattern_let_and_tuple_output():
    f = Lam(Tuple((X, Y)), let(Var("z"), P("mul", X, Y),
                                Tuple((P("sin", Var("z")), P("add", Var("z"), Num(1))))))
    a, b = to_sympy(f)
    assert same(a, sp.sin(x1 * x2)) and same(b, x1 * x2 + 1)
    a, b = to_sympy(f, [x, y])
    assert same(a, sp.sin(x * y)) and same(b, x * y + 1)


def test_to_sympy_variable_pattern_with_projections():
    p = Var("p")
    f = Lam(p, P("mul", Proj(1, p), P("cos", Proj(2, p))))
    assert same(to_sympy(f, n=2)[0], x1 * sp.cos(x2))
    assert same(to_sympy(f, ["u", "v"])[0], sp.Symbol("u") * sp.cos(sp.Symbol("v")))
    # the dimension may come from the binder's annotation
    g = Lam(p, P("div", Proj(3, p), Proj(1, p)), Prod((R, R, R)))
    assert same(to_sympy(g)[0], x3 / x1)
    # n = 1: the variable is the real itself
    assert same(to_sympy(Lam(X, P("exp", X)), n=1)[0], sp.exp(x1))


def test_to_sympy_nested_patterns_and_outputs_flatten():
    f = Lam(Tuple((Tuple((Var("a"), Var("b"))), Var("c"))),
            Tuple((Tuple((Var("c"), Var("b"))), P("neg", Var("a")))))
    assert to_sympy(f) == [x3, x2, -x1]


def test_to_sympy_lambda_literals_and_lexical_scope():
    u = Var("u")
    sq = Lam(u, P("mul", u, u))
    f = Lam(Tuple((X, Y)), let(Var("sq"), sq,
                                P("add", App(Var("sq"), X), App(Var("sq"), Y))))
    assert same(to_sympy(f, [x, y])[0], x**2 + y**2)
    # a closure sees the binding in force where it was made, not a later one
    k = Var("k")
    g = Lam(X, let(k, Num(1), let(Var("f"), Lam(u, P("add", u, k)),
                                   let(k, Num(5), App(Var("f"), X)))))
    assert same(to_sympy(g, [x])[0], x + 1)
    # an applied λ-literal and a tuple-pattern let
    h = Lam(Tuple((X, Y)), App(Lam(Tuple((Var("a"), Var("b"))), P("sub", Var("a"), Var("b"))),
                               Tuple((Y, X))))
    assert same(to_sympy(h, [x, y])[0], y - x)


def test_to_sympy_formal_sum_and_zero_at_R():
    f = Lam(Tuple((X, Y)), Sum((X, P("mul", Num(2), Y), Zero())))
    assert same(to_sympy(f, [x, y])[0], x + 2 * y)
    assert to_sympy(Lam(X, Zero()), n=1) == [0]


def test_to_sympy_numerals_are_exact_when_possible():
    f = Lam(X, Tuple((P("mul", Num(0.5), X), P("mul", Num(1 / 3), X), P("pow", X, Num(2)))))
    a, b, c = to_sympy(f, [x])
    assert a == x / 2 and b == x / 3 and c == x**2
    assert to_sympy(Lam(X, P("mul", Num(math.pi), X)), [x])[0] == sp.Float(math.pi) * x


def test_to_sympy_computes_a_let_bound_value_once(monkeypatch):
    calls = []
    orig = SYMPY["mul"]
    monkeypatch.setitem(SYMPY, "mul", lambda a, b: calls.append(1) or orig(a, b))
    body = Var("z40")
    for k in range(40, 0, -1):  # z_k = z_{k-1} * z_{k-1}: as a tree, 2^40 products
        body = let(Var(f"z{k}"), P("mul", Var(f"z{k - 1}"), Var(f"z{k - 1}")), body)
    f = Lam(Var("z0"), body)
    assert to_sympy(f, [x]) == [x**(2**40)]
    assert len(calls) == 40


def test_to_sympy_parsed_term_if_parser_exists():
    try:
        from pullback_calc.syntax.parser import parse
    except ImportError:
        pytest.skip("no parser yet")
    f = parse("λ⟨x, y⟩. let z = x * y in ⟨sin(z), z + 1⟩")
    a, b = to_sympy(f, [x, y])
    assert same(a, sp.sin(x * y)) and same(b, x * y + 1)
    g = parse("λp : ℝ × ℝ. π1 p * π2 p")  # the dimension comes from the annotation
    assert same(to_sympy(g)[0], x1 * x2)


# ---- from_sympy, round trips ---------------------------------------------------------

ROUND_TRIP = [
    [x + y + z],
    [x * y * z],
    [x - y],
    [-x],
    [-3 * x * y + z],
    [sp.Rational(1, 3) * x - sp.Rational(5, 7) * y],
    [x / y],
    [x**-3 + y**2],
    [1 / (x + y)],
    [sp.sqrt(x) + sp.sqrt(x + y)],
    [1 / sp.sqrt(x * y)],
    [x**sp.Rational(1, 3)],
    [x**sp.Rational(-2, 3) * y],
    [x**y],
    [2**x],
    [sp.exp(x * y) + sp.log(x)],
    [sp.sin(x) * sp.cos(y) - sp.tan(z)],
    [sp.tanh(x - 2 * y)],
    [sp.exp(-x**2 / 2) / (1 + y**2)],
    [sp.log(1 + sp.exp(x)) - x * y / 4],
    [sp.sin(x)**2 + sp.cos(x)**2 * y],
    [x * y, x + y, x - y, x / y],
    [sp.sin(x + y), sp.sin(x + y) * sp.cos(x + y), sp.cos(x + y)],
    [sp.Float(0.25) * x + 1.5],
    [(x + 1)**5 - 7],
]


@pytest.mark.parametrize("exprs", ROUND_TRIP, ids=lambda es: str(es))
def test_from_sympy_then_to_sympy_round_trips(exprs):
    syms = [x, y, z]
    t = from_sympy(exprs, syms)
    assert isinstance(t, Lam) and pattern_vars(t.pat) == ["x", "y", "z"]
    assert all(u.op in prims.PRIMS for u in subterms(t) if isinstance(u, Prim))
    back = to_sympy(t, syms)
    assert len(back) == len(exprs)
    for a, b in zip(back, exprs):
        assert same(a, b), (a, b)


def test_from_sympy_shapes_n1_m1_and_names():
    t = from_sympy(sp.sin(x), [x])
    assert t.pat == Var("x") and t.body == P("sin", Var("x"))
    t = from_sympy([x, 2 * x], [x])
    assert isinstance(t.body, Tuple) and len(t.body.items) == 2
    bad, trig = sp.Symbol("1 bad"), sp.Symbol("sin")
    t = from_sympy([bad * trig], [bad, trig])
    names = pattern_vars(t.pat)
    assert len(set(names)) == 2 and "1 bad" not in names and "sin" not in names
    assert same(to_sympy(t, [x, y])[0], x * y)


def test_from_sympy_constants_evaluate_to_floats():
    exprs = [sp.E * x + sp.pi, sp.sqrt(2) * sp.log(3) * x**2]
    t = from_sympy(exprs, [x])
    assert all(not isinstance(u, Prim) or fv(u) for u in subterms(t))  # constants are numerals
    for a, b in zip(to_sympy(t, [x]), exprs):
        for v in (0.3, 1.7):
            assert float(a.subs(x, v)) == pytest.approx(float(b.subs(x, v)))


# ---- sharing -----------------------------------------------------------------------

def occurrences(t, target, syms):
    """How many Prim nodes of the term compute ``target``; a node is evaluated
    under the term's top let spine (from_sympy puts every let there)."""
    spine, body = [], t.body
    while isinstance(body, App) and isinstance(body.fun, Lam):
        spine.append((body.fun.pat, body.arg))
        body = body.fun.body
    n = 0
    for u in subterms(t):
        if isinstance(u, Prim):
            w = u
            for pat, bound in reversed(spine):
                w = let(pat, bound, w)
            if sp.expand(to_sympy(Lam(t.pat, w), syms)[0] - target) == 0:
                n += 1
    return n


def test_sharing_of_gradient_subexpressions():
    P_ = (x + 1) * (2 * x + y**2)
    f = P_**2
    grad = [sp.diff(f, v) for v in (x, y)]
    t = from_sympy([f] + grad, [x, y])
    for a, b in zip(to_sympy(t, [x, y]), [f] + grad):
        assert same(a, b)
    # sympy writes f as (x + 1)²(2x + y²)², so the product itself is no node
    # here (see the next test); 2x + y², (2x + y²)², (x + 1)² and y² are shared
    for shared in (2 * x + y**2, (2 * x + y**2)**2, (x + 1)**2, y**2):
        assert occurrences(t, sp.expand(shared), [x, y]) == 1, shared


def test_sharing_of_the_product_itself():
    P_ = (x + 1) * (2 * x + y**2)
    f = sp.sin(P_)
    grad = [sp.diff(f, v) for v in (x, y)]  # both contain cos(P)
    t = from_sympy([f] + grad, [x, y])
    for a, b in zip(to_sympy(t, [x, y]), [f] + grad):
        assert same(a, b)
    assert occurrences(t, sp.expand(P_), [x, y]) == 1
    assert sum(1 for u in subterms(t) if isinstance(u, Prim) and u.op == "cos") == 1
    # …whereas without the let the product would be written three times
    assert sum(1 for u in sp.preorder_traversal(sp.Tuple(f, *grad)) if u == P_) == 3


def test_swell_stays_linear():
    e = x
    k = 30
    for _ in range(k):
        e = sp.sin(e) * e
    assert dag_tree_size(e) > 2**k  # sympy's tree is exponential…
    t = from_sympy(e, [x])
    assert size(t) < 20 * k  # …the term is linear
    back = to_sympy(t, [x])[0]
    assert num_eval(back, {x: 0.9}) == pytest.approx(num_eval(e, {x: 0.9}))


# ---- long chains -------------------------------------------------------------------

N = 10_000


def test_ten_thousand_let_chain_arithmetic():
    body = Var(f"z{N}")
    for k in range(N, 0, -1):
        body = let(Var(f"z{k}"), P("add", Var(f"z{k - 1}"), Var("z0")), body)
    t0 = time.perf_counter()
    assert to_sympy(Lam(Var("z0"), body), [x]) == [(N + 1) * x]
    print(f"10k arithmetic let chain: {time.perf_counter() - t0:.2f}s")


def test_ten_thousand_let_chain_of_sines():
    body = Var(f"z{N}")
    for k in range(N, 0, -1):
        body = let(Var(f"z{k}"), P("sin", Var(f"z{k - 1}")), body)
    t0 = time.perf_counter()
    e = to_sympy(Lam(Var("z0"), body), [x], evaluate=False)[0]
    print(f"10k let chain of sines: {time.perf_counter() - t0:.2f}s")
    for _ in range(N):
        assert isinstance(e, sp.sin)
        e = e.args[0]
    assert e == x


def test_ten_thousand_nested_sines_through_from_sympy():
    e = x
    for _ in range(N):
        e = sp.sin(e, evaluate=False)
    t0 = time.perf_counter()
    t = from_sympy(e, [x])
    assert size(t) == N + 3  # λ, its x, N sines, x: nothing let-bound, nothing lost
    back = to_sympy(t, [x], evaluate=False)[0]
    print(f"10k nested sines, there and back: {time.perf_counter() - t0:.2f}s")
    for _ in range(N):
        assert isinstance(back, sp.sin)
        back = back.args[0]
    assert back == x


# ---- the oracle --------------------------------------------------------------------

def test_sympy_jacobian():
    f = Lam(Tuple((X, Y)), Tuple((P("mul", X, Y), P("sin", X))))
    J = sympy_jacobian(f, [2.0, 3.0])
    assert J == [[3.0, 2.0], [pytest.approx(math.cos(2.0)), 0.0]]
    g = Lam(X, P("pow", X, Num(3)))
    assert sympy_jacobian(g, 2.0) == [[12.0]]


# ---- errors ------------------------------------------------------------------------

@pytest.mark.parametrize("body, word", [
    (Jac(Lam(Y, Y), X), "Jac"),
    (Dual(Lam(Y, Y), X), "Dual"),
    (Pullback(Lam(Y, Y), X), "Pullback"),
    (Var("w"), "free variable w"),
    (Proj(3, X), "π3"),
    (Sum((Tuple((X, X)), Tuple((X, X)))), "⊕"),
    (P("sin", Tuple((X, X))), "sin"),
    (Lam(Y, Y), "function"),
    (App(Num(1), X), "not a function"),
])
def test_to_sympy_errors_name_the_construct(body, word):
    with pytest.raises(JacobianError, match=word):
        to_sympy(Lam(X, body), n=2)


def test_to_sympy_needs_a_lambda_and_a_dimension():
    with pytest.raises(JacobianError, match="λ"):
        to_sympy(P("sin", X))
    with pytest.raises(JacobianError, match="n="):
        to_sympy(Lam(X, X))
    with pytest.raises(JacobianError, match="2 reals"):
        to_sympy(Lam(Tuple((X, Y)), X), n=3)


@pytest.mark.parametrize("expr, word", [
    (sp.Abs(x), "Abs"),
    (sp.Piecewise((x, x > 0), (-x, True)), "Piecewise"),
    (sp.asin(x), "asin"),
    (sp.Function("g")(x), "g"),
    (x + z, "free symbol z"),
    (sp.I * x, "I"),
])
def test_from_sympy_errors_name_the_node(expr, word):
    with pytest.raises(JacobianError, match=word) as info:
        from_sympy([expr], [x])
    assert isinstance(info.value, PullbackCalcError)


def test_sympy_jacobian_errors():
    with pytest.raises(JacobianError, match="not a real"):
        sympy_jacobian(Lam(X, P("sqrt", X)), [-1.0])
    with pytest.raises(JacobianError, match="point"):
        sympy_jacobian(Lam(X, X), [1.0, 2.0], [x])


def test_a_zero_vector_output_has_its_types_shape():
    """Found by the fuzz profile: λ⟨a, b⟩. let v : ℝ × ℝ = 𝟎 in v has two outputs; sympy
    read 𝟎 as one 0, one row, and `compare` reported a MISMATCH with every engine."""
    import pullback_calc as pc
    from pullback_calc.results.sympy_bridge import sympy_jacobian
    f = pc.parse("λ⟨a, b⟩. let v : ℝ × ℝ = 𝟎 in v")
    assert sympy_jacobian(f, [0.5, 0.5]) == [[0.0, 0.0], [0.0, 0.0]] == pc.jacobian(f, [0.5, 0.5])
