"""``pullback-calc step FILE``: an interactive terminal stepper, the terminal
twin of the HTML stepper.

The term is reduced once, recording the trace; the stepper then moves over
it.  Position k shows the state after k steps: the next step's rule, its
redex marked in its evaluation context, and its contractum.  Commands
(a prefix is enough; an empty line repeats ``next``)::

    n, next [K]        K steps forward (default 1)
    b, back [K]        K steps back
    g, goto N          to the state after N steps
    r, run RULE        forward to the next step of RULE (e.g. 5, 16, A-name)
    p, premise         the premises of the next step, with their steps
    c, context         the evaluation context around the redex, more of it
    t, term            the whole term at this point
    l, latex           the next step as LaTeX (for a paper)
    h, help            this list
    q, quit            leave (so do Ctrl-D and Ctrl-C)
"""
from __future__ import annotations

import shlex
import sys
from typing import Optional, TextIO

from .syntax.printer import pretty

HELP = __doc__.split("::", 1)[1].rstrip()
COMMANDS = ("next", "back", "goto", "run", "premise", "context", "term", "latex", "help",
            "quit")


class Stepper:
    """The stepper's state and commands; ``out`` receives what it prints."""

    def __init__(self, trace: list, start, value, out: TextIO, unicode: bool = True,
                 width: Optional[int] = 100, color: bool = False):
        self.trace, self.start, self.value = trace, start, value
        self.out, self.unicode, self.width, self.color = out, unicode, width, color
        self.pos = 0  # steps taken: the state after `pos` steps

    # ---- views ---------------------------------------------------------------------
    def say(self, *lines: str) -> None:
        self.out.write("\n".join(lines) + "\n")

    def _term_here(self):
        if self.pos == 0:
            return self.start
        if self.pos >= len(self.trace):
            return self.value
        return self.trace[self.pos].term_before()

    def show(self) -> None:
        n = len(self.trace)
        if self.pos >= n:
            self.say(f"[{n}/{n}] normal form: {self._abbrev(self.value)}")
            return
        from .rendering.text import arrow, state_lines, two_terms
        s = self.trace[self.pos]
        lines = state_lines(self._term_here(), s, self.unicode, self.width)
        room = None if self.width is None else self.width - 4
        lines[0] = f"[{self.pos}/{n}] " + lines[0]
        lines.append("    " + two_terms(s.redex, s.contractum, arrow(self.unicode),
                                         self.unicode, room, self.color))
        if s.premises:
            lines.append(f"    ({len(s.premises)} premise(s): 'premise' shows them)")
        self.say(*lines)

    def _abbrev(self, t) -> str:
        from .rendering.text import abbreviate
        return pretty(t, self.unicode) if self.width is None else abbreviate(
            t, self.unicode, self.width - 12)

    # ---- commands ------------------------------------------------------------------
    def move(self, k: int) -> None:
        self.pos = max(0, min(len(self.trace), self.pos + k))
        self.show()

    def goto(self, n: int) -> None:
        if not 0 <= n <= len(self.trace):
            self.say(f"no state {n}: the reduction has {len(self.trace)} steps (0–"
                     f"{len(self.trace)})")
            return
        self.pos = n
        self.show()

    def run_to(self, rule: str) -> None:
        from .rendering.text import parse_rules
        try:
            chosen = parse_rules(rule)
        except ValueError as e:
            self.say(str(e))
            return
        for i in range(self.pos + 1, len(self.trace)):
            if self.trace[i].rule in chosen:
                self.pos = i
                self.show()
                return
        self.say(f"no step of rule {rule} after step {self.pos}")

    def premise(self) -> None:
        if self.pos >= len(self.trace):
            self.say("the reduction is over: no next step")
            return
        s = self.trace[self.pos]
        if not s.premises:
            self.say(f"step {s.index} [{s.rule}] has no premises")
            return
        from .rendering.text import trace_lines
        self.say(*trace_lines([s], self.unicode, self.width, True, color=self.color)[1:])

    def context(self) -> None:
        if self.pos >= len(self.trace):
            self.say("the reduction is over: no redex")
            return
        from .rendering.text import abbreviate, context_around
        s = self.trace[self.pos]
        left, right, more = context_around(s, self.unicode, frames=12, sibling=40)
        ob, cb = ("⟪", "⟫") if self.unicode else ("<<", ">>")
        outer = ", outer ones left out" if more else ""
        self.say(f"context of step {s.index} ({s.depth} frames{outer}):",
                 f"    {'… ' if more else ''}{left}{ob}{abbreviate(s.redex, self.unicode, 60)}"
                 f"{cb}{right}")

    def term(self) -> None:
        self.say(pretty(self._term_here(), self.unicode))

    def latex(self) -> None:
        if self.pos >= len(self.trace):
            from .rendering.latex import term_to_latex
            self.say(term_to_latex(self.value))
            return
        from .rendering.latex import step_to_latex
        self.say(step_to_latex(self.trace[self.pos]))

    def do(self, line: str) -> bool:
        """Run one command line; False to quit."""
        try:
            words = shlex.split(line)
        except ValueError:
            words = line.split()
        if not words:
            words = ["next"]
        cmd, rest = words[0].lower(), words[1:]
        match = [c for c in COMMANDS if c.startswith(cmd)]
        if len(match) != 1:
            self.say(f"unknown command {words[0]!r}; 'help' lists them" if not match else
                     f"{words[0]!r} could be {', '.join(match)}")
            return True
        cmd = match[0]
        try:
            arg = int(rest[0]) if rest and cmd in ("next", "back", "goto") else None
        except ValueError:
            self.say(f"{cmd} takes a whole number, got {rest[0]!r}")
            return True
        if cmd == "quit":
            return False
        if cmd == "next":
            self.move(arg or 1)
        elif cmd == "back":
            self.move(-(arg or 1))
        elif cmd == "goto":
            if arg is None:
                self.say("goto N: the state after N steps")
            else:
                self.goto(arg)
        elif cmd == "run":
            if not rest:
                self.say("run RULE: forward to the next step of RULE (e.g. run 5)")
            else:
                self.run_to(rest[0])
        else:
            getattr(self, cmd)()
        return True

    def help(self) -> None:
        self.say(HELP)


def steps_note(trace: list) -> str:
    """The step count, as ``reduce`` and ``jacobian`` give it (premises' steps
    included), and how many of them the stepper walks (the main derivation's)."""
    from .rendering.text import count_steps
    n, top = count_steps(trace), len(trace)
    if n == top:
        return f"{n} steps"
    return f"{n} steps ({top} in the main derivation, walked here; {n - top} in premises)"


def run_stepper(trace: list, start, value, unicode: bool = True, width: Optional[int] = 100,
                stdin: Optional[TextIO] = None, out: Optional[TextIO] = None,
                color: bool = False) -> int:
    """The read–eval–print loop; reads commands until quit or end of input."""
    stdin = stdin or sys.stdin
    out = out or sys.stdout
    interactive = stdin.isatty()
    if interactive:
        try:
            import readline  # noqa: F401 - line editing and history for input()
        except ImportError:  # pragma: no cover
            pass
    st = Stepper(trace, start, value, out, unicode, width, color)
    st.say(f"{steps_note(trace)}. Commands: next, back, goto N, run RULE, premise, context, "
           f"term, latex, help, quit (Enter: next).")
    st.show()
    prompt = "step> "
    while True:
        try:
            if interactive and stdin is sys.stdin and out is sys.stdout:
                line = input(prompt)
            else:
                out.write(prompt)
                out.flush()
                line = stdin.readline()
                if not line:
                    raise EOFError
        except (EOFError, KeyboardInterrupt):
            out.write("\n")
            return 0
        if not st.do(line.strip()):
            return 0
        out.flush()
