"""The long fuzz profile: grammar-aware programs through the command line and the API,
counted -- run before a robustness change is called done (issue 27).

    python tests/fuzz_profile.py --minutes 25 [--seed N] [--out DIR]

Each round draws a program from the type-directed strategies
(``testing.strategies``): a closed term of type ℝ, a first-order function
ℝⁿ → ℝᵐ, a function with Church lists and functions inside, or a pullback
program ``Ω(F) ω V T``.  A third of the time its text is then damaged (cut
short, a character deleted, doubled or replaced), for the syntax and type
errors of real programs.  It runs one of these ways:

    cli      ``main([...])`` in this process: reduce, trace (every format), jacobian,
             compare, tape or graph (dot), with --timeout and --max-steps
    process  the same through ``python -m pullback_calc`` (now and then: it is slow)
    api      reduce, jacobian (every engine), grad, jvp and vjp, with ``timeout=``
    threads  a handful of API calls in four threads at once, against the same calls
             made one after the other

Every run ends in one of: ``ok``; ``error`` (the project's own error: a
``PullbackCalcError``, or one line and status 1 or 2); ``budget`` (a time, step or
memory budget ran out, which is an error too); and the three that must stay 0:

    traceback  an exception that is not the project's, a traceback or an "internal
               error" on stderr, or an exit status other than 0, 1 or 2;
    hang       a run that outlived its time budget by more than HANG seconds;
    wrong      two answers that should agree and do not: the reduction's value
               against the forward-mode oracle's, the Jacobian by reduction against
               the forward, Pearlmutter–Siskind and tape engines', a result in a
               thread against the same call alone.

It stops when its time is up and prints the figures (and writes the inputs of
any run in the last three kinds to ``--out``, to replay).  The exit status is 1
if any of them is not 0.  ``tests/test_robust.py`` runs it briefly on every run
of the suite, and for ``PULLBACK_CALC_FUZZ_MINUTES`` minutes when that is set.
(A test tool, not a module of the package: it drives the command line in process,
which nothing in the package but its entry point imports.)
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import random
import subprocess
import sys
import threading
import time
import warnings
from collections import Counter
from pathlib import Path
from typing import Callable, Optional

TIMEOUT = 20          # seconds: each run's time budget
HANG = 30             # seconds past it: a hang
MAX_STEPS = 50_000
BAD = ("traceback", "hang", "wrong")


class Wrong(Exception):
    """Two answers that should agree do not."""


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)


def _agree(a, b) -> bool:
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_agree(x, y) for x, y in zip(a, b))
    return _close(float(a), float(b))


# ---- programs ----------------------------------------------------------------------------------

def draw_program(rnd: "_Choices", draw: Callable) -> dict:
    """A program: its kind, term, text, and (for functions) arity, outputs, a point.
    ``draw``: Hypothesis' (the strategies are Hypothesis strategies)."""
    from pullback_calc.syntax.printer import pretty
    from pullback_calc.syntax.types import R
    from pullback_calc.testing import strategies as S
    kind = rnd.choice(["closed", "closed", "function", "function", "higher", "pullback"])
    p: dict = {"kind": kind}
    if kind == "closed":
        p["term"] = draw(S.terms(R))
    elif kind == "function":
        n, m = rnd.choice([(1, 1), (2, 1), (2, 2), (3, 1)])
        p["term"], p["n"], p["m"] = draw(S.first_order_functions(n, m)), n, m
    elif kind == "higher":
        n = rnd.choice([1, 2])
        p["term"], p["n"], p["m"] = draw(S.higher_order_functions(n))[0], n, 1
    else:
        p["term"] = draw(S.higher_order_programs())[0]
        p["kind"] = "closed"
    if "n" in p:
        p["point"] = [round(rnd.uniform(-2, 2), 2) or 0.5 for _ in range(p["n"])]
    p["text"] = pretty(p["term"], unicode=rnd.random() < 0.7)
    p["damaged"] = rnd.random() < 1 / 3
    if p["damaged"]:
        from pullback_calc.testing.extreme import damage
        p["text"] = damage(p["text"], rnd)
    return p


def _point(p: dict) -> str:
    return ",".join(repr(v) for v in p["point"])


# ---- the ways to run one -----------------------------------------------------------------------

def cli_args(p: dict, rnd: "_Choices") -> list:
    budget = ["--timeout", str(TIMEOUT), "--max-steps", str(MAX_STEPS)]
    if "point" in p:
        command = rnd.choice(["jacobian", "jacobian", "compare", "tape", "trace", "graph"])
        extra = ["--at", _point(p)]
    else:
        command = rnd.choice(["reduce", "reduce", "trace", "graph"])
        extra = ["--no-trace"] if command == "reduce" and rnd.random() < 0.5 else []
    if command == "trace":
        extra += ["-f", rnd.choice(["text", "json", "html", "latex"])]
    if command == "graph":
        extra += ["--format", "dot"]
    return [command, "-e", p["text"], *extra, *budget]


def run_cli(args: list) -> str:
    from pullback_calc.cli import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(args)
    return _judge_cli(status, err.getvalue())


def run_process(args: list) -> str:
    r = subprocess.run([sys.executable, "-m", "pullback_calc", *args], capture_output=True,
                       text=True, timeout=TIMEOUT + HANG + 60)
    return _judge_cli(r.returncode, r.stderr)


def _judge_cli(status: int, err: str) -> str:
    if "Traceback" in err or "internal error" in err or status not in (0, 1, 2):
        raise AssertionError(f"status {status}: {err[-2000:]}")
    if status == 0:
        return "ok"
    if not err.startswith("pullback-calc: error: "):
        raise AssertionError(f"status {status} without a one-line error: {err[-2000:]}")
    return "budget" if "budget" in err else "error"


def answers(p: dict) -> list:
    """The answers the API gives for ``p``, each by several routes, as (what, value)."""
    import pullback_calc as pc
    from pullback_calc.testing import oracle
    term = p["term"]
    if p["kind"] == "closed":
        from pullback_calc.syntax.terms import Num, Zero
        v = pc.reduce(term, timeout=TIMEOUT, max_steps=MAX_STEPS, record=False).value
        want = oracle.evaluate(term)
        want = 0.0 if want is oracle.ZERO else want
        got = v.value if isinstance(v, Num) else 0.0 if isinstance(v, Zero) else None
        if got is None or not _agree(got, want):
            raise Wrong(f"reduction {pc.pretty(v)} vs oracle {want}")
        return [("value", got)]
    pt = p["point"]
    rows = pc.jacobian(term, pt, timeout=TIMEOUT, max_steps=MAX_STEPS)
    out = [("jacobian", rows)]
    from pullback_calc.engines.common import NotSupported
    for method in ("forward", "ps", "tape"):
        try:
            other = pc.jacobian(term, pt, method=method).rows
        except NotSupported:  # (a construct that engine does not have)
            continue
        if not _agree(rows, other):
            raise Wrong(f"jacobian by reduction {rows} vs {method} {other}")
        out.append((method, other))
    if p["m"] == 1:
        g = pc.grad(term, pt, max_steps=MAX_STEPS)
        if not _agree(list(g), rows[0]):
            raise Wrong(f"grad {list(g)} vs jacobian row {rows[0]}")
    tangent = [1.0] + [0.0] * (len(pt) - 1)
    _, tan = pc.jvp(term, pt, tangent, max_steps=MAX_STEPS)
    column = [r[0] for r in rows]
    if not _agree(list(tan) if isinstance(tan, tuple) else [tan], column):
        raise Wrong(f"jvp along e1 {tan} vs the Jacobian's first column {column}")
    return out


def run_api(p: dict) -> str:
    import pullback_calc as pc
    try:
        answers(p)
    except pc.BudgetExceeded:
        return "budget"
    except pc.PullbackCalcError:
        return "error"
    return "ok"


def run_threads(programs: list) -> str:
    """The same API calls in four threads at once: each result as when made alone."""
    import pullback_calc as pc
    alone = []
    for p in programs:
        try:
            alone.append(answers(p))
        except pc.PullbackCalcError as e:
            alone.append(type(e))
    together: list = [None] * len(programs)

    def work(k):
        for i in range(k, len(programs), 4):
            try:
                together[i] = answers(programs[i])
            except pc.PullbackCalcError as e:
                together[i] = type(e)
            except BaseException as e:  # noqa: BLE001 - judged below
                together[i] = e

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for p, a, b in zip(programs, alone, together):
        if isinstance(b, BaseException):
            raise b
        if a != b and not (isinstance(a, list) and isinstance(b, list)
                           and all(x[0] == y[0] and _agree(x[1], y[1]) for x, y in zip(a, b))):
            if a is not pc.TimeBudgetExceeded and b is not pc.TimeBudgetExceeded:
                raise Wrong(f"in a thread {b!r}, alone {a!r}: {p['text'][:200]}")
    return "ok"


# ---- the profile ----------------------------------------------------------------------------

class _TimeUp(Exception):
    """The profile's time is spent (ends Hypothesis' generation loop)."""


class _Choices:
    """``random.Random``'s choices, drawn through Hypothesis (whose draws must be
    the only source of a test case's randomness: one seed, the same programs)."""

    def __init__(self, draw: Callable):
        from hypothesis import strategies as st
        self.draw, self.st = draw, st

    def choice(self, seq):
        return self.draw(self.st.sampled_from(list(seq)))

    def random(self) -> float:
        return self.draw(self.st.floats(0, 1, exclude_max=True))

    def uniform(self, a: float, b: float) -> float:
        return self.draw(self.st.floats(a, b))

    def randint(self, a: int, b: int) -> int:
        return self.draw(self.st.integers(a, b))

    def randrange(self, n: int) -> int:
        return self.draw(self.st.integers(0, n - 1))


def run(seconds: float, seed: Optional[int] = None, out: Optional[Path] = None,
        log: Callable[[str], None] = print) -> dict:
    """Fuzz for ``seconds``; the figures (and the failing inputs, in ``out``).  The
    same ``seed`` draws the same programs (Hypothesis is seeded with it too)."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed
    from hypothesis import strategies as st
    seed = random.randrange(2**32) if seed is None else seed
    figures: dict = {"seed": seed, "runs": 0, "outcomes": Counter(), "by_way": {}}
    failures: list = []
    end = time.monotonic() + seconds

    @settings(max_examples=10**9, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), print_blob=False)
    @hypothesis_seed(seed)
    @given(st.data())
    def one_round(data):
        _round(_Choices(data.draw), data.draw, figures, failures, log)
        if time.monotonic() >= end:  # (at the end of a round, not before its draws:
            raise _TimeUp()          # Hypothesis wants the same data to draw the same)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            one_round()
        except _TimeUp:
            pass
    figures["outcomes"] = dict(figures["outcomes"])
    figures["by_way"] = {k: dict(v) for k, v in figures["by_way"].items()}
    for k in BAD:
        figures[k] = figures["outcomes"].get(k, 0)
    figures["seconds"] = round(seconds)
    if out is not None and failures:
        out.mkdir(parents=True, exist_ok=True)
        (out / f"fuzz-{seed}.json").write_text(json.dumps(failures, indent=1,
                                                          ensure_ascii=False))
    return figures


def _round(rnd: "_Choices", draw: Callable, figures: dict, failures: list,
           log: Callable[[str], None]) -> None:
    """Draw a program (a few, for threads), run it one way, count the outcome."""
    import pullback_calc as pc
    way = rnd.choice(["cli", "cli", "api", "api"] + ["process"] * (rnd.random() < 0.05)
                     + ["threads"] * (rnd.random() < 0.1))
    p = draw_program(rnd, draw)
    batch = [p] + ([draw_program(rnd, draw) for _ in range(5)] if way == "threads" else [])
    if way in ("api", "threads"):  # answers are checked on whole programs only
        batch = [q for q in batch if not q["damaged"]] or [p]
        if batch[0]["damaged"]:
            way = "cli"
    args = cli_args(p, rnd)  # (every draw before the run: none in it)
    t0 = time.monotonic()
    try:
        if way == "cli":
            outcome = run_cli(args)
        elif way == "process":
            outcome = run_process(args)
        elif way == "api":
            outcome = run_api(batch[0])
        else:
            outcome = run_threads(batch)
        detail = ""
    except Wrong as e:
        outcome, detail = "wrong", str(e)
    except subprocess.TimeoutExpired as e:
        outcome, detail = "hang", str(e)
    except (KeyboardInterrupt, SystemExit, _TimeUp):
        raise
    except BaseException as e:  # noqa: BLE001 - a foreign exception is what is counted
        if isinstance(e, pc.PullbackCalcError):
            outcome, detail = "error", ""
        else:
            import traceback
            outcome, detail = "traceback", traceback.format_exc()[-3000:]
    if outcome not in BAD and time.monotonic() - t0 > TIMEOUT + HANG:
        outcome, detail = "hang", f"{time.monotonic() - t0:.0f} s"
    figures["runs"] += 1
    figures["outcomes"][outcome] += 1
    figures["by_way"].setdefault(way, Counter())[outcome] += 1
    if outcome in BAD:
        failures.append({"way": way, "outcome": outcome, "detail": detail, "args": args,
                         "texts": [q["text"] for q in batch],
                         "points": [q.get("point") for q in batch]})
        log(f"{outcome} ({way}): {detail[:300]}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python tests/fuzz_profile.py",
                                 description="The long fuzz profile (issue 27).")
    ap.add_argument("--minutes", type=float, default=25.0)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--out", default="fuzz-failures", help="where failing inputs go")
    args = ap.parse_args(argv)
    figures = run(args.minutes * 60, args.seed, Path(args.out))
    print(json.dumps(figures, indent=1, ensure_ascii=False))
    print(f"runs {figures['runs']}: tracebacks {figures['traceback']}, hangs "
          f"{figures['hang']}, wrong answers {figures['wrong']}")
    return 1 if any(figures[k] for k in BAD) else 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's package
    sys.exit(main())
