"""Unknown functions: free function variables in a differentiated program.

A program may call a function the calculus knows nothing about: a free
variable ``h`` (``λx. x × x + h x``), or a name that is not a function
symbol (``h(x)`` parses as the application of the variable ``h``).  The
reduction does not fail on it: a Jacobian of an application of a free
variable is a value (papers/calculus.md §5), so the normal form carries the
stuck atom ``J(λz. h z)·dx V`` -- the unknown derivative of ``h`` at ``V``
along the direction -- with a coefficient: the *sensitivity* of the result
to ``h``'s output, accumulated by the reverse phase like any other.

The policy follows rackpropagator's ``error-non-zero-sensitivity-transform``
(shared/seeds): an unknown function is an error only when the result depends
on its derivative, i.e. when its atom's coefficient is not 0; a call whose
result is never used (or used with weight 0) is fine.  ``on_unknown="zero"``
treats every unknown function as constant (its Jacobian 0): its atoms are
dropped from the normal form.  Either way an unknown *value* (``h 0.5 × dx``:
the coefficient itself is stuck) cannot be turned into a number, and is
reported as such.
"""
from __future__ import annotations

from typing import Optional

from ..errors import JacobianError
from ..reduction.linear import ONE, to_lincomb
from ..syntax.subst import free_names, fv
from ..syntax.terms import Jac, Num, Term, Var, Zero, subterms
from . import rows

POLICIES = ("error", "zero")


class UnknownFunctionError(JacobianError):
    """The result depends on the derivative (or the value) of a function the
    calculus does not know: a free variable or an unregistered symbol."""

    def __init__(self, message: str, name: str, pos=None):
        super().__init__(message, pos)
        self.name = name


def check_policy(policy: str) -> str:
    if policy not in POLICIES:
        raise JacobianError(f"on_unknown must be one of {', '.join(map(repr, POLICIES))}, "
                            f"got {policy!r}")
    return policy


def unknown_functions(f: Term) -> dict:
    """The free variables of ``f``, each with the source position of its first
    occurrence (None for terms built in Python): the functions (or values) the
    program uses without defining them."""
    names = free_names(f)  # (no set cached on every node of a long program)
    where: dict = {}
    for u in subterms(f):
        if isinstance(u, Var) and u.name in names:
            old = where.get(u.name)
            if u.pos is not None and (old is None or (u.pos.line, u.pos.column)
                                      < (old.line, old.column)):
                where[u.name] = u.pos
            else:
                where.setdefault(u.name, None)
    return where


def _first(names, unknown: dict) -> str:
    """The name that occurs first in the source (the outermost call, usually)."""
    def key(n):
        pos = unknown.get(n)
        return (0, pos.line, pos.column, n) if pos is not None else (1, 0, 0, n)
    return min(names, key=key)


def _jacobian_of_unknown(atom: Term, unknown: dict) -> Optional[str]:
    """The unknown function whose Jacobian the atom is (the first, outermost), if any."""
    for u in subterms(atom):
        if isinstance(u, Jac):
            hit = fv(u.lam) & unknown.keys()
            if hit:
                return _first(hit, unknown)
    return None


def _unknown_value_error(what: str, t: Term, unknown: dict) -> JacobianError:
    hit = fv(t) & unknown.keys()
    if hit:
        name = _first(hit, unknown)
        return UnknownFunctionError(
            f"{what} depends on the value of {name}, a free variable with no definition: "
            f"`{t}` is not a number; define {name} (a let, or pc.register_primitive for a "
            f"function symbol)", name, unknown.get(name))
    return JacobianError(f"{what} is not a number: {t}")


def settle(coeffs: dict, unknown: dict, policy: str) -> dict:
    """Apply the policy to a linear combination read off a normal form:
    remove the atoms of unknown Jacobians (after checking, under "error",
    that their coefficients are 0 -- to_lincomb has already dropped zeros)."""
    out = {}
    for atom, c in coeffs.items():
        name = _jacobian_of_unknown(atom, unknown) if unknown else None
        if name is None:
            out[atom] = c
            continue
        if policy == "error":
            raise UnknownFunctionError(
                f"the derivative of {name} is unknown ({name} is a free variable) and the "
                f"result depends on it: its sensitivity is {c}, not 0 (the coefficient of "
                f"`{atom}`); define {name}, register it with pc.register_primitive, or pass "
                f"on_unknown=\"zero\" (--unknown zero) to treat it as constant",
                name, unknown.get(name))
    return out


def read_row(covector: Term, in_paths: list, unknown: dict, policy: str) -> list[float]:
    """``rows.read_row`` for a program with unknown functions: the row
    under the policy (see the module docstring)."""
    return rows.read_row(covector, in_paths, settle=lambda coeffs: settle(coeffs, unknown, policy),
                error=lambda what, t: _unknown_value_error(what, t, unknown))


def read_real(t: Term, unknown: dict, policy: str, what: str) -> float:
    """A real-valued normal form as a float, under the policy: a numeral plus
    unknown Jacobians (a forward-mode tangent through an unknown function)."""
    t = rows.without_lets(t)
    if isinstance(t, Num):
        return t.value
    if isinstance(t, Zero):
        return 0.0
    if not unknown:
        raise JacobianError(f"{what} is not a number: {t}")
    coeffs = settle(to_lincomb(t, frozenset()), unknown, policy)
    c = coeffs.pop(ONE, Num(0.0))
    if coeffs or not isinstance(c, Num):
        raise _unknown_value_error(what, next(iter(coeffs)) if coeffs else c, unknown)
    return c.value
