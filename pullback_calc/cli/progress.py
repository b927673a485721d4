"""Progress bars on standard error (tqdm), for work that takes seconds: the rows of a
Jacobian, a long reduction, rendering a big trace.

Shown only when standard error is a terminal, and never under ``--json`` (a program
reads that output); ``main`` decides once per command (``configure``).  A bar
appears only after ``DELAY`` seconds (``PULLBACK_CALC_PROGRESS_DELAY``; the tests
set 0), so quick commands print nothing, and it erases itself when done.  The
renderers and the engine know nothing of tqdm: they take a plain callback
(``progress(done)``) or, for reductions, ``budgets.ticker``.
"""
from __future__ import annotations

import contextlib
import os
import sys
from typing import Callable, Iterator, Optional

DELAY = 0.5
_on = False


def configure(args) -> None:
    """Progress for this command: stderr a terminal, no --json, no -q/--quiet, TERM not
    dumb, PULLBACK_CALC_PROGRESS not 0."""
    global _on
    err = sys.stderr
    tty = bool(err is not None and getattr(err, "isatty", None) and err.isatty())
    _on = (tty and not getattr(args, "json", False) and not getattr(args, "quiet", False)
           and os.environ.get("TERM") != "dumb"
           and os.environ.get("PULLBACK_CALC_PROGRESS", "1") != "0")


def enabled() -> bool:
    return _on


def _tqdm(desc: str, total: Optional[int], unit: str):
    try:
        from tqdm import tqdm
    except ImportError:  # a broken install: no bar, the work still runs
        return None
    try:
        delay = float(os.environ.get("PULLBACK_CALC_PROGRESS_DELAY", DELAY))
    except ValueError:
        delay = DELAY
    # the size from COLUMNS/LINES or the terminal (one that reports 0 x 0, as a fresh
    # pty does, would get an invisible bar from tqdm's own probe)
    import shutil
    size = shutil.get_terminal_size((80, 24))
    return tqdm(total=total, desc=desc, unit=unit, unit_scale=total is None, file=sys.stderr,
                leave=False, delay=delay, mininterval=0.2, ncols=min(size.columns or 80, 100),
                nrows=size.lines or 24)


@contextlib.contextmanager
def bar(desc: str, total: Optional[int] = None,
        unit: str = "step") -> Iterator[Optional[Callable[[int], None]]]:
    """A callback ``done(n)`` (n: how many of ``total`` are done) drawing a bar, or
    None when progress is off (renderers then skip the calls)."""
    b = _tqdm(desc, total, unit) if _on else None
    if b is None:
        yield None
        return

    def done(n: int) -> None:
        if n > b.n:
            b.update(n - b.n)
    try:
        yield done
    finally:
        b.close()


@contextlib.contextmanager
def reduction(desc: str = "reducing") -> Iterator[None]:
    """A step counter for the reductions run in the block (the machine reports every
    256 steps through ``budgets.ticker``; the total is not known in advance)."""
    if not _on:
        yield
        return
    from .. import budgets
    b = _tqdm(desc, None, "step")
    if b is None:
        yield
        return
    try:
        with budgets.ticker(lambda: b.update(budgets.TICK)):
            yield
    finally:
        b.close()
