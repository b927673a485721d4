"""Rows of a Jacobian or Hessian in a process pool (``workers=N``, ``--jobs N``).

Rows are independent reductions, and one reduction's steps do not depend on
anything outside it (fresh names restart per reduction: ``fresh_scope``), so
reducing row p in another process gives the same row, steps and trace as
reducing it here.  The function and the point are pickled once and handed to
each worker when it starts; each row's result (a ``JacobianRow``, with its
trace if one was recorded) comes back pickled.  Terms are as deep as the
programs they come from, so pickling and unpickling run on the engine's
big-stack thread (``deep``).  A term is pickled as its fields only: the
facts the engine caches on nodes (hashes, normal-form marks, linear
combinations) stay behind -- string hashes differ between processes, and a
cache is recomputed where it is needed.  Errors raised in a worker are
re-raised here.
"""
from __future__ import annotations

import multiprocessing
import os
import pickle
from concurrent.futures import ProcessPoolExecutor
from typing import Callable, Optional

from ..deep import deep
from ..syntax.terms import Term


def _rebuild(cls, values: tuple) -> Term:
    return cls(*values)  # the fields in order; the constructor starts the caches empty


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj):
        if isinstance(obj, Term):
            cls = type(obj)  # __match_args__: the constructor's parameters, in order
            # (a lazy sum: its items, made now)
            return _rebuild, (cls, tuple(getattr(obj, n) for n in cls.__match_args__))
        return NotImplemented


def dumps(obj) -> bytes:
    import io
    buf = io.BytesIO()
    _Pickler(buf, pickle.HIGHEST_PROTOCOL).dump(obj)
    return buf.getvalue()


_state: Optional[tuple] = None   # (fn, f, pt) in a worker
_payload: Optional[bytes] = None


def _init(payload: bytes) -> None:
    global _payload, _state
    _payload, _state = payload, None


@deep
def _run(task) -> tuple:
    global _state
    if _state is None:
        assert _payload is not None  # (the pool's initializer set it)
        _state = pickle.loads(_payload)
    fn, f, pt = _state
    try:
        return "ok", dumps(fn(f, pt, task))
    except BaseException as e:  # re-raised by the caller
        try:
            return "error", dumps(e)
        except Exception:  # pragma: no cover - an exception that does not pickle
            return "error", pickle.dumps(RuntimeError(f"{type(e).__name__}: {e}"))


def resolve_workers(workers: Optional[int]) -> int:
    """``None``/1: in this process; 0 or a negative number: one per CPU."""
    if workers is None:
        return 1
    if workers <= 0:
        return os.cpu_count() or 1
    return workers


@deep
def map_rows(fn: Callable, f, pt: list, tasks: list, workers: Optional[int]) -> list:
    """[fn(f, pt, task) for task in tasks], in up to ``workers`` processes."""
    n = min(resolve_workers(workers), len(tasks))
    if n <= 1:
        return [fn(f, pt, t) for t in tasks]
    payload = dumps((fn, f, pt))
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else None)
    with ProcessPoolExecutor(max_workers=n, mp_context=ctx, initializer=_init,
                             initargs=(payload,)) as ex:
        results = list(ex.map(_run, tasks))
    out = []
    for kind, blob in results:
        value = pickle.loads(blob)
        if kind == "error":
            raise value
        out.append(value)
    return out
