"""Rule coverage, like PLT Redex's: which rules a run of reductions exercised.

A ``RuleCoverage`` counts the label of every step of every trace it is
given, premise steps included (it walks ``Step.premises`` recursively).
``table()`` prints the counts of the numbered rules and the extra labels
(pb, dual-app, 7J, 8J and the A-rules), marking the ones never reached.

    cov = RuleCoverage()
    cov.record(pc.reduce(term, check=False).trace)
    print(cov.table())
    assert not cov.missing()

``SESSION`` is the collector the property suite feeds (through
``reduce_recorded``); ``pytest --rule-coverage`` prints it at the end of
the session.
"""
from __future__ import annotations

from collections import Counter
from typing import Iterable, Iterator, Optional

from ..reduction.machine import DEFAULT_MAX_STEPS
from ..reduction.rules import EXTRA, NUMBERED

__all__ = ["RuleCoverage", "SESSION", "reduce_recorded", "iter_steps", "ALL_LABELS"]

#: every label a step can carry: the paper's numbered rules, then the others
ALL_LABELS = tuple(NUMBERED) + tuple(EXTRA)


def iter_steps(trace, premises: bool = True) -> Iterator:
    """Every step of a trace, in order, with the steps of each premise
    (recursively) right after the step that needed it."""
    stack = list(reversed(trace))
    while stack:
        s = stack.pop()
        yield s
        if premises:
            for d in reversed(s.premises):
                stack.extend(reversed(d.steps))


class RuleCoverage:
    """Counts of rule labels over many reductions."""

    def __init__(self, labels: Iterable[str] = ALL_LABELS):
        self.labels = list(labels)
        self.counts: Counter = Counter()
        self.reductions = 0

    def record(self, trace) -> "RuleCoverage":
        """Count the steps of one trace (premise steps included)."""
        self.reductions += 1
        for s in iter_steps(trace):
            self.counts[s.rule] += 1
        return self

    def update(self, other: "RuleCoverage") -> "RuleCoverage":
        self.counts.update(other.counts)
        self.reductions += other.reductions
        return self

    def __getitem__(self, label: str) -> int:
        return self.counts.get(label, 0)

    def reached(self) -> set:
        return {k for k, v in self.counts.items() if v}

    def missing(self, labels: Optional[Iterable[str]] = None) -> list:
        """The labels (default: all) never reached, in table order."""
        return [k for k in (self.labels if labels is None else labels) if not self.counts.get(k)]

    @property
    def steps(self) -> int:
        return sum(self.counts.values())

    def table(self, title: str = "rule coverage") -> str:
        """The counts as a text table: numbered rules, then the extra labels;
        never-reached labels are marked."""
        total = self.steps or 1
        width = max(len(k) for k in self.labels + list(self.counts) + ["rule"])
        lines = [f"{title}: {self.reductions} reductions, {self.steps} steps, "
                 f"{len(self.labels) - len(self.missing())}/{len(self.labels)} labels reached",
                 f"  {'rule':<{width}}  {'steps':>8}  {'share':>6}"]

        def row(k):
            n = self.counts.get(k, 0)
            mark = "" if n else "   <-- never reached"
            lines.append(f"  {k:<{width}}  {n:>8}  {100.0 * n / total:>5.1f}%{mark}")

        numbered = [k for k in self.labels if k in NUMBERED]
        extra = [k for k in self.labels if k not in NUMBERED]
        for k in numbered:
            row(k)
        if extra:
            lines.append("  " + "-" * (width + 18))
            for k in extra:
                row(k)
        unknown = sorted(set(self.counts) - set(self.labels))
        if unknown:
            lines.append("  " + "-" * (width + 18))
            for k in unknown:
                row(k)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()


#: the session-wide collector of the property suite
SESSION = RuleCoverage()


def reduce_recorded(term, max_steps: int = DEFAULT_MAX_STEPS,
                    coverage: Optional[RuleCoverage] = None):
    """``pullback_calc.reduce``, recording the trace in ``coverage`` (default:
    the session collector)."""
    from ..results.jacobian import reduce
    r = reduce(term, max_steps=max_steps, check=False)
    (SESSION if coverage is None else coverage).record(r.trace)
    return r
