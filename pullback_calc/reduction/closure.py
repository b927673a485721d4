"""The compatible closure: every one-step reduct at every redex position.

The strategy (machine.py) picks one redex per term.  For reduction graphs we
also want the others: a subterm *anywhere* -- under λ, in the argument of a
stuck application, left of an unevaluated operand -- that one of the rules
matches, with the same side conditions as in the strategy (the operands the
rule inspects are values).  A-reduction is administrative: under Ω and J we
take the one A-step the strategy would take.

Paths are tuples of child indices (``Term.children()`` order), so the path of
the strategy's redex can be compared with these.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..areduction.anf import is_a_normal
from ..deep import bottom_up
from ..errors import PullbackCalcError, StepBudgetExceeded
from ..syntax.terms import (App, Dual, Jac, Lam, Prim, Proj, Pullback, Sum, Term, Tuple, Var,
                            fresh_scope, remake)
from . import rules as R
from .machine import Machine


@dataclass
class Reduct:
    path: tuple
    rule: str
    redex: Term
    contractum: Term
    term: Term          # the whole term after the step
    premises: list


def replace_at(t: Term, path: tuple, new: Term) -> Term:
    """t with the subterm at ``path`` replaced by ``new``."""
    if not path:
        return new
    stack = []
    u = t
    for i in path:
        stack.append((u, i))
        u = u.children()[i]
    for node, i in reversed(stack):
        new = _with_child(node, i, new)
    return new


def _with_child(node: Term, i: int, new: Term) -> Term:
    kids = list(node.children())
    kids[i] = new
    args = {}
    k = 0
    for name in node.__match_args__:  # the constructor's parameters
        v = getattr(node, name)
        if name not in node._kids:
            args[name] = v
        elif isinstance(v, tuple):
            args[name] = tuple(kids[k:k + len(v)])
            k += len(v)
        else:
            args[name] = kids[k]
            k += 1
    return type(node)(**args)


def is_normal(t: Term) -> bool:
    """Is t a value of the strategy (no step applies)?"""
    try:  # (no step runs: no fresh name is drawn, and no scope need walk t)
        Machine(max_steps=0, record=False).reduce(t, own_scope=False)
        return True
    except StepBudgetExceeded:
        return False


def _evaluated_children(t: Term) -> list[Term]:
    """The operands the strategy reduces before t itself can be a redex."""
    if isinstance(t, (Prim, Tuple, Sum)):
        return list(t.children())
    if isinstance(t, App):
        return [t.fun, t.arg]
    if isinstance(t, Proj):
        return [t.arg]
    if isinstance(t, Jac):
        return [t.along]
    if isinstance(t, Dual):
        return [t.functional, t.lam.body]
    if isinstance(t, Pullback):
        return [t.fun, t.form]
    return []


def _local_rule(t: Term) -> Optional[str]:
    if isinstance(t, (Var, Lam)) or not t.children():
        return None
    if isinstance(t, (Jac, Pullback)):
        lam = t.lam if isinstance(t, Jac) else t.fun
        if isinstance(lam, Lam) and not is_a_normal(lam.body):
            return "A"  # administrative: the strategy's next A-step, found below
    if not all(is_normal(c) for c in _evaluated_children(t)):
        return None
    return Machine._redex(t)


def one_step_reducts(term: Term, max_premise_steps: int = 10_000) -> list[Reduct]:
    """All one-step reducts of ``term``, in pre-order of their positions."""
    out: list[Reduct] = []
    with fresh_scope(term):
        stack: list[tuple[Term, tuple]] = [(term, ())]
        while stack:
            u, path = stack.pop()
            label = _local_rule(u)
            if label == "A":
                r = _a_step(u)
                if r is not None:
                    rule, redex, contractum, sub = r
                    out.append(Reduct(path + sub, rule, redex, contractum,
                                      replace_at(term, path + sub, contractum), []))
            elif label is not None:
                m = Machine(max_steps=max_premise_steps)
                prem: list = []
                m._premises = prem
                try:
                    label, contractum = R.apply_decision(label, R.RULES[label](u, m), prem)
                except R.Declined:
                    contractum = None
                except PullbackCalcError:
                    contractum = None  # e.g. log of a negative numeral: no reduct
                if contractum is not None:
                    out.append(Reduct(path, label, u, contractum,
                                      replace_at(term, path, contractum), prem))
            kids: tuple[Optional[Term], ...] = u.children()
            if isinstance(u, Lam):
                kids = (None, u.body)  # not into the pattern
            for i in reversed(range(len(kids))):
                kid = kids[i]
                if kid is not None:
                    stack.append((kid, path + (i,)))
    return out


def _a_step(t: Term):
    """The strategy's next A-step inside Ω(λp.S)/J(λp.S)·P, as (rule, redex,
    contractum, path below t)."""
    m = Machine(max_steps=1)
    trace: list = []
    try:
        m._run(t, trace)  # the first step is recorded before the budget stops it
    except PullbackCalcError:
        pass
    for s in trace:
        if s.rule.startswith("A-"):
            return s.rule, s.redex, s.contractum, _index_path(t, s)
    return None


def _index_path(root: Term, step) -> tuple:
    """Turn a machine context into child indices (via identity of nodes)."""
    frames = []
    c = step.ctx
    while c is not None:
        frames.append(c)
        c = c.parent
    frames.reverse()
    path: list[int] = []
    node = root
    for f in frames:
        target = f.hole()
        # descend from node to the hole's child, through a λ when needed
        for i, ch in enumerate(node.children()):
            if ch is target:
                path.append(i)
                node = ch
                break
            if isinstance(ch, Lam) and ch.body is target:
                path.extend([i, 1])
                node = target
                break
        else:
            return tuple(path)
    return tuple(path)


def canonical(t: Term) -> Term:
    """α-canonical form: bound variables renamed by binding order, so that
    α-equivalent terms are equal (the key of a reduction-graph node)."""
    from ..syntax.subst import subst
    from ..syntax.terms import pattern_vars
    counter = [0]

    def open_(u: Term):  # binders renamed in binding order (pre-order); iterative
        if isinstance(u, Lam):
            ren = {}
            for n in pattern_vars(u.pat):
                ren[n] = Var(f"%{counter[0]}")
                counter[0] += 1
            return (subst(u.body, ren),), Lam(subst(u.pat, ren), u.body, u.ann)
        kids = u.children()
        return (kids, u) if kids else (None, u)

    def close(u: Term, kids: list) -> Term:
        if isinstance(u, Lam):
            return Lam(u.pat, kids[0], u.ann)
        return u if all(k is c for k, c in zip(kids, u.children())) else remake(u, kids)

    return bottom_up(t, open_, close)
