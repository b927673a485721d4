"""``main``: runs one subcommand and turns whatever happens into one line on stderr
and a conventional exit status -- never a traceback.

The subcommands are one module each in this package (``reduce.py``, ``graph.py``, …;
``parser.py`` assembles them); this module only guards: signals, the time and memory
backstops, closed streams, and the mapping of errors to statuses.
"""
from __future__ import annotations

import sys
from typing import Optional, Sequence

from ..errors import PullbackCalcError
from .options import PROG, UsageError, check_output_is_not_input, join_values, peek_budgets
from .source import excerpt, where


def _fail(message: str, status: int, extra: Sequence[str] = ()) -> int:
    try:  # stderr may be closed, full or a broken pipe: the status still tells
        sys.stderr.write("\n".join([f"{PROG}: error: {message}", *extra]) + "\n")
        sys.stderr.flush()
    except (OSError, AttributeError, ValueError):
        pass
    return status


class Terminated(BaseException):
    """SIGTERM, raised like KeyboardInterrupt so that the clean-up runs."""


def _on_term(signum, frame):
    raise Terminated()


class _Guards:
    """Signal handlers and hard backstops for the budgets, installed by main()
    and restored on the way out (main() also runs inside test processes) --
    before anything is reported, so that the timer cannot cut into a report."""

    def __init__(self):
        self.saved: list = []
        self.timeout: Optional[float] = None
        self.max_memory: Optional[float] = None
        self.armed = False

    def _on_alarm(self, signum, frame):
        if not self.armed:  # (disarmed meanwhile: the outcome is being reported)
            return
        self.armed = False  # once
        from .. import budgets
        from ..errors import TimeBudgetExceeded
        raise TimeBudgetExceeded(budgets.time_message(timeout=self.timeout))

    def signal(self, signum, handler) -> None:
        import signal
        try:
            self.saved.append(("signal", signum, signal.signal(signum, handler)))
        except (ValueError, OSError, AttributeError):  # not the main thread / no such signal
            pass

    def unraisable(self) -> None:
        """An interrupt raised by our handler inside a weakref callback or a
        ``__del__`` (an import's module-lock callback, say) is "ignored" by
        Python: printed with a traceback, and lost.  This hook prints nothing
        and sends the signal again, so that it is raised where the command
        runs (the outcome stays one line and the conventional status).  Only
        in the main thread, where our signal handlers are: the hook is
        process-wide, and main() run by two threads would restore each
        other's."""
        import threading
        if threading.current_thread() is not threading.main_thread():
            return
        previous = sys.unraisablehook

        def hook(u):
            if isinstance(u.exc_value, (Terminated, KeyboardInterrupt)):
                import os
                import signal
                import threading
                # from another thread, a moment later: raised in the hook (or while it
                # waits for a thread to start) it would be lost again
                sig = signal.SIGTERM if isinstance(u.exc_value, Terminated) else signal.SIGINT
                again = threading.Timer(0.01, os.kill, (os.getpid(), sig))
                again.daemon = True
                again.start()
                return
            previous(u)
        sys.unraisablehook = hook
        self.saved.append(("hook", previous))

    def budgets(self, timeout: Optional[float], max_memory: Optional[float]) -> None:
        import signal
        self.max_memory = max_memory
        if timeout is not None and hasattr(signal, "setitimer"):
            # the machine checks the deadline itself (with the state reached); this
            # timer, a little later, stops the stages that do not reduce
            self.timeout = timeout
            self.signal(signal.SIGALRM, self._on_alarm)
            if self.saved and self.saved[-1][1] == signal.SIGALRM:
                self.armed = True
                signal.setitimer(signal.ITIMER_REAL, timeout + 0.5)
                self.saved.append(("timer",))
        if max_memory is not None:
            try:
                import resource
                soft, hard = resource.getrlimit(resource.RLIMIT_AS)
                # address space, not resident memory: leave room for the helper thread's
                # stack (deep.py), malloc's arenas and the mapped libraries
                from ..budgets import address_space
                from ..deep import STACK_SIZE
                want = address_space() + int(max_memory * 2 ** 20) + STACK_SIZE + 1024 * 2 ** 20
                if hard != resource.RLIM_INFINITY:
                    want = min(want, hard)
                if soft == resource.RLIM_INFINITY or want < soft:
                    resource.setrlimit(resource.RLIMIT_AS, (want, hard))
                    self.saved.append(("rlimit", soft, hard))
            except (ImportError, ValueError, OSError):  # not POSIX: the machine's checks only
                pass
            except OverflowError:  # a limit past any address space: no backstop to set
                pass

    def restore(self) -> None:
        import signal
        self.armed = False  # first: a timer that fires from here on does nothing
        for item in reversed(self.saved):
            try:
                if item[0] == "timer":
                    signal.setitimer(signal.ITIMER_REAL, 0)
                elif item[0] == "hook":
                    sys.unraisablehook = item[1]
                elif item[0] == "signal":
                    signal.signal(item[1], item[2])
                else:
                    import resource
                    resource.setrlimit(resource.RLIMIT_AS, (item[1], item[2]))
            except (ValueError, OSError):
                pass
        self.saved.clear()


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line; returns the exit status (the console script exits with it).

    Whatever happens, the outcome is one line on stderr and a conventional status,
    never a traceback: 1 for bad input (and exhausted budgets), 2 for a bad command
    line, 130 for SIGINT, 143 for SIGTERM, 70 for an internal error (set
    PULLBACK_CALC_DEBUG=1 to see its traceback).
    """
    import signal
    guards = _Guards()
    guards.signal(signal.SIGTERM, _on_term)
    guards.unraisable()
    args = None
    try:
        try:
            status, error, args = _main(argv, guards)
        finally:
            guards.restore()  # no timer, no handler of ours, from here on
        return status if error is None else _report(error, args, guards.max_memory)
    except KeyboardInterrupt:
        return _fail("interrupted", 130)
    except Terminated:
        return _fail("terminated", 143)
    except PullbackCalcError as e:  # the timer, between the work and its report
        return _report(e, args, guards.max_memory)
    except Exception as e:  # an interrupt wrapped by Python (e.g. inside __set_name__)
        if _interrupted(e):
            return _fail("interrupted", 130)
        return _internal(e)


def _mutant_from_environment():
    """Install the mutant $PULLBACK_CALC_MUTANT names (a deliberately broken rule,
    ``testing.mutants``: to see a check such as --verify catch it), saying so on
    stderr; returns an error message for an unknown name."""
    import os
    from ..testing.mutants import ENV_VAR, install_from_environment
    if not os.environ.get(ENV_VAR):
        return None
    try:
        mu = install_from_environment()
    except KeyError as e:
        return f"${ENV_VAR}: {e.args[0]}"
    print(f"pullback-calc: note: ${ENV_VAR} installed the mutant {mu.name}: rule {mu.label} is "
          f"deliberately broken ({mu.description})", file=sys.stderr)
    return None


def _interrupted(e: Optional[BaseException]) -> bool:
    seen = 0
    while e is not None and seen < 20:
        if isinstance(e, KeyboardInterrupt):
            return True
        e, seen = e.__cause__ or e.__context__, seen + 1
    return False


def _main(argv: Optional[Sequence[str]], guards: _Guards) -> tuple:
    """Run the command: (status, None, args), or (None, the error, args) to report
    once the guards are off.  Interrupts propagate."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = None
    try:
        timeout, max_memory = peek_budgets(argv)
        guards.budgets(timeout, max_memory)
        from ..budgets import budget
        with budget(timeout, max_memory):
            from .parser import build_parser  # the engine loads here, under the guards
            parser = build_parser()
            try:
                args = parser.parse_args(join_values(argv))
            except SystemExit as e:  # --help
                status = e.code if isinstance(e.code, int) else 0
                _flush()
                return status, None, args
            args.source = None
            check_output_is_not_input(args)
            if sys.stdout is None:
                raise PullbackCalcError("standard output is closed: nowhere to write the output")
            from . import progress, show
            progress.configure(args)
            show.configure(args)
            bad = _mutant_from_environment()  # (said even under -q: the results are broken)
            if bad is not None:
                raise UsageError(bad)
            out = sys.stdout if _isatty(sys.stdout) else _Pieces(sys.stdout)
            status = args.run(args, out)
            _flush()
            return status, None, args
    except (KeyboardInterrupt, Terminated):
        raise
    except Exception as e:  # noqa: BLE001 - reported by _report, after the guards are off
        if isinstance(e, MemoryError) or (isinstance(e, RuntimeError) and "new thread" in str(e)):
            e = e.with_traceback(None)  # (its frames hold what filled the memory)
            _release(args)
        return None, e, args


def _report(e: BaseException, args, max_memory: Optional[float]) -> int:
    """One line on stderr for what stopped the command, and its exit status."""
    if isinstance(e, UsageError):
        return _fail(str(e), 2)
    if isinstance(e, PullbackCalcError):
        source = getattr(args, "source", None)
        return _fail(where(source, e.pos) + e.message, 1, excerpt(source, e.pos))
    if isinstance(e, RecursionError):  # a bug: nothing should recurse on the input's size
        return _fail("internal error: the input is nested too deeply for one of the stages "
                     "(please report it)", 70)
    if isinstance(e, (MemoryError, RuntimeError)):
        if isinstance(e, RuntimeError) and not (max_memory and "new thread" in str(e)):
            return _internal(e)
        if max_memory is not None:
            return _fail(f"memory budget of {max_memory:g} MB exhausted; raise it with "
                         f"--max-memory", 1)
        return _fail("out of memory", 1)
    if isinstance(e, OSError):
        _silence_stdout()
        if isinstance(e, BrokenPipeError):  # e.g. `pullback-calc reduce … | head`
            return 1
        out = getattr(args, "output", None)  # (a write to it fails without its name)
        name = (f"{e.filename}: " if e.filename else f"cannot write {out}: " if out
                else "cannot write the output: ")
        return _fail(f"{name}{e.strerror or e}", 1)
    if _interrupted(e):
        return _fail("interrupted", 130)
    return _internal(e)


class _Pieces:
    """Standard output that writes long texts in short pieces.  CPython's buffered
    writer takes one long write straight to the file, and when the reader of a pipe
    goes away during it (``… | head``) the kernel's short write leaves the rest in
    the buffer, whose flush then never reports the broken pipe: the command exited
    0.  Pieces no longer than the buffer keep every write in its flush loop, which
    does (exit 1, as for the other outputs)."""

    PIECE = 1024  # characters: at most 4 KB of UTF-8, no more than a pipe's buffer

    def __init__(self, stream):
        self._stream = stream

    def write(self, data) -> int:
        n = self.PIECE if isinstance(data, str) else 4 * self.PIECE
        for i in range(0, len(data), n):
            self._stream.write(data[i:i + n])
        return len(data)

    @property
    def buffer(self):
        return _Pieces(self._stream.buffer)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def _internal(e: BaseException) -> int:
    import os
    if os.environ.get("PULLBACK_CALC_DEBUG"):
        raise e
    return _fail(f"internal error: {type(e).__name__}: {e} (please report it; "
                 f"PULLBACK_CALC_DEBUG=1 shows the traceback)", 70)


def _flush() -> None:
    """Write out what is buffered now, so that a full disk or a closed pipe is
    reported here (as an OSError) and not as a warning at exit."""
    if sys.stdout is not None:
        sys.stdout.flush()


def _silence_stdout() -> None:
    import os
    try:
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - the flush at exit must not fail
    except OSError:
        pass


def _release(args) -> None:
    """After a MemoryError: drop what the command held, so the message can be written."""
    import gc
    if args is not None:
        args.source = None
    gc.collect()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
