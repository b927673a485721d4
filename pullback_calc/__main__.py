"""``python -m pullback_calc`` and the ``pullback-calc`` command (entry point ``run``).

The interrupt handlers come first, before anything else is imported: on a busy
machine the imports take a noticeable time (tenths of a second), and a signal
in that window would otherwise print Python's traceback.  ``_signal`` (the C
module) is already loaded by the interpreter; ``signal``, its Python wrapper,
would cost an import of ``enum`` first.  ``run`` gives the handlers back once
the command line is loaded: from ``main`` on, an interrupt is an exception, so
that the clean-up runs (a child process computing sympy's reference is killed,
for one).  What comes before this module -- the interpreter's start, ``site``
and the console script's own first lines -- is out of our reach: tens of
milliseconds on an idle machine.
"""
import _signal


def _early(signum, frame):  # nothing to clean up yet: one line and the conventional status
    import os
    word, status = ("interrupted", 130) if signum == _signal.SIGINT else ("terminated", 143)
    try:
        os.write(2, f"pullback-calc: error: {word}\n".encode())
    except OSError:  # stderr closed: the status still tells
        pass
    os._exit(status)


_PREVIOUS = {sig: _signal.signal(sig, _early) for sig in (_signal.SIGINT, _signal.SIGTERM)}

import sys  # noqa: E402  (after the handlers, on purpose)


def run() -> int:
    from .cli import main
    for sig, handler in _PREVIOUS.items():
        _signal.signal(sig, handler)
    return main()


if __name__ == "__main__":
    sys.exit(run())
