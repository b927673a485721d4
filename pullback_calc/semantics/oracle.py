"""An independent denotational evaluator: the oracle the tests trust.

Terms denote Python values: floats, tuples, callables (functions and
covectors) and ``ZERO``, the additive identity at every type.  Derivatives
are forward mode on *tagged* dual numbers (DVL / Siskind–Pearlmutter): each
derivative gets a fresh tag, so nested derivatives do not confuse their
perturbations, and a function-valued derivative is extracted lazily with
the tag-renaming fix of Manzyuk et al. (2019).

Nothing here comes from the reduction engine: only the syntax (terms,
parser) is shared, and the derivative of each function symbol is written
out below, independently of ``prims.PARTIALS``.
"""
from __future__ import annotations

import contextlib
import itertools
import math
import random
from typing import Any, Callable, Optional

from ..deep import deep
from ..syntax import terms as T
from ..syntax.types import Prod

__all__ = ["ZERO", "DualNumber", "OracleError", "evaluate", "apply", "derivative",
           "central_difference", "row_by_oracle", "covector_apply", "tangent_value",
           "perturb", "fresh_tag", "prim", "jacobian_by_oracle", "shape_point", "leaves",
           "FLOATS", "DERIVATIVES", "Env", "bind", "perturbed_rounding"]


class OracleError(Exception):
    """A term the oracle cannot give a value (free variable, ill-shaped data)."""


class _Zero:
    """The formal 0: unit of ⊕ at every type; applied or projected it stays 0."""
    _it = None

    def __new__(cls):
        if cls._it is None:
            cls._it = super().__new__(cls)
        return cls._it

    def __call__(self, _arg):
        return self

    def __float__(self):
        return 0.0

    def __repr__(self):
        return "ZERO"


ZERO = _Zero()
_tags = itertools.count(1)


def fresh_tag() -> int:
    return next(_tags)


# ---- dual numbers --------------------------------------------------------------------

class DualNumber:
    """primal + tag·tangent with tag² = 0; primal/tangent may be duals of other tags."""
    __slots__ = ("tag", "primal", "tangent")

    def __init__(self, tag, primal, tangent):
        self.tag, self.primal, self.tangent = tag, primal, tangent

    def __repr__(self):
        return f"DualNumber({self.tag}, {self.primal!r}, {self.tangent!r})"

    # operators, so that plain Python functions can be differentiated too
    __add__ = lambda a, b: prim("add", a, b)
    __radd__ = lambda a, b: prim("add", b, a)
    __sub__ = lambda a, b: prim("sub", a, b)
    __rsub__ = lambda a, b: prim("sub", b, a)
    __mul__ = lambda a, b: prim("mul", a, b)
    __rmul__ = lambda a, b: prim("mul", b, a)
    __truediv__ = lambda a, b: prim("div", a, b)
    __rtruediv__ = lambda a, b: prim("div", b, a)
    __pow__ = lambda a, b: prim("pow", a, b)
    __rpow__ = lambda a, b: prim("pow", b, a)
    __neg__ = lambda a: prim("neg", a)


def _is_num(v) -> bool:
    return isinstance(v, (float, int, DualNumber))


def _is_zero_num(v) -> bool:
    return isinstance(v, (float, int)) and v == 0


def _dual(tag, primal, tangent):
    return primal if _is_zero_num(tangent) else DualNumber(tag, primal, tangent)


def _split(x, tag):
    """(primal, tangent) of x with respect to ``tag``, wherever that tag sits."""
    if not isinstance(x, DualNumber):
        return x, 0.0
    if x.tag == tag:
        return x.primal, x.tangent
    p0, t0 = _split(x.primal, tag)
    p1, t1 = _split(x.tangent, tag)
    return _dual(x.tag, p0, p1), _dual(x.tag, t0, t1)


def _fpow(a, b):
    r = a ** b
    if isinstance(r, complex):
        raise ArithmeticError(f"{a} ^ {b} is not a real number")
    return float(r)


def _fdiv(a, b):
    if b == 0:
        raise ArithmeticError("division by zero")
    return a / b


# each function symbol on floats (registry.py adds the registered ones)
FLOATS: dict[str, Callable[..., float]] = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": _fdiv, "neg": lambda a: -a, "pow": _fpow,
    "sin": math.sin, "cos": math.cos, "tan": math.tan, "exp": math.exp,
    "log": math.log, "sqrt": math.sqrt, "tanh": math.tanh,
}


def _p(op):
    return lambda *args: prim(op, *args)


add, sub, mul, div, neg, pw = (_p(o) for o in ("add", "sub", "mul", "div", "neg", "pow"))
sin, cos, tan, exp, log, sqrt, tanh = (_p(o) for o in
                                       ("sin", "cos", "tan", "exp", "log", "sqrt", "tanh"))

# ∂f/∂argᵢ at the primal arguments, one function per argument (computed on demand:
# the exponent's partial of pow needs log a, which a ≤ 0 would break).
DERIVATIVES: dict[str, tuple[Callable[..., Any], ...]] = {
    "add": (lambda a, b: 1.0, lambda a, b: 1.0),
    "sub": (lambda a, b: 1.0, lambda a, b: -1.0),
    "mul": (lambda a, b: b, lambda a, b: a),
    "div": (lambda a, b: div(1.0, b), lambda a, b: neg(div(a, mul(b, b)))),
    "neg": (lambda a: -1.0,),
    # (a ^ 0 is 1 for every a: its derivative is 0, not 0 × 0 ^ (−1) at a = 0)
    "pow": (lambda a, b: 0.0 if not isinstance(b, DualNumber) and b == 0 else
            mul(b, pw(a, sub(b, 1.0))),
            lambda a, b: mul(log(a), pw(a, b))),
    "sin": (lambda a: cos(a),),
    "cos": (lambda a: neg(sin(a)),),
    "tan": (lambda a: div(1.0, mul(cos(a), cos(a))),),
    "exp": (lambda a: exp(a),),
    "log": (lambda a: div(1.0, a),),
    "sqrt": (lambda a: div(0.5, sqrt(a)),),
    "tanh": (lambda a: sub(1.0, mul(tanh(a), tanh(a))),),
}


#: a Counter of (role, op) → real operations, while ``engines.forward`` measures
#: costs (None otherwise); role is "primal" or "derivative" (tangent arithmetic).
COUNTS = None
_role = "primal"

#: None, or a function applied to the float result of every real operation: the
#: tests perturb the rounding with it (``perturbed_rounding``) to see whether a
#: program's value at a point is determined at all in floating point
ROUNDING: Optional[Callable[[float], float]] = None


@contextlib.contextmanager
def perturbed_rounding(eps: float, seed: int = 0):
    """Within the block, every real operation's result is multiplied by (1 ± eps),
    the sign drawn from ``seed``: as if the oracle rounded differently.  A value
    that moves far more than eps under it is ill-conditioned at that point (the
    engine, which computes the same reals in another order, may then differ from
    the oracle by as much, and neither is wrong)."""
    global ROUNDING
    signs = random.Random(seed)
    outer, ROUNDING = ROUNDING, lambda v: v * (1.0 + eps * signs.choice((-1.0, 1.0)))
    try:
        yield
    finally:
        ROUNDING = outer


def _float_rule(op: str) -> Callable[..., float]:
    # a symbol registered in prims after this table was written: its EVAL entry
    if op in FLOATS:
        return FLOATS[op]
    from ..syntax import prims
    return prims.EVAL[op]


def _deriv_rules(op: str) -> tuple:
    """DERIVATIVES[op]; for a symbol registered in prims later, its partials
    derived from ``prims.PARTIALS`` (evaluated on dual numbers, so nesting works)."""
    if op in DERIVATIVES:
        return DERIVATIVES[op]
    from ..syntax import prims
    k = prims.ARITY[op]

    def nth(i):
        def d(*xs):
            term = prims.PARTIALS[op](*(T.Var(f"_a{j}") for j in range(k)))[i]
            if term is None:
                return 1.0
            return _eval(term, Env({f"_a{j}": x for j, x in enumerate(xs)}))
        return d
    return tuple(nth(i) for i in range(k))


def _note(e: BaseException, key: str, value) -> None:
    """Keep the first (innermost) ``key`` an arithmetic error passes through."""
    if getattr(e, key, None) is None:
        setattr(e, key, value)


def prim(op: str, *args):
    """A function symbol on floats or (nested, tagged) dual numbers."""
    global _role
    if not all(_is_num(a) or a is ZERO for a in args):
        raise OracleError(f"{op} applied to a non-number: {args!r}")
    tags = [a.tag for a in args if isinstance(a, DualNumber)]
    if not tags:
        if COUNTS is not None:
            COUNTS[_role, op] += 1
        floats = tuple(float(a) for a in args)
        try:
            v = _float_rule(op)(*floats)
            if ROUNDING is not None:
                v = ROUNDING(v)
            if not math.isfinite(v):  # (as rule 4: only finite reals)
                raise OverflowError("the result is too large for a float")
            return v
        except (ArithmeticError, ValueError) as e:
            _note(e, "operation", (op, floats))  # for the engines' messages (forward.py)
            raise
    tag = max(tags)
    primals, tangents = zip(*(_split(a, tag) for a in args))
    tangent = 0.0
    outer, _role = _role, "derivative"
    try:
        for d, dx in zip(_deriv_rules(op), tangents):
            if not _is_zero_num(dx):
                tangent = add(tangent, mul(d(*primals), dx))
    finally:
        _role = outer
    return _dual(tag, prim(op, *primals), tangent)


# ---- values as vectors ---------------------------------------------------------------

def vadd(a, b):
    """⊕: numbers add, tuples componentwise, functions pointwise, ZERO is the unit."""
    if a is ZERO:
        return b
    if b is ZERO:
        return a
    if _is_num(a) and _is_num(b):
        return add(a, b)
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        return tuple(vadd(x, y) for x, y in zip(a, b))
    if callable(a) and callable(b):
        return lambda x: vadd(apply(a, x), apply(b, x))
    raise OracleError(f"cannot add {a!r} and {b!r}")


def perturb(y, tag, v):
    """y + tag·v, at any type (functions pointwise: a ↦ y(a) + tag·v(a))."""
    if v is ZERO:
        return y
    if _is_num(v):
        return add(0.0 if y is ZERO else y, DualNumber(tag, 0.0, _split(v, tag)[0]))
    if isinstance(v, tuple):
        ys = (ZERO,) * len(v) if y is ZERO else y
        return tuple(perturb(a, tag, b) for a, b in zip(ys, v))
    if callable(v):
        return lambda a: perturb(apply(y, a), tag, apply(v, a))
    raise OracleError(f"cannot perturb along {v!r}")


def _swap(v, a, b):
    """Exchange tags a and b throughout v (lazily under λ)."""
    if isinstance(v, DualNumber):
        tag = b if v.tag == a else a if v.tag == b else v.tag
        return DualNumber(tag, _swap(v.primal, a, b), _swap(v.tangent, a, b))
    if isinstance(v, tuple):
        return tuple(_swap(x, a, b) for x in v)
    if callable(v) and v is not ZERO:
        return lambda x: _swap(apply(v, _swap(x, a, b)), a, b)
    return v


def tangent_value(v, tag):
    """The tag-coefficient of v: componentwise for tuples, pointwise for functions."""
    if v is ZERO:
        return ZERO
    if _is_num(v):
        return _split(v, tag)[1]
    if isinstance(v, tuple):
        return tuple(tangent_value(x, tag) for x in v)
    if callable(v):
        def g(x):
            # x may carry `tag` from another use of this same function: rename it
            # out of the way first (perturbation confusion under λ, Manzyuk et al.)
            eta = fresh_tag()
            return _swap(tangent_value(apply(v, _swap(x, tag, eta)), tag), tag, eta)
        return g
    raise OracleError(f"no tangent for {v!r}")


def derivative(f, x, v, tag: Optional[int] = None):
    """Directional derivative of f at x along v by tagged forward mode.
    ``tag`` is for demonstrating perturbation confusion only: reuse one and
    nested derivatives become untagged."""
    tag = fresh_tag() if tag is None else tag
    return tangent_value(apply(f, perturb(x, tag, v)), tag)


# ---- the evaluator -------------------------------------------------------------------

class Env:
    """An environment: a frame of values by name, and the enclosing one (the
    engines' evaluator shares it)."""
    __slots__ = ("vars", "parent")

    def __init__(self, vars, parent=None):
        self.vars, self.parent = vars, parent

    def lookup(self, name):
        e = self
        while e is not None:
            if name in e.vars:
                return e.vars[name]
            e = e.parent
        raise OracleError(f"free variable {name!r} has no value in the environment")


def bind(pat, value, out: dict) -> None:
    """Match ``value`` against a λ's pattern, into ``out`` (name → value)."""
    if isinstance(pat, T.Var):
        out[pat.name] = value
        return
    if value is ZERO:
        value = (ZERO,) * len(pat.items)
    if not (isinstance(value, tuple) and len(value) == len(pat.items)):
        raise OracleError(f"cannot match {value!r} against the pattern {pat}")
    for p, v in zip(pat.items, value):
        bind(p, v, out)


class Closure:
    """The value of λq.S in an environment."""
    __slots__ = ("lam", "env")

    def __init__(self, lam, env):
        self.lam, self.env = lam, env
        if COUNTS is not None:
            COUNTS["allocation", "closure"] += 1

    def __call__(self, arg):
        return _call(self, arg)

    def __repr__(self):
        return f"<closure {self.lam}>"


@deep
def _call(c: Closure, arg):
    frame: dict = {}
    bind(c.lam.pat, arg, frame)
    return _eval(c.lam.body, Env(frame, c.env))


def apply(f, *args):
    """f a₁ … aₖ (curried); ZERO applied is ZERO."""
    for a in args:
        if not callable(f):
            raise OracleError(f"cannot apply {f!r}: not a function")
        f = f(a)
    return f


def _eval(t, env: Env):
    k = type(t)
    if k is T.Var:
        return env.lookup(t.name)
    if k is T.Num:
        return t.value
    if k is T.Prim:
        args = [0.0 if v is ZERO else v for v in (_eval(a, env) for a in t.args)]
        try:
            return prim(t.op, *args)
        except (ArithmeticError, ValueError) as e:
            _note(e, "subterm", t)  # the innermost application that failed
            raise
    if k is T.Lam:
        return Closure(t, env)
    if k is T.App:
        f = _eval(t.fun, env)
        return apply(f, _eval(t.arg, env))  # call by value: the argument once
    if k is T.Tuple:
        return tuple(_eval(a, env) for a in t.items)
    if k is T.Proj:
        v = _eval(t.arg, env)
        if v is ZERO:
            return ZERO
        if not (isinstance(v, tuple) and 1 <= t.index <= len(v)):
            raise OracleError(f"π{t.index} of {v!r}")
        return v[t.index - 1]
    if k is T.Zero:
        return ZERO
    if k is T.Sum:
        out = ZERO
        for a in t.items:
            out = vadd(out, _eval(a, env))
        return out
    if k is T.Jac:  # y ↦ derivative of λq.S at y along P
        f, along = Closure(t.lam, env), _eval(t.along, env)
        return lambda y: derivative(f, y, along)
    if k is T.Dual:  # v ↦ P(S[v/q])
        f, w = Closure(t.lam, env), _eval(t.functional, env)
        return lambda v: apply(w, apply(f, v))
    if k is T.Pullback:  # x ↦ ω(f x) ∘ Jf(x)
        f, w = _eval(t.fun, env), _eval(t.form, env)

        def at(x):
            wfx = apply(w, apply(f, x))
            return lambda v: apply(wfx, derivative(f, x, v))
        return at
    raise OracleError(f"unknown term {t!r}")


@deep
def evaluate(term, env: Optional[dict] = None):
    """The value of a term (or its concrete syntax); ``env`` gives free variables."""
    if isinstance(term, str):
        from ..syntax.parser import parse
        term = parse(term)
    return _eval(term, Env(dict(env or {})))


# ---- numerical checks ----------------------------------------------------------------

def _lin(a: float, x, b: float, y):
    """a·x + b·y on reals and tuples of them (ZERO: the zero of the other's shape)."""
    if isinstance(x, tuple) or isinstance(y, tuple):
        n = len(x) if isinstance(x, tuple) else len(y)
        xs = x if isinstance(x, tuple) else (x,) * n
        ys = y if isinstance(y, tuple) else (y,) * n
        return tuple(_lin(a, p, b, q) for p, q in zip(xs, ys))
    return a * float(x) + b * float(y)


def central_difference(f, x, v, h: float = 1e-6):
    """(f(x + hv) − f(x − hv)) / 2h for real-vector x, v (floats, tuples)."""
    hi = apply(f, _lin(1.0, x, h, v))
    lo = apply(f, _lin(1.0, x, -h, v))
    return _lin(1 / (2 * h), hi, -1 / (2 * h), lo)


def leaves(v, like=None) -> list:
    """The reals of a first-order value v, left to right.  ``like`` is the
    shape a ZERO (part) stands for: a type (ℝ, products) or a value of that
    shape; without it a ZERO is one 0."""
    if isinstance(v, tuple) or (v is ZERO and isinstance(like, (tuple, Prod))):
        items = v if isinstance(v, tuple) else (ZERO,) * len(_parts(like))
        likes = _parts(like) or (None,) * len(items)
        return [x for item, lk in zip(items, likes) for x in leaves(item, lk)]
    return [float(v)]


def _parts(like) -> tuple:
    if isinstance(like, Prod):
        return like.items
    return like if isinstance(like, tuple) else ()


_leaves = leaves  # (the name tests/test_oracle.py uses)


def shape_point(f_term, values) -> Any:
    """Reals as the input f's binder pattern wants them: nested tuples for a
    tuple pattern, else one float or a flat tuple."""
    vals = [float(values)] if isinstance(values, (int, float)) else [float(v) for v in values]
    pat = f_term.pat if isinstance(f_term, T.Lam) else None
    if not isinstance(pat, T.Tuple):
        return vals[0] if len(vals) == 1 else tuple(vals)
    it = iter(vals)

    def build(p):
        return tuple(build(q) for q in p.items) if isinstance(p, T.Tuple) else next(it)
    return build(pat)


def jacobian_by_oracle(f_term, point) -> list:
    """The Jacobian of a first-order f : ℝⁿ → ℝᵐ at ``point``: n forward-mode runs,
    one per input coordinate (columns), returned as rows."""
    if isinstance(f_term, str):
        from ..syntax.parser import parse
        f_term = parse(f_term)
    f, x = evaluate(f_term), shape_point(f_term, point)
    y, n = apply(f, x), len(leaves(x))
    cols = [leaves(derivative(f, x, shape_point(f_term, [float(i == j) for i in range(n)])), y)
            for j in range(n)]
    return [list(r) for r in zip(*cols)]


def row_by_oracle(f_term, point, p: int) -> list:
    """Row p (from 0) of the Jacobian of f : ℝⁿ → ℝᵐ at ``point``, by forward mode."""
    return jacobian_by_oracle(f_term, point)[p]


def covector_apply(value, tangent) -> float:
    """A covector (a value of type σ⋆) applied to a tangent in σ."""
    r = apply(value, tangent)
    return 0.0 if r is ZERO else r
