"""Python functions traced into terms (tracing.py), then differentiated by reduction."""
import math
import re

import pytest

import pullback_calc as pc
from pullback_calc.syntax.terms import App, Prim, size, subterms

DATA = [((0.5, -1.0), 0.3), ((1.5, 0.2), -0.4), ((-0.7, 0.9), 0.8), ((0.1, 0.1), 0.0)]
N_PARAMS = 2 * 3 + 3 + 3 + 1  # W1 (3×2), b1, W2 (1×3), b2


def mlp_loss(params, data=DATA, tanh=math.tanh):
    """A 2-3-1 perceptron (tanh hidden layer), mean squared error over data:
    ordinary Python over lists of floats (loops, sum, indexing)."""
    W1 = [params[0:2], params[2:4], params[4:6]]
    b1, W2, b2 = params[6:9], params[9:12], params[12]
    total = 0.0
    for (x1, x2), y in data:
        hidden = [tanh(w[0] * x1 + w[1] * x2 + b) for w, b in zip(W1, b1)]
        pred = sum(v * h for v, h in zip(W2, hidden)) + b2
        err = pred - y
        total = total + err * err
    return total / len(data)


PARAMS = [0.1, -0.2, 0.3, 0.4, -0.5, 0.6, 0.05, -0.05, 0.1, 0.7, -0.8, 0.9, 0.2]


def traced_loss(data):
    return pc.trace(lambda p: mlp_loss(p, data, tanh=pc.tanh), N_PARAMS)


def central_gradient(f, x, h=1e-6):
    out = []
    for i in range(len(x)):
        up = list(x)
        up[i] += h
        dn = list(x)
        dn[i] -= h
        out.append((f(up) - f(dn)) / (2 * h))
    return out


def test_traced_mlp_term_is_linear_in_the_operations():
    t4, t8 = traced_loss(DATA), traced_loss(DATA * 2)
    ops4 = sum(isinstance(u, Prim) for u in subterms(t4))
    ops8 = sum(isinstance(u, Prim) for u in subterms(t8))
    # per data point: 3 × (2 mul + 2 add + tanh) + 3 mul + 3 add (sum from 0) + add b2
    # + sub + mul + add to the total; then one division
    assert ops4 == 4 * 25 + 1 and ops8 == 8 * 25 + 1
    # every operation is one node with atomic or inlined operands: size ≤ 3 per operation
    assert size(t4) <= 3 * ops4 + N_PARAMS + 10
    assert size(t8) <= 3 * ops8 + N_PARAMS + 10
    # the error is used twice (err × err): bound once by a let, not duplicated
    lets = [u for u in subterms(t4) if isinstance(u, App)]
    assert len(lets) == 4 and pc.pretty(t4).count("let sub_") == 4


def test_traced_mlp_gradient_matches_finite_differences():
    g = pc.grad(lambda p: mlp_loss(p, DATA, tanh=pc.tanh), PARAMS)
    assert list(g) == pytest.approx(central_gradient(mlp_loss, PARAMS), rel=1e-6, abs=1e-9)
    assert g.steps > 0 and g.trace  # by reduction, with its trace


def test_traced_mlp_gradient_matches_autograd():
    autograd = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")
    want = autograd.grad(lambda p: mlp_loss(list(p), DATA, tanh=anp.tanh))(anp.array(PARAMS))
    got = pc.grad(lambda p: mlp_loss(p, DATA, tanh=pc.tanh), PARAMS, record=False)
    assert list(got) == pytest.approx([float(v) for v in want], rel=1e-9, abs=1e-12)


def test_sharing_and_simple_terms():
    assert pc.pretty(pc.trace(lambda x, y: x * x + y)) == "λ⟨x, y⟩. x × x + y"

    def f(x, y):
        s = pc.sin(x * y)
        unused = pc.exp(x)  # noqa: F841 -- dead: not in the term
        return s * s + s / y
    assert re.fullmatch(r"λ⟨x, y⟩\. let (sin_\d+) = sin\(x × y\) in \1 × \1 \+ \1 / y",
                        pc.pretty(pc.trace(f)))
    assert pc.pretty(pc.trace(lambda x, y: (x * y, 2.0))) == "λ⟨x, y⟩. ⟨x × y, 2⟩"
    assert pc.pretty(pc.trace(lambda w: w[0] - w[1], 2)) == "λ⟨w1, w2⟩. w1 − w2"


def test_grad_grad1_vjp_jvp_of_python_functions():
    assert pc.grad(lambda x, y: x * x + y, 2, 3) == [4.0, 1.0]
    assert pc.call(pc.grad1(pc.grad1(pc.cos)), 0.0).value == pytest.approx(-1.0)
    assert pc.grad(lambda x: x ** 3 - 1 / x, 2.0) == [pytest.approx(12 + 0.25)]
    primal, bp = pc.vjp(lambda x, y: (x * y, pc.exp(x)), [0.0, 3.0])
    assert primal == (0.0, 1.0) and bp([1.0, 1.0]) == [4.0, 0.0]
    assert pc.jvp(lambda x, y: x * pc.sin(y), [2.0, 0.0], [1.0, 1.0]).tangent == 2.0


def test_registered_primitives_trace():
    with pc.extras.registered() as ex:
        relu = ex["max0"]
        t = pc.trace(lambda x: relu(x - 1.0) + abs(x))
        assert pc.pretty(t) == "λx. max0(x − 1) + abs(x)"
        assert pc.grad(lambda x: relu(x - 1.0) + abs(x), -2.0) == [-1.0]
        assert relu(-3.0) == 0.0  # on floats: the value


def test_control_flow_on_traced_values_is_a_clear_error():
    def branchy(x):
        if x > 0:  # the line named in the error
            return x
        return -x
    with pytest.raises(pc.TraceError, match=r"comparison > on a traced value at "
                                            r"test_tracing.py:\d+.*out of its scope"):
        pc.trace(branchy)
    with pytest.raises(pc.TraceError, match="truth test"):
        pc.trace(lambda x: x and 1.0)
    with pytest.raises(pc.TraceError, match="use pc.sin"):
        pc.trace(lambda x: math.sin(x))
    with pytest.raises(pc.TraceError, match="abs is not a function symbol"):
        pc.trace(lambda x: abs(x))
    with pytest.raises(pc.TraceError, match="arity"):
        pc.trace(lambda *xs: xs[0])
    with pytest.raises(pc.TraceError, match="expected numbers"):
        pc.trace(lambda x: "x")
    with pytest.raises(pc.TraceError, match="failed"):
        pc.trace(lambda x, y: x + y, 3)
