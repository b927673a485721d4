"""``python -m pullback_calc`` and the ``pullback-calc`` command (entry point ``run``).

``run`` first takes over SIGINT and SIGTERM, then loads the command line: on a
busy machine its imports take a noticeable time, and a signal in that window
would otherwise print Python's traceback.  ``main`` installs its own handlers
(the clean-up ones) once it runs.
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
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _early)
    from .cli import main
    return main()


if __name__ == "__main__":
    sys.exit(run())
