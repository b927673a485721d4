"""Work counted, not timed: the Python calls a reduction makes (issue 30's tests
compare the work at n and 2n; a count does not depend on the machine's load)."""
from __future__ import annotations

import sys
from typing import Any, Callable

from ..deep import deep

__all__ = ["count_calls"]


@deep
def count_calls(work: Callable[[], Any]) -> tuple[int, Any]:
    """(Python calls made by ``work()``, its result), counted in the engine's
    big-stack thread, where the reduction runs."""
    calls = [0]

    def count(frame, event, arg):
        if event == "call":
            calls[0] += 1
    sys.setprofile(count)
    try:
        r = work()
    finally:
        sys.setprofile(None)
    return calls[0], r
