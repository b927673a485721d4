"""Python functions in, terms out: tracing by operator overloading.

``trace(fn, arity)`` calls an ordinary Python function over floats with
*traced* arguments; every arithmetic operator (``+ − × / **``, unary ``−``)
and every function symbol called through ``pc.sin``, ``pc.exp``, … (or a
registered ``Primitive``) records one operation, as Yota's tracer, DVL's
overloading and JAX's ``make_jaxpr`` do.  The recording becomes a λ-term:

* a value used twice or more is bound once, by a ``let`` (sharing is kept:
  Python object identity, DVL's "sharing detection by ids");
* a value used once is written in place (so ``lambda x, y: x * x + y`` is
  ``λ⟨x, y⟩. x × x + y``);
* operations whose result is never used are left out;
* Python numbers stay numbers: only operations on traced values are recorded.

So the term's size is linear in the number of operations executed (loops are
unrolled, as by every tracer).  Control flow on traced values -- ``if x > 0``,
``while``, comparisons, ``float(x)``, ``math.sin(x)`` -- is out of scope:
it raises a ``TraceError`` naming the line of the function that did it.
"""
from __future__ import annotations

import functools
import inspect
import os
import re
from typing import Callable, Optional

from .errors import PullbackCalcError
from .syntax import prims
from .syntax.terms import App, Lam, Num, Prim, Term, Var, fresh, note_name, tup

__all__ = ["TraceError", "Traced", "trace", "apply_primitive", "sin", "cos", "tan", "exp", "log",
           "sqrt", "tanh"]

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_']*")
_RESERVED = {"let", "in", "J", "pullback", "zero", "dual"}


class TraceError(PullbackCalcError):
    """A Python function that cannot be traced into a term."""


def _user_line() -> str:
    """file:line of the innermost frame outside this module (the user's code)."""
    here = os.path.abspath(__file__)
    for frame in inspect.stack()[1:]:
        if os.path.abspath(frame.filename) != here:
            return f"{os.path.basename(frame.filename)}:{frame.lineno}"
    return "?"


class _Node:
    """One recorded operation: ``op`` applied to operands (nodes or floats)."""
    __slots__ = ("op", "args", "uses", "index")

    def __init__(self, op: str, args: tuple, index: int):
        self.op, self.args, self.uses, self.index = op, args, 0, index


class _Tape:
    def __init__(self):
        self.nodes: list[_Node] = []


class Traced:
    """A traced real: stands for a value of the function being traced."""
    __slots__ = ("tape", "node", "var")

    def __init__(self, tape: _Tape, node: Optional[_Node] = None, var: Optional[str] = None):
        self.tape, self.node, self.var = tape, node, var

    def __repr__(self) -> str:
        return f"<traced {self.var or (self.node.op if self.node is not None else '?')}>"

    # arithmetic: recorded
    def __add__(self, o): return apply_primitive("add", self, o)
    def __radd__(self, o): return apply_primitive("add", o, self)
    def __sub__(self, o): return apply_primitive("sub", self, o)
    def __rsub__(self, o): return apply_primitive("sub", o, self)
    def __mul__(self, o): return apply_primitive("mul", self, o)
    def __rmul__(self, o): return apply_primitive("mul", o, self)
    def __truediv__(self, o): return apply_primitive("div", self, o)
    def __rtruediv__(self, o): return apply_primitive("div", o, self)
    def __pow__(self, o): return apply_primitive("pow", self, o)
    def __rpow__(self, o): return apply_primitive("pow", o, self)
    def __neg__(self): return apply_primitive("neg", self)
    def __pos__(self): return self

    def __abs__(self):
        if "abs" not in prims.ARITY:
            raise TraceError(f"abs() of a traced value at {_user_line()}: abs is not a function "
                             f"symbol; register it (pc.extras.register_all())")
        return apply_primitive("abs", self)

    # control flow on values: out of scope
    def _no(self, what: str):
        raise TraceError(f"{what} on a traced value at {_user_line()}: pc.trace records "
                         f"arithmetic only, and Python control flow on the values being "
                         f"differentiated (if, while, comparisons) is out of its scope; write "
                         f"the branch with a function symbol instead (e.g. max0 or abs from "
                         f"pc.extras)")

    def __bool__(self): self._no("a truth test (if/while/and/or)")
    def __lt__(self, o): self._no("a comparison <")
    def __le__(self, o): self._no("a comparison <=")
    def __gt__(self, o): self._no("a comparison >")
    def __ge__(self, o): self._no("a comparison >=")
    def __eq__(self, o): self._no("a comparison ==")
    def __ne__(self, o): self._no("a comparison !=")
    __hash__ = object.__hash__

    def __float__(self):
        raise TraceError(f"float() of a traced value at {_user_line()} (math.sin and friends "
                         f"call it): use pc.sin, pc.exp, … on traced values")

    __int__ = __index__ = __float__


def apply_primitive(op: str, *args):
    """The function symbol ``op`` applied: recorded if an argument is traced,
    computed (rule 4's table) if all are numbers."""
    tapes = {a.tape for a in args if isinstance(a, Traced)}
    if not tapes:
        return prims.EVAL[op](*(float(a) for a in args))
    if len(tapes) > 1:
        raise TraceError(f"{op} at {_user_line()} mixes values of two traces")
    for a in args:
        if not isinstance(a, (Traced, int, float)):
            raise TraceError(f"{op} at {_user_line()} applied to {a!r}, which is neither a "
                             f"number nor a traced value")
    if len(args) != prims.ARITY[op]:
        raise TraceError(f"{op} takes {prims.ARITY[op]} argument(s), given {len(args)} at "
                         f"{_user_line()}")
    tape = tapes.pop()
    node = _Node(op, args, len(tape.nodes))
    tape.nodes.append(node)
    return Traced(tape, node)


sin, cos, tan, exp, log, sqrt, tanh = (functools.partial(apply_primitive, op) for op in
                                       ("sin", "cos", "tan", "exp", "log", "sqrt", "tanh"))


# ---- from the recording to a term -----------------------------------------------------

def _input_names(fn: Callable, arity: int, vector: bool) -> list[str]:
    try:
        params = [p.name for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []

    def usable(n: str) -> bool:
        return bool(_IDENT.fullmatch(n)) and n not in _RESERVED and n not in prims.ARITY \
            and not re.fullmatch(r"pi[0-9]+", n)
    if vector:
        stem = params[0] if params and usable(params[0] + "1") else "x"
        names = [f"{stem}{i}" for i in range(1, arity + 1)]
    elif len(params) >= arity and all(usable(n) for n in params[:arity]) \
            and len(set(params[:arity])) == arity:
        names = params[:arity]
    else:
        names = [f"x{i}" for i in range(1, arity + 1)] if arity > 1 else ["x"]
    for n in names:
        note_name(n)  # fresh let names never clash with them
    return names


def _positional_count(fn: Callable) -> Optional[int]:
    try:
        ps = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_POSITIONAL for p in ps):
        return None
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
               for p in ps)


def trace(fn: Callable, arity: Optional[int] = None, *, vector: Optional[bool] = None) -> Lam:
    """The λ-term of the Python function ``fn`` of ``arity`` reals (default:
    its number of parameters).  ``vector=True`` passes the reals as one list
    (``fn(xs)``); by default that is done when ``fn`` takes one parameter but
    ``arity`` is more than 1.  The result may be a number, a traced value or
    a tuple/list of them (a tuple term)."""
    count = _positional_count(fn)
    if arity is None:
        if not count:
            raise TraceError("pass the number of real inputs: pc.trace(fn, arity)")
        arity = count
    if not (isinstance(arity, int) and arity >= 1):
        raise TraceError(f"the arity must be a positive integer, got {arity!r}")
    if vector is None:
        vector = count == 1 and arity > 1
    names = _input_names(fn, arity, vector)
    tape = _Tape()
    xs = [Traced(tape, var=n) for n in names]
    try:
        out = fn(xs) if vector else fn(*xs)
    except TraceError:
        raise
    except TypeError as e:  # e.g. a wrong number of arguments, or an unsupported operation
        raise TraceError(f"calling {getattr(fn, '__name__', 'the function')} with {arity} "
                         f"traced real(s){' as a list' if vector else ''} failed: {e}") from None
    return Lam(tup(*(Var(n) for n in names)), _to_term(out, tape))


def _to_term(out, tape: _Tape) -> Term:
    outputs = list(out) if isinstance(out, (tuple, list)) else [out]
    if not outputs:
        raise TraceError("the function returned an empty tuple")
    for o in outputs:
        if not isinstance(o, (Traced, int, float)):
            raise TraceError(f"the function returned {o!r}: expected numbers, traced values "
                             f"or a tuple of them")
        if isinstance(o, Traced) and o.tape is not tape:
            raise TraceError("the function returned a value of another trace")
    # uses of the operations reachable from the outputs (dead ones stay at 0)
    live: set = set()
    stack = [o.node for o in outputs if isinstance(o, Traced) and o.node is not None]
    for n in stack:
        n.uses += 1
    while stack:
        n = stack.pop()
        if n.index in live:
            continue
        live.add(n.index)
        for a in n.args:
            if isinstance(a, Traced) and a.node is not None:
                a.node.uses += 1
                stack.append(a.node)
    terms: dict = {}   # node index -> its term (a Var when let-bound)
    binds: list = []

    def operand(a) -> Term:
        if isinstance(a, Traced):
            if a.node is not None:
                return terms[a.node.index]
            assert a.var is not None  # an argument of the traced function
            return Var(a.var)
        return Num(float(a))
    for n in tape.nodes:  # creation order: operands before their users
        if n.index not in live:
            continue
        t: Term = Prim(n.op, tuple(operand(a) for a in n.args))
        if n.uses >= 2:  # shared: bound once
            x = Var(fresh(n.op))
            binds.append((x, t))
            t = x
        terms[n.index] = t
    body = tup(*(operand(o) for o in outputs))
    for x, t in reversed(binds):
        body = App(Lam(x, body), t)
    return body
