"""Mutants: deliberately broken rules, to show that the property suite catches them.

A mutant replaces one entry of the rule table ``reduction.rules.RULES`` (rules
are data, so breaking one is a table update) -- or, for the other AD engines,
of an engine's table (``testing.engine_mutants``: ``ENGINE_MUTANTS``).  Install it for a block::

    from pullback_calc.testing.mutants import mutant
    with mutant("16c-drop-summand"):
        pc.reduce(term)          # reduces with the broken rule 16c

or for a whole test run, with the environment variable the test suite's
``conftest.py`` reads::

    PULLBACK_CALC_MUTANT=16c-drop-summand python -m pytest tests/properties -x

A sound property suite fails under every mutant, with a shrunk
counterexample; ``python -m pullback_calc.testing.mutants`` lists them.
"""
from __future__ import annotations

import contextlib
import os
from typing import Iterator

from ..reduction import rules as R
from ..reduction.env import Env
from ..syntax import prims
from ..syntax.terms import ZERO, App, Jac, Lam, Prim, Pullback, Sum, Tuple, formal_sum
from .mutation import Mutant

__all__ = ["MUTANTS", "Mutant", "mutant", "install", "install_from_environment", "ENV_VAR",
           "INSTALLED"]

ENV_VAR = "PULLBACK_CALC_MUTANT"


def _table(mu: Mutant):
    """The rule table a mutant breaks an entry of: the reduction rules, or an
    engine's table (``testing.engine_mutants``)."""
    return R.RULES if mu.table is None else mu.table()


def _drop_last_summand(original):
    def broken(t, m):
        out = original(t, m)
        if isinstance(out, Sum) and len(out.items) > 1:
            return formal_sum(out.items[:-1])
        return out
    return broken


def _swap_partials(original):
    """Rule 15 with the partial derivatives of a binary symbol paired with
    the wrong arguments (∂₁f × â₂ ⊕ ∂₂f × â₁)."""
    def broken(t, m):
        jac = t.fun  # (J(λp.E)·P) V
        E, P, V, env = jac.lam.body, jac.along, t.arg, Env(jac.lam.pat)
        if len(E.args) != 2:
            return original(t, m)
        partials = prims.PARTIALS[E.op](*(env.at(a, V) for a in E.args))[::-1]
        out = []
        for a, d in zip(E.args, partials):
            if env.occurs(a):
                da = env.at(a, P)
                out.append(da if d is None else Prim("mul", (d, da)))
        return formal_sum(out)
    return broken


def _reverse_tuple(original):
    def broken(t, m):
        out = original(t, m)
        return Tuple(out.items[::-1]) if isinstance(out, Tuple) else out
    return broken


class _Premises:
    """A machine's premises, seen through a mutant: what a rule reads of the
    machine besides ``premise`` is the machine's own."""

    def __getattr__(self, name):
        return getattr(self.machine, name)


class _DroppingAdditions(_Premises):
    """The premises a rule runs, with every addition ``a + b`` of an arithmetic
    (phase "reverse") premise replaced by ``a`` before it is reduced."""

    def __init__(self, machine):
        self.machine = machine

    def premise(self, term, rule, keep_trivial=True, phase=None, forward=None):
        if phase == "reverse":
            term = _first_operands(term)
        return self.machine.premise(term, rule, keep_trivial, phase, forward)


def _first_operands(t):
    """t with a + b ↦ a throughout (coefficient terms are small: recursion is fine)."""
    if isinstance(t, Prim):
        if t.op == "add":
            return _first_operands(t.args[0])
        return Prim(t.op, tuple(_first_operands(a) for a in t.args))
    if isinstance(t, Tuple):
        return Tuple(tuple(_first_operands(a) for a in t.items))
    if isinstance(t, App) and isinstance(t.fun, Lam):  # let k = shared operation in …
        return App(Lam(t.fun.pat, _first_operands(t.fun.body)), _first_operands(t.arg))
    return t


def _drop_accumulation(original):
    """Rule 5 whose arithmetic premise forgets to add: the adjoint of a variable
    used twice keeps one contribution (fan-out is not summed)."""
    def broken(t, m):
        return original(t, _DroppingAdditions(m))
    return broken


class _ZeroArgumentTangent(_Premises):
    """The premises of D-eval, with the argument's tangent T₀ (its first
    premise) read as 0, so that 19c fires where 19b should."""

    def __init__(self, machine):
        self.machine, self.first = machine, True

    def premise(self, term, rule, keep_trivial=True, phase=None, forward=None):
        out = self.machine.premise(term, rule, keep_trivial, phase, forward)
        if self.first and rule == "19b":
            self.first = False
            return ZERO
        return out


def _premise_zero(original):
    """D-eval whose premise T₀ (the argument's derivative) is taken to be 0."""
    def broken(t, m):
        return original(t, _ZeroArgumentTangent(m))
    return broken


class _PointForTangent(_Premises):
    """The premises of rule 18, with the pullback premise's reading swapped:
    from ω S̄ T the point's image S̄ is taken for the tangent T."""

    def __init__(self, machine):
        self.machine = machine

    def premise(self, term, rule, keep_trivial=True, phase=None, forward=None):
        out = self.machine.premise(term, rule, keep_trivial, phase, forward)
        if rule == "18" and isinstance(out, App) and isinstance(out.fun, App):
            return App(App(out.fun.fun, out.arg), out.fun.arg)
        return out


def _premise_reads_point(original):
    """D-curry whose pullback premise reads the image instead of the tangent."""
    def broken(t, m):
        return original(t, _PointForTangent(m))
    return broken


def _drop_19c(original):
    """19c's contractum â₁ ā₂ replaced by 0: the variation of the function is lost."""
    def broken(t, m):
        out = original(t, m)
        if isinstance(out, R.Decided) and out.label == "19c":
            return R.Decided("19c", ZERO)
        return out
    return broken


def _lazy_curry_zero(original):
    """18L's contractum λq. (J(λp.S)·P) V replaced by λq. 𝟎: a lazy tangent is
    taken to be constant."""
    def broken(t, m):
        out = original(t, m)
        if isinstance(out, R.Decided) and out.label == "18L":
            return R.Decided("18L", Lam(out.term.pat, ZERO, out.term.ann))
        return out
    return broken


def _merged_drops_argument(original):
    """19m's merged Jacobian along ⟨P', 𝟎⟩ instead of ⟨P', T₀⟩: only â₁ ā₂ is
    left, the chain rule through the argument is lost."""
    def broken(t, m):
        out = original(t, m)
        if isinstance(out, R.Decided) and out.label == "19m":
            jac = out.term.fun
            return R.Decided("19m", App(Jac(jac.lam, Tuple((jac.along.items[0], ZERO))),
                                        out.term.arg))
        return out
    return broken


def _constant_first_operand(original):
    """8h / 8Jc binding q to the first operand of the operation they move out
    (sin(1) ↦ 1) instead of the operation: a constant of the map miscomputed."""
    def broken(t, m):
        out = original(t, m)
        if isinstance(out, App) and isinstance(out.fun, Lam) and isinstance(out.arg, Prim) \
                and out.arg.args:
            return App(out.fun, out.arg.args[0])
        return out
    return broken


def _floated_first_operand(original):
    """8f binding the operation it floats out of a helper to its first operand
    (exp(sin(x)) ↦ sin(x)): the helper then computes with the wrong value."""
    def broken(t, m):
        out = original(t, m)
        body = out.fun.body if isinstance(out, Pullback) and isinstance(out.fun, Lam) else None
        if isinstance(body, App) and isinstance(body.fun, Lam) and isinstance(body.arg, Prim):
            return Pullback(Lam(out.fun.pat, App(body.fun, body.arg.args[0]), out.fun.ann),
                            out.form)
        return out
    return broken


def _named_map_zero(original):
    """pb at an open point naming the functional (let w = ω Ē in (λp̂. J·p̂ V)⋆w)
    with the Jacobian dropped from the map, (λp̂. 𝟎)⋆w: every stage of a long chain
    at a symbolic point then contributes nothing to a nested derivative."""
    from ..reduction.machine import names_functional
    from ..syntax.terms import Dual

    def broken(t, m):
        out = original(t, m)
        lets, u = [], out
        while isinstance(u, App) and isinstance(u.fun, Lam) and not names_functional(u):
            lets.append(u)
            u = u.fun.body
        if not names_functional(u):
            return out
        dual = u.fun.body
        u = App(Lam(u.fun.pat, Dual(Lam(dual.lam.pat, ZERO), dual.functional)), u.arg)
        for let in reversed(lets):
            u = App(Lam(let.fun.pat, u), let.arg)
        return u
    return broken


MUTANTS = {m.name: m for m in [
    Mutant("16c-drop-summand", "16c",
           "rule 16c forgets the derivative in the map: (λq.S[V/p])⋆â only", _drop_last_summand),
    Mutant("19b-drop-summand", "19b",
           "rule 19b (D-eval) forgets the chain rule through the argument: â₁ ā₂ only",
           _drop_last_summand),
    Mutant("13-drop-summand", "13",
           "rule 13's product rule forgets the derivative of the direction",
           _drop_last_summand),
    Mutant("12-drop-summand", "12", "rule 12 forgets the last summand of a formal sum",
           _drop_last_summand),
    Mutant("15-swap-partials", "15",
           "rule 15 pairs the partials of a binary function symbol with the wrong arguments",
           _swap_partials),
    Mutant("20a-reverse", "20a", "rule 20a builds the tuple of Jacobians in reverse order",
           _reverse_tuple),
    Mutant("5-drop-accumulation", "5",
           "rule 5's arithmetic premise keeps only the first operand of each addition "
           "(adjoints of a variable used twice are not summed)", _drop_accumulation),
    Mutant("19b-premise-zero", "19b",
           "D-eval reads its premise, the argument's tangent T₀, as 0: 19c fires instead of "
           "19b and the chain rule through the argument is lost", _premise_zero, ("19c",)),
    Mutant("18-premise-reads-point", "18",
           "rule 18's pullback premise Ω(λp.S) ω V P ⇓ ω S̄ T is read off wrongly: the "
           "image S̄ is taken for the tangent T", _premise_reads_point),
    Mutant("19c-drop-function", "19b",
           "19c (argument constant) returns 0 instead of â₁ ā₂: the function's own variation "
           "is lost", _drop_19c, ("19c",)),
    Mutant("18L-zero", "18",
           "18L (D-curry in a forward premise) returns λq. 𝟎 instead of λq. (J(λp.S)·P) V: "
           "the tangent of a function-valued stage is lost", _lazy_curry_zero, ("18L",)),
    Mutant("19m-drop-argument", "19b",
           "19m (D-eval on a lazy tangent) differentiates the body along ⟨P', 𝟎⟩ instead of "
           "⟨P', T₀⟩: the chain rule through the argument is lost", _merged_drops_argument,
           ("19m",)),
    Mutant("8h-first-operand", "8h",
           "rule 8h binds the operation on numerals it moves out of the pullback to its "
           "first operand (sin(1) ↦ 1)", _constant_first_operand),
    Mutant("8Jc-first-operand", "8Jc",
           "rule 8Jc binds the closed operation it moves out of the Jacobian to its first "
           "operand (sin(1) ↦ 1)", _constant_first_operand),
    Mutant("8f-first-operand", "8f",
           "rule 8f binds the operation it floats out of a helper to its first operand "
           "(exp(sin(x)) ↦ sin(x))", _floated_first_operand),
    Mutant("pb-named-map-zero", "pb",
           "rule pb, where it names the functional at an open point, drops the Jacobian "
           "from the map: (λp̂. 𝟎)⋆w", _named_map_zero),
]}


def _all() -> dict:
    from .engine_mutants import ENGINE_MUTANTS  # (they import the engines: loaded late)
    return {**MUTANTS, **ENGINE_MUTANTS}


def _lookup(name: str) -> Mutant:
    try:
        return _all()[name]
    except KeyError:
        raise KeyError(f"no mutant {name!r}; the mutants are: {', '.join(_all())}") from None


@contextlib.contextmanager
def mutant(name: str) -> Iterator[Mutant]:
    """Within the block, the rule ``MUTANTS[name].label`` is the broken one."""
    mu = _lookup(name)
    table = _table(mu)
    original = table[mu.label]
    table[mu.label] = mu.make(original)
    try:
        yield mu
    finally:
        table[mu.label] = original


#: the mutant installed for the whole process by install_from_environment
INSTALLED: Mutant | None = None


def install(name: str) -> Mutant:
    """Install the mutant ``name`` for the rest of the process.

    Not via ``mutant()``: a generator-based context manager that is entered
    and then dropped is closed when it is garbage-collected, which would put
    the original rule back at once (it did: the environment variable had no
    effect)."""
    global INSTALLED
    mu = _lookup(name)
    table = _table(mu)
    table[mu.label] = mu.make(table[mu.label])
    INSTALLED = mu
    return mu


def install_from_environment():
    """Install the mutant named by $PULLBACK_CALC_MUTANT for the rest of the
    process (the test suite's conftest calls this); returns it, or None."""
    name = os.environ.get(ENV_VAR)
    if not name:
        return None
    return install(name)


def main(argv=None) -> int:
    import argparse
    ap = argparse.ArgumentParser(
        prog="python -m pullback_calc.testing.mutants",
        description="List the mutants (deliberately broken rules). Run the property suite "
                    f"under one with {ENV_VAR}=NAME python -m pytest tests/properties -x")
    ap.parse_args(argv)
    every = _all()
    width = max(map(len, every))
    for mu in every.values():
        print(f"{mu.name:<{width}}  [{mu.label}]  {mu.description}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
