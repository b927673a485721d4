"""pullback-calc: the differential-form pullback calculus of Mak & Ong, by reduction.

The layers, one folder per stage, each importing only the ones above it here
(tests/test_layout.py checks):
    syntax/      terms, types, function symbols, parser, printer
    semantics/   the independent denotational evaluator (the oracle)
    typing/      type inference with the linearity side condition of dual maps
    areduction/  administrative reduction into let series of elementary terms
    reduction/   the numbered rules and the call-by-value stepper
    results/     normal forms, Jacobian rows, the sympy bridge
    engines/     the other AD engines, measured the same way (and api.py, the AD
                 front door: grad, vjp, jvp, jacobian)
    rendering/   traces as text, LaTeX, JSON and HTML; reduction graphs
    cli/         the command line
This package loads what a name needs when it is first used.
"""
__version__ = "0.1.0"

import importlib

from . import display

# Everything is imported on first use (PEP 562), so that ``import pullback_calc.cli``
# is quick and the command line is guarding against interrupts before the engine
# loads (an interrupt during start-up is a clean "interrupted", not a traceback).
_LAZY = {
    "JacobianError": ".errors", "ArgumentError": ".errors", "ParseError": ".errors",
    "PullbackCalcError": ".errors",
    "PullbackTypeError": ".errors", "ReductionError": ".errors",
    "StepBudgetExceeded": ".errors", "BudgetExceeded": ".errors",
    "TimeBudgetExceeded": ".errors", "MemoryBudgetExceeded": ".errors",
    "DEFAULT_MAX_STEPS": ".reduction.machine",
    "apply_covector": ".results.higher", "hessian": ".results.higher",
    "hessian_row": ".results.higher", "hessian_rows": ".results.higher",
    "strong_normal_form": ".results.higher",
    "JacobianRow": ".results.jacobian", "ReductionResult": ".results.jacobian",
    "Matrix": ".results.jacobian", "jacobian_row": ".results.jacobian",
    "jacobian_rows": ".results.jacobian", "reduce": ".results.jacobian",
    "parse": ".syntax.parser", "parse_type": ".syntax.parser",
    "pretty": ".syntax.printer", "typecheck": ".typing", "budget": ".budgets",
    # the AD front door (api.py)
    **{n: ".api" for n in ("D", "JVP", "VJP", "Backpropagator", "Gradient", "Value",
                           "backprop", "call", "grad", "grad1", "jacobian", "jvp", "primal",
                           "vjp")},
    "UnknownFunctionError": ".results.unknown",
    # function symbols registered at run time (registry.py)
    **{n: ".registry" for n in ("Primitive", "RegistrationError", "primitive_scope",
                                "register_primitive", "registered_primitives",
                                "unregister_primitive")},
    "Tape": ".results.wengert", "tape": ".results.wengert",
    # Python functions traced into terms (tracing.py)
    **{n: ".tracing" for n in ("TraceError", "cos", "exp", "log", "sin", "sqrt", "tan",
                               "tanh", "trace")},
}


def __getattr__(name: str):
    if name == "extras":  # the registered examples (they need sympy, slow to import)
        return importlib.import_module(".extras", __name__)
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError(f"module 'pullback_calc' has no attribute {name!r}")
    value = getattr(importlib.import_module(mod, __name__), name)
    globals()[name] = value  # once: later lookups are ordinary
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


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


def _result_html(result) -> str:
    from .rendering.html import result_repr_html
    return result_repr_html(result)


# results show as the stepper in a notebook (display.py: the results, a lower layer than
# the renderers, do not import them; nothing loads until a result is shown)
display.html = _result_html

__all__ = ["__version__", "examples_dir", "parse", "parse_type", "pretty", "typecheck", "reduce",
           "jacobian_row", "jacobian_rows", "jacobian",
           "hessian_row", "hessian_rows", "hessian", "apply_covector", "strong_normal_form",
           "from_sympy", "to_sympy", "JacobianRow", "ReductionResult", "DEFAULT_MAX_STEPS",
           "PullbackCalcError", "ParseError", "PullbackTypeError", "ReductionError",
           "StepBudgetExceeded", "JacobianError", "ArgumentError", "BudgetExceeded",
           "TimeBudgetExceeded", "MemoryBudgetExceeded", "budget",
           # the AD front door (api.py)
           "grad", "grad1", "vjp", "D", "jvp", "call", "primal", "backprop", "Gradient", "VJP",
           "JVP", "Backpropagator", "Value", "Matrix", "UnknownFunctionError", "tape", "Tape",
           # function symbols registered at run time (registry.py, extras.py)
           "register_primitive", "unregister_primitive", "primitive_scope",
           "registered_primitives", "Primitive", "RegistrationError",
           # Python functions traced into terms (tracing.py)
           "trace", "TraceError", "sin", "cos", "tan", "exp", "log", "sqrt", "tanh"]
