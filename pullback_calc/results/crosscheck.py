"""Independent references for ``pullback-calc check``: sympy, the forward-mode
oracle and central finite differences.

A Jacobian by reduction is compared with sympy when sympy can express the
program (a first-order λ written out in full) and answers within a time
budget; sympy runs in a child process, so a slow simplification is killed,
never waited for.  Otherwise — helpers bound outside the λ, nested
pullbacks, function-typed data, or sympy too slow — the reference is the
forward-mode oracle (``testing.oracle``: tagged dual numbers, sharing no code
with the rules), confirmed by central finite differences of the oracle's
values.  A closed term is compared with the oracle's value; a value that is a
function or a covector is applied to sample arguments built from its type
until the result is a tuple of reals, and compared there.
"""
from __future__ import annotations

import math
import multiprocessing
from dataclasses import dataclass, field
from typing import Optional

from .. import budgets
from ..deep import THREADS, deep
from ..syntax.terms import (App, Lam, Num, Prim, Proj, Term, Tuple, Var, fresh_scope, note_name,
                            subterms)
from ..syntax.types import Arrow, DualT, Prod, Real, TVar, Type, real_leaves

SYMPY_TIMEOUT = 10.0  # seconds; `check --sympy-timeout`


# ---- sympy, in a child process under a time budget ------------------------------------

def _sympy_child(term: Term, point: list, conn, timeout: float) -> None:
    # The parent kills this process when the budget runs out; should the parent
    # die first (SIGKILL), the child must neither run on (sympy may never
    # finish) nor keep the caller's stdout/stderr open (a pipe's reader waits).
    import os
    import signal
    if hasattr(signal, "alarm"):  # (POSIX)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        signal.alarm(int(timeout) + 5)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    try:
        conn.send(_sympy_answer(term, point))
    finally:
        conn.close()


def _sympy_answer(term: Term, point: list) -> tuple:
    """("ok", rows) or ("error", why)."""
    try:
        from .sympy_bridge import sympy_jacobian
        return "ok", sympy_jacobian(term, point)
    except RecursionError:
        return "error", "the expression is too deep for sympy"
    except Exception as e:  # any failure means: use another reference
        return "error", getattr(e, "message", None) or f"{type(e).__name__}: {e}"


class SympyJob:
    """sympy's Jacobian, computed in a child process while the parent reduces;
    ``result`` waits at most until the budget (counted from the start) runs
    out, then kills the child."""

    def __init__(self, term: Term, point: list, timeout: float = SYMPY_TIMEOUT):
        import time
        budgets.validate(timeout)  # (the child's alarm and the waits take no more)
        self.timeout, self.proc, self.why, self.answer = timeout, None, None, None
        self.deadline = time.monotonic() + timeout
        if not isinstance(term, Lam):
            self.why = ("sympy cannot express it: the function is not written as one "
                        "λ-abstraction (helpers or free variables are bound outside it)")
            return
        if not THREADS:  # Pyodide (the browser playground) has no processes: sympy runs
            # here, after the reduction; the page's Stop button bounds it, not the timeout
            self.answer = (term, list(point))
            return
        methods = multiprocessing.get_all_start_methods()
        # fork: the child has the term already (no pickling of deep terms)
        ctx = multiprocessing.get_context("fork" if "fork" in methods else None)
        self.recv, send = ctx.Pipe(duplex=False)
        self.proc = ctx.Process(target=_sympy_child, args=(term, list(point), send, timeout),
                                daemon=True)
        self.proc.start()
        send.close()

    def result(self):
        """(rows, None) from sympy, or (None, why not)."""
        import time
        if self.answer is not None:
            status, value = _sympy_answer(*self.answer)
            return self._verdict(status, value)
        if self.proc is None:
            return None, self.why
        try:
            if not self.recv.poll(max(0.0, self.deadline - time.monotonic())):
                return None, f"sympy did not finish within {self.timeout:g} s"
            try:
                status, value = self.recv.recv()
            except EOFError:
                return None, "sympy's process ended without an answer"
        finally:
            self.cancel()
        return self._verdict(status, value)

    @staticmethod
    def _verdict(status: str, value):
        if status == "ok":
            return value, None
        return None, f"sympy cannot express it: {value.removeprefix('to_sympy: ')}"

    def cancel(self) -> None:
        if self.proc is not None:
            if self.proc.is_alive():
                self.proc.kill()
            self.proc.join()
            self.recv.close()
            self.proc = None
            self.why = self.why or "cancelled"


def sympy_rows(term: Term, point: list, timeout: float = SYMPY_TIMEOUT):
    """(rows, None) from sympy, or (None, why not) — never waits longer than
    ``timeout`` seconds: the child is killed when the budget runs out."""
    return SympyJob(term, point, timeout).result()


# ---- the oracle and finite differences -----------------------------------------------

def _shaped(dom: Type, values: list):
    it = iter(values)

    def build(t: Type):
        return tuple(build(i) for i in t.items) if isinstance(t, Prod) else next(it)
    return build(dom)


@deep
def oracle_rows(term: Term, dom: Type, cod: Type, point: list) -> list[list[float]]:
    """The Jacobian of f : dom → cod at ``point`` by tagged forward mode, a
    column per input coordinate."""
    from ..semantics import oracle
    f = oracle.evaluate(term)
    x = _shaped(dom, point)
    cols = []
    for j in range(len(point)):
        e = _shaped(dom, [float(i == j) for i in range(len(point))])
        cols.append(oracle.leaves(oracle.derivative(f, x, e), cod))
    return [list(r) for r in zip(*cols)]


@deep
def difference_rows(term: Term, dom: Type, cod: Type, point: list) -> list[list[float]]:
    """The Jacobian by central differences of the oracle's values, a step of
    1e-5 scaled to each coordinate."""
    from ..semantics import oracle
    f = oracle.evaluate(term)
    x = _shaped(dom, point)
    cols = []
    for j, xj in enumerate(point):
        e = _shaped(dom, [float(i == j) for i in range(len(point))])
        h = 1e-5 * max(1.0, abs(xj))
        cols.append(oracle.leaves(oracle.central_difference(f, x, e, h), cod))
    return [list(r) for r in zip(*cols)]


# ---- closed terms and values of higher type ---------------------------------------------

_COEFFS = (0.5, -0.75, 1.25, 0.3, -1.5, 0.8, 2.0, -0.4)


class _Sampler:
    """Sample arguments of a type, as terms: reals, tuples, functions that use
    their arguments (λx. c₀ + c₁·x + …), linear functionals for duals."""

    def __init__(self):
        self.k = 0
        self.names = 0

    def coeff(self) -> float:
        self.k += 1
        return _COEFFS[self.k % len(_COEFFS)] + 0.1 * (self.k // len(_COEFFS))

    def fresh(self) -> Var:
        self.names += 1
        return Var(f"sample_{self.names}")

    def real(self, atoms: list, constant: bool = True) -> Term:
        out: Optional[Term] = Num(self.coeff()) if constant or not atoms else None
        for a in atoms[:6]:
            term = Prim("mul", (Num(self.coeff()), a))
            out = term if out is None else Prim("add", (out, term))
        assert out is not None  # (atoms, or the constant)
        return out

    def atoms(self, e: Term, t: Type, depth: int = 0) -> list:
        """Real-valued terms made from e : t (its components, its values at samples)."""
        if isinstance(t, (Real, TVar)):
            return [e]
        if isinstance(t, Prod):
            return [a for i, u in enumerate(t.items, 1) for a in self.atoms(Proj(i, e), u, depth)]
        if depth > 3:
            return []
        if isinstance(t, DualT):
            return [App(e, self.sample(t.of, [], depth + 1))]
        if isinstance(t, Arrow):
            return self.atoms(App(e, self.sample(t.dom, [], depth + 1)), t.cod, depth + 1)
        return []

    def sample(self, t: Type, atoms: list, depth: int = 0) -> Term:
        if isinstance(t, (Real, TVar)):
            return self.real(atoms)
        if isinstance(t, Prod):
            return Tuple(tuple(self.sample(u, atoms, depth) for u in t.items))
        x = self.fresh()
        if isinstance(t, DualT):  # a covector must be linear: no constant, only x
            return Lam(x, self.real(self.atoms(x, t.of, depth), constant=False))
        if isinstance(t, Arrow):
            return Lam(x, self.sample(t.cod, atoms + self.atoms(x, t.dom, depth), depth + 1))
        raise ValueError(f"cannot sample the type {t}")


@dataclass
class ValueCheck:
    """A closed term's value, by reduction and by the oracle, at the probes."""
    probes: list = field(default_factory=list)   # [(argument terms, reduced, expected)]
    steps: int = 0


def _ground(t: Type) -> bool:
    return real_leaves(t) is not None and not isinstance(t, TVar)


@deep
def check_value(term: Term, ty: Type, max_steps: int, probes: int = 2) -> ValueCheck:
    """Reduce ``term`` and evaluate it with the oracle; when its type is not a
    tuple of reals, apply both to sample arguments (``probes`` sets of them)."""
    from ..reduction.machine import Machine
    from ..semantics import oracle
    from .jacobian import reduce
    out = ValueCheck()
    r = reduce(term, max_steps=max_steps, record=False, check=False)
    out.steps = r.steps
    expected = oracle.evaluate(term)
    for k in range(probes if not _ground(ty) else 1):
        sampler = _Sampler()
        sampler.k = 3 * k
        args: list = []
        t, got, want = ty, r.value, expected
        # one fresh-name scope for the probe's applications, not one walk of the
        # value per argument (a curried function of 10,000 arguments: quadratic)
        with fresh_scope(got):
            while not _ground(t):
                dom, cod = (t.of, Real()) if isinstance(t, DualT) else (t.dom, t.cod) \
                    if isinstance(t, Arrow) else (None, None)
                if dom is None:
                    raise ValueError(f"cannot probe a value of type {t}")
                a = sampler.sample(dom, [])
                args.append(a)
                for u in subterms(a):  # (its names, which fresh names must avoid)
                    if isinstance(u, Var):
                        note_name(u.name)
                m = Machine(max_steps=max_steps, record=False)
                got, _ = m.reduce(App(got, a), own_scope=False)
                out.steps += m.steps_taken
                want = oracle.apply(want, oracle.evaluate(a))
                assert cod is not None  # (with dom)
                t = cod
        out.probes.append((args, _numbers(got, t), oracle.leaves(want, t)))
    return out


def _numbers(v: Term, t: Type) -> list:
    """The reals of a normal form of type t (numerals in tuples; 𝟎 is zeros)."""
    from ..syntax.terms import Zero
    if isinstance(v, Zero):
        return [0.0] * len(real_leaves(t) or [()])
    if isinstance(v, Num):
        return [v.value]
    if isinstance(v, Tuple) and isinstance(t, Prod):
        return [x for i, u in zip(v.items, t.items) for x in _numbers(i, u)]
    raise ValueError(f"the normal form {v} is not a tuple of numerals")


def agree(a: float, b: float, tol: float) -> bool:
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


def rows_agree(got: list, want: list, tol: float) -> bool:
    return len(got) == len(want) and all(
        len(r) == len(s) and all(agree(x, y, tol) for x, y in zip(r, s))
        for r, s in zip(got, want))


def pullback_domains_note(domains: list, width: int = 92) -> list[str]:
    """A note when some Ω differentiates along a function-typed input (Church
    data): the derivative is then taken in the function space — faithful to
    the paper, and a surprise to most users."""
    import textwrap
    from ..syntax.types import show_type
    odd = [d for d in domains if real_leaves(d) is None]
    if not odd:
        return []
    ty = show_type(odd[0])
    if len(ty) > 40:
        ty = "a function type"
    text = (f"note: Ω differentiates here along an input of type {ty}, a function, so the "
            f"derivative is taken in the function space: a tangent is added to the input "
            f"pointwise, as a function (as in the paper). For a Church list, the covector of "
            f"l ↦ sum (map square l) applied to a tangent list T gives Σ tᵢ², not Σ 2xᵢtᵢ. "
            f"To differentiate in the entries, make them the inputs (λ⟨x1, x2, x3⟩. … (cons "
            f"x1 …)) or give the tangent of a curve of lists: papers/calculus.md, "
            f"\"Derivatives in a function space\".")
    return textwrap.wrap(text, width, subsequent_indent="      ")


def bind_free(term: Term, free: dict) -> tuple[Term, list]:
    """``let h = (a sample of h's type) in term`` for each declared free
    variable, so that an open program can be checked: (term, [(name, sample)])."""
    sampler, out = _Sampler(), []
    for name, ty in free.items():
        v = sampler.sample(ty, [])
        out.append((name, v))
        term = App(Lam(Var(name), term), v)
    return term, out
