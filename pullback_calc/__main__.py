"""``python -m pullback_calc`` and the ``pullback-calc`` command (entry point ``run``).

``run`` takes over SIGINT and SIGTERM while it loads the command line: on a
busy machine the imports take a noticeable time, and a signal in that window
would otherwise print Python's traceback.  Then it gives them back: from
``main`` on, an interrupt is an exception, so that the clean-up runs (a
child process computing sympy's reference is killed, for one).
"""
import os
import signal
import sys


def _early(signum, frame):  # nothing to clean up yet: one line and the conventional status
    word, status = ("interrupted", 130) if signum == signal.SIGINT else ("terminated", 143)
    try:
        os.write(2, f"pullback-calc: error: {word}\n".encode())
    except OSError:  # stderr closed: the status still tells
        pass
    os._exit(status)


def run() -> int:
    previous = {sig: signal.signal(sig, _early) for sig in (signal.SIGINT, signal.SIGTERM)}
    from .cli import main
    for sig, handler in previous.items():
        signal.signal(sig, handler)
    return main()


if __name__ == "__main__":
    sys.exit(run())
