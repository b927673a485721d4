"""Other AD systems as engines over the same terms (issue 12).

Four engines differentiate the same term, each a rendering of one
construction (``papers/engines.md`` explains each and maps it onto the
calculus):

- ``pullback``  the reduction engine: Ω(f) (λz. e_p*) V reduced to normal form
- ``ps``        Pearlmutter–Siskind's reverse transform: every λ and primitive
                paired with its backpropagator, closures carrying sensitivities
- ``forward``   DVL's forward mode on tagged dual numbers (the tests' oracle)
- ``tape``      Yota's tape: a Wengert list, a reverse sweep, a rule per primitive
                (``tape_ad.py``: tape-based AD)

One interface: ``jacobian(f, point, method)`` (all rows), ``grad`` (the row of
a real-valued function), ``vjp`` (c·J for a cotangent c) and ``evaluate`` (the
value of a closed term, its pullbacks run by the engine), each with the same
cost counters (``Costs``).  An engine that cannot express a construct raises
``NotSupported`` naming it.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Optional, Union

from ..errors import JacobianError
from ..syntax.terms import Term
from .common import Costs, EngineResult, EngineValue, NotSupported

__all__ = ["METHODS", "jacobian", "grad", "vjp", "evaluate", "Costs", "EngineResult", "forward",
           "ps", "pullback", "tape",
           "EngineValue", "NotSupported"]

#: the engines, in the order ``compare`` shows them
METHODS = ("pullback", "ps", "forward", "tape")


#: the module of each method (each named by what it is)
MODULES = {"pullback": "pullback", "ps": "ps", "forward": "forward", "tape": "tape_ad"}


def _module(method: str):
    if method not in METHODS:
        raise JacobianError(f"unknown method {method!r}; the methods are: {', '.join(METHODS)}")
    from importlib import import_module
    return import_module(f"{__name__}.{MODULES[method]}")


def _as_term(f, point) -> Term:
    """f's term, as the reduction engine reads it (text, a term, a Python function)."""
    from ..results.jacobian import as_term
    from ..results.rows import as_point
    return as_term(f, len(as_point(point)))


def _checked(f: Term, point, outputs: Optional[list] = None) -> list:
    """The point's reals, after checking that f is a function ℝⁿ → ℝᵐ there
    (the same checks, and messages, as the reduction engine's); ``outputs``
    gets m."""
    from ..results.rows import as_point, coordinate_paths, function_type
    pt = as_point(point)
    dom, cod = function_type(f, len(pt))
    n = len(coordinate_paths(dom, "input"))
    m = len(coordinate_paths(cod, "output"))
    if n != len(pt):
        raise JacobianError(f"the function takes {n} real input(s) but the point has "
                            f"{len(pt)} coordinate(s)")
    if outputs is not None:
        outputs.append(m)
    return pt


def jacobian(f: Union[str, Term], point, method: str = "pullback", **options) -> EngineResult:
    """All rows of the Jacobian of f : ℝⁿ → ℝᵐ at ``point`` by ``method``, with
    its cost counters (``.rows``, ``.costs``, ``.artefact``)."""
    mod = _module(method)
    f = _as_term(f, point)
    outputs: list = []
    pt = _checked(f, point, outputs)
    result = _run(mod, f, pt, None, options)
    m = outputs[0]
    if len(result.rows) != m:
        # an engine that reads values without their types took a 𝟎 of a product
        # type in the output for one real (it never reads more rows than there are)
        if len(result.rows) != 1 or any(result.rows[0]):
            raise NotSupported(f"the {method} engine reads a 𝟎 of a product type in the "
                               f"output as one real: its {len(result.rows)} rows do not line "
                               f"up with the function's {m} outputs")
        result = replace(result, rows=[[0.0] * len(pt) for _ in range(m)])  # all 𝟎
    return result


def vjp(f: Union[str, Term], point, cotangent, method: str = "pullback",
        **options) -> EngineResult:
    """The vector-Jacobian product c·J(f)(point): one reverse pass seeded with
    c (``.rows`` holds the one row).  Not ``forward``: it has none."""
    mod = _module(method)
    f = _as_term(f, point)
    pt = _checked(f, point)
    return _run(mod, f, pt, [[float(c) for c in cotangent]], options)


def grad(f: Union[str, Term], point, method: str = "pullback", **options) -> EngineResult:
    """The gradient of a real-valued f at ``point`` (``.rows[0]``)."""
    result = jacobian(f, point, method, **options)
    if len(result.rows) != 1:
        raise JacobianError(f"grad needs a real-valued function; this one has "
                            f"{len(result.rows)} outputs (use jacobian)")
    return result


def _run(mod, f: Term, pt: list, cotangents, options) -> EngineResult:
    from .evaluator import EvalError
    try:
        if mod.__name__.endswith(".pullback"):
            return mod.jacobian(f, pt, cotangents, **options)
        return mod.jacobian(f, pt, cotangents)
    except EvalError as e:
        from ..errors import ReductionError
        raise ReductionError(str(e)) from None


def evaluate(term: Union[str, Term], method: str = "pullback", **options) -> EngineValue:
    """The value of a closed term by ``method`` (its pullbacks, Jacobians and
    dual maps run by that engine), read as reals: ℝ or a tuple of reals gives
    its reals; a covector on ℝⁿ gives its row; any other function is reported
    as kind "function" (not comparable across engines)."""
    from .read import read_value
    mod = _module(method)
    if isinstance(term, str):
        from ..syntax.parser import parse
        term = parse(term)
    from .evaluator import EvalError
    try:
        if method == "pullback":
            v, costs, artefact = mod.value(term, **options)
        else:
            v, costs, artefact = mod.value(term)
        kind, reals = read_value(term, v, method, mod)
    except EvalError as e:
        from ..errors import ReductionError
        raise ReductionError(str(e)) from None
    return EngineValue(method, kind, reals, costs, artefact)


from . import forward, ps, pullback  # noqa: E402  (the engines, as attributes by method)
from . import tape_ad as tape  # noqa: E402
