"""pullback-calc: the differential-form pullback calculus of Mak & Ong, by reduction.

The pipeline, one folder per stage:
    syntax/      terms, types, function symbols, parser, printer
    typing/      type inference with the linearity side condition of dual maps
    areduction/  administrative reduction into let series of elementary terms
    reduction/   the numbered rules and the call-by-value stepper
    results/     normal forms, Jacobian rows, the sympy bridge
"""
__version__ = "0.1.0"

from .errors import (JacobianError, ParseError, PullbackCalcError, PullbackTypeError,
                     ReductionError, StepBudgetExceeded)
from .reduction.machine import DEFAULT_MAX_STEPS
from .results.higher import apply_covector, hessian, hessian_row, strong_normal_form
from .results.jacobian import (JacobianRow, ReductionResult, jacobian, jacobian_row, jacobian_rows,
                               reduce)
from .syntax.parser import parse, parse_type
from .syntax.printer import pretty
from .typing import typecheck
from .api import (D, JVP, VJP, Backpropagator, Gradient, Value, backprop, call, grad, grad1, jvp,
                  primal, vjp)
from .results.unknown import UnknownFunctionError
from .registry import (Primitive, RegistrationError, primitive_scope, register_primitive,
                       registered_primitives, unregister_primitive)
from .results.tape import Tape, tape
from .tracing import TraceError, cos, exp, log, sin, sqrt, tan, tanh, trace


def __getattr__(name):
    # imported on first use: the registered examples need sympy, which is slow to import
    if name == "extras":
        import importlib
        return importlib.import_module(".extras", __name__)
    raise AttributeError(f"module 'pullback_calc' has no attribute {name!r}")


def examples_dir():
    """The folder of the bundled examples (``*.pb``): inside the installed
    package (a wheel ships them as ``pullback_calc/examples``), else the
    repository's ``examples/`` (a checkout, an editable install)."""
    from pathlib import Path
    here = Path(__file__).resolve().parent
    for d in (here / "examples", here.parent / "examples"):
        if d.is_dir() and any(d.glob("*.pb")):
            return d
    return here / "examples"


def from_sympy(exprs, symbols):
    """The λ-term of ℝⁿ → ℝᵐ for sympy expressions, sharing common subexpressions."""
    from .results.sympy_bridge import from_sympy as _from_sympy
    return _from_sympy(exprs, symbols)


def to_sympy(f, symbols=None, n=None):
    """The sympy expressions of a first-order term ℝⁿ → ℝᵐ."""
    from .results.sympy_bridge import to_sympy as _to_sympy
    return _to_sympy(f, symbols=symbols, n=n)


__all__ = ["__version__", "examples_dir", "parse", "parse_type", "pretty", "typecheck", "reduce", "jacobian_row", "jacobian_rows",
           "jacobian",
           "hessian_row", "hessian", "apply_covector", "strong_normal_form",
           "from_sympy", "to_sympy", "JacobianRow", "ReductionResult", "DEFAULT_MAX_STEPS",
           "PullbackCalcError", "ParseError", "PullbackTypeError", "ReductionError",
           "StepBudgetExceeded", "JacobianError",
           # the AD front door (api.py)
           "grad", "grad1", "vjp", "D", "jvp", "call", "primal", "backprop", "Gradient", "VJP",
           "JVP", "Backpropagator", "Value", "UnknownFunctionError", "tape", "Tape",
           # function symbols registered at run time (registry.py, extras.py)
           "register_primitive", "unregister_primitive", "primitive_scope",
           "registered_primitives", "Primitive", "RegistrationError",
           # Python functions traced into terms (tracing.py)
           "trace", "TraceError", "sin", "cos", "tan", "exp", "log", "sqrt", "tanh"]
