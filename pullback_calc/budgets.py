"""Resource budgets besides the step budget: wall-clock time and memory.

``with budget(timeout=5, max_memory=1000): ...`` (seconds, megabytes) bounds
every reduction run inside the block; the API functions take the same
``timeout=`` and ``max_memory=`` arguments.  The reduction machine checks the
budgets every few hundred steps (``check``) and raises TimeBudgetExceeded or
MemoryBudgetExceeded with the state reached.  Memory is the process's
resident set, read from /proc/self/statm (elsewhere on POSIX: the peak
resident set from getrusage).  The limits are process-wide, not per thread:
the engine runs deep work on a helper thread (deep.py), which must see them.
The command line adds hard backstops (a timer signal, an address-space limit)
for the stages that do not reduce; see cli.py.
"""
from __future__ import annotations

import contextlib
import os
import sys
import time
from typing import Callable, Optional

from .errors import MemoryBudgetExceeded, TimeBudgetExceeded

__all__ = ["budget", "check", "validate", "resident_bytes", "ACTIVE", "MAX_SECONDS"]

ACTIVE = False           # any budget in force? (the machine's cheap test)
_deadline: Optional[float] = None
_timeout: Optional[float] = None
_max_bytes: Optional[int] = None
_max_mb: Optional[float] = None
_stopped = False         # the caller gave up (deep.py): reductions on the helper thread stop
_tick: Optional[Callable[[], None]] = None  # a progress display (cli/progress.py)
TICK = 256               # the machine calls check() every TICK steps while ACTIVE


class Stopped(BaseException):
    """Raised in a reduction whose caller has already given up (never seen by it)."""


def stop(flag: bool) -> None:
    global _stopped, ACTIVE
    _stopped = flag
    ACTIVE = flag or _deadline is not None or _max_bytes is not None or _tick is not None


@contextlib.contextmanager
def ticker(fn: Callable[[], None]):
    """Call ``fn()`` about every ``TICK`` reduction steps in the block (a progress
    display; the checks are already there for the budgets, so this costs nothing
    when no one watches)."""
    global _tick, ACTIVE
    saved = _tick
    _tick = fn
    ACTIVE = True
    try:
        yield
    finally:
        _tick = saved
        ACTIVE = _stopped or _deadline is not None or _max_bytes is not None or _tick is not None


#: the longest time budget, in seconds (≈ 116 days): the operating system's
#: timers that back it (setitimer, alarm, timed waits) take no more
MAX_SECONDS = 10_000_000


def validate(timeout, max_memory=None) -> None:
    """ValueError unless each budget given is a positive finite number, and
    the timeout at most MAX_SECONDS."""
    for name, v in (("timeout", timeout), ("max_memory", max_memory)):
        if v is not None and not (isinstance(v, (int, float)) and v > 0 and v == v
                                  and v != float("inf")):
            raise ValueError(f"{name} must be a positive number (or None), got {v!r}")
    if timeout is not None and timeout > MAX_SECONDS:
        raise ValueError(f"timeout must be at most {MAX_SECONDS:,} seconds, got {timeout!r}")


@contextlib.contextmanager
def budget(timeout: Optional[float] = None, max_memory: Optional[float] = None):
    """Bound the time (seconds, from now) and memory (megabytes) of the
    reductions run in the block; nested blocks keep the tighter budget."""
    global ACTIVE, _deadline, _timeout, _max_bytes, _max_mb
    validate(timeout, max_memory)
    saved = (ACTIVE, _deadline, _timeout, _max_bytes, _max_mb)
    if timeout is not None:
        d = time.monotonic() + timeout
        if _deadline is None or d < _deadline:
            _deadline, _timeout = d, timeout
    if max_memory is not None:
        b = int(max_memory * 1024 * 1024)
        if _max_bytes is None or b < _max_bytes:
            _max_bytes, _max_mb = b, max_memory
    ACTIVE = _stopped or _deadline is not None or _max_bytes is not None or _tick is not None
    try:
        yield
    finally:
        ACTIVE, _deadline, _timeout, _max_bytes, _max_mb = saved
        ACTIVE = ACTIVE or _stopped or _tick is not None


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


def time_message(where: str = "") -> str:
    return (f"time budget of {_fmt(_timeout)} s exhausted{where}; raise it with timeout= "
            f"or --timeout")


def memory_message(used: int, where: str = "") -> str:
    return (f"memory budget of {_fmt(_max_mb)} MB exhausted{where} ({used / 2**20:.0f} MB "
            f"in use); raise it with max_memory= or --max-memory")


def _fmt(v) -> str:
    return f"{v:g}" if isinstance(v, float) else str(v)


def check(state: Callable[[], tuple]) -> None:
    """Raise if a budget has run out; ``state()`` gives (where, rule, redex,
    steps, term) for the error, and is called only then."""
    if _stopped:
        raise Stopped()
    if _tick is not None:
        _tick()
    if _deadline is not None and time.monotonic() > _deadline:
        where, rule, redex, steps, term = state()
        raise TimeBudgetExceeded(time_message(where), rule, redex, steps, term)
    if _max_bytes is not None:
        used = resident_bytes()
        if used is not None and used > _max_bytes:
            where, rule, redex, steps, term = state()
            raise MemoryBudgetExceeded(memory_message(used, where), rule, redex, steps, term)


def address_space() -> int:
    """The address space (virtual memory) of this process in bytes (0 if unknown)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[0]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0
