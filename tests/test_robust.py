"""Issue 14: hostile input and big work -- no recursion errors, bounded time and
memory, clean streams and signals, and a fuzz suite that keeps it so.

Profiles (tests/conftest.py): under ``ci`` (the default) the extreme inputs are
20,000 deep or long, the 10 MB line is tested in full, and Hypothesis draws a
bounded number of examples; ``PULLBACK_CALC_PROFILE=thorough`` runs the
issue's full sizes (10⁶-deep nestings, 500,000-term chains through the CLI)
and many more fuzz examples.  Every CLI run here must end in a clean
``pullback-calc: …`` line (or the answer) and a conventional exit status,
never a Python traceback.
"""
from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import pullback_calc as pc
import pullback_calc.deep as deep_mod
from pullback_calc.cli import main
from pullback_calc.errors import MemoryBudgetExceeded, TimeBudgetExceeded
from pullback_calc.syntax.terms import Num
from pullback_calc.testing.extreme import DEEP_FUNCTIONS, EXTREMES, chain, damage, sin_chain

ROOT = Path(__file__).resolve().parents[1]
LONG = os.environ.get("PULLBACK_CALC_PROFILE") == "thorough"
N_DEEP = 1_000_000 if LONG else 20_000        # nesting depth / chain length, API
N_CLI = 500_000 if LONG else 50_000           # chains and negations through the CLI
FUZZ = 400 if LONG else 25                    # Hypothesis examples per fuzz test


def _run(args, stdin=None, timeout=300, **kw):
    """The CLI in a fresh process: (status, stdout, stderr, seconds)."""
    t = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "pullback_calc", *args], cwd=ROOT, stdin=stdin,
                       capture_output=True, timeout=timeout, **kw)
    return p.returncode, p.stdout.decode("utf-8", "replace"), \
        p.stderr.decode("utf-8", "replace"), time.monotonic() - t


def _clean(err: str) -> None:
    assert "Traceback" not in err and "Error:" not in err.replace("error:", ""), err[-2000:]


# ---- 1. nothing recurses on the input's size ----------------------------------------------

@pytest.fixture
def low_recursion_limit():
    """A recursion limit of 3,000 (the helper thread's too), so that any code
    that still recurses on a 20,000-deep input fails here."""
    old_limit, old_deep = sys.getrecursionlimit(), deep_mod.RECURSION_LIMIT
    deep_mod.RECURSION_LIMIT = 3000
    sys.setrecursionlimit(3000)
    try:
        yield
    finally:
        deep_mod.RECURSION_LIMIT = old_deep
        sys.setrecursionlimit(old_limit)


@pytest.mark.parametrize("name", sorted(EXTREMES))
def test_extreme_inputs_without_recursion(name, low_recursion_limit):
    make, kind = EXTREMES[name]
    text = make(N_DEEP)
    term = pc.parse(text)
    printed = pc.pretty(term)
    assert name == "parens" or len(printed) > N_DEEP  # (parentheses are not kept)
    try:
        ty = pc.typecheck(term)
    except pc.PullbackTypeError as e:  # ill-typed on purpose: located, and printable
        assert kind == "open" and e.pos is not None and str(e)
        return
    str(ty)
    if kind == "open":
        return
    # the first 300,000 steps: a numeral, a value, or the step budget with its state
    try:
        r = pc.reduce(term, max_steps=300_000, record=False)
    except pc.StepBudgetExceeded as e:
        assert e.steps == 300_000 and e.term is not None
        return
    if kind == "closed":
        assert isinstance(r.value, Num), pc.pretty(r.value)[:200]
    pc.pretty(r.value)


def test_jacobian_of_a_deep_chain_without_recursion(low_recursion_limit):
    r = pc.jacobian_row(sin_chain(5000), [0.5], 0, record=False)
    assert len(r.row) == 1 and abs(r.row[0]) < 1


N_FUN = 100_000 if LONG else 5000  # depth of the functions differentiated


@pytest.mark.parametrize("name", sorted(DEEP_FUNCTIONS))
def test_derivatives_of_deep_functions_without_recursion(name, low_recursion_limit):
    """Rules 5 and 6, the linear normal forms and substitution on the reverse
    phase of deep functions (each is a chain of its construct)."""
    n = N_FUN
    want = {"sin": None, "neg": 1.0 if n % 2 == 0 else -1.0, "add": float(n),
            "let-bound": None, "app-nest": 1.0, "tuple-proj": 1.0}[name]
    r = pc.jacobian_row(DEEP_FUNCTIONS[name](n), [0.5], 0, record=False,
                        max_steps=50_000_000)
    assert len(r.row) == 1 and (want is None or r.row[0] == want), r.row


def test_sympy_bridge_without_recursion(low_recursion_limit):
    from pullback_calc.results.sympy_bridge import to_sympy
    (e,) = to_sympy(pc.parse("λx. " + "let x = x + 1 in " * 5000 + "x"), n=1)
    assert str(e) == "x1 + 5000"


# ---- 2. budgets -------------------------------------------------------------------------------

def test_time_budget_names_itself_and_keeps_the_state():
    # (20,000 deep: ≈ 8 s of work, so the 1 s budget runs out however fast
    # the engine gets -- 3,000 came to finish within the second; parsed first, so
    # that the budget runs out in the reduction even on a loaded machine)
    f = pc.parse(sin_chain(20_000))
    t = time.monotonic()
    with pytest.raises(TimeBudgetExceeded) as info:
        pc.jacobian_row(f, [1.0], 0, timeout=1)
    assert time.monotonic() - t < 30
    e = info.value
    assert e.budget == "time" and e.steps > 0 and e.term is not None
    assert "time budget of 1 s exhausted" in str(e) and "--timeout" in str(e)


def test_memory_budget_names_itself_and_keeps_the_state():
    with pytest.raises(MemoryBudgetExceeded) as info:
        pc.reduce(chain("+", 5000), max_memory=1)  # 1 MB: this process already uses more
    e = info.value
    assert e.budget == "memory" and e.steps == 255 and e.term is not None
    assert "--max-memory" in str(e)


def test_step_budget_keeps_the_state():
    with pytest.raises(pc.StepBudgetExceeded) as info:
        pc.reduce("(1 + 2) * (3 + 4)", max_steps=1)
    assert info.value.steps == 1 and pc.pretty(info.value.term) == "3 × (3 + 4)"


def test_cli_timeout_and_memory_budgets(tmp_path):
    f = tmp_path / "sin.pb"
    f.write_text(sin_chain(20_000))
    status, out, err, secs = _run(["jacobian", str(f), "--at", "1", "--timeout", "1"])
    # (the state "after N steps" when the budget runs out in the reduction; a busy
    # machine may spend the second before it, in the type check)
    assert status == 1 and "time budget of 1 s exhausted" in err and secs < 30, err
    status, out, err, _ = _run(["reduce", "-e", chain("+", 3000), "--max-memory", "1"])
    assert status == 1 and "memory budget of 1 MB exhausted" in err, err
    _clean(err)
    status, _, err, _ = _run(["reduce", "-e", "1", "--timeout", "-1"])
    assert status == 2 and "positive number of seconds" in err


@pytest.mark.parametrize("args", [["reduce", "-e", "1 + 2", "--timeout", "1e10"],
                                  ["check", "-e", "λx. sin(x)", "--at", "1",
                                   "--sympy-timeout", "1e300"]])
def test_a_timeout_past_the_system_timers_is_a_usage_error(args):
    # setitimer, alarm and timed waits overflow (they were internal errors)
    status, _, err, _ = _run(args)
    assert status == 2 and "must be at most 10,000,000 seconds" in err, err
    _clean(err)
    with pytest.raises(ValueError, match="at most 10,000,000 seconds"):
        pc.reduce("1 + 2", timeout=1e300)


def test_a_memory_budget_past_any_address_space_sets_no_limit():
    status, out, err, _ = _run(["reduce", "-e", "1 + 2", "--max-memory", "1e300", "--no-trace"])
    assert status == 0 and out.startswith("normal form: 3"), err


# ---- huge inputs through the CLI ------------------------------------------------------------

def _reduce_file_measured(f: Path):
    """``reduce f`` in a fresh process: (the process, its own peak memory in MB).

    The peak is the child's VmHWM (/proc/self/status), not its ru_maxrss: Linux
    carries the parent's peak across the vfork and exec of ``subprocess`` into
    the child's ru_maxrss, so that under pytest it would be the test process's
    peak (≈ 500 MB late in a full run), whatever ``reduce`` did.  VmHWM belongs
    to the address space that exec creates."""
    probe = "\n".join([
        "import resource, sys",
        "from pullback_calc.cli import main",
        "s = main(sys.argv[1:])",
        "try:",
        "    kb = next(int(x.split()[1]) for x in open('/proc/self/status')",
        "              if x.startswith('VmHWM:'))",
        "except (OSError, StopIteration):  # not Linux: ru_maxrss (bytes on macOS)",
        "    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss",
        "    kb //= 1024 if sys.platform == 'darwin' else 1",
        "print(kb, file=sys.stderr)",
        "sys.exit(s)"])
    p = subprocess.run([sys.executable, "-c", probe, "reduce", str(f)], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    return p, int(p.stderr.strip().splitlines()[-1]) / 1024


# (no wall-clock bound: a busy CI machine.  The memory is the deterministic
# sign that lark did not build the terms -- it would need gigabytes --, the
# timeout a hang's.  The bound is the goal; ``reduce`` itself peaks at
# ≈ 45 MB on these inputs, of which ≈ 27 MB is the interpreter and its imports.
# (The ≈ 520 MB once measured on CI was pytest's own peak, inherited through
# ru_maxrss: see _reduce_file_measured.)
RSS_BOUND_MB = 500

def test_ten_megabyte_line_with_a_bad_character(tmp_path):
    f = tmp_path / "big.pb"
    f.write_text(" + ".join(["1"] * 2_500_000) + " $")
    p, rss_mb = _reduce_file_measured(f)
    assert p.returncode == 1 and "big.pb:1:9999999: unexpected character '$'" in p.stderr
    assert rss_mb < RSS_BOUND_MB, rss_mb


@pytest.mark.parametrize("tail,col,what", [
    (" + * 1", 10_000_001, "unexpected '*'; expected a term"),
    (" in 1", 9_999_999, "unexpected keyword 'in'; expected end of input"),
    (" +", 10_000_000, "unexpected end of input; expected a term"),
    ("minus", 10_000_001, "unexpected end of input; expected a term"),
])
def test_ten_megabytes_with_a_syntax_error_of_valid_tokens(tail, col, what, tmp_path):
    """lark would build the terms of the 10 MB before the error (minutes,
    gigabytes): the recogniser finds it first (parser._recognise)."""
    f = tmp_path / "big.pb"
    f.write_text("-" * 10_000_000 if tail == "minus" else " + ".join(["1"] * 2_500_000) + tail)
    p, rss_mb = _reduce_file_measured(f)
    assert p.returncode == 1 and f"big.pb:1:{col}: {what}" in p.stderr, p.stderr[-500:]
    assert rss_mb < RSS_BOUND_MB, rss_mb


def test_the_recogniser_reports_what_lark_reports(monkeypatch):
    """Mutated examples: the recogniser (used on huge inputs) finds the same
    first syntax error, with the same message, as lark itself."""
    from pullback_calc.syntax import parser as P
    monkeypatch.setattr(P, "_BIG", 0)  # no lark run near the start: the recogniser alone
    rnd = random.Random(14)
    alphabet = "()⟨⟩<>,λ\\.·:=⊕+−-×*/⋆^→ℝ𝟎Ωπ1 xyz in let J pi2 sin ++ -> ^* # \n0e9"
    compared = 0
    for _ in range(600):
        text = list(rnd.choice(EXAMPLES).read_text(encoding="utf-8"))
        for _ in range(rnd.randint(1, 4)):
            i = rnd.randrange(len(text))
            text[i:i + rnd.randint(0, 1)] = rnd.choice(alphabet)
        text = "".join(text) + rnd.choice(["", " + 1 + 2 + 3", " - - - 1", " ⊕ x ⊕ x ⊕"])
        try:
            P._run_lark(text, "start")
            lark = None
        except pc.ParseError as e:
            lark = str(e)
        try:
            P._recognise(text, "start")
            ours = None
        except pc.ParseError as e:
            ours = str(e)
        if lark is not None and ours != lark and ours is not None:
            # an error of the term builder before the syntax error (lark stops at it;
            # the recogniser checks only the syntax, and runs lark near the start)
            assert not lark.startswith("line") or "unexpected" not in lark, (text, lark, ours)
            continue
        assert ours == lark or (ours is None and "unexpected" not in lark), (text, lark, ours)
        compared += lark is not None
    assert compared > 100


def test_ten_megabyte_unbalanced_brackets(tmp_path):
    f = tmp_path / "open.pb"
    f.write_text("(" * 5_000_000 + "1" + ")" * 4_999_999)
    status, _, err, secs = _run(["reduce", str(f)])
    assert status == 1 and "open.pb:1:1: the '(' here is never closed" in err, (secs, err)


@pytest.mark.parametrize("what", ["chain", "negations"])
def test_long_chains_through_the_cli(what, tmp_path):
    f = tmp_path / "t.pb"
    f.write_text(chain("+", N_CLI) if what == "chain" else "-" * N_CLI + "1")
    status, out, err, _ = _run(["reduce", str(f), "--no-trace"], timeout=1800)
    _clean(err)
    want = N_CLI if what == "chain" else (-1 if N_CLI % 2 else 1)
    assert status == 0 and f"normal form: {want}" in out, err[-500:]


def test_graph_of_a_deep_chain_is_bounded(tmp_path):
    f = tmp_path / "sin.pb"
    n = 100_000 if LONG else 2000
    f.write_text(sin_chain(n))
    status, out, err, _ = _run(["graph", str(f), "--jacobian", "--at", "0.5", "--timeout",
                                "600" if LONG else "120"], timeout=900)
    _clean(err)
    assert status == 0 or "budget" in err, err


# ---- 5. streams and signals ------------------------------------------------------------------

def test_closed_stdin_stdout_and_full_disk():
    r = subprocess.run(f"{sys.executable} -m pullback_calc reduce - <&-", shell=True, cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 1 and "standard input is closed" in r.stderr
    r = subprocess.run(f"{sys.executable} -m pullback_calc reduce -e 1 >&-", shell=True,
                       cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 1 and "standard output is closed" in r.stderr
    r = subprocess.run(f"{sys.executable} -m pullback_calc reduce -e 1 > /dev/full", shell=True,
                       cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 1 and "No space left on device" in r.stderr
    _clean(r.stderr)
    # an -o file that takes no writes: the message names it
    r = subprocess.run([sys.executable, "-m", "pullback_calc", "trace", "-e", "1 + 2", "-f",
                        "jsonl", "-o", "/dev/full"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 1 and "cannot write /dev/full: No space left" in r.stderr, r.stderr
    _clean(r.stderr)
    r = subprocess.run(f"{sys.executable} -m pullback_calc reduce -e 1 2>&- >&-", shell=True,
                       cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 1 and r.stderr == ""


def test_broken_pipe(tmp_path):
    f = tmp_path / "c.pb"
    f.write_text(chain("+", 20000))
    r = subprocess.run(f"{sys.executable} -m pullback_calc reduce {f} | head -1", shell=True,
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.stdout.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr


@pytest.mark.parametrize("sig,status,word", [(signal.SIGINT, 130, "interrupted"),
                                             (signal.SIGTERM, 143, "terminated")])
@pytest.mark.parametrize("delay", [0.3, 0.8, 3.0])
def test_signals_at_any_moment(sig, status, word, delay, tmp_path):
    f = tmp_path / "sin.pb"
    f.write_text(sin_chain(3000))
    p = subprocess.Popen([sys.executable, "-m", "pullback_calc", "check", str(f), "--at", "1"],
                         cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(delay)
    p.send_signal(sig)
    out, err = p.communicate(timeout=30)
    err = err.decode()
    assert "Traceback" not in err, err
    # 128 + n, or death by the signal itself (which a shell reports as 128 + n too):
    # after the one-line message, interpreter shutdown may re-raise the interrupt
    assert p.returncode in (status, -sig) and err.strip() == f"pullback-calc: error: {word}", \
        (p.returncode, err)


def test_a_killed_check_leaves_no_reference_running(tmp_path):
    """SIGKILL runs no clean-up: sympy's child process (a 3,000-deep chain: it
    would run past its 10 s budget) must not keep the caller's pipes open,
    nor run on (it ends itself after its budget)."""
    f = tmp_path / "sin.pb"
    f.write_text(sin_chain(3000))
    p = subprocess.Popen([sys.executable, "-m", "pullback_calc", "check", str(f), "--at", "1"],
                         cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(3.0)  # (the child is forked once the program is parsed and checked)
    p.kill()
    p.communicate(timeout=10)  # EOF as soon as the parent is gone


@pytest.mark.parametrize("sig,status,word", [(signal.SIGINT, 130, "interrupted"),
                                             (signal.SIGTERM, 143, "terminated")])
def test_a_signal_while_the_command_line_loads(sig, status, word):
    """The window the timed test above hits only on a busy machine, made
    certain: the signal arrives while ``run`` imports the command line."""
    probe = ("import builtins, os, sys\n"
             "from pullback_calc import __main__ as entry\n"
             "real = builtins.__import__\n"
             "def slow(name, *a, **k):\n"
             "    if name == 'cli':\n"
             f"        os.kill(os.getpid(), {int(sig)})\n"
             "    return real(name, *a, **k)\n"
             "builtins.__import__ = slow\n"
             "sys.exit(entry.run())\n")
    r = subprocess.run([sys.executable, "-c", probe, "reduce", "-e", "1"], cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == status and r.stderr == f"pullback-calc: error: {word}\n", r


@pytest.mark.parametrize("sig,status,word", [(signal.SIGINT, 130, "interrupted"),
                                             (signal.SIGTERM, 143, "terminated")])
def test_a_signal_inside_a_weakref_callback(sig, status, word):
    """The timed test above once caught the signal inside importlib's
    module-lock callback: Python "ignores" an exception raised in a weakref
    callback -- it printed a traceback, and the interrupt was lost.  Made
    certain here: the command's guards send such a signal again, so that it
    stops the command with its one line and status."""
    probe = ("import os, sys, weakref\n"
             "import importlib\n"
             "m = importlib.import_module('pullback_calc.cli.main')\n"
             "real = m._main\n"
             "class O: pass\n"
             "def wrapped(argv, guards):\n"
             "    o = O()\n"
             f"    r = weakref.ref(o, lambda _: (os.kill(os.getpid(), {int(sig)}),\n"
             "                                  sum(range(99))))\n"
             "    del o\n"
             "    return real(argv, guards)\n"
             "m._main = wrapped\n"
             "sys.exit(m.main(['reduce', '-e', '1']))\n")
    r = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == status and r.stderr == f"pullback-calc: error: {word}\n", r


# ---- 6. numbers ------------------------------------------------------------------------------

@pytest.mark.parametrize("text,col", [("1e400", 1), ("2 + 1e400", 5), ("-1e999", 2),
                                      ("λx. x ⊕ 1" + "0" * 400, 9)])
def test_overflowing_literals_are_located_parse_errors(text, col):
    with pytest.raises(pc.ParseError, match="too large") as info:
        pc.parse(text)
    assert (info.value.pos.line, info.value.pos.column) == (1, col)


def test_numerals_are_finite():
    for v in (float("inf"), float("-inf"), float("nan")):
        with pytest.raises(ValueError):
            Num(v)


# ---- 7. fuzzing -------------------------------------------------------------------------------

def _cli(capsys, args) -> tuple[int, str]:
    status = main(args)
    err = capsys.readouterr().err
    assert status in (0, 1, 2), (status, err)
    _clean(err)
    if status:
        assert err.startswith("pullback-calc: error: "), err
    return status, err


EXAMPLES = sorted((ROOT / "examples").glob("*.pb"))
_fuzz = settings(max_examples=FUZZ, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                        HealthCheck.data_too_large])


@_fuzz
@given(st.binary(max_size=400))
@example(b"\xff\xfe")
@example(b"(" * 50 + b"\x00")
def test_fuzz_random_bytes(tmp_path_factory, capsys, data):
    f = tmp_path_factory.mktemp("fz") / "x.pb"
    f.write_bytes(data)
    _cli(capsys, ["reduce", str(f), "--timeout", "20", "--max-steps", "20000"])


@_fuzz
@given(st.text(max_size=200))
def test_fuzz_unicode_text(capsys, text):
    text = text.replace("\x00", "")
    _cli(capsys, ["reduce", "-e", text, "--timeout", "20", "--max-steps", "20000"])


@_fuzz
@given(st.sampled_from(EXAMPLES), st.randoms(use_true_random=False),
       st.sampled_from(["reduce", "jacobian", "trace"]))
def test_fuzz_mutated_examples(capsys, path, rnd, command):
    text = damage(path.read_text(encoding="utf-8"), rnd)  # cut, or characters changed
    args = [command, "-e", text, "--timeout", "20", "--max-steps", "20000"]
    if command == "jacobian":
        args += ["--at", "0.5"]
    _cli(capsys, args)


@_fuzz
@given(st.data())
def test_fuzz_grammar_aware_programs(capsys, data):
    from pullback_calc.syntax.types import R, Arrow
    from pullback_calc.testing.strategies import terms
    t = data.draw(terms(data.draw(st.sampled_from([R, Arrow(R, R)]))))
    text = pc.pretty(t, unicode=data.draw(st.booleans()))
    if data.draw(st.booleans()):  # and a random cut, for syntax errors in real programs
        text = text[:data.draw(st.integers(0, len(text)))]
    _cli(capsys, ["reduce", "-e", text, "--timeout", "20", "--max-steps", "20000", "--no-trace"])


@_fuzz
@given(st.sampled_from(sorted(EXTREMES)), st.integers(1, 3000 if not LONG else 200_000),
       st.integers(0, 3))
def test_fuzz_extreme_sizes(capsys, name, n, cut):
    text = EXTREMES[name][0](n)
    text = text[:len(text) - cut]  # 0: well formed; else a cut-off tail
    _cli(capsys, ["reduce", "-e", text, "--timeout", "60", "--max-steps", "50000", "--no-trace"])


# ---- 8. the long fuzz profile (issue 27) ------------------------------------------------------

FUZZ_MINUTES = float(os.environ.get("PULLBACK_CALC_FUZZ_MINUTES") or (25 if LONG else 0.25))


def test_the_fuzz_profile_finds_nothing(tmp_path):
    """Grammar-aware programs (whole and damaged) through the command line, the API
    and threads (``tests/fuzz_profile.py``), for FUZZ_MINUTES: no traceback, no
    hang, no wrong answer.  ``PULLBACK_CALC_FUZZ_MINUTES=25`` (or the thorough
    profile) runs the long profile; its inputs, if any fails, go to ``tmp_path``."""
    import fuzz_profile as fuzz
    figures = fuzz.run(FUZZ_MINUTES * 60, seed=None if LONG else 27, out=tmp_path,
                       log=lambda s: None)
    print(f"fuzz: {figures['runs']} runs in {FUZZ_MINUTES:g} min (seed {figures['seed']}): "
          f"{figures['outcomes']}")
    assert figures["runs"] >= 10
    assert (figures["traceback"], figures["hang"], figures["wrong"]) == (0, 0, 0), \
        sorted(p.read_text()[:3000] for p in tmp_path.glob("fuzz-*.json"))
