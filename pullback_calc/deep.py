"""Run deeply recursive work (10,000-deep terms) without hitting the limit.

The engine's entry points run in a worker thread with a large stack and, while
one runs, a raised recursion limit -- the caller's limit is back when it returns
(the limit is one for the whole process: a user's own code, their Hypothesis
tests, must not inherit ours).  Iterative code is used where it is no harder.
"""
from __future__ import annotations

import contextlib
import contextvars
import functools
import sys
import threading

from . import budgets
from .errors import BudgetExceeded

#: the worker thread's stack (cli/main.py leaves room for it under --max-memory)
STACK_SIZE = 512 * 1024 * 1024
#: the recursion limit while a deep call runs (tests lower it, to find recursion)
RECURSION_LIMIT = 400_000
_local = threading.local()
#: Pyodide (the browser playground) and WASI have no threads: the work runs inline there,
#: under the interpreter's own recursion limit (its stack is the browser's)
THREADS = sys.platform not in ("emscripten", "wasi")
_lock = threading.Lock()
_running = 0      # deep calls running now, in any thread
_restore = None   # (the caller's limit, the limit set) while they run


@contextlib.contextmanager
def _raised_limit():
    """The recursion limit at least RECURSION_LIMIT while any deep call runs, then
    the caller's again -- unless someone changed it meanwhile (theirs is kept)."""
    global _running, _restore
    with _lock:
        if _running == 0:
            before = sys.getrecursionlimit()
            _restore = None
            if before < RECURSION_LIMIT:
                sys.setrecursionlimit(RECURSION_LIMIT)
                _restore = (before, RECURSION_LIMIT)
        _running += 1
    try:
        yield
    finally:
        with _lock:
            _running -= 1
            if _running == 0 and _restore is not None:
                before, ours = _restore
                if sys.getrecursionlimit() == ours:
                    sys.setrecursionlimit(before)
                _restore = None
_start_lock = threading.Lock()


def deep(fn):
    """Decorator: run ``fn`` on a big-stack thread unless already on one.  The
    thread runs in a copy of the caller's context (its budgets, its fresh-name
    supply: budgets.py, syntax/terms.py) with a stop flag of its own."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if not THREADS or getattr(_local, "deep", False):
            return fn(*args, **kwargs)
        box: dict = {}
        flag = budgets.StopFlag()
        ctx = contextvars.copy_context()

        def run():
            _local.deep = True
            try:
                box["value"] = ctx.run(budgets.run_stoppable, flag, fn, *args, **kwargs)
            except BaseException as e:  # re-raised in the caller's thread
                box["error"] = e

        with _raised_limit():
            with _start_lock:  # the stack size is process-wide: set it for this thread alone
                old = threading.stack_size()
                threading.stack_size(STACK_SIZE)
                try:
                    # a daemon: an interrupted program exits without waiting for it
                    t = threading.Thread(target=run, name="pullback-calc-deep", daemon=True)
                    t.start()
                finally:
                    threading.stack_size(old)
            watch: dict = {}
            try:
                while t.is_alive():  # short waits: signal handlers run in this thread meanwhile
                    t.join(0.05)
                    if t.is_alive():  # and the budgets hold, even inside one long step
                        budgets.overdue(ctx, watch)
            except BudgetExceeded as e:
                flag.raise_()  # the work in the thread stops at its next check
                # and if that is soon, its own error says where it stopped (steps, term)
                t.join(budgets.GRACE / 4)
                mine = box.get("error")
                if type(mine) is type(e):
                    raise mine.with_traceback(mine.__traceback__) from None
                raise
            except BaseException:  # KeyboardInterrupt, a timer's error, …
                flag.raise_()
                raise
        if "error" in box:
            raise box["error"].with_traceback(box["error"].__traceback__)
        return box["value"]

    return wrapper


def trampoline(gen):
    """Run a recursion written as generators with an explicit stack of them.

    Inside a generator, ``value = yield sub`` (``sub`` another such generator)
    is a recursive call: ``sub`` runs to its ``return`` and ``value`` is what it
    returned, or its exception is raised at the ``yield``.  Only heap memory
    grows with the depth: no Python frame is nested, so the recursion limit
    never applies.  The conversion of a recursive function is mechanical --
    turn ``f(x)`` into ``(yield f(x))`` in ``f`` itself.
    """
    stack = [gen]
    value, error = None, None
    while True:
        top = stack[-1]
        try:
            sub = top.throw(error) if error is not None else top.send(value)
        except StopIteration as stop:
            stack.pop()
            if not stack:
                return stop.value
            value, error = stop.value, None
            continue
        except BaseException as e:  # noqa: B036 - handed to the caller's generator
            stack.pop()
            if not stack:
                raise
            value, error = None, e
            continue
        stack.append(sub)
        value, error = None, None


def bottom_up(root, open_, close):
    """The image of a tree, computed bottom-up on an explicit stack: the one
    traversal of the engine's structural maps (substitution, instantiation,
    rebuilding), so that none of them recurses on the depth of a term.

    ``open_(item)`` returns ``(None, image)`` when it knows ``item``'s image
    without looking inside, else ``(kids, node)``: then the kids (items, handed
    to ``open_`` in turn) are mapped, left to right and each one's subtree
    before the next one's (the order a recursive map would visit them), and
    ``close(node, images)`` is the image (``images`` in the kids' order).
    An item is whatever the map needs -- a term, or a term with its context.
    """
    out: list = []
    stack: list = [(root, -1)]
    pop, push = stack.pop, stack.append
    while stack:
        item, n = pop()
        if n < 0:  # opening
            kids, x = open_(item)
            if kids is None:
                out.append(x)
            else:
                push((x, len(kids)))
                stack.extend((k, -1) for k in reversed(kids))
        elif n:
            images = out[-n:]
            del out[-n:]
            out.append(close(item, images))
        else:
            out.append(close(item, []))
    return out[0]


def bottom_up_shared(root, open_, close, key):
    """``bottom_up`` for a graph with shared nodes: an item whose ``key(item)``
    was mapped already gets the same image without being walked again.  Terms
    are trees only as written: a value substituted for several occurrences, or
    a tangent that mentions its point twice (D-eval), is one node reached
    along several paths, and a nest of them is exponentially many paths --
    while the map needs each node once."""
    done: dict = {}  # key -> (image, the item: kept alive, so that an id in a key stays its own)
    out: list = []
    stack: list = [(root, -1, None, None)]
    pop, push = stack.pop, stack.append
    while stack:
        item, n, k, opened = pop()
        if n < 0:  # opening
            k = key(item)
            hit = done.get(k)
            if hit is not None:
                out.append(hit[0])
                continue
            kids, x = open_(item)
            if kids is None:
                out.append(x)
                done[k] = (x, item)
            else:
                push((x, len(kids), k, item))
                stack.extend((c, -1, None, None) for c in reversed(kids))
        else:
            if n:
                images = out[-n:]
                del out[-n:]
            else:
                images = []
            image = close(item, images)
            out.append(image)
            done[k] = (image, opened)
    return out[0]


def cached_hash(root, parts, key) -> int:
    """The hash of a tree, cached on each node as ``_hash``, post-order without
    recursion: ``parts(node)`` are its children, ``key(node)`` the rest it hashes."""
    h = getattr(root, "_hash", None)
    if h is not None:
        return h
    stack: list = [(root, False)]
    while stack:
        t, ready = stack.pop()
        if getattr(t, "_hash", None) is not None:
            continue
        if ready:
            hv = hash((key(t), tuple(c._hash for c in parts(t))))
            object.__setattr__(t, "_hash", hv)  # (types are frozen dataclasses)
        else:
            stack.append((t, True))
            stack.extend((c, False) for c in parts(t) if getattr(c, "_hash", None) is None)
    return root._hash
