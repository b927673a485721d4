"""Function symbols registered at run time: one call, no source edits.

A function symbol f ∈ F is an entry in a table of every interpretation:
``syntax/prims.py`` (arity, spelling, rule 4's value, rule 15's partial
derivatives, linearity), ``results/sympy_bridge.SYMPY`` (to sympy),
``testing/oracle`` (the forward-mode oracle's value and derivatives) and the
generator of ``testing/strategies`` -- and the parser, type checker, printers
and LaTeX read those tables.  ``register_primitive`` fills all of them::

    import math, pullback_calc as pc
    softplus = pc.register_primitive(
        "softplus", 1, lambda a: math.log1p(math.exp(a)),
        partials=["λa. 1 / (1 + exp(−a))"],
        sympy=lambda a: sympy.log(1 + sympy.exp(a)))
    pc.grad("λx. softplus(x × x)", 1.0)

Partial derivatives are terms, so that rule 15 can differentiate them again
(second order, nested pullbacks): each is a λ-abstraction in the concrete
syntax or a term (``λa. …`` for one argument, ``λ⟨a, b⟩. …`` or ``λa b. …``
for two), a Python function from the argument *terms* to a term (like the
built-in table), a number, or None for the constant 1.  They may use the
symbol being registered (``sigmoid′ = sigmoid × (1 − sigmoid)``).

``unregister_primitive(name)`` undoes a registration; a ``Primitive`` is a
context manager that does so on exit, and ``primitive_scope()`` unregisters
everything registered inside it (for tests).

Threads: registering and unregistering are safe from any thread.  A change
waits for the reductions running in other threads to end, and holds new ones
off until it is made (``syntax.terms.between_reductions``), so a reduction
sees a symbol's whole entry or none, from its first step to its last; a term
that uses a symbol unregistered before its reduction starts is an error
naming it.  A change from inside a reduction (a symbol's own ``evaluate``)
is refused.
"""
from __future__ import annotations

import contextlib
import re
import threading
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence, Union

from .errors import PullbackCalcError
from .syntax import prims
from .syntax.subst import fv, subst
from .deep import bottom_up
from .syntax.terms import (Lam, Num, Prim, Term, Tuple, Var, between_reductions, remake,
                           subterm_kids, tup, Zero)

__all__ = ["Primitive", "RegistrationError", "register_primitive", "unregister_primitive",
           "primitive_scope", "registered_primitives", "GENERATORS"]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_']*")
_RESERVED = {"let", "in", "J", "pullback", "zero", "dual", "R"}
BUILTIN = frozenset(prims.ARITY)

#: strategy builders of the registered symbols: name → (argument terms ↦ guarded application)
GENERATORS: dict[str, Callable[..., Term]] = {}
_REGISTERED: dict[str, "Primitive"] = {}
_LINEARITY_KINDS = {(): None, (0,): "first"}
_CHANGING = threading.RLock()  # one change of the tables at a time


@contextlib.contextmanager
def _change():
    """Hold the tables for one change: no other change, and no reduction running."""
    with _CHANGING:
        try:
            gate = between_reductions()
            gate.__enter__()
        except RuntimeError as e:
            raise RegistrationError(f"{e}: register or unregister before or after it") from None
        try:
            yield
        finally:
            gate.__exit__(None, None, None)


class RegistrationError(PullbackCalcError):
    """A registration that cannot be made (bad name, arity or partials)."""


@dataclass(frozen=True)
class Primitive:
    """A registered function symbol.  Calling it applies it: to floats it gives
    the value (by ``evaluate``), inside ``pc.trace`` it records the operation."""
    name: str
    arity: int
    evaluate: Callable[..., float] = field(repr=False)
    partials: tuple = field(repr=False)       # ((parameter names), body or None) each
    sympy: Optional[Callable] = field(default=None, repr=False)
    linear_in: tuple = ()

    def __call__(self, *args):
        from .tracing import apply_primitive
        return apply_primitive(self.name, *args)

    def __enter__(self) -> "Primitive":
        return self

    def __exit__(self, *exc) -> None:
        unregister_primitive(self.name)

    def partial_terms(self) -> list[Lam]:
        """∂ᵢf as λ-abstractions over the arguments (None: the constant 1)."""
        return [Lam(tup(*(Var(p) for p in params)), Num(1.0) if body is None else body)
                for params, body in self.partials]


# ---- partial derivatives --------------------------------------------------------------

def _uncurry(lam: Term, arity: int) -> tuple[list[str], Term]:
    """(parameter names, body) of λa. S, λ⟨a, b⟩. S or λa b. S."""
    if not isinstance(lam, Lam):
        raise RegistrationError("a partial derivative must be a λ-abstraction over the "
                                f"arguments, e.g. λa. cos(a); got {lam}")
    if isinstance(lam.pat, Tuple) and all(isinstance(p, Var) for p in lam.pat.items):
        params, body = [p.name for p in lam.pat.items if isinstance(p, Var)], lam.body
    else:
        params, body = [], lam
        while len(params) < arity and isinstance(body, Lam) and isinstance(body.pat, Var):
            params.append(body.pat.name)
            body = body.body
    if len(params) != arity:
        raise RegistrationError(f"a partial derivative of a symbol of {arity} argument(s) "
                                f"must bind {arity} variable(s): {lam}")
    return params, body


def _partial(spec, arity: int) -> tuple[tuple, Optional[Term]]:
    from .syntax.parser import parse
    if spec is None:
        return tuple(f"a{i}" for i in range(arity)), None
    if isinstance(spec, (int, float)):
        return tuple(f"a{i}" for i in range(arity)), Num(float(spec))
    if isinstance(spec, str):
        spec = parse(spec)
    if isinstance(spec, Term):
        params, body = _uncurry(_without_positions(spec), arity)
        return tuple(params), body
    if callable(spec):
        names = tuple(f"a{i}" for i in range(1, arity + 1))
        try:
            built = spec(*(Var(p) for p in names))
        except Exception as e:  # (math.cos given: it wants a float, not a term)
            raise RegistrationError(
                f"a partial derivative given as a Python function builds a term from the "
                f"argument terms, but {getattr(spec, '__name__', spec)!r} failed on them "
                f"({type(e).__name__}: {e}); write it as text, e.g. 'λa. cos(a)'") from None
        if not isinstance(built, Term):
            raise RegistrationError("a partial derivative given as a Python function must "
                                    "build a term from the argument terms")
        return names, built
    raise RegistrationError(f"cannot read a partial derivative from {spec!r}")


def _without_positions(t: Term) -> Term:
    """A copy of t with no source positions: a position in the text of a partial
    derivative (or in the term the caller parsed) is none in the user's program --
    an error in ∂f is reported at the symbol f the user wrote (rule 15's
    ``PartialPos``).  A copy, so that the caller's term keeps its own."""
    def open_(u: Term):
        if isinstance(u, Var):
            return None, Var(u.name)
        if isinstance(u, Num):
            return None, Num(u.value)
        kids = subterm_kids(u)
        return (kids, u) if kids else (None, Zero())

    def close(u: Term, images: list) -> Term:
        v = remake(u, images)
        v.pos = None  # (a node just built)
        return v
    return bottom_up(t, open_, close)


def _partials_entry(parts: tuple) -> Callable[..., tuple]:
    def partials(*args: Term) -> tuple:
        return tuple(None if body is None else subst(body, dict(zip(params, args)))
                     for params, body in parts)
    return partials


def _checked_eval(name: str, evaluate: Callable) -> Callable[..., float]:
    def value(*args: float) -> float:
        try:
            return float(evaluate(*args))
        except (ArithmeticError, ValueError):
            raise
        except Exception as e:  # a user's function: rule 4 reports it, no traceback
            raise ValueError(f"{name} raised {type(e).__name__}: {e}") from None
    return value


def _oracle_derivatives(parts: tuple) -> tuple:
    """The oracle's ∂ᵢf: the partial's term evaluated by the oracle itself (on
    tagged dual numbers, so that nested derivatives work)."""
    from .semantics import oracle

    def one(params, body):
        if body is None:
            return lambda *a: 1.0
        return lambda *a: oracle.evaluate(body, dict(zip(params, a)))
    return tuple(one(p, b) for p, b in parts)


# ---- registering ----------------------------------------------------------------------

def register_primitive(name: str, arity: int, evaluate: Callable[..., float],
                       partials: Sequence, *, sympy: Optional[Callable] = None,
                       linear_in: Union[Sequence[int], str] = (),
                       generate: Optional[Callable[..., Term]] = None,
                       latex: Optional[str] = None) -> Primitive:
    """Add the function symbol ``name`` of ``arity`` real arguments.

    ``evaluate``  its value on floats (rule 4);
    ``partials``  one partial derivative per argument (rule 15), see the module doc;
    ``sympy``     its sympy expression (a function of sympy arguments, or a sympy
                  function class), for ``to_sympy``/``check``; a class is also read
                  back by ``from_sympy``;
    ``linear_in`` the argument slots it is linear in for lin(S): () or (0,) (or one
                  of the kinds of ``prims.LINEARITY``);
    ``generate``  the strategies' builder (argument terms ↦ the application, guarded
                  to stay in the domain; default: the plain application);
    ``latex``     its LaTeX name (default ``\\mathrm{name}``).

    The symbol then parses, type-checks, reduces, prints (``name(a, …)``), is
    generated by ``testing.strategies`` and evaluated by the oracle.
    """
    if not (isinstance(name, str) and _NAME.fullmatch(name)) or name in _RESERVED \
            or re.fullmatch(r"pi[0-9]+", name):
        raise RegistrationError(f"{name!r} cannot be a function symbol: use an identifier that "
                                f"is not a keyword (let in J pullback zero dual R) or pi1, pi2, …")
    if name in prims.ARITY:
        raise RegistrationError(f"{name} is already a function symbol"
                                + ("" if name in BUILTIN else
                                   " (unregister_primitive it first to redefine it)"))
    if not (isinstance(arity, int) and not isinstance(arity, bool) and arity >= 1):
        raise RegistrationError(f"the arity of {name} must be a positive integer, got {arity!r}")
    if not callable(evaluate):
        raise RegistrationError(f"evaluate must be a Python function of {arity} float(s) (the "
                                f"value of {name}, rule 4), got {evaluate!r}")
    if isinstance(partials, (str, bytes)) or not hasattr(partials, "__len__"):
        raise RegistrationError(f"partials must be a list of {arity} partial derivative(s), "
                                f"got {partials!r}")
    if len(partials) != arity:
        raise RegistrationError(f"{name} takes {arity} argument(s) but {len(partials)} partial "
                                f"derivative(s) were given")
    kind = linear_in if isinstance(linear_in, str) else _LINEARITY_KINDS.get(tuple(linear_in), "?")
    if kind not in (None, "first", "each", "joint"):
        raise RegistrationError(f"linear_in must be () or (0,) (or 'each', 'joint', 'first'), "
                                f"got {linear_in!r}")
    with _change():
        return _register(name, arity, evaluate, partials, sympy, linear_in, kind, generate,
                         latex)


def _register(name, arity, evaluate, partials, sympy, linear_in, kind, generate, latex):
    if name in prims.ARITY:  # (registered by another thread meanwhile)
        raise RegistrationError(f"{name} is already a function symbol (unregister_primitive "
                                f"it first to redefine it)")
    # the arity first: the partials may use the symbol itself (sigmoid′ = σ(1 − σ));
    # its spelling before it, so that a printer that finds the one finds the other
    prims.SPELLING[name] = (name, name, None)
    prims.ARITY[name] = arity
    try:
        parts = tuple(_partial(p, arity) for p in partials)
        _check_partials(name, parts)
    except BaseException:
        del prims.ARITY[name], prims.SPELLING[name]
        raise
    prim = Primitive(name, arity, evaluate, parts, sympy, tuple(linear_in)
                     if not isinstance(linear_in, str) else ())
    prims.EVAL[name] = _checked_eval(name, evaluate)
    prims.PARTIALS[name] = _partials_entry(parts)
    prims.LINEARITY[name] = kind
    prims.PRIMS = tuple(prims.ARITY)
    from .results import sympy_bridge
    from .semantics import oracle
    oracle.FLOATS[name] = prims.EVAL[name]
    oracle.DERIVATIVES[name] = _oracle_derivatives(parts)
    if sympy is not None:
        sympy_bridge.SYMPY[name] = sympy
        if isinstance(sympy, type) and arity == 1:
            sympy_bridge.FROM_SYMPY[sympy] = name
    if latex is not None:
        from .rendering import latex as L
        L.FUNCTIONS[name] = latex
    GENERATORS[name] = generate or (lambda *args: Prim(name, tuple(args)))
    _REGISTERED[name] = prim
    return prim


def _check_partials(name: str, parts: tuple) -> None:
    """Each partial is a real-valued term of the arguments alone."""
    from .typing.check import check
    from .syntax.types import Arrow, R, rn
    for i, (params, body) in enumerate(parts, 1):
        if body is None:
            continue
        free = fv(body) - set(params)
        if free:
            raise RegistrationError(f"partial derivative {i} of {name} has free variable(s) "
                                    f"{', '.join(sorted(free))}: it may use only its arguments")
        lam = Lam(tup(*(Var(p) for p in params)), body)
        try:
            check(lam, Arrow(rn(len(params)), R))
        except PullbackCalcError as e:
            raise RegistrationError(f"partial derivative {i} of {name} is not a real-valued "
                                    f"term of the arguments: {e.message}") from None


def unregister_primitive(name: str) -> None:
    """Remove a registered symbol from every table (built-in symbols stay)."""
    if name in BUILTIN:
        raise RegistrationError(f"{name} is a built-in function symbol")
    with _change():
        _unregister(name)


def _unregister(name: str) -> None:
    prim = _REGISTERED.pop(name, None)
    if prim is None:
        raise RegistrationError(f"{name} is not a registered function symbol")
    from .results import sympy_bridge
    from .rendering import latex as L
    from .semantics import oracle
    for table in (prims.ARITY, prims.SPELLING, prims.EVAL, prims.PARTIALS, prims.LINEARITY,
                  oracle.FLOATS, oracle.DERIVATIVES, sympy_bridge.SYMPY, GENERATORS, L.FUNCTIONS):
        table.pop(name, None)
    for cls, n in list(sympy_bridge.FROM_SYMPY.items()):
        if n == name:
            del sympy_bridge.FROM_SYMPY[cls]
    prims.PRIMS = tuple(prims.ARITY)


def registered_primitives() -> dict[str, Primitive]:
    """The symbols registered at run time, by name."""
    with _CHANGING:
        return dict(_REGISTERED)


@contextlib.contextmanager
def primitive_scope():
    """Unregister, on exit, every symbol registered inside the block."""
    before = set(registered_primitives())
    try:
        yield
    finally:
        for name in [n for n in registered_primitives() if n not in before][::-1]:
            unregister_primitive(name)
