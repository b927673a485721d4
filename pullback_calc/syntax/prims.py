"""Function symbols F -- "easily differentiable" functions R^k → R.

Rules are data (as in Autodidax): one table per interpretation, keyed by the
symbol's name.  Adding a function symbol is filling one entry in each table
(and one in ``results.sympy_bridge.SYMPY``); ``tests/test_prims.py`` checks
that every symbol has an entry in every table.

- ``ARITY``       number of real arguments
- ``SPELLING``    concrete syntax: (unicode, ascii, infix precedence or None)
- ``EVAL``        rule 4: the value on numerals
- ``PARTIALS``    rule 15: ∂ᵢf as terms in the argument terms (None = 1)
- ``LINEARITY``   which argument slots the symbol is linear in, for lin(S)
"""
from __future__ import annotations

import math
from typing import Callable, Optional

from .terms import SYMBOLS, Num, Prim, Term

ARITY: dict[str, int] = SYMBOLS  # (one table: fresh scopes read it there)
ARITY.update({
    "add": 2, "sub": 2, "mul": 2, "div": 2, "neg": 1, "pow": 2,
    "sin": 1, "cos": 1, "tan": 1, "exp": 1, "log": 1, "sqrt": 1, "tanh": 1,
})

# (unicode spelling, ascii spelling, infix precedence or None for prefix f(a, …))
SPELLING: dict[str, tuple[str, str, Optional[int]]] = {
    "add": ("+", "+", 10),
    "sub": ("−", "-", 10),
    "mul": ("×", "*", 20),
    "div": ("/", "/", 20),
    "neg": ("−", "-", 30),      # prefix minus
    "pow": ("^", "^", 40),      # right-associative
    "sin": ("sin", "sin", None),
    "cos": ("cos", "cos", None),
    "tan": ("tan", "tan", None),
    "exp": ("exp", "exp", None),
    "log": ("log", "log", None),
    "sqrt": ("sqrt", "sqrt", None),
    "tanh": ("tanh", "tanh", None),
}


def _div(a: float, b: float) -> float:
    if b == 0.0:
        raise ArithmeticError("division by zero")
    return a / b


def _pow(a: float, b: float) -> float:
    try:
        r = a ** b
    except OverflowError:  # float's own message is a raw errno tuple
        raise ArithmeticError("the result is too large for a float") from None
    except ZeroDivisionError:
        raise ArithmeticError("0 to a negative power is undefined") from None
    if isinstance(r, complex):
        raise ArithmeticError(f"{a} ^ {b} is not a real number")
    return float(r)


def _checked(f: Callable[[float], float], a: float) -> float:
    try:
        return f(a)
    except OverflowError:
        raise ArithmeticError("the result is too large for a float") from None


EVAL: dict[str, Callable[..., float]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": _div,
    "neg": lambda a: -a,
    "pow": _pow,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "exp": lambda a: _checked(math.exp, a),
    "log": math.log,
    "sqrt": math.sqrt,
    "tanh": math.tanh,
}


def P(op: str, *args: Term) -> Prim:
    return Prim(op, tuple(args))


ONE = None  # a partial derivative that is identically 1


def _pow_base_partial(a: Term, b: Term) -> Term:
    """∂(a ^ b)/∂a = b × a ^ (b − 1), and 0 at the constant exponent 0: a ^ 0
    is 1 for every a (0 ^ 0 included), so its derivative is 0 -- where the
    formula would ask for 0 × 0 ^ (−1), undefined (the third derivative of
    t ^ 2 at 0: t ^ 2 → 2 × t ^ 1 → 1 × t ^ 0 → 0)."""
    if isinstance(b, Num) and b.value == 0.0:
        return Num(0.0)
    return P("mul", b, P("pow", a, P("sub", b, Num(1.0))))


PARTIALS: dict[str, Callable[..., tuple[Optional[Term], ...]]] = {
    "add": lambda a, b: (ONE, ONE),
    "sub": lambda a, b: (ONE, Num(-1.0)),
    "mul": lambda a, b: (b, a),
    "div": lambda a, b: (P("div", Num(1.0), b), P("neg", P("div", a, P("mul", b, b)))),
    "neg": lambda a: (Num(-1.0),),
    "pow": lambda a, b: (_pow_base_partial(a, b), P("mul", P("log", a), P("pow", a, b))),
    "sin": lambda a: (P("cos", a),),
    "cos": lambda a: (P("neg", P("sin", a)),),
    "tan": lambda a: (P("add", Num(1.0), P("pow", P("tan", a), Num(2.0))),),
    "exp": lambda a: (P("exp", a),),
    "log": lambda a: (P("div", Num(1.0), a),),
    "sqrt": lambda a: (P("div", Num(0.5), P("sqrt", a)),),
    "tanh": lambda a: (P("sub", Num(1.0), P("pow", P("tanh", a), Num(2.0))),),
}

# Linearity for lin(S): "each" = linear in each slot separately when the other
# slots are constant (bilinear ×); "joint" = linear jointly in all slots (+, −,
# neg); "first" = linear in slot 1 when the rest are constant (/); None = no
# linear slot.
LINEARITY: dict[str, Optional[str]] = {
    "add": "joint", "sub": "joint", "neg": "joint", "mul": "each", "div": "first",
    "pow": None, "sin": None, "cos": None, "tan": None, "exp": None, "log": None,
    "sqrt": None, "tanh": None,
}

TABLES = {"ARITY": ARITY, "SPELLING": SPELLING, "EVAL": EVAL,
          "PARTIALS": PARTIALS, "LINEARITY": LINEARITY}
PRIMS = tuple(ARITY)
