"""The gradient w.r.t. the entries of a Church list built by a let-bound cons
(issue 26, benchmark family church-cons).

    λ⟨x1, …, xn⟩. sum (cons x1 (cons x2 (… (cons xn nil))))

Goal: the gradient's steps grow at most ×2.2 per doubling of n, and stay
within 10× the evaluation's.  With rules 16–19 alone the reverse phase
takes Θ(n²) steps (papers/calculus.md §9, "Gradients with respect to the
entries of a Church list built by cons": rule 5's premise folds each tail
again); rule 8c makes it linear by substituting each closure the list is
built of into the one place that uses it, so that the list becomes the
written-out one, λf. λd. f x1 (f x2 (… d)), and ``sum`` is unfolded over
it.  The tests below pin that mechanism, and the conditions of 8c that keep
other programs from getting slower (each seen failing without it).

Every count here is of steps (deterministic), never of time; every value
is checked against plain Python.
"""
from pathlib import Path

import pytest

import pullback_calc as pc
from pullback_calc.syntax.terms import App, Num

LIB = ("let nil = λf. λd. d in let cons = λx. λl. λf. λd. f x (l f d) in "
       "let sum = λl. l (λx. λacc. x + acc) 0 in "
       "let sumsq = λl. l (λx. λacc. x × x + acc) 0 in ")


def entries(n: int) -> list:
    return [f"x{i}" for i in range(1, n + 1)]


def by_cons(n: int, consumer: str = "sum") -> str:
    out = "nil"
    for x in reversed(entries(n)):
        out = f"cons {x} ({out})"
    return f"λ⟨{', '.join(entries(n))}⟩. {consumer} ({out})"


def written_out(n: int, consumer: str = "sum") -> str:
    body = "d"
    for x in reversed(entries(n)):
        body = f"f {x} ({body})"
    return f"λ⟨{', '.join(entries(n))}⟩. {consumer} (λf. λd. {body})"


def point(n: int) -> list:
    return [1 + 0.25 * i for i in range(n)]


def tangent(n: int) -> list:
    return [(-1) ** i * (0.5 + i) for i in range(n)]


def tup(xs) -> str:
    return "⟨" + ", ".join(repr(float(x)) for x in xs) + "⟩"


def gradient(f: str, n: int):
    """(the reduction of Ω(f) (λz. λw. w) V, the covector applied to the tangent)."""
    g = pc.reduce(pc.parse(f"{LIB}Ω({f}) (λz. λw. w) {tup(point(n))}"))
    applied = pc.reduce(App(g.value, pc.parse(tup(tangent(n)))))
    assert isinstance(applied.value, Num), applied.value
    return g, applied.value.value


def evaluation(f: str, n: int):
    r = pc.reduce(pc.parse(f"{LIB}({f}) {tup(point(n))}"))
    assert isinstance(r.value, Num), r.value
    return r


@pytest.mark.parametrize("shape", [by_cons, written_out])
def test_gradients_are_plain_python_sums_of_products(shape):
    n = 6
    xs, ts = point(n), tangent(n)
    assert evaluation(shape(n), n).value.value == pytest.approx(sum(xs))
    assert gradient(shape(n), n)[1] == pytest.approx(sum(ts))
    assert evaluation(shape(n, "sumsq"), n).value.value == pytest.approx(
        sum(x * x for x in xs))
    assert gradient(shape(n, "sumsq"), n)[1] == pytest.approx(
        sum(2 * x * t for x, t in zip(xs, ts)))


def steps(shape, n: int) -> int:
    g, dot = gradient(shape(n), n)
    assert dot == pytest.approx(sum(tangent(n)))
    return g.steps


def test_written_out_list_gradient_is_linear():
    """The shape a cons-built list's gradient should reach (§9)."""
    a, b = steps(written_out, 16), steps(written_out, 32)
    assert b / a <= 2.2, (a, b)


def test_cons_list_gradient_is_linear():
    a, b = steps(by_cons, 16), steps(by_cons, 32)
    assert b / a <= 2.2, (a, b)
    assert b <= 10 * evaluation(by_cons(32), 32).steps, b


MAP = "let map = λg. λl. λf. λd. l (λx. λacc. f (g x) acc) d in "


@pytest.mark.parametrize("build", ["cons", "numeral"])
def test_mapping_a_helper_over_the_input_is_linear(build):
    """sum (map g l), g = λe. sin(e × x) a helper over the input, l built by cons or by
    a Church numeral iterating a cons closure: each closure of the list was
    differentiated along g, quadratic in steps (2,169 / 6,531 / 22,167 at 16 / 32 / 64
    entries by cons); rule 8c now copies g into map's folding closure, which the
    list's cells only call, and the list's folds are stages of the series."""
    def text(n: int) -> str:
        if build == "cons":
            lst = "nil"
            for i in range(n, 0, -1):
                lst = f"(cons {i % 7 + 1} {lst})"
        else:
            lst = f"((λf. λa. {'f (' * n}a{')' * n}) (λl. cons (x × x) l) nil)"
        return f"λx. {LIB}{MAP}let g = λe. sin(e × x) in sum (map g {lst})"
    a, b = (pc.grad(text(n), [0.3], record=False) for n in (16, 32))
    assert b.steps / a.steps <= 2.2, (a.steps, b.steps)
    assert b.steps <= 6 * pc.call(text(32), [0.3], record=False).steps, b.steps
    assert not {"19b", "8J", "18"} & set(b.rule_counts), b.rule_counts


def _premise_steps(step) -> int:
    n, stack = 0, [s for d in step.premises for s in d.steps]
    while stack:
        s = stack.pop()
        n += 1
        stack.extend(x for d in s.premises for x in d.steps)
    return n


def test_how_the_steps_stay_linear():
    """The mechanism (§9), counted at n = 4, 8, 12: 8c substitutes the
    closures the list is built of (a fixed number per element), so that no
    premise reads a tail: every premise (of rules 18, 5, 19b) takes the
    same few steps whatever n -- where rules 16–19 alone unfolded and folded
    each tail again -- and the gradient makes n additions, as the
    evaluation does, where it made n².  A change that makes rule 8 bind
    the closures again fails here (and is quadratic again)."""
    subs, sizes = [], set()
    for n in (4, 8, 12):
        g, _ = gradient(by_cons(n), n)
        sizes |= {_premise_steps(s) for s in g.trace if s.premises}
        assert g.rule_counts["4"] == evaluation(by_cons(n), n).rule_counts["4"] == n
        subs.append(g.rule_counts["8c"])
    assert max(sizes, default=0) <= 3, sizes  # (none at all since 8c moves a call's λ)
    assert subs[2] - subs[1] == subs[1] - subs[0] > 0  # a constant number per element


# ---- the conditions of 8c that keep the other programs as fast (each failed without it) ----

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def example_steps(name: str) -> int:
    return pc.reduce((EXAMPLES / name).read_text(encoding="utf-8")).steps


def test_a_let_bound_numeral_is_no_coordinate():
    """Inlining leaves lets of numerals in the series (let x = 1 in … of
    cons 1 …); as coordinates, reverse mode took the tangent of everything
    after them along a constant (ho_fun_map 614 steps where 270 do).  8c
    substitutes a numeral like a closed abstraction.  (267 before 8J bound an
    inert direction read under an abstraction by a let: one rule-1 step
    each, three here.)"""
    r = pc.reduce((EXAMPLES / "ho_fun_map.pb").read_text(encoding="utf-8"), record=True)
    assert not [s for s in r.trace if s.rule == "8" and isinstance(s.redex.fun.body.arg, Num)]
    assert r.steps <= 270


def test_an_abstraction_that_computes_is_not_inlined():
    """λw. l g k (vec3 w) calls the list l, a function it does not know:
    inlined, each call became a stage of its own, differentiated along a
    constant register or initial accumulator too (ho_list_dot 139 → 305
    steps; ho_list_sum_squares 124 → 396 without the numeral clause too).
    Rule 8 keeps it one stage, which rule 18 takes whole.  (One that calls a
    primitive on its free variables, foldl's λacc. λc. acc × x + c, moved
    into the closure the list applies, made church-foldl quadratic:
    test_church_linear.)  The numeral's λa. f (f (f a)) calls f, a helper
    that applies none of its free variables and is used only by calls: 8c
    copies f to its calls, and the numeral to its one call, so the calls are
    stages of the series (921 steps at k = 8 before, 304 now, and linear)."""
    assert example_steps("ho_list_dot.pb") <= 139
    assert example_steps("ho_list_sum_squares.pb") <= 124
    numeral = ("λx. let k = λf. λa. " + "f (" * 8 + "a" + ")" * 8
               + " in sum (k (λl. cons (x × x) l) nil)")
    g = pc.reduce(pc.parse(f"{LIB}Ω({numeral}) (λz. λw. w) 0.7"))
    d = pc.reduce(App(g.value, Num(1.0)))
    assert d.value.value == pytest.approx(2 * 8 * 0.7)
    assert g.steps <= 400


def test_an_open_abstraction_at_an_operand_is_not_inlined():
    """Substituted at an operand (here cons's head, a closure over the
    coordinate g), an open abstraction is named again by A-name, and 8c
    would substitute it again, for ever."""
    src = (f"{LIB}let map = λg. λl. λf. λd. l (λx. λacc. f (g x) acc) d in "
           "Ω(λg. sum (map g (cons (g 1) (cons (g 2) nil)))) (λz. λw. w) (λx. x × x) (λx. x)")
    r = pc.reduce(pc.parse(src), max_steps=5000)
    # Σ d/dε (g + εh)((g + εh)(i)) = Σ h(g(i)) + g'(g(i))·h(i), g = x², h = id, i = 1, 2
    assert r.value == Num(1 + 2 * 1 * 1 + 4 + 2 * 4 * 2)


def test_the_inlining_check_reads_each_closure_once(monkeypatch):
    """8c asks whether a closure computes with its free variables, or calls one
    (``anf.computes``, ``anf.calls_unknown``); a cons list's closures nest, each
    inlined one holding the one before, and a check that walked the whole nest
    made the gradient's time quadratic although its steps are linear.  Counted:
    the nodes the checks visit grow with the list."""
    import pullback_calc.areduction.anf as A
    visits, inside = [0], [False]
    kids, classify = A.subterm_kids, A._classify

    def counted_kids(u):
        if inside[0]:
            visits[0] += 1
        return kids(u)

    def counted_classify(lam):
        inside[0] = True
        try:
            return classify(lam)
        finally:
            inside[0] = False
    monkeypatch.setattr(A, "subterm_kids", counted_kids)
    monkeypatch.setattr(A, "_classify", counted_classify)
    counts = []
    for n in (16, 32, 64):
        visits[0] = 0
        gradient(by_cons(n), n)
        counts.append(visits[0])
    assert counts[2] / counts[1] <= 2.2 and counts[1] / counts[0] <= 2.2, counts


def test_a_closed_abstraction_computes_with_no_free_variable():
    """``anf.computes`` asks whether a λ computes *with its free variables*; a closed
    one has none, whatever its body does with numerals.  It answered yes for
    λa. sin(-1.1) − (-1), so A-name, not A-lift, took (let y = t in λa. …) t apart,
    against the documented decomposition (the thorough profile)."""
    from pullback_calc.areduction.anf import computes
    assert not computes(pc.parse("λa. sin(-1.1) − (-1)"))
    assert not computes(pc.parse("λa. λb. 2 × 3"))
    assert computes(pc.parse("λy. λa. sin(y) + 1").body)  # λa. sin(y)+1: y is free
    r = pc.reduce(pc.parse("Ω(λt. (let y = t in λa. sin(-1.1) − (-1)) t) (λz. λw. w) 0.5 1"),
                  check=False)
    assert r.trace[0].rule == "A-lift", r.trace[0]  # (was A-name, naming the let series)
    assert r.value == pc.parse("𝟎")  # (a constant function: its derivative is the zero vector)
