"""Resource budgets besides the step budget: wall-clock time and memory.

``with budget(timeout=5, max_memory=1000): ...`` (seconds, megabytes) bounds
every reduction run inside the block; the API functions take the same
``timeout=`` and ``max_memory=`` arguments.  The reduction machine checks the
budgets every few hundred steps (``check``), and long single steps check them
too (``poll``); either raises TimeBudgetExceeded or MemoryBudgetExceeded with
the state reached.  Memory is the process's resident set, read from
/proc/self/statm (elsewhere on POSIX: the peak resident set from getrusage).

Budgets belong to the context that opened them (a context variable): a
budget in one thread (or asyncio task) never stops a reduction in another,
and blocks may close in any order.  The engine's helper thread (deep.py) runs
in a copy of its caller's context, so it sees the caller's budgets, and a
stop flag of its own that the caller raises when it gives up.  The command
line adds hard backstops (a timer signal, an address-space limit) for the
stages that do not reduce; see cli/main.py.
"""
from __future__ import annotations

import contextlib
import math
import numbers
import os
import sys
import threading
import time
from contextvars import ContextVar
from typing import Any, Callable, NamedTuple, Optional

from .errors import ArgumentError, MemoryBudgetExceeded, TimeBudgetExceeded

__all__ = ["budget", "check", "poll", "validate", "resident_bytes", "ACTIVE", "MAX_SECONDS"]

#: is a budget, a progress display or a stop flag in force anywhere in the
#: process?  The machine's cheap test; ``check`` then reads the context's own.
ACTIVE = False
_holders = 0             # how many things keep ACTIVE on
_holders_lock = threading.Lock()
TICK = 256               # the machine calls check() every TICK steps while ACTIVE
POLL = 4096              # long steps call poll() every POLL items of work


class _Limit(NamedTuple):
    deadline: Optional[float]
    timeout: Optional[float]
    max_bytes: Optional[int]
    max_mb: Optional[float]


#: the budget blocks open in this context (innermost last); the tightest wins
_LIMITS: ContextVar[tuple] = ContextVar("pullback_calc_budgets", default=())
#: a progress display's callback (cli/progress.py)
_TICK: ContextVar[Optional[Callable[[], None]]] = ContextVar("pullback_calc_tick", default=None)
#: the stop flag of a helper thread's work (deep.py)
_STOP: ContextVar[Optional["StopFlag"]] = ContextVar("pullback_calc_stop", default=None)


def _hold(n: int) -> None:
    global _holders, ACTIVE
    with _holders_lock:
        _holders += n
        ACTIVE = _holders > 0


class Stopped(BaseException):
    """Raised in a reduction whose caller has already given up (never seen by it)."""


class StopFlag:
    """Raised by a caller that gave up on its helper thread (deep.py): the work
    there stops at its next check.  ``done()`` when the helper ends."""

    def __init__(self):
        self.raised = False
        self._lock = threading.Lock()
        self._ended = False

    def raise_(self) -> None:
        with self._lock:
            if not self.raised and not self._ended:
                self.raised = True
                _hold(1)  # the helper must check, budgets or not

    def done(self) -> None:
        with self._lock:
            self._ended = True
            if self.raised:
                _hold(-1)


def run_stoppable(flag: StopFlag, fn: Callable, *args, **kwargs):
    """``fn(*args, **kwargs)`` under the stop flag ``flag`` (in the current context)."""
    token = _STOP.set(flag)
    try:
        return fn(*args, **kwargs)
    finally:
        _STOP.reset(token)
        flag.done()


@contextlib.contextmanager
def ticker(fn: Callable[[], None]):
    """Call ``fn()`` about every ``TICK`` reduction steps in the block (a progress
    display; the checks are already there for the budgets, so this costs nothing
    when no one watches)."""
    token = _TICK.set(fn)
    _hold(1)
    try:
        yield
    finally:
        _TICK.reset(token)
        _hold(-1)


#: the longest time budget, in seconds (≈ 116 days): the operating system's
#: timers that back it (setitimer, alarm, timed waits) take no more
MAX_SECONDS = 10_000_000


def _positive(v: Any) -> bool:
    """A real number (no bool) above 0 and finite -- or a number beyond the floats
    (10**400), which the upper bound then refuses."""
    x: Any = v  # (numbers.Real declares no comparison with int to the type checker)
    if not isinstance(v, numbers.Real) or isinstance(v, bool):
        return False
    try:
        return 0 < float(x) < math.inf
    except OverflowError:  # (no float, but a number)
        return bool(x > 0)


def validate(timeout, max_memory=None) -> None:
    """ArgumentError (a ValueError) unless each budget given is a positive finite number, and
    the timeout at most MAX_SECONDS."""
    for name, v in (("timeout", timeout), ("max_memory", max_memory)):
        if v is not None and not _positive(v):
            raise ArgumentError(f"{name} must be a positive number (or None), got "
                                f"{str(v)[:40]}")
    if timeout is not None and timeout > MAX_SECONDS:
        raise ArgumentError(f"timeout must be at most {MAX_SECONDS:,} seconds, got "
                            f"{str(timeout)[:40]}")


@contextlib.contextmanager
def budget(timeout: Optional[float] = None, max_memory: Optional[float] = None):
    """Bound the time (seconds, from now) and memory (megabytes) of the
    reductions run in the block, in this context; nested blocks keep the
    tighter budget."""
    validate(timeout, max_memory)
    if timeout is None and max_memory is None:
        yield
        return
    mine = _Limit(None if timeout is None else time.monotonic() + timeout, timeout,
                  None if max_memory is None else int(max_memory * 1024 * 1024), max_memory)
    _LIMITS.set(_LIMITS.get() + (mine,))
    _hold(1)
    try:
        yield
    finally:
        # this block's limit only, whatever closed before or after it
        _LIMITS.set(tuple(x for x in _LIMITS.get() if x is not mine))
        _hold(-1)


def _tightest(limits: Optional[tuple] = None) -> tuple[Optional[_Limit], Optional[_Limit]]:
    """(the limit with the earliest deadline, the one with the least memory), of
    ``limits`` or else this context's."""
    time_limit = mem_limit = None
    for x in (_LIMITS.get() if limits is None else limits):
        if x.deadline is not None and (time_limit is None or x.deadline < time_limit.deadline):
            time_limit = x
        if x.max_bytes is not None and (mem_limit is None or x.max_bytes < mem_limit.max_bytes):
            mem_limit = x
    return time_limit, mem_limit


def deadline() -> Optional[float]:
    """The earliest deadline in force in this context (time.monotonic()), or None."""
    t, _ = _tightest()
    return None if t is None else t.deadline


def _page_size() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # pragma: no cover
        return 4096


_PAGE = _page_size()


def resident_bytes() -> Optional[int]:
    """The resident set of this process in bytes (None if it cannot be known)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        pass
    try:
        import resource
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024  # bytes on macOS, KiB elsewhere
    except (ImportError, OSError):  # pragma: no cover - not POSIX
        return None


def time_message(where: str = "", timeout: Optional[float] = None) -> str:
    if timeout is None:
        t, _ = _tightest()
        timeout = None if t is None else t.timeout
    return (f"time budget of {_fmt(timeout)} s exhausted{where}; raise it with timeout= "
            f"or --timeout")


def memory_message(used: int, where: str = "", max_mb: Optional[float] = None) -> str:
    if max_mb is None:
        _, m = _tightest()
        max_mb = None if m is None else m.max_mb
    return (f"memory budget of {_fmt(max_mb)} MB exhausted{where} ({used / 2**20:.0f} MB "
            f"in use); raise it with max_memory= or --max-memory")


def _fmt(v) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def check(state: Callable[[], tuple]) -> None:
    """Raise if a budget of this context has run out; ``state()`` gives (where,
    rule, redex, steps, term) for the error, and is called only then."""
    flag = _STOP.get()
    if flag is not None and flag.raised:
        raise Stopped()
    tick = _TICK.get()
    if tick is not None:
        tick()
    limits = _LIMITS.get()
    if not limits:
        return
    t, m = _tightest()
    if t is not None and time.monotonic() > t.deadline:  # type: ignore[operator]  # (has one)
        where, rule, redex, steps, term = state()
        raise TimeBudgetExceeded(time_message(where, t.timeout), rule, redex, steps, term)
    if m is not None:
        used = resident_bytes()
        if used is not None and used > m.max_bytes:  # type: ignore[operator]  # (has one)
            where, rule, redex, steps, term = state()
            raise MemoryBudgetExceeded(memory_message(used, where, m.max_mb), rule, redex,
                                       steps, term)


#: how long past its deadline work may run before its waiting caller gives up on
#: it (``overdue``): the work reports itself, with its state, well within this
#: unless it is inside one long step
GRACE = 1.0


def overdue(ctx, watch: dict) -> None:
    """For a caller waiting on work that runs in the context ``ctx`` (deep.py):
    raise if that work's time budget ran out more than GRACE seconds ago, or its
    memory budget has been exceeded for GRACE seconds -- it is inside one long
    step that has not checked (``watch``: the caller's notes between calls).
    The caller returns with the error; the work stops at its next check."""
    limits = ctx.get(_LIMITS, ())
    if not limits:
        return
    t, m = _tightest(limits)
    now = time.monotonic()
    if t is not None and now > t.deadline + GRACE:  # type: ignore[operator]  # (has one)
        raise TimeBudgetExceeded(time_message(" (inside one long step)", t.timeout))
    if m is not None:
        used = resident_bytes()
        if used is None or used <= m.max_bytes:  # type: ignore[operator]  # (has one)
            watch.pop("over", None)
        elif now > watch.setdefault("over", now) + GRACE:
            raise MemoryBudgetExceeded(memory_message(used, " (inside one long step)",
                                                      m.max_mb))


def poll(what: str) -> None:
    """``check`` from inside a long step (``what`` says where: "in rule 6"): call
    every POLL items of work, only while ACTIVE."""
    check(lambda: (f" {what}", None, None, None, None))


def address_space() -> int:
    """The address space (virtual memory) of this process in bytes (0 if unknown)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[0]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0
