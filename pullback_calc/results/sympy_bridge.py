"""A bridge to sympy: first-order terms R^n → R^m to sympy expressions and back.

``to_sympy`` is a direct symbolic interpreter of first-order terms; it shares
no code with the reduction engine, so ``sympy_jacobian`` can serve as an
independent oracle for it.  ``from_sympy`` turns sympy expressions into terms,
binding every shared subexpression once by a ``let``, so that sympy's
expression swell (its expressions are DAGs) does not leak into the term.
"""
from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Callable, Optional

import sympy

from ..deep import bottom_up, deep, trampoline
from ..errors import JacobianError
from ..syntax import prims
from ..syntax.terms import (App, Lam, Num, Prim, Proj, Sum, Term, Tuple, Var, Zero, fresh,
                            is_pattern, let, note_name, tup)
from ..syntax.types import Arrow, Prod, Real, Type, real_leaves, rn

__all__ = ["SYMPY", "FROM_SYMPY", "to_sympy", "from_sympy", "sympy_jacobian", "default_symbols"]

# One entry per function symbol of prims.PRIMS (tests/test_sympy_bridge.py checks).
SYMPY: dict[str, Callable[..., sympy.Expr]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "neg": lambda a: -a,
    "pow": sympy.Pow,
    "sin": sympy.sin,
    "cos": sympy.cos,
    "tan": sympy.tan,
    "exp": sympy.exp,
    "log": sympy.log,
    "sqrt": sympy.sqrt,
    "tanh": sympy.tanh,
}

# Unary sympy functions that are function symbols (sqrt is Pow(·, 1/2) in sympy);
# registry.py adds the registered ones.
FROM_SYMPY = {sympy.sin: "sin", sympy.cos: "cos", sympy.tan: "tan", sympy.exp: "exp",
          sympy.log: "log", sympy.tanh: "tanh"}

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_']*")


def default_symbols(n: int) -> list[sympy.Symbol]:
    """``x1, …, xn`` -- plain symbols, so they equal the user's ``Symbol('x1')``."""
    return [sympy.Symbol(f"x{i}") for i in range(1, n + 1)]


# ---- terms → sympy ---------------------------------------------------------------

class _Closure:
    """The value of a λ-literal: its code and a snapshot of its environment."""

    def __init__(self, lam: Lam, env: dict):
        self.lam, self.env = lam, env


def _err(msg: str, t: Optional[Term] = None) -> JacobianError:
    return JacobianError(msg, getattr(t, "pos", None))


def _num(v: float) -> sympy.Expr:
    """A numeral as an exact sympy number when one has exactly this float value
    (so 0.333… is 1/3 and round trips through from_sympy are exact), else a Float."""
    if not math.isfinite(v):
        return sympy.Float(v)
    if v.is_integer():
        return sympy.Integer(int(v))
    q = Fraction(v).limit_denominator(10**6)
    return sympy.Rational(q.numerator, q.denominator) if float(q) == v else sympy.Float(v)


def _is_real(v) -> bool:
    return isinstance(v, sympy.Basic)


def _bind(pat: Term, v, env: dict) -> None:
    stack = [(pat, v)]
    while stack:
        p, u = stack.pop()
        if isinstance(p, Var):
            env[p.name] = u
            continue
        assert isinstance(p, Tuple), p  # (the parser's patterns: variables in tuples)
        if isinstance(u, tuple) and len(u) == len(p.items):
            stack.extend(zip(p.items, u))
        else:
            raise _err(f"to_sympy: a tuple pattern of {len(p.items)} does not match "
                       f"its value", p)


def _ev(t: Term, env: dict):
    """The value of ``t``: a sympy expression (type R), a tuple of values, or a
    closure.  A generator run by deep.trampoline: ``(yield _ev(u, env))`` is the
    value of a sub-term, without Python recursion."""
    if isinstance(t, App):
        # A let spine is walked by a loop, on one copy of the environment.
        env = dict(env)
        while isinstance(t, App):
            arg = yield _ev(t.arg, env)  # computed once: the binding shares it
            if isinstance(t.fun, Lam):
                _bind(t.fun.pat, arg, env)
                t = t.fun.body
                continue
            fun = yield _ev(t.fun, env)
            if not isinstance(fun, _Closure):
                raise _err("to_sympy: application of a value that is not a function", t)
            inner = dict(fun.env)
            _bind(fun.lam.pat, arg, inner)
            return (yield _ev(fun.lam.body, inner))
        return (yield _ev(t, env))
    if isinstance(t, Var):
        if t.name not in env:
            raise _err(f"to_sympy: free variable {t.name}", t)
        return env[t.name]
    if isinstance(t, Num):
        return _num(t.value)
    if isinstance(t, Prim):
        if t.op not in SYMPY or len(t.args) != prims.ARITY[t.op]:
            raise _err(f"to_sympy: unknown function symbol {t.op}/{len(t.args)}", t)
        args = []
        for a in t.args:
            args.append((yield _ev(a, env)))
        if not all(map(_is_real, args)):
            raise _err(f"to_sympy: an argument of {t.op} is not a real", t)
        return SYMPY[t.op](*args)
    if isinstance(t, Tuple):
        items = []
        for i in t.items:
            items.append((yield _ev(i, env)))
        return tuple(items)
    if isinstance(t, Proj):
        v = yield _ev(t.arg, env)
        if not isinstance(v, tuple) or not 1 <= t.index <= len(v):
            raise _err(f"to_sympy: projection π{t.index} of a value that is not a tuple "
                       f"of at least {t.index}", t)
        return v[t.index - 1]
    if isinstance(t, Zero):
        return sympy.S.Zero
    if isinstance(t, Sum):
        vals = []
        for i in t.items:
            vals.append((yield _ev(i, env)))
        if not all(map(_is_real, vals)):
            raise _err("to_sympy: formal sum (⊕) at a type other than R is not supported", t)
        return sympy.Add(*vals)
    if isinstance(t, Lam):
        return _Closure(t, dict(env))
    raise _err(f"to_sympy: {type(t).__name__} is not supported (first-order terms only)", t)


def _input_type(f: Lam, nsym: Optional[int], n: Optional[int]) -> Type:
    if not is_pattern(f.pat):
        raise _err(f"to_sympy: the binder is a {type(f.pat).__name__}, not a pattern", f)
    if isinstance(f.pat, Tuple):
        ty = bottom_up(f.pat, lambda p: (None, Real()) if isinstance(p, Var) else (p.items, p),
                       lambda p, items: Prod(tuple(items)))
    else:
        ann = f.ann.dom if isinstance(f.ann, Arrow) else f.ann
        if isinstance(ann, Type) and real_leaves(ann) is not None:
            ty = ann
        elif nsym or n:
            ty = rn(nsym or n or 0)
        else:
            raise _err(f"to_sympy: cannot tell the dimension of the input "
                       f"{getattr(f.pat, 'name', f.pat)}; pass n= or symbols=", f)
    leaves = real_leaves(ty)
    assert leaves is not None  # (built from R, or checked to be)
    k = len(leaves)
    for given, what in ((nsym, "symbols"), (n, "n")):
        if given is not None and given != k:
            raise _err(f"to_sympy: the function takes {k} reals but {what} gives {given}", f)
    return ty


def _input_value(ty: Type, syms: list):
    it = iter(syms)
    return bottom_up(ty, lambda t: (None, next(it)) if isinstance(t, Real) else (t.items, t),
                     lambda t, items: tuple(items))


def _zeros_shaped(v, f: Term, dom: Type):
    """v with each zero vector 𝟎 of a product type (one sympy 0) given the shape of
    its type: λv. let v : ℝ × ℝ = 𝟎 in v has two outputs, not one.  (Only an
    output with a 0 in it is type-checked for that.)"""
    from ..errors import PullbackCalcError
    from ..syntax.types import TVar
    from ..typing.check import check
    stack, zero = [v], False
    while stack and not zero:
        u = stack.pop()
        if isinstance(u, tuple):
            stack.extend(u)
        else:
            zero = u == 0
    if not zero:
        return v
    try:
        ty = check(f, Arrow(dom, TVar.new()))
    except PullbackCalcError:  # untypable here: the caller reports the term itself
        return v

    def shape(u, t):
        if isinstance(t, Prod):
            if isinstance(u, tuple):
                return tuple(shape(a, i) for a, i in zip(u, t.items))
            if u == 0:
                return tuple(shape(u, i) for i in t.items)
        return u
    return shape(v, ty.cod) if isinstance(ty, Arrow) else v


@deep
def to_sympy(f: Term, symbols=None, n: Optional[int] = None, *,
             evaluate: bool = True) -> list[sympy.Expr]:
    """The m output expressions of a closed first-order term f : R^n → R^m in
    ``symbols`` (default ``x1 … xn``).  ``evaluate=False`` builds sympy
    expressions unevaluated: sympy's automatic simplification costs time
    quadratic in the depth of e.g. sin(sin(…)), too much for 10,000 levels."""
    if not isinstance(f, Lam):
        raise _err(f"to_sympy: expected a λ-abstraction R^n → R^m, got {type(f).__name__}", f)
    syms = None if symbols is None else [sympy.Symbol(s) if isinstance(s, str) else s
                                         for s in symbols]
    ty = _input_type(f, None if syms is None else len(syms), n)
    if syms is None:
        syms = default_symbols(len(real_leaves(ty) or ()))  # (built from R: _input_type)
    env: dict = {}
    _bind(f.pat, _input_value(ty, syms), env)
    with sympy.evaluate(evaluate):  # thread-local; @deep runs us on our own thread
        v = _zeros_shaped(trampoline(_ev(f.body, env)), f, ty)
    out, stack = [], [v]
    while stack:  # flatten nested tuples left to right
        u = stack.pop()
        if isinstance(u, tuple):
            stack.extend(reversed(u))
        elif _is_real(u):
            out.append(u)
        else:
            raise _err("to_sympy: the result is a function, not a tuple of reals", f)
    return out


# ---- sympy → terms ---------------------------------------------------------------

def _P(op: str, *args: Term) -> Prim:
    return Prim(op, args)


def _negated(t: Term) -> Optional[Term]:
    """u if t is −u (neg(u) or a negative numeral), else None."""
    if isinstance(t, Prim) and t.op == "neg":
        return t.args[0]
    if isinstance(t, Num) and t.value < 0:
        return Num(-t.value)
    return None


def _is_recip(t: Term) -> bool:
    return isinstance(t, Prim) and t.op == "div" and t.args[0] == Num(1.0)


def _const(e: sympy.Basic) -> Num:
    try:
        v = float(e)
    except (TypeError, ValueError):
        raise JacobianError(f"from_sympy: {e} is not a real constant") from None
    if not math.isfinite(v):
        raise JacobianError(f"from_sympy: {e} is not a finite real")
    return Num(v)


def _fold_order(e: sympy.Basic) -> list:
    """The arguments of an Add or Mul in the order they are folded: a Mul's
    numeric coefficient apart (applied last), reciprocals last (so x·y⁻¹ is
    x / y); in an Add, subtracted terms after the others and the constant last."""
    args = list(e.args)
    if isinstance(e, sympy.Mul):
        if args[0].is_Number:
            args = args[1:]
        return sorted(args, key=lambda a: (isinstance(a, sympy.Pow) and a.exp.is_Number
                                           and bool(a.exp.is_negative)))
    return sorted(args, key=lambda a: (a.is_Number, bool(
        (a.is_Number and a.is_negative)
        or (isinstance(a, sympy.Mul) and a.args[0].is_Number and a.args[0].is_negative))))


def _combine(e: sympy.Basic, acc: Term, t: Term) -> Term:
    if isinstance(e, sympy.Add):
        u = _negated(t)
        return _P("add", acc, t) if u is None else _P("sub", acc, u)
    if _is_recip(t):
        assert isinstance(t, Prim)
        return _P("div", acc, t.args[1])
    return _P("mul", acc, t)


def _node_term(e: sympy.Basic, kids: dict) -> Term:
    """The term of a non-constant node other than Add and Mul."""
    if isinstance(e, sympy.Pow):
        b, x = kids[e.base], e.exp
        if x == sympy.S.Half:
            return _P("sqrt", b)
        if x == -sympy.S.Half:
            return _P("div", Num(1.0), _P("sqrt", b))
        if x.is_Integer and x < 0:
            return _P("div", Num(1.0), b if x == -1 else _P("pow", b, Num(-int(x))))
        return _P("pow", b, kids[x])  # positive integer powers stay pow(b, k)
    if e.func in FROM_SYMPY and len(e.args) == 1:
        return _P(FROM_SYMPY[e.func], kids[e.args[0]])
    raise JacobianError(f"from_sympy: unsupported sympy node {type(e).__name__}")


def _with_coeff(e: sympy.Basic, t: Term) -> Term:
    """A Mul's numeric coefficient applied to the product of its other factors."""
    if not (isinstance(e, sympy.Mul) and e.args[0].is_Number):
        return t
    c = float(e.args[0])
    if c == -1.0:
        return _P("neg", t)
    if c < 0:
        return _P("neg", _P("mul", Num(-c), t))
    return t if c == 1.0 else _P("mul", Num(c), t)


def _supported(e: sympy.Basic) -> bool:
    return e.is_Atom or isinstance(e, (sympy.Add, sympy.Mul, sympy.Pow)) or e.func in FROM_SYMPY


def _input_names(symbols: list) -> list[str]:
    names: list[str] = []
    for s in symbols:
        name = s.name
        ok = (_IDENT.fullmatch(name) and name not in prims.ARITY and name not in names)
        names.append(name if ok else "")
    for name in names:
        if name:
            note_name(name)  # so that fresh() never returns it
    return [name or fresh("x") for name in names]


@deep
def from_sympy(exprs, symbols) -> Lam:
    """The λ-term of R^n → R^m computing ``exprs`` (m of them) in ``symbols``
    (n of them).  Every non-constant subexpression referenced more than once
    in the DAG of all outputs is bound once, by a let, in dependency order; so
    is every partial sum or product that two of sympy's flattened n-ary sums
    or products begin with.  Constants are evaluated to numerals.

    Only sympy expressions (and numbers) are taken, never text: sympy reads
    text with ``eval``, so a string could run any code (parse it yourself, with
    ``sympy.parse_expr``, if it is yours)."""
    if isinstance(exprs, (str, bytes)) or (isinstance(exprs, (list, tuple))
                                           and any(isinstance(e, (str, bytes)) for e in exprs)):
        raise JacobianError("from_sympy takes sympy expressions, not text (sympy would read "
                            "text with eval, which runs code): build them with sympy, or "
                            "parse text you trust with sympy.parse_expr first")
    if isinstance(exprs, sympy.Basic) and not isinstance(exprs, sympy.MatrixBase):
        exprs = [exprs]
    try:
        roots = [sympy.sympify(e, strict=True) for e in exprs]
    except (sympy.SympifyError, TypeError) as err:
        raise JacobianError(f"from_sympy: not a sympy expression: {err}") from None
    symbols = [sympy.Symbol(s) if isinstance(s, str) else s for s in symbols]
    if not roots or not symbols:
        raise JacobianError("from_sympy: need at least one expression and one symbol")
    if len(set(symbols)) != len(symbols) or not all(isinstance(s, sympy.Symbol) for s in symbols):
        raise JacobianError("from_sympy: the inputs must be distinct sympy symbols")
    names = _input_names(symbols)
    var = {s: Var(nm) for s, nm in zip(symbols, names)}

    # Iterative post-order over the distinct nodes; refs counts references
    # (one per distinct parent, one per output).
    refs: dict = {}
    order: list = []
    seen: set = set()
    for r in roots:
        refs[r] = refs.get(r, 0) + 1
        stack = [(r, False)]
        while stack:
            e, done = stack.pop()
            if done:
                order.append(e)
            elif e not in seen:
                seen.add(e)
                if not _supported(e) and e.free_symbols:  # name the outermost culprit
                    raise JacobianError(f"from_sympy: unsupported sympy node {type(e).__name__}")
                stack.append((e, True))
                for a in e.args:
                    refs[a] = refs.get(a, 0) + 1
                    if a not in seen:
                        stack.append((a, False))

    # sympy flattens sums and products (sin(e)·e with e = a·b is a·b·sin(e)),
    # hiding their sharing; so partial sums and products are shared too: each
    # fold prefix is a node of a trie, and a prefix folded by two nodes is bound.
    has_sym: dict = {}
    trie: dict = {}    # (prefix id or the class, next argument) -> prefix id
    uses: dict = {}    # prefix id -> number of Add/Mul nodes folding it
    for e in order:
        has_sym[e] = isinstance(e, sympy.Symbol) or any(has_sym[a] for a in e.args)
        if has_sym[e] and isinstance(e, (sympy.Add, sympy.Mul)):
            node = type(e)
            for a in _fold_order(e):
                node = trie.setdefault((node, a), len(trie))
                uses[node] = uses.get(node, 0) + 1

    binds: list[tuple[str, Term]] = []

    def bind(t: Term) -> Var:
        binds.append((fresh("t"), t))
        return Var(binds[-1][0])

    kids: dict = {}   # node -> its term: a Var if let-bound, else the inline term
    folds: dict = {}  # prefix id -> the Var bound to it
    for e in order:
        if isinstance(e, sympy.Symbol):
            if e not in var:
                raise JacobianError(f"from_sympy: free symbol {e.name} is not an input")
            kids[e] = var[e]
            continue
        if not has_sym[e]:
            continue  # a constant: made a numeral where used (below)
        for a in e.args:
            if not has_sym[a] and a not in kids:
                kids[a] = _const(a)
        if isinstance(e, (sympy.Add, sympy.Mul)):
            node, t = type(e), None
            for i, a in enumerate(_fold_order(e)):
                node = trie[(node, a)]
                if node in folds:
                    t = folds[node]
                    continue
                t = kids[a] if t is None else _combine(e, t, kids[a])  # (None: i = 0)
                if i > 0 and uses[node] > 1:
                    t = folds[node] = bind(t)
            assert t is not None  # (an Add or Mul has arguments)
            t = _with_coeff(e, t)
        else:
            t = _node_term(e, kids)
        kids[e] = bind(t) if refs[e] > 1 and not isinstance(t, Var) else t

    body = tup(*(kids[r] if has_sym[r] else _const(r) for r in roots))
    for name, t in reversed(binds):
        body = let(Var(name), t, body)
    return Lam(tup(*(var[s] for s in symbols)), body)


# ---- the oracle ------------------------------------------------------------------

@deep
def sympy_jacobian(f: Term, point, symbols=None) -> list[list[float]]:
    """The m×n Jacobian of f : R^n → R^m at ``point`` (n floats, or one float),
    by sympy differentiation of ``to_sympy(f)``."""
    pt = [float(p) for p in ([point] if isinstance(point, (int, float)) else point)]
    syms = default_symbols(len(pt)) if symbols is None else [
        sympy.Symbol(s) if isinstance(s, str) else s for s in symbols]
    if len(syms) != len(pt):
        raise JacobianError(f"sympy_jacobian: {len(syms)} symbols but a point of {len(pt)}")
    exprs = to_sympy(f, syms)
    jac = sympy.Matrix(exprs).jacobian(syms)
    vals = dict(zip(syms, pt))
    rows = []
    for i in range(jac.rows):
        row = []
        for j in range(jac.cols):
            v = jac[i, j].evalf(subs=vals)
            try:
                r = float(v)
            except TypeError:
                raise JacobianError(f"sympy_jacobian: entry ({i + 1}, {j + 1}) is {v}, "
                                    f"not a real, at {pt}") from None
            if not math.isfinite(r):
                raise JacobianError(f"sympy_jacobian: entry ({i + 1}, {j + 1}) is {v} at {pt}")
            row.append(r)
        rows.append(row)
    return rows
