"""Issue 27: safe under threads, faults and hostile files.

Each case here failed before the fix: concurrent reductions against serial ones,
budgets across threads, the registry changed under a running reduction, errors
that escaped as Python exceptions, ...  (the fuzz profile is in test_robust.py).
"""
from __future__ import annotations

import math
import os
import random
import signal
import subprocess
import re
import sys
import threading
import time
from pathlib import Path

import pytest

import pullback_calc as pc
from pullback_calc.syntax.printer import pretty

ROOT = Path(__file__).resolve().parents[1]
LONG = os.environ.get("PULLBACK_CALC_PROFILE") == "thorough"


@pytest.fixture
def switch_often():
    """Threads switch every few microseconds: interleavings a run would meet rarely."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


def _in_threads(n: int, work) -> list:
    """``work(k)`` in n threads at once; their results (or exceptions) by k."""
    out: list = [None] * n
    start = threading.Barrier(n)

    def run(k):
        start.wait()
        try:
            out[k] = work(k)
        except BaseException as e:  # noqa: BLE001 - compared by the caller
            out[k] = e
    threads = [threading.Thread(target=run, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


# ---- 1. concurrency ----------------------------------------------------------------------------

FUNCTIONS = [
    ("λ⟨x, y⟩. ((x + 1) × (2 × x + y ^ 2)) ^ 2", 2),
    ("λ⟨x, y⟩. sin(x × y) + exp(x) × cos(y)", 2),
    ("λ⟨x, y⟩. ⟨x × y, sin(x) + y ^ 3⟩", 2),
    ("λx. (λf. f (f x)) (λy. y × y + x)", 1),
    ("λx. let sum = λl. l (λa. λacc. a × x + acc) 0 in sum (λc. λn. c 1 (c 2 (c x n)))", 1),
]


def _calls(n: int, seed: int) -> list:
    rnd = random.Random(seed)
    calls = []
    for _ in range(n):
        f, k = rnd.choice(FUNCTIONS)
        calls.append((f, [round(rnd.uniform(0.2, 1.5), 2) for _ in range(k)]))
    return calls


def _row(f, pt):
    """Everything a reduction's names could change: the rows, steps and covectors."""
    rows = pc.jacobian(f, pt, record=True).artefact
    return [(r.row, r.steps, pretty(r.covector)) for r in rows]


def test_threads_give_the_serial_results(switch_often):
    threads, per = (8, 1000) if LONG else (8, 12)
    calls = _calls(threads * per, 27)
    serial = [_row(f, pt) for f, pt in calls]
    got = _in_threads(threads, lambda k: [_row(*calls[i]) for i in range(k, len(calls), threads)])
    for k in range(threads):
        assert got[k] == serial[k::threads], f"thread {k}: {got[k]!r}"[:2000]


def test_no_history_between_reductions(monkeypatch):
    """Issue 30, 1: a reduction's work -- names drawn, steps, memory -- is the same
    after a large reduction as before it (the names of one reduction are not kept
    for the next; before, each scope copied every name the process had made)."""
    import tracemalloc
    from pullback_calc.syntax import terms
    from pullback_calc.testing.extreme import sin_chain
    supplies = []

    class Counted(terms._Names):  # the supplies the reductions draw from
        def __init__(self, used=()):
            super().__init__(used)
            supplies.append(self)
    monkeypatch.setattr(terms, "_Names", Counted)

    def small():
        supplies.clear()
        tracemalloc.start()
        try:
            g = pc.grad("λ⟨x, y⟩. ((x + 1) × (2 × x + y ^ 2)) ^ 2", 1.5, 2)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        drawn = [(len(s.used), next(s.counter)) for s in supplies]
        return (list(g), g.steps, drawn), peak

    small()  # (imports and first-use caches)
    before, peak_before = small()
    big = pc.grad(sin_chain(1500), 0.5)
    assert big.steps > 10_000
    after, peak_after = small()
    assert after == before
    assert peak_after <= 1.25 * peak_before + 16_384, (peak_before, peak_after)


LONG_TERM = "λx. " + "sin(" * 400 + "x" + ")" * 400   # thousands of steps: budgets are checked


def test_budget_blocks_closing_out_of_order_leave_nothing_behind():
    # in one thread (a generator, an ExitStack used out of order) ...
    a, b = pc.budget(timeout=0.05), pc.budget(timeout=60)
    a.__enter__()
    b.__enter__()
    a.__exit__(None, None, None)
    with pytest.raises(pc.TimeBudgetExceeded):  # b's own budget still holds ...
        time.sleep(0.1)
        with pc.budget(timeout=0.001):
            pc.grad(LONG_TERM, 0.5)
    b.__exit__(None, None, None)
    time.sleep(0.1)
    assert pc.grad(LONG_TERM, 0.5).steps > 1000  # ... and nothing is left once all closed
    # ... and across threads: one opens, another opens, the first closes, the second closes
    steps = [threading.Event() for _ in range(4)]

    def first():
        with pc.budget(timeout=0.05):
            steps[0].set()
            steps[1].wait()
        steps[2].set()

    def second():
        steps[0].wait()
        with pc.budget(timeout=60):
            steps[1].set()
            steps[2].wait()
    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    time.sleep(0.1)
    assert pc.grad(LONG_TERM, 0.5).steps > 1000


def test_a_budget_in_one_thread_never_stops_another():
    started = threading.Event()

    def budgeted(k):
        if k == 0:
            started.wait()
            with pytest.raises(pc.TimeBudgetExceeded):
                while True:  # (until its budget runs out, while the other one reduces)
                    pc.jacobian(LONG_TERM, [0.5], timeout=0.02)
            return "stopped"
        started.set()
        return [pc.grad(LONG_TERM, 0.3).steps for _ in range(3)]
    got = _in_threads(2, budgeted)
    assert got[0] == "stopped"
    assert not isinstance(got[1], BaseException), got[1]
    assert got[1] == [pc.grad(LONG_TERM, 0.3).steps] * 3


def _softplus():
    return pc.register_primitive("softplus_t27", 1, lambda a: math.log1p(math.exp(a)),
                                 ["λa. 1 / (1 + exp(−a))"])


def test_the_registry_changed_under_running_reductions(switch_often):
    """A reduction sees a symbol's whole entry or none: the right answer or the
    project's error naming the symbol -- never a KeyError from a half-removed one."""
    f = "λx. " + "softplus_t27(" * 20 + "x" + ")" * 20
    with _softplus():
        want = pc.grad(f, 0.3)[0]
    results = []
    done = threading.Event()

    def use():
        while not done.is_set():
            try:
                results.append(pc.grad(f, 0.3)[0])
            except Exception as e:  # noqa: BLE001 - which ones is the test
                results.append(e)

    user = threading.Thread(target=use)
    _softplus()
    user.start()
    try:
        for _ in range(15 if not LONG else 200):
            time.sleep(0.01)
            pc.unregister_primitive("softplus_t27")
            time.sleep(0.002)
            _softplus()
    finally:
        done.set()
        user.join()
        pc.unregister_primitive("softplus_t27")
    assert results
    for r in results:
        assert r == want or (isinstance(r, pc.PullbackCalcError) and "softplus_t27" in str(r)), r


def test_a_change_of_the_registry_from_inside_a_reduction_is_refused():
    def evaluate(a):
        pc.register_primitive("inner_t27", 1, abs, [None])
        return a
    with pc.register_primitive("outer_t27", 1, evaluate, [None]):
        with pytest.raises(pc.ReductionError, match="during a reduction"):
            pc.reduce("outer_t27(1)")
    assert "inner_t27" not in pc.registered_primitives()


# ---- 5. every error the project's own, with a position -------------------------------------------

def test_an_out_of_range_projection_is_rule_2s_error():
    with pytest.raises(pc.PullbackTypeError):  # (checked, by default)
        pc.reduce("π3 ⟨1, 2⟩")
    with pytest.raises(pc.ReductionError, match="rule 2 cannot apply: π3 of a tuple of 2") as e:
        pc.reduce("π3 ⟨1, 2⟩", check=False)
    assert (e.value.pos.line, e.value.pos.column) == (1, 1)
    with pytest.raises(pc.ReductionError, match="rule 2") as e:
        pc.reduce("(λp. 1 + π3 p) ⟨1, 2⟩", check=False)
    assert (e.value.pos.line, e.value.pos.column) == (1, 10)
    r = subprocess.run([sys.executable, "-m", "pullback_calc", "reduce", "--no-check", "-e",
                        "π3 ⟨1, 2⟩"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and "<-e>:1:1: rule 2 cannot apply" in r.stderr, r.stderr


NON_FINITE = [float("inf"), float("-inf"), float("nan")]
POINT_TAKERS = {
    "jacobian": lambda f, v: pc.jacobian(f, [v]),
    "jacobian_row": lambda f, v: pc.jacobian_row(f, [v], 0),
    "grad": lambda f, v: pc.grad(f, v),
    "vjp": lambda f, v: pc.vjp(f, [v]),
    "jvp": lambda f, v: pc.jvp(f, [v], [1.0]),
    "jvp tangent": lambda f, v: pc.jvp(f, [1.0], [v]),
    "call": lambda f, v: pc.call(f, v),
    "hessian": lambda f, v: pc.hessian(f, [v]),
    "tape": lambda f, v: pc.tape(f, [v]),
    **{f"method={m}": (lambda m: lambda f, v: pc.jacobian(f, [v], method=m))(m)  # noqa: B023
       for m in ("pullback", "ps", "forward", "tape")},
}


@pytest.mark.parametrize("v", NON_FINITE, ids=str)
@pytest.mark.parametrize("what", sorted(POINT_TAKERS))
def test_a_non_finite_point_is_a_usage_error(what, v):
    with pytest.raises(pc.JacobianError, match="must be finite"):
        POINT_TAKERS[what]("λx. sin(x)", v)


ARITHMETIC = [  # (f, point, the failing operation and operands, the column of the application)
    ("λx. 1 / x", 0, "div is undefined at 1.0, 0.0", 5),
    ("λx. 10 ^ x", 1000, "pow is undefined at 10.0, 1000.0", 5),
    ("λx. 2 × log(x)", 0, "log is undefined at 0.0", 9),
    ("λ⟨x, y⟩. x × y + sqrt(y)", [1, 0], "div is undefined at 0.5, 0.0", 18),  # its derivative
    ("λx. x × 1e308 × 10", 1, "mul is undefined at 1e+308, 10.0", 5),  # an overflow to inf
]


@pytest.mark.parametrize("method", ["ps", "forward", "tape"])
@pytest.mark.parametrize("f,point,what,column", ARITHMETIC)
def test_every_engine_reports_arithmetic_as_the_reduction_engine_does(method, f, point, what,
                                                                      column):
    pt = point if isinstance(point, list) else [point]
    with pytest.raises(pc.ReductionError) as by_reduction:
        pc.jacobian(f, pt)
    assert by_reduction.value.pos.column == column
    with pytest.raises(pc.ReductionError,
                       match=f"engine cannot go on in `.*`: {re.escape(what)} ") as e:
        pc.jacobian(f, pt, method=method)
    assert (e.value.pos.line, e.value.pos.column) == (1, column)


def test_step_with_a_closed_stdin_is_a_clear_error():
    r = subprocess.run(f"{sys.executable} -m pullback_calc step -e 1 <&-", shell=True, cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and "standard input is closed" in r.stderr, r.stderr


def test_from_sympy_takes_no_text():
    """sympy reads text with eval: a string given to from_sympy could run code."""
    with pytest.raises(pc.JacobianError, match="not text"):
        pc.from_sympy(["__import__('os').getcwd()"], ["x"])
    with pytest.raises(pc.JacobianError, match="not text"):
        pc.from_sympy("x**2", ["x"])


# ---- 6. budgets that hold inside long steps -----------------------------------------------------

def test_a_time_budget_holds_inside_one_long_step():
    """Rule 4 on a slow symbol is one step: the machine cannot check in it, but the
    caller gives up once the budget (and a grace period) is spent, and the work it
    left stops at its next check (every 256 steps), not at the end."""
    calls, ended = [], []

    def slow(a):
        calls.append(a)
        if a == 1:
            time.sleep(4)
            ended.append(a)
        return a
    with pc.register_primitive("slow_t27", 1, slow, [None]):
        term = pc.parse("slow_t27(1) + " + " + ".join(["slow_t27(0)"] * 2000))
        with pytest.raises(pc.TimeBudgetExceeded, match="inside one long step"):
            pc.reduce(term, timeout=0.5)
        assert calls == [1.0] and ended == []  # back before the step's end
        with pytest.raises(pc.TimeBudgetExceeded), pc.budget(timeout=0.5):
            pc.jacobian_row("λx. slow_t27(x)", [1.0], 0)
        assert ended == []
        time.sleep(4.5)
    assert calls.count(1.0) == 2 and calls.count(0.0) < 300, len(calls)


def test_a_budget_error_reports_its_state_in_time(monkeypatch):
    """The redex goes into the error's message abbreviated, and the printer does the
    work of the abbreviation only: printed whole, the deep term of tuple-proj at
    n = 1,000 took 3 minutes (work counted: the printer's tasks)."""
    from pullback_calc.syntax import printer
    from pullback_calc.testing.extreme import DEEP_FUNCTIONS
    real, tasks = printer.Printer.task, [0]

    def counting(self, t, need):
        tasks[0] += 1
        return real(self, t, need)
    f = pc.parse(DEEP_FUNCTIONS["tuple-proj"](300))
    monkeypatch.setattr(printer.Printer, "task", counting)
    with pytest.raises(pc.StepBudgetExceeded) as e:
        pc.jacobian_row(f, [0.5], 0, max_steps=1843, record=False)
    assert "next: rule pb on `Ω(λ⟨⟨⟨" in e.value.message
    assert tasks[0] < 1000, tasks[0]


def test_the_strong_normal_form_is_linear():
    """Work counted: the subterms its fresh-name scopes walk, at n and 2n."""
    from pullback_calc.syntax import terms
    from pullback_calc.testing.extreme import nest
    real, walked = terms.subterms, [0]

    def counting(t):
        for u in real(t):
            walked[0] += 1
            yield u

    def work(n, make):
        walked[0] = 0
        terms.subterms = counting
        try:
            pc.strong_normal_form(make(n))
        finally:
            terms.subterms = real
        return walked[0]
    for make in (lambda n: nest("⟨", "1", ", 1⟩", n), lambda n: nest("λx. ", "x", "", n),
                 lambda n: nest("λx. (λy. y) (", "x", ")", n)):
        a, b = work(400, make), work(800, make)
        assert b <= 2.2 * a, (a, b)


# ---- 2. atomic output ---------------------------------------------------------------------------

def _cli(*args, **kw):
    return subprocess.run([sys.executable, "-m", "pullback_calc", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=600, **kw)


def _leftovers(folder: Path) -> list:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


@pytest.fixture
def full_disk(tmp_path):
    """A 256 KB filesystem (tmpfs), mounted for the test: needs root (and a
    system that lets it mount), else the test is skipped, saying so."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mnt)],
                       capture_output=True, text=True)
    if r.returncode:
        pytest.skip(f"cannot mount a small tmpfs for a full disk here: {r.stderr.strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)


SIN = "λx. " + "sin(" * 60 + "x" + ")" * 60  # its trace: 144 KB of HTML, 750 KB of LaTeX


@pytest.mark.parametrize("command", [
    ["trace", "-e", SIN, "--at", "0.5", "-f", "latex", "-o"],
    ["trace", "-e", SIN, "--at", "0.5", "-f", "json", "-o"],   # (written as it renders)
    ["graph", "-e", SIN, "--at", "0.5", "--format", "svg", "-o"],
], ids=["trace-latex", "trace-json", "graph"])
def test_a_full_disk_leaves_the_previous_file(full_disk, command):
    out = full_disk / f"out.{command[-2].replace('latex', 'tex')}"  # (trace -o reads the suffix)
    out.write_text("the user's previous file\n")
    r = _cli(*command, str(out))
    assert out.read_text() == "the user's previous file\n"
    assert _leftovers(full_disk) == []
    assert r.returncode == 1 and f"{out}: No space left on device" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("sig,status", [(signal.SIGINT, 130), (signal.SIGTERM, 143),
                                        (signal.SIGKILL, -9)])
def test_a_signal_while_rendering_leaves_the_previous_file(tmp_path, sig, status):
    out = tmp_path / "out.html"
    out.write_text("the user's previous page\n")
    p = subprocess.Popen([sys.executable, "-m", "pullback_calc", "trace", "-e",
                          "λx. " + "sin(" * 600 + "x" + ")" * 600, "--at", "0.5", "-f", "html",
                          "-o", str(out)], cwd=ROOT, stderr=subprocess.PIPE, text=True)
    # until rendering has begun (a temporary file; before the fix, OUT was emptied)
    while not _leftovers(tmp_path) and out.stat().st_size and p.poll() is None:
        time.sleep(0.02)
    p.send_signal(sig)
    _, err = p.communicate(timeout=120)
    assert out.read_text() == "the user's previous page\n"
    assert p.returncode in (status, -sig), (p.returncode, err)
    assert "Traceback" not in err
    # a killed process cleans nothing: only its hidden temporary file may stay
    assert _leftovers(tmp_path) == [] or sig == signal.SIGKILL


def test_output_to_a_stream_is_written_in_place(tmp_path):
    log = tmp_path / "log.txt"
    with open(log, "w") as f:
        f.write("before\n")
        f.flush()
        r = subprocess.run([sys.executable, "-m", "pullback_calc", "trace", "-e", "1 + 2",
                            "-o", "/dev/stdout"], cwd=ROOT, stdout=f, stderr=subprocess.PIPE,
                           timeout=120)
    assert r.returncode == 0
    assert log.read_text().startswith("before\n    0 [4]")  # appended, not replaced


@pytest.mark.parametrize("path,message", [
    ("/dev/zero", "/dev/zero: longer than 100 MB, too long for a program"),
    ("/dev/urandom", "/dev/urandom: not UTF-8 text"),
])
def test_an_endless_input_is_refused_not_read_for_ever(path, message):
    """(Before: /dev/zero was read until the memory ran out.)"""
    r = _cli("reduce", path)
    assert r.returncode == 1 and message in r.stderr and "Traceback" not in r.stderr


def test_a_bad_byte_is_named_by_its_offset_across_chunks():
    """read_program reads 1 MiB at a time: a character cut by a chunk's end is held by
    the decoder, and the offset of a bad byte after it still counts from the file's start."""
    import io
    from pullback_calc.cli.source import read_program
    head = b"a" * ((1 << 20) - 1)
    for data, at in ((head + "λ".encode() + b"x\xff", len(head) + 3),
                     (head + b"\xce\xff", len(head))):
        with pytest.raises(pc.PullbackCalcError, match=f"at byte {at}\\)"):
            read_program(io.BytesIO(data), "t")


def test_a_byte_order_mark_is_no_character_of_the_program(tmp_path):
    """Windows editors start UTF-8 files with one (before: "unexpected character '\\ufeff'")."""
    (tmp_path / "bom.pb").write_bytes(b"\xef\xbb\xbf(\xce\xbbx. x \xc3\x97 x) 3\r\n")
    r = _cli("reduce", str(tmp_path / "bom.pb"))
    assert r.returncode == 0 and "normal form: 9" in r.stdout, r.stderr
    r = subprocess.run([sys.executable, "-m", "pullback_calc", "reduce", "-"], cwd=ROOT,
                       input=b"\xef\xbb\xbf1 + 2", capture_output=True, timeout=120)
    assert r.returncode == 0 and b"normal form: 3" in r.stdout, r.stderr


@pytest.mark.parametrize("command", ["trace", "graph"])
@pytest.mark.parametrize("name", ["same", "dot-slash", "symlink", "hard link"])
def test_the_output_never_replaces_the_input_program(tmp_path, command, name):
    """-o naming the program's own file (by any path) is a usage error, the program intact
    (before: ``trace prog.pb -o prog.pb`` replaced the program by its trace)."""
    program = tmp_path / "prog.pb"
    program.write_text("Ω(λx. sin(x) × x) (λz. λw. w) 0.5\n")
    src, out = "prog.pb", {"same": "prog.pb", "dot-slash": "./prog.pb"}.get(name)
    if name == "symlink":
        (tmp_path / "link.pb").symlink_to(program)
        src, out = "link.pb", "prog.pb"
    elif name == "hard link":
        os.link(program, tmp_path / "other.pb")
        out = "other.pb"
    r = subprocess.run([sys.executable, "-m", "pullback_calc", command, src, "-o", out],
                       cwd=tmp_path, capture_output=True, text=True, timeout=120,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 2, r.stderr
    assert f"-o {out} is the input file {src}" in r.stderr and "Traceback" not in r.stderr
    assert program.read_text() == "Ω(λx. sin(x) × x) (λz. λw. w) 0.5\n"


# ---- 3. the gallery owns only what it made ------------------------------------------------------

needs_dot = pytest.mark.skipif(not __import__("shutil").which("dot"),
                               reason="graphviz's dot is not installed (apt-get install graphviz)")


@pytest.fixture
def small_gallery(monkeypatch, tmp_path):
    """build_gallery over two tiny examples (and one of the small terms)."""
    from pullback_calc.cli import gallery
    monkeypatch.setattr(gallery, "SMALL_TERMS", gallery.SMALL_TERMS[:1])
    ex = tmp_path / "examples"
    ex.mkdir()
    (ex / "plain.pb").write_text("# A plain term.\n1 + 2\n", encoding="utf-8")
    (ex / "square.pb").write_text("# Squaring.\n(λx. x × x) 3\n", encoding="utf-8")

    def build(out, *extra):
        from pullback_calc.cli import main
        return main(["gallery", "--out", str(out), "--examples", str(ex), "--budget", "5",
                     *extra])
    build.examples = ex
    return build


@needs_dot
def test_the_gallery_keeps_out_of_a_folder_it_did_not_make(small_gallery, tmp_path, capsys):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.trace.html").write_text("my own page")
    (out / "plain.trace.html").write_text("my own page too")
    assert small_gallery(out) == 1
    assert "not empty" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["notes.trace.html", "plain.trace.html"]
    assert (out / "plain.trace.html").read_text() == "my own page too"
    # told to: it writes its files (replacing one of the same name), and nothing else
    assert small_gallery(out, "--force") == 0
    assert (out / "notes.trace.html").read_text() == "my own page"
    assert "<html" in (out / "plain.trace.html").read_text()


@needs_dot
def test_the_gallery_removes_only_what_it_wrote(small_gallery, tmp_path):
    out = tmp_path / "viz"
    assert small_gallery(out) == 0
    (out / "mine.strategy.svg").write_text("<svg>mine</svg>")  # the user's, beside ours
    (small_gallery.examples / "square.pb").rename(small_gallery.examples / "squared.pb")
    assert small_gallery(out) == 0  # its folder now: no --force needed
    names = {p.name for p in out.iterdir()}
    assert (out / "mine.strategy.svg").read_text() == "<svg>mine</svg>"
    assert "square.trace.html" not in names and "squared.trace.html" in names
    from pullback_calc.cli.gallery import MANIFEST, read_manifest
    assert set(read_manifest(out)) == names - {"mine.strategy.svg", MANIFEST}
    # a manifest that names files elsewhere names nothing
    (out / MANIFEST).write_text('{"format": "pullback-calc-gallery", "version": 1, '
                                '"files": ["../victim.trace.html", "/etc/passwd"]}')
    victim = tmp_path / "victim.trace.html"
    victim.write_text("not the gallery's")
    assert small_gallery(out) == 0
    assert victim.read_text() == "not the gallery's"


@needs_dot
def test_the_gallery_never_writes_through_a_link(small_gallery, tmp_path, capsys):
    out = tmp_path / "viz"
    assert small_gallery(out) == 0
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep me")
    (out / "square.trace.html").unlink()
    (out / "square.trace.html").symlink_to(target)
    assert small_gallery(out) == 1
    assert "symbolic link" in capsys.readouterr().err
    assert target.read_text() == "keep me" and (out / "square.trace.html").is_symlink()


# ---- 4. no script from a file name --------------------------------------------------------------

HOSTILE = {  # file name (without .pb) -> its first comment line
    "javascript:window.__pwned=1": "# A link that would run a script.",
    "q\"uo'te<b>bold<i>": "# <script>window.__pwned = 2</script> \"double\" 'single' </td>",
    "\u202elmth.evil": "# A right-to-left override \u202ein the comment\u202c too.",
    "x onmouseover=window.__pwned=3": "# <img src=x onerror=\"window.__pwned=4\">",
}


@needs_dot
def test_hostile_names_in_the_gallery_run_no_script(small_gallery, tmp_path, browser):
    for name, comment in HOSTILE.items():
        (small_gallery.examples / f"{name}.pb").write_text(
            f"{comment}\n(λαβ. αβ × 2) 3\n", encoding="utf-8")
    out = tmp_path / "viz"
    assert small_gallery(out) == 0
    page = browser.new_page()
    dialogs: list = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto((out / "index.html").as_uri())
    facts = page.evaluate("""() => ({
        scripts: document.scripts.length,
        handlers: [...document.querySelectorAll('*')].flatMap(
            e => [...e.attributes].map(a => a.name)).filter(n => n.startsWith('on')),
        links: [...document.querySelectorAll('a')].map(a => a.href),
        titles: [...document.querySelectorAll('td b')].map(b => b.textContent),
        pwned: window.__pwned})""")
    assert facts["scripts"] == 0 and facts["handlers"] == [] and facts["pwned"] is None
    here = out.as_uri() + "/"
    for href in facts["links"]:  # every link a file beside the page ...
        assert href.startswith(here) and "/" not in href[len(here):], href
    for href in facts["links"]:  # ... and following it runs nothing either
        page.goto(href)
        assert page.evaluate("() => window.__pwned") is None, href
    assert dialogs == []
    page.close()
    titles = set(facts["titles"])  # each name shown as it is, direction marks visible
    for name in HOSTILE:
        assert f"{name}.pb".replace("\u202e", "⟨U+202E⟩") in titles, titles


# ---- 6 (the command line) and 8: the timer, broken pipes, early interrupts ----------------------

def test_the_timer_never_cuts_into_the_report(monkeypatch, capsys):
    """The command failed (a syntax error) just before its --timeout backstop: the
    report of that error is not interrupted by the timer (before: exit 70, or a
    second error line, or "time budget of None s")."""
    import importlib
    cli_main = importlib.import_module("pullback_calc.cli.main")  # (the module, not main())
    real = cli_main.excerpt

    def slow_excerpt(*a):
        time.sleep(1.0)  # the timer (0.2 s + 0.5 s) fires while the report is made
        return real(*a)
    monkeypatch.setattr(cli_main, "excerpt", slow_excerpt)
    status = cli_main.main(["reduce", "-e", "1 +", "--timeout", "0.2"])
    err = capsys.readouterr().err
    assert status == 1 and err.count("error:") == 1 and "budget" not in err, err
    assert "<-e>:1:" in err


def test_a_timer_that_fires_reports_its_own_budget(capsys):
    """The timer stops a stage that does not reduce (here: rule 4 on a slow symbol in
    the main thread's wait), with the budget's number, not None."""
    from pullback_calc.cli import main
    with pc.register_primitive("slow_t27b", 1, lambda a: time.sleep(3) or a, [None]):
        status = main(["reduce", "-e", "slow_t27b(1)", "--timeout", "0.3"])
    err = capsys.readouterr().err
    assert status == 1 and "time budget of 0.3 s exhausted" in err, err


@pytest.mark.parametrize("args", [
    ["trace", "-e", SIN, "--at", "0.5", "-f", "html"],
    ["trace", "-e", SIN, "--at", "0.5", "-f", "latex"],
    ["graph", "-e", SIN, "--at", "0.5", "--format", "svg"],
    ["graph", "-e", SIN, "--at", "0.5", "--format", "png"],
    ["tape", "-e", "λx. " + "sin(" * 1500 + "x" + ")" * 1500, "--at", "0.5"],
], ids=["html", "latex", "svg", "png", "tape"])
def test_a_reader_that_goes_away_is_a_broken_pipe(args):
    """More than a pipe holds, and a reader that takes a little and leaves: the
    command must not claim success (one long write lost the broken pipe)."""
    import shlex
    cmd = " ".join(shlex.quote(a) for a in [sys.executable, "-m", "pullback_calc", *args])
    r = subprocess.run(f"{cmd} | (sleep 1; head -c 10 > /dev/null); exit ${{PIPESTATUS[0]}}",
                       shell=True, executable="/bin/bash", cwd=ROOT, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 1 and "Traceback" not in r.stderr, (r.returncode, r.stderr)


@pytest.mark.parametrize("sig,status,word", [(signal.SIGINT, 130, "interrupted"),
                                             (signal.SIGTERM, 143, "terminated")])
def test_an_interrupt_as_soon_as_the_entry_point_loads(sig, status, word):
    """The handlers are in place once the entry module is imported (before: only when
    ``run`` began, after its imports -- a window of a tenth of a second under load)."""
    probe = ("import os, time\n"
             "import pullback_calc.__main__\n"
             f"os.kill(os.getpid(), {int(sig)})\n"
             "time.sleep(10)\n")
    r = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == status and r.stderr == f"pullback-calc: error: {word}\n", r


# ---- 7. no unbounded work without a budget ------------------------------------------------------

def test_the_whole_graph_bounds_its_work(monkeypatch):
    """The other reducts of a term of n nodes cost n²: a 12-deep π1 ⟨…⟩ nest (terms
    of 6,500 nodes) would take 3·10⁹ units; the graph stops at its budget and says so."""
    from pullback_calc.rendering import graph as G
    from pullback_calc.syntax.terms import size
    from pullback_calc.testing.extreme import DEEP_FUNCTIONS
    real, work = G.one_step_reducts, [0]

    def counting(t, *a, **k):
        work[0] += size(t) ** 2
        return real(t, *a, **k)
    monkeypatch.setattr(G, "one_step_reducts", counting)
    r = pc.jacobian_row(DEEP_FUNCTIONS["tuple-proj"](12), [1.0], 0)
    g = G.whole_graph(r)
    assert work[0] <= 30_000_000  # (G.ALTERNATIVES_WORK)
    assert 0 < g.info["alternatives_cut"] < r.steps and "larger" in g.dot


def test_check_of_a_long_curried_function_is_linear():
    """check applies a curried value to one sample per arrow: each application in
    a fresh-name scope of its own walked the whole value (quadratic; 10,000 arrows
    took 91 s).  Work counted: the subterms the scopes walk, at n and 2n."""
    from pullback_calc.cli import main
    from pullback_calc.syntax import terms
    from pullback_calc.testing.extreme import EXTREMES
    real, walked = terms.subterms, [0]

    def counting(t):
        for u in real(t):
            walked[0] += 1
            yield u

    def work(n):
        walked[0] = 0
        terms.subterms = counting
        try:
            assert main(["check", "-e", EXTREMES["type-arrow"][0](n)]) == 0
        finally:
            terms.subterms = real
        return walked[0]
    a, b = work(300), work(600)
    assert b <= 2.2 * a, (a, b)


def test_a_graph_has_a_memory_budget_of_its_own(monkeypatch, capsys):
    from pullback_calc.cli import graph, main
    monkeypatch.setattr(graph, "MEMORY", 1)  # (MB: the first check finds it spent)
    args = ["graph", "-e", "λx. " + "sin(" * 100 + "x" + ")" * 100, "--at", "0.5",
            "--format", "dot"]
    assert main(args) == 1
    assert "memory budget of 1 MB exhausted" in capsys.readouterr().err
    assert main([*args, "--max-memory", "100000"]) == 0  # (asked for: the user's own)


# ---- found by the fuzz profile -------------------------------------------------------------------

def test_no_engine_misreads_a_zero_of_a_product_type():
    """ps, forward and tape read values without types: a 𝟎 of type ℝ × ℝ in the
    output was one real, and the rows did not line up with the outputs."""
    from pullback_calc.engines import NotSupported
    all_zero = "λ⟨v, c⟩. π1 ⟨π1 (let v : (ℝ × ℝ) × (ℝ × ℝ) × ℝ = 𝟎 in v), let v : ℝ × ℝ = 𝟎 in v⟩"
    mixed = "λx. ⟨(let v : ℝ × ℝ = 𝟎 in v), x⟩"
    for method in ("pullback", "ps", "forward", "tape"):
        assert pc.jacobian(all_zero, [1, 2], method=method).rows == [[0.0, 0.0]] * 2
        if method == "pullback":
            assert pc.jacobian(mixed, [1], method=method).rows == [[0.0], [0.0], [1.0]]
        else:
            with pytest.raises(NotSupported, match="do not line up"):
                pc.jacobian(mixed, [1], method=method)


@pytest.mark.parametrize("args", [["-e", "--"], ["--expr=--"], ["-e", "1", "--title=--"]])
def test_a_value_of_two_dashes_is_a_missing_value(args, capsys):
    from pullback_calc.cli import main
    assert main(["trace", *args]) == 2
    assert "expected one argument" in capsys.readouterr().err


def test_a_binder_the_api_adds_captures_no_free_name():
    """The API wraps a term that is not a λ as λp. f p: p must not be free in f, even
    when f holds names no parser noted (a result's, or built by hand) -- the
    process-wide supply no longer collects every reduction's names."""
    from pullback_calc.api import _lambda
    from pullback_calc.syntax import terms
    from pullback_calc.syntax.subst import fv
    from pullback_calc.syntax.terms import App, Var
    start = int(re.search(r"\d+", repr(terms._AMBIENT.counter))[0])
    f = Var(f"p_{start}")
    for i in range(start + 1, start + 6):
        f = App(f, Var(f"p_{i}"))
    assert _lambda(f).pat.name not in fv(f)
