"""Programs written the way users write them: let-bound helpers, Church lists
built by ``cons``, derivatives inside derivatives, Hessians of functions with
function-typed inputs.  Each failure class found by trying such programs has
its repro here, with the value it must reach (checked independently: sympy,
finite differences or hand derivation in the comment), and a wider case of
the same class.
"""
import math

import pytest

import pullback_calc as pc
from pullback_calc.errors import PullbackTypeError
from pullback_calc.testing.programs import inline_helpers

W = "(λz. λw. w)"
LIB = ("let nil = λf. λd. d in let cons = λx. λl. λf. λd. f x (l f d) in "
       "let sum = λl. l (λx. λacc. x + acc) 0 in ")


def close(a, b, tol=1e-9):
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


def assert_matrix(got, want, tol=1e-9):
    assert len(got) == len(want)
    for r, s in zip(got, want):
        assert len(r) == len(s) and all(close(a, b, tol) for a, b in zip(r, s)), (got, want)


# ---- 1. a delayed let body reaching a rule (rule lift read its free variables) ----------

def test_lift_on_a_let_whose_body_waits():
    f = (f"λu. Ω(λg. Ω(λv. g (v × u)) {W} (u × u) 1) (λz. λw. z × w) "
         f"(λs. let p = s in p × p) (λs. 0)")
    assert_matrix(pc.hessian(f, [-0.216]), [[0.0]])


def test_hessian_of_a_church_list_sum():
    # f = x·y + sin x + y³: f_xx = −sin x, f_xy = 1, f_yy = 6y
    f = f"λ⟨x, y⟩. {LIB}sum (cons (x × y) (cons (sin(x)) (cons (y ^ 3) nil)))"
    x, y = 0.3, 0.8
    assert_matrix(pc.hessian(f, [x, y]), [[-math.sin(x), 1.0], [1.0, 6 * y]])


def test_hessian_of_a_church_list_with_a_let_bound_square():
    # f = Σ (xᵢ²) over [x, y, x·y] = x² + y² + x²y²
    f = (f"λ⟨x, y⟩. {LIB}let sq = λa. a × a in "
         f"sum (cons (sq x) (cons (sq y) (cons (sq (x × y)) nil)))")
    x, y = 0.7, -1.3
    want = [[2 + 2 * y * y, 4 * x * y], [4 * x * y, 2 + 2 * x * x]]
    assert_matrix(pc.hessian(f, [x, y]), want)


# ---- 2. the tangent premise ending in a kept let --------------------------------------

def test_pullback_along_a_let_bound_function():
    # d/dw [d/dx (1/sqrt(x + w)) at x = 1] = d/dw [−½ (1 + w)^(−3/2)] = ¾ (1 + w)^(−5/2)
    got = pc.jacobian(f"λw. let p = λx. 1 / sqrt(x + w) in Ω(p) {W} 1 1", [0.5])
    assert close(got[0][0], 0.75 * 1.5 ** -2.5)


def test_hessian_through_let_bound_helpers():
    # f(y) = sin(y)² · y: f'' = 2 cos 2y · y + 2 sin 2y … checked by central differences
    f = "λy. let g = λt. t × t × y in let h = λk. g (sin(y)) in h 0"
    got = pc.hessian(f, [0.3])[0][0]
    g = lambda y: math.sin(y) ** 2 * y  # noqa: E731
    e = 1e-4
    assert close(got, (g(0.3 + e) - 2 * g(0.3) + g(0.3 - e)) / e ** 2, 1e-5)
    assert close(got, 1.6244863157358775)


def test_nested_pullbacks_at_an_outer_variable():
    f = f"λu. Ω(λg. Ω(λv. g (v × u)) {W} (u × u) 1) {W} (λs. s) (λs. s × s)"
    assert_matrix(pc.hessian(f, [0.5]), [[6.0]])


# ---- 3. forward mode stuck at ℝ --------------------------------------------------------

def test_forward_mode_through_a_church_fold_of_a_let_bound_helper():
    r = pc.reduce("(J(λa. let k = λz. λl. l (λx. λy. x × y) z in k a (λf. λd. f a d))·1) 0.5")
    assert r.value == pc.parse("1")


def test_jvp_of_foldr_on_a_church_list():
    f = ("λ⟨i, a, b, c⟩. let foldr = λf. λz. λl. l f z in "
         "foldr (λx. λacc. x × acc) i (λf. λd. f a (f b (f c d)))")
    out = pc.jvp(f, [1, 2, 3, 4], [1, 1, 1, 1])
    # i·a·b·c: the sum of the partial derivatives 24 + 12 + 8 + 6
    assert (out.primal, out.tangent) == (24.0, 50.0)


# ---- 4. the front door: functions not written as a λ, Python functions -----------------

@pytest.mark.parametrize("f", ["let f = λx. x in f", "let a = 1 in λx. let b = a in x"])
def test_grad_of_a_function_that_is_not_a_lambda(f):
    assert list(pc.grad(f, 2.0)) == [1.0]


def test_identity_on_the_plane_by_let():
    assert pc.jacobian("let f = λx. x in f", [2, 3]) == [[1.0, 0.0], [0.0, 1.0]]


def test_hessian_and_jacobian_of_python_functions():
    assert_matrix(pc.hessian(lambda x, y: x * y, [1, 2]), [[0.0, 1.0], [1.0, 0.0]])
    got = pc.jacobian(lambda x, y: x * y + pc.sin(x), [1, 2])
    assert_matrix(got, [[2 + math.cos(1), 1.0]])
    assert_matrix(pc.jacobian(lambda x, y: x * y, [1, 2], method="tape").rows, [[2.0, 1.0]])


# ---- 5. pc.reduce type-checks ------------------------------------------------------------

def test_reduce_type_checks_by_default():
    with pytest.raises(PullbackTypeError, match="right operand of \\+"):
        pc.reduce("1 + (λx. x)")
    with pytest.raises(PullbackTypeError, match="unbound variable `sni`; did you mean `sin`"):
        pc.reduce("(λx. sni(x)) 2")


def test_reduce_accepts_declared_free_variables_and_opts_out():
    assert pc.reduce("free h : ℝ → ℝ\n(J(λx. h x)·1) 2").steps > 0
    assert pc.reduce("(J(λx. h x)·1) 2", free={"h": "R -> R"}).steps > 0
    assert pc.reduce("(J(λx. h x)·1) 2", check=False).steps > 0
    with pytest.raises(PullbackTypeError, match="unbound variable `h`"):
        pc.reduce("(J(λx. h x)·1) 2")


# ---- 6. the rule of a step is a function of its redex and its judgment -------------------

def test_a_lazy_tangent_does_not_leave_the_forward_premise():
    # the program: its abstraction is a stage nothing reads (8Jd, no tangent)
    r = pc.reduce("let x = 2 in (J(λx. let x = let x = ⟨1, 1⟩ in λy. λv. π1 x in ⟨1, 1⟩)·1) x")
    assert pc.pretty(r.value) == "𝟎" and "8Jd" in r.rule_counts and "18" not in r.rule_counts
    # read, the abstraction's tangent is taken: eagerly at the top, lazily (18L) inside
    # the forward premise
    r = pc.reduce("let x = 2 in (J(λx. let x = let x = ⟨1, 1⟩ in λy. λv. π1 x in "
                  "⟨x 1 1, 1⟩)·1) x")
    assert pc.pretty(r.value) == "⟨𝟎, 𝟎⟩"
    eighteen = [s for s in r.trace if s.rule == "18"]
    assert eighteen and all("J(" not in pc.pretty(s.contractum) for s in eighteen)
    forward = [d for s in r.trace for d in s.premises if d.forward]
    assert forward and all(x.rule == "18L" for d in forward for x in d.steps
                           if x.rule.startswith("18"))


# ---- 7. no arithmetic done behind the reduction's back -------------------------------------

def test_a_written_functional_s_arithmetic_is_a_step():
    r = pc.reduce("Ω(λx. sin(x)) (λz. λw. (2 × 3) × w) 0")
    assert pc.pretty(r.value) == "λdx. 6 × dx"
    rule4 = [x for s in r.trace for d in s.premises for x in d.steps if x.rule == "4"]
    assert any(pc.pretty(x.redex) == "2 × 3" for x in rule4)


# ---- 8. every engine on a point written as 𝟎 -----------------------------------------------

@pytest.mark.parametrize("method", ["pullback", "ps", "forward", "tape"])
def test_engines_agree_at_a_zero_point(method):
    f = "λx. Ω(λ⟨x, y⟩. x × y + x) (λx. λw. w) (let v : ℝ × ℝ = 𝟎 in v) ⟨1, x⟩"
    assert pc.jacobian(f, [0.0], method=method).rows == [[0.0]]
    f = "λx. Ω(λ⟨x, y⟩. let x = 1 in 1) (λx. λw. w) (let v : ℝ × ℝ = 𝟎 in v) ⟨1, x⟩"
    assert pc.jacobian(f, [0.0], method=method).rows == [[0.0]]


# ---- names do not matter: α-equivalent programs take the same steps -----------------------

def test_the_step_count_does_not_depend_on_the_names():
    from pullback_calc.testing.programs import alpha_rename
    f = pc.parse(f"λ⟨x1, x2⟩. {LIB}let n1 = λf. λa. f (f (a)) in "
                 f"1 + sin(sum (n1 (λl. cons (x1) l) nil))")
    a = pc.grad(f, [0.3, 0.3], record=False)
    b = pc.grad(alpha_rename(f), [0.3, 0.3], record=False)
    assert list(a) == list(b) and a.steps == b.steps


# ---- work, not exponential: a Church numeral iterating a cons closure ---------------------

def test_substitution_maps_each_shared_node_once(monkeypatch):
    """The tangent of k applications of a cons closure mentions its point twice per
    level (D-eval): a DAG of k levels, 2ᵏ paths.  Substitution must visit its nodes,
    not its paths: the work at 2k is about twice the work at k."""
    import pullback_calc.syntax.subst as S
    calls = [0]
    original = S._subst_open

    def counted(item):
        calls[0] += 1
        return original(item)
    monkeypatch.setattr(S, "_subst_open", counted)

    def work(k):
        calls[0] = 0
        n = "λf. λa. " + "f (" * k + "a" + ")" * k
        g = pc.grad(f"λx. {LIB}let n = {n} in sum (n (λl. cons (x × x) l) nil)", [0.7],
                    record=False)
        assert close(g[0], 2 * k * 0.7)
        return calls[0]
    assert work(16) < 3 * work(8)


# ---- --verify: the oracle checks every step ----------------------------------------------

def test_verify_passes_a_sound_reduction_and_names_a_wrong_step():
    from pullback_calc.results.verify import VerificationError
    from pullback_calc.testing.mutants import mutant
    src = "Ω(λ⟨x, y⟩. ((x + 1) × (2 × x + y ^ 2)) ^ 2) (λz. λw. w) ⟨1.5, 2⟩"
    assert pc.reduce(src, verify=True).steps == pc.reduce(src).steps
    assert list(pc.grad("λ⟨x, y⟩. x × sin(y)", [1, 2], verify=True)) == \
        list(pc.grad("λ⟨x, y⟩. x × sin(y)", [1, 2]))
    with mutant("15-swap-partials"):
        with pytest.raises(VerificationError, match=r"rule 15, changed the meaning"):
            pc.reduce(src, verify=True)
    with mutant("5-drop-accumulation"):
        with pytest.raises(VerificationError, match=r"rule 5, changed the meaning"):
            pc.jacobian_row("λ⟨x, y⟩. ((x + 1) × (2 × x + y ^ 2)) ^ 2", [1.5, 2], 0,
                            verify=True)


def test_verify_checks_steps_inside_premises():
    from pullback_calc.results.verify import VerificationError
    from pullback_calc.testing.mutants import mutant
    src = "λu. Ω(λv. sin(v × u)) (λz. λw. w) u 1"  # rule 15 runs inside rule 17's premise
    assert pc.jacobian(src, [0.4], verify=True)
    with mutant("15-swap-partials"):
        with pytest.raises(VerificationError, match=r"in a premise"):
            pc.jacobian(src, [0.4], verify=True)


def test_verify_through_the_command_line(tmp_path):
    import os
    import subprocess
    import sys
    env = {**os.environ, "PULLBACK_CALC_MUTANT": "15-swap-partials"}
    cmd = [sys.executable, "-m", "pullback_calc", "jacobian", "-e",
           "λ⟨x, y⟩. ((x + 1) × (2 × x + y ^ 2)) ^ 2", "--at", "1.5,2"]
    quiet = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert quiet.returncode == 0  # the mutant's wrong row, unnoticed without --verify
    loud = subprocess.run(cmd + ["--verify"], env=env, capture_output=True, text=True,
                          timeout=300)
    assert loud.returncode == 1
    assert "installed the mutant 15-swap-partials" in loud.stderr
    assert "--verify: step" in loud.stderr and "rule 15" in loud.stderr
    assert "Traceback" not in loud.stderr


# found by the thorough profile (2026-11-28; the program is in tests/data, a generated
# one as Hypothesis printed it).  It took 345,164 steps (59× the evaluation) while 8J
# copied the inert tangent of an intermediate at the open point of a derivative's body
# into every later tangent (a tree doubling at each stage that reads it twice); 8J now
# binds it by a let (rules.py, _inert_directions): 43,901 steps, 7.5×.
def test_jvp_of_a_program_with_nested_derivatives_within_10x_its_evaluation():
    src = open_program()
    pt = [0.3, -0.7]
    ev = pc.call(src, pt, max_steps=1_000_000, record=False)
    g = pc.grad(src, pt, max_steps=1_000_000, record=False)
    assert g.steps <= 10 * ev.steps
    j = pc.jvp(src, pt, [1.0, -0.5], max_steps=1_000_000, record=False)
    assert abs(j.tangent - (g[0] - 0.5 * g[1])) < 1e-9
    assert j.steps <= 10 * ev.steps, (ev.steps, g.steps, j.steps)


def open_program(name: str = "nested_jvp_program.txt") -> str:
    from pathlib import Path
    return (Path(__file__).parent / "data" / name).read_text(encoding="utf-8").strip()


# found by the thorough profile (2026-11-28, second run): a generated program with five
# helper closures, some of which its value never calls (108 steps to evaluate, 292 for
# the gradient).  jvp took every closure's tangent where it was bound, by rule 18's
# premise: 14,181 steps.  jvp is the forward judgment from its first step now, so D-curry
# is lazy (18L) and a tangent is taken where its helper is applied; and since 8Jc a
# closed helper is inlined (reverse mode's 8c), with no tangent of its own (310 steps).
def test_jvp_takes_the_tangent_of_a_helper_where_it_is_applied():
    src = open_program("helpers_jvp_program.txt")
    g = pc.grad(src, [-0.7], record=False)
    j = pc.jvp(src, [-0.7], [1.0], max_steps=100_000)
    assert abs(j.tangent - g[0]) < 1e-9
    from pullback_calc.semantics import oracle  # (and the independent evaluator's)
    assert abs(j.tangent - oracle.jacobian_by_oracle(pc.parse(src), [-0.7])[0][0]) < 1e-9
    assert j.steps <= 2 * g.steps, (j.steps, g.steps)
    labels = {s.rule for s in j.trace}
    assert "8Jc" in labels and "18" not in labels  # no eager D-curry at the top


# found by the thorough profile (2026-11-28, third run): a generated program with five
# helpers that nothing calls (each used only by the next) -- 773 steps to evaluate, 27,248
# for the gradient, 23,000 of them taking the helpers' tangents.  Rule 8c drops a let of a
# value that only dead code reads, one step each.
def test_helpers_nothing_calls_cost_a_step_each():
    helpers = ("let h1 = λt. sin(t × x) × cos(t + x) in let h2 = λt. h1 (t × t) + x in "
               "let h3 = λt. h2 (h1 t) in let h4 = λt. h3 t × h2 x in ")
    src = f"λx. {helpers}x × x"
    g, plain = pc.grad(src, [0.7]), pc.grad("λx. x × x", [0.7])
    assert list(g) == list(plain) == [1.4]
    assert g.rule_counts["8c"] == 4 and g.steps <= plain.steps + 4 + 2, g.rule_counts
    assert pc.call(src, 0.7, record=False).steps == 6  # (evaluation: five β and a product)


# found by the thorough profile (2026-11-28): the third derivative of t ^ 2 asked for
# ∂₁pow(0, 0) = 0 × 0 ^ (−1), undefined, where a ^ 0 is 1 for every a (derivative 0)
@pytest.mark.parametrize("src, point, want", [
    ("λx. let grad1 = λf. λz. Ω(f) (λa. λw. w) z 1 in grad1 (grad1 (λt. t ^ 2)) x", [0.0],
     [0.0]),
    ("λ⟨x1, x2⟩. let grad1 = λf. λz. Ω(f) (λa. λw. w) z 1 in "
     "grad1 (grad1 (λt1. (t1) ^ 2)) ((1 × (1 − 1)))", [0.3, 0.3], [0.0, 0.0]),
    ("λx. x ^ 0", [0.0], [0.0]),
])
def test_the_derivative_of_a_power_0_is_0_at_0(src, point, want):
    from pullback_calc.semantics import oracle
    assert list(pc.grad(src, point)) == want
    assert list(oracle.jacobian_by_oracle(pc.parse(src), point)[0]) == want
    assert list(pc.jacobian(src, point, method="forward")[0]) == want


# found by the thorough profile (2026-11-28): a helper `λa. let s = sin(a) in λt. 1`
# applied to a pullback along function directions that the value ignores (18 steps to
# evaluate).  Inside the closures the program passes, 8c left operations on numerals
# (`let s16 = sin(1)`), and rules 8 and 8J made each a coordinate: the gradient took
# each closure's tangent along it, 23,461 steps, to multiply it by 0.  8h and 8Jc
# compute such a stage outside the map: 4,768.  And a tangent no later stage reads is
# not computed at all (the dual map's unread components): 59.  8Jc still fires in the
# program's jvp, whose forward premises take the closures' tangents.
def test_an_operation_on_constants_is_no_coordinate():
    from pullback_calc.semantics import oracle
    src = open_program("constant_stage_program.txt")
    g = pc.grad(src, [0.3, 0.3], max_steps=20_000)
    assert list(g) == list(oracle.jacobian_by_oracle(pc.parse(src), [0.3, 0.3])[0]) == [0, 0]
    assert g.rule_counts["8h"] and g.steps <= 100, (g.steps, g.rule_counts)
    assert pc.call(src, [0.3, 0.3], record=False).steps == 18
    jv = pc.jvp(src, [0.3, 0.3], [1.0, 1.0])
    assert jv.tangent == 0 and _fires("8Jc", jv.trace)


# issue 26: a helper that computes with what it captures, h = λs. ⟨exp(sin(x2)), x1⟩, was
# a coordinate (rule 8): in rule 17's premise, which reduces an inner pullback with the
# outer variables free, h was a free function, each call h t stuck and its tangent an
# η-form J(λz. h z)·T that every later stage carried -- 12,476 steps against 463 to
# evaluate and 1,967 with the helper written in place (629,621 on the generated program
# it was cut from).  8f floats exp(sin(x2)) out of h; 8c then moves h to its one call.
def test_a_helper_computing_with_what_it_captures_costs_what_it_inlined_does():
    from pullback_calc.semantics import oracle
    src = open_program("captured_helper_program.txt")
    g = pc.grad(src, [1.2, -0.7], max_steps=100_000, record=False)
    assert list(g) == list(oracle.jacobian_by_oracle(pc.parse(src), [1.2, -0.7])[0])
    ev = pc.call(src, [1.2, -0.7], record=False).steps
    inlined = pc.grad(inline_helpers(pc.parse(src)), [1.2, -0.7], record=False).steps
    assert g.steps <= 10 * ev and g.steps <= 1.5 * inlined, (g.steps, ev, inlined)


# the thorough profile (2026-11-28): a forward premise (8J) named each closure of a
# `cons` list as a stage, where reverse mode's 8c inlines it -- jvp 2,672 steps against a
# gradient of 650.  8Jc substitutes a stage that is an atom reading no variable of p.
def test_forward_mode_inlines_a_cons_list_as_reverse_mode_does():
    src = open_program("cons_jvp_program.txt")
    g = pc.grad(src, [0.3])
    jv = pc.jvp(src, [0.3], [1.0])
    assert jv.tangent == g[0] == 1.0
    assert _fires("8Jc", jv.trace) and jv.steps <= 2 * g.steps, (jv.steps, g.steps)


def _fires(rule: str, trace) -> bool:
    """Does a step of that rule occur in the trace, premises included?"""
    from pullback_calc.rendering.text import walk
    return any(getattr(s, "rule", None) == rule for _, s in walk(trace))


# found by the thorough profile (2026-11-28) the day 8h and 8Jc came: a let that rebinds
# the map's own variable (λx. … let x = 1 + 1 …, left by 8c inlining a list's folding
# function λx. λacc. x + acc) was moved out of λx with its name, and λx captured the
# occurrences it bound: gradient 0.6 for 0, and [1.0] for [0.0] on the generated program.
# (The first map reads no x at all: rule pbc takes the whole of it, 8h is not needed.)
@pytest.mark.parametrize("src, want, reverse", [
    ("λx. let x = 1 + 1 in x × x", 0.0, "pbc"),
    ("λx. let y = x in let x = 1 + 1 in x × y", 2.0, "8h"),
    ("λx. let sum = λl. l (λx. λacc. x + acc) 0 in sum (λf. λd. f ((1 + 1)) (d))", 0.0, "pbc"),
])
def test_a_constant_moved_out_of_a_map_is_not_captured_by_its_binder(src, want, reverse):
    g = pc.grad(src, [0.3])
    jv = pc.jvp(src, [0.3], [1.0])
    assert list(g) == [want] and jv.tangent == want, (list(g), jv.tangent)
    assert _fires(reverse, g.trace) and _fires("8Jc", jv.trace)


def test_a_zero_cotangent_computes_no_earlier_tangent():
    """(λq.S)⋆𝟎 is 𝟎 whatever S is, so the reverse phase does not reduce S.  A constant
    function applied to a pullback whose 1-form closes over x: the cotangent of every
    stage is 𝟎, and the tangent of the closure (rule 18's forward premise, 8J, 15, 19a,
    20b) was computed only for the dual map to discard it -- 80 steps, now 32.  The
    thorough profile's program (tests/data/zero_cotangent_program.txt) evaluates in 16
    steps; its gradient took 23,374, 23,194 of them in two forward premises of rule 18."""
    from pullback_calc.rendering.text import walk
    from pullback_calc.testing.oracle import jacobian_by_oracle
    p = "λx. let h = λa. sin(sin(sin(sin(a × x)))) in (λt. 1) (Ω(λy. 1) (λm. λw. h 1 × w) 1 1)"
    g = pc.grad(p, [0.3])
    rules = {getattr(s, "rule", None) for _, s in walk(g.trace)}
    assert list(g) == [0.0] and "18" not in rules and g.steps <= 40, (g.steps, rules)
    big = open_program("zero_cotangent_program.txt")
    v = pc.call(big, [0.3, 0.3], record=False)
    g = pc.grad(big, [0.3, 0.3], max_steps=20 * v.steps, record=False)
    assert list(g) == jacobian_by_oracle(big, [0.3, 0.3])[0] == [0.0, 0.0]


# found by the new `discarded` shape of the program generator (thorough profile): a
# constant function applied to a pullback whose 1-form calls a helper over x1, beside a
# term that does depend on x1.  The cotangent is no longer 𝟎, but it does not read the
# closure's tangent, which rule 18's forward premise computed (2,150 steps; the program
# evaluates in 16).  The map's body is reduced only in the components the functional
# reads: 65.
def test_a_tangent_no_later_stage_reads_is_not_computed():
    from pullback_calc.semantics import oracle
    src = open_program("unread_tangent_program.txt")
    g = pc.grad(src, [0.3, 0.3])
    assert list(g) == oracle.jacobian_by_oracle(pc.parse(src), [0.3, 0.3])[0]
    assert g.steps <= 100 and not _fires("18", g.trace), g.steps


# the thorough profile (several outputs, 2026-11-29): a function input applied to a
# derivative of a 6-stage chain whose stages read their input twice, along a helper
# constant in its argument.  Rule 5's image of the compound atom J(λz. h z)·D had a
# tangent D that forward premises built by substitution: a graph with 3·2¹² paths,
# reduced as a tree (12,288 rule-3 steps on `cos(m) × 𝟎`), and its inert values were
# lifted out frame by frame (15,935 lift steps): 51,002 steps for a program that
# evaluates in 273.  linear.share_graph names each shared operation once: 4,038.
def test_an_image_shared_as_a_graph_is_reduced_once_per_node():
    from pullback_calc.semantics import oracle
    src = open_program("shared_image_program.txt")
    v = pc.call(src, [0.3, 0.3], record=False)
    g = pc.grad(src, [0.3, 0.3], max_steps=20 * v.steps, record=False)
    assert list(g) == oracle.jacobian_by_oracle(pc.parse(src), [0.3, 0.3])[0]
    assert g.rule_counts.get("3", 0) < 500, g.rule_counts


# ---- the tangent of a stage nothing live reads (rule 8Jd) ---------------------------------

def _data(name: str) -> str:
    from pathlib import Path
    return (Path(__file__).parent / "data" / name).read_text(encoding="utf-8").strip()


def test_a_discarded_nested_derivative_costs_no_tangent():
    """The thorough profile's program: a closure applies a constant function to a
    pullback whose 1-form calls a fourth derivative; row 1's forward premise took the
    tangent of that closure along a function coordinate, 1,896 of 2,005 steps (its
    evaluation: 16).  The row is 0 (the output sin(x1) only through a constant)."""
    f = _data("dead_stage_outputs_program.txt")
    J = pc.jacobian(f, [0.3, 0.3], max_steps=400)
    assert_matrix(J, [[0.0, 0.0], [0.0, 0.0]])
    assert max(r.steps for r in J.artefact) <= 150, [r.steps for r in J.artefact]


def test_a_dead_stage_is_computed_but_not_differentiated():
    """8Jd: the value of a dead stage is computed (a failure still fails), its tangent
    not; a chain of lets that only dead lets read is dead too."""
    r = pc.reduce("(J(λx. let a = sin(x) in let b = a × a in x × 2)·1) 0.5")
    assert r.value == pc.parse("2") and r.rule_counts.get("8Jd") == 2
    assert "15" in r.rule_counts and r.rule_counts["15"] == 1  # x × 2's only
    with pytest.raises(pc.ReductionError, match="log is undefined"):
        pc.reduce("(J(λx. let a = log(0 - x) in x × 2)·1) 0.5")
    # a stage read by the result is live: 8J, its tangent computed
    r = pc.reduce("(J(λx. let a = sin(x) in let b = a × a in b × 2)·1) 0.5")
    assert "8Jd" not in r.rule_counts
    assert close(float(pc.pretty(r.value)), 4 * math.sin(0.5) * math.cos(0.5))


def test_a_pullback_along_a_constant_function_costs_what_its_evaluation_does():
    """The thorough profile (2026-11-29): Ω(p) ω 1 1 with p = λy. x1 a let-bound constant
    function and ω's body a derivative of a closure over a second derivative.  The
    evaluation takes 10 steps (the dual map into 𝟎 never evaluates ω's body).  Rule 18
    differentiates the covector λdy. B(z) × J(p)·dy along ⟨dx1, dp⟩, and its forward
    premise took B's tangent (25,000 of 27,399 steps) before it reached J(p)·dy, which
    is 0.  Rule 8Js now computes that atom first and 8Jz then drops the tangents of B's
    stages: 5,100.  Since 8c counts Ω(p) ω P D a call of p (2026-11-29), p is copied
    to the pullback, along a constant abstraction then (pbc): 37 steps.  Stored in a
    pair taken apart by a pattern (zero_factor_stored_program.txt; a pair only
    projected, 8c takes apart since 2026-11-30), p stays a coordinate, and 8Js and 8Jz
    do the work: 5,148.  The gradient is right: (0, 0)."""
    g = pc.grad(_data("zero_factor_program.txt"), [0.3, 0.3], max_steps=200, record=False)
    assert list(g) == [0.0, 0.0]
    assert g.rule_counts.get("pbc") or g.rule_counts.get("3"), g.rule_counts
    g = pc.grad(_data("zero_factor_stored_program.txt"), [0.3, 0.3], max_steps=20_000,
                record=False)
    assert list(g) == [0.0, 0.0]
    assert g.rule_counts.get("8Js") and g.rule_counts.get("8Jz"), g.rule_counts


def test_a_tangent_multiplied_by_zero_costs_a_constant_factor_of_the_factor():
    """The same program, against what a derivative must compute: the chain rule's
    other summand reads B's value, and evaluating B alone at the point takes 4,318
    steps (tests/data/zero_factor_value_program.txt).  The gradient was ×6.3 that (B's
    value and its tangent, one more order of B's nested derivatives); ×2.1 when 8Js
    moved only B's last stage after the atom, its first stage's tangent still taken;
    ×1.18 now that the atom's stages move before all of B's (papers/calculus.md §5.10)."""
    b = pc.reduce(_data("zero_factor_value_program.txt"), record=False)
    g = pc.grad(_data("zero_factor_stored_program.txt"), [0.3, 0.3], max_steps=40_000,
                record=False)
    assert list(g) == [0.0, 0.0]
    assert g.steps <= 1.5 * b.steps, (g.steps, b.steps)


def test_a_zero_factor_drops_the_other_factors_tangent_only_when_it_is_zero():
    """8Jz fires on the term alone -- a product with a coordinate whose value is 0 --
    and the tangent it leaves out is the one multiplied by that 0."""
    src = ("(J(λ⟨x, y, f⟩. let b = y × 1 in let a = f x in {prod})·⟨1, 1, λt. 1⟩) "
           "⟨0.5, {y}, λt. sin(t)⟩")
    for prod in ("a × b", "b × a"):
        r = pc.reduce(src.format(prod=prod, y="0"), record=False)
        assert close(float(pc.pretty(r.value)), math.sin(0.5)) and r.rule_counts.get("8Jz") == 1
        # at y = 2: b × da + a × db, da = f'(x) + (λt. 1)(x), db = 1
        r = pc.reduce(src.format(prod=prod, y="2"), record=False)
        assert "8Jz" not in r.rule_counts
        assert close(float(pc.pretty(r.value)), 2 * (math.cos(0.5) + 1) + math.sin(0.5))
    # a second reader of a: its tangent is needed (8J)
    r = pc.reduce("(J(λ⟨x, y, f⟩. let b = y × 1 in let a = f x in let c = a × b in c + a)"
                  "·⟨1, 1, λt. 1⟩) ⟨0.5, 0, λt. sin(t)⟩", record=False)
    assert "8Jz" not in r.rule_counts
    assert close(float(pc.pretty(r.value)), math.sin(0.5) + math.cos(0.5) + 1)


def test_the_coefficient_moves_after_its_atom_once():
    """8Js moves a coefficient (an application reading no free variable of the map)
    after an atom that reads one, and only then: not a coefficient that reads it, not
    the right factor; the rule does not undo itself (one step), and the tangent is the
    same.  At the point, the tangent of f(x) × (y × v) along ⟨1, 1, λt. 1⟩ is
    (f'(x) + 1)(y v) + f(x) v."""
    free = {"v": pc.parse_type("ℝ")}
    src = ("(J(λ⟨x, y, f⟩. let a = f x in let b = y × {atom} in {prod})·⟨1, 1, λt. 1⟩) "
           "⟨0.5, 2, λt. sin(t)⟩")
    r = pc.reduce(src.format(atom="v", prod="a × b"), free=free, record=False)
    assert r.rule_counts.get("8Js") == 1
    want = pc.reduce(src.format(atom="v", prod="b × a").replace("let a = f x in let b = y × v",
                                                                 "let b = y × v in let a = f x"),
                     free=free, record=False)
    assert "8Js" not in want.rule_counts
    for v in (0.0, 1.5):  # the same function of v
        got = pc.reduce(f"(λv. {pc.pretty(r.value)}) {v}", record=False).value
        ref = pc.reduce(f"(λv. {pc.pretty(want.value)}) {v}", record=False).value
        assert close(float(pc.pretty(got)), float(pc.pretty(ref)))
        assert close(float(pc.pretty(got)), (math.cos(0.5) + 1) * 2 * v + math.sin(0.5) * v)
    r = pc.reduce(src.format(atom="1", prod="a × b"), record=False)  # no free variable
    assert "8Js" not in r.rule_counts
    r = pc.reduce(src.format(atom="v", prod="b × a"), free=free, record=False)  # a on the right
    assert "8Js" not in r.rule_counts


def test_the_atoms_stages_move_before_every_stage_of_the_coefficient():
    """A coefficient of two stages, c = g (f x), and an atom of two, (J(λt. 3)·v) 1 with
    v free, which is 𝟎: 8Js moves both of the atom's stages to the front, in one step,
    and 8Jz then drops the tangent of each of the coefficient's -- f's and g's closures
    are never differentiated (no rule 15 for sin, nor for t × t)."""
    free = {"v": pc.parse_type("ℝ")}
    src = ("(J(λ⟨x, f, g⟩. let a = f x in let c = g a in let b = (J(λt. 3)·v) 1 in c × b)"
           "·⟨1, λt. 1, λt. 1⟩) ⟨0.5, λt. sin(t), λt. t × t⟩")
    r = pc.reduce(src, free=free, record=True)
    assert pc.pretty(r.value) == "𝟎"
    assert r.rule_counts.get("8Js") == 1 and r.rule_counts.get("8Jz") == 2, r.rule_counts
    assert r.rule_counts.get("15", 0) <= 1, r.rule_counts  # (the product's own)
    step = next(s for s in r.trace if s.rule == "8Js")
    assert pc.pretty(step.contractum).startswith("J(λ⟨x, f, g⟩. let jac_1 = J(λt. 3)·v in "
                                                 "let b = jac_1 1 in let a = f x in")


_DEAD_ITEM = ("(π2 ⟨x1, mul_19 (λmul_15. Ω(λg6. g6 (1)) (λz. λw. w) (λt7. 1) (λt7. 1)) "
              "(λmul_18. 1)⟩)")


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_a_closure_reading_an_input_only_in_a_dead_pair_item_costs_what_it_does_projected(k):
    """The thorough profile (th55, 2026-11-30), for
    ``test_a_closure_taken_out_of_a_pair_costs_what_calling_it_does``: a closure whose
    body reads x1 only as ``π2 ⟨x1, …⟩`` under k nested ``grad1`` is a function of
    x1 until it is called, and rule 18's premise took its tangent along x1 to find
    it 0: 191 / 359 / 677 / 1,310 steps at k = 1 … 4, against 59 / 119 / 222 / 427
    with each pair written as its projected item (a constant map); the property
    allows 2 × 119 + 100 = 338 at k = 2.  Rule 9 counts only the variables an
    abstraction reads outside such dead items now: 105 / 161 / 267 / 478, a constant
    46 to 51 steps over; and rule pbc those of a series (th58's draw, the next
    test): 73 / 129 / 235 / 446.  The gradient is (0, 0)."""
    from pullback_calc.testing.programs import project_written_pairs
    src = _data("dead_pair_item_closure_program.txt")
    two = "grad1 (grad1 (λt4. " + _DEAD_ITEM + " (1))) (1)"
    assert two in src
    t = pc.parse(src.replace(two, "grad1 (" * k + "λt4. " + _DEAD_ITEM + " (1)" + ")" * k
                             + " (1)"))
    b = pc.grad(project_written_pairs(t), [0.3, 0.3], record=False)
    assert list(b) == [0.0, 0.0]
    a = pc.grad(t, [0.3, 0.3], max_steps=b.steps + 30, record=False)
    assert list(a) == [0.0, 0.0]


def test_a_direction_reading_an_input_only_in_a_dead_pair_item_costs_what_it_does_projected():
    """th58 (2026-11-30, the same property): the function direction of a pullback,
    ``λmul_15. grad1 (grad1 (λt8. (π2 ⟨x1, …⟩) 1)) 1``, a stage of the series after
    which nothing reads an input but that dead item: 4,133 steps, 1,475 with the
    pairs written projected (the property's bound 3,050).  Projected, the rest of
    the series is constant and rule pbc makes its pullback 𝟎 at once; pbc counts
    only live reads now (``_reads_live``): 1,456."""
    from pullback_calc.testing.programs import project_written_pairs
    t = pc.parse(_data("dead_pair_item_in_a_direction_program.txt"))
    b = pc.grad(project_written_pairs(t), [1.5, -1.1], record=False)
    a = pc.grad(t, [1.5, -1.1], max_steps=b.steps + 30, record=False)
    assert list(a) == list(b) == [0.0, 0.0]


def test_a_dead_pair_item_named_by_a_let_costs_what_it_does_projected():
    """th62 (2026-12-01, ``test_a_closure_taken_out_of_a_pair_costs_what_calling_it_does``):
    ``π2 ⟨x1, twice (λm. …)⟩ 1`` twice in a product.  A-normal form names the pair
    (``let tup = ⟨x1, λ…⟩ in let proj = π2 tup in …``), and rule pbc's live-read walk
    saw x1 in the tuple: the series was not constant, rule 8 ran through every stage
    and the reverse pass back: 568 steps against 174 with the pairs written projected
    (the property's bound 448).  The walk reads a let of a tuple of values whose body
    only projects it as the written projection now: 188."""
    from pullback_calc.testing.programs import project_written_pairs
    t = pc.parse(_data("dead_pair_item_named_by_a_let_program.txt"))
    b = pc.grad(project_written_pairs(t), [0.3, 0.3], record=False)
    a = pc.grad(t, [0.3, 0.3], max_steps=b.steps + 30, record=False)
    assert list(a) == list(b) == [0.0, 0.0]


def test_a_helper_called_in_several_derivative_maps_costs_what_it_does_in_place():
    """th62 (2026-12-01, ``test_helpers_passed_to_combinators_cost_what_they_do_written_
    in_place``): h33 = λv. λs. grad1 (λt. mk28 t 0.25) (… x2 …), a helper over x2,
    called in a pullback's 1-form, in a direction (partially applied) and in another
    helper's point.  Its first row took 29,547 steps; with every helper written in
    place 5,687 (the evaluation: 1,773).  The 1-form's pullback is inside the map of
    a pullback applied at a point and a direction that call h33, and 8c's call
    analysis walked that map as a bare abstraction -- a use that is no call -- so
    h33 stayed a coordinate and each derivative map that calls it differentiated
    through it along x2.  The map is read as any pullback's now: 5,852 steps.  The
    property's bound: 2.5 × 5,687 + 300."""
    _first_row_costs_at_most("helper_called_in_pullback_maps_program.txt", [1.5, 1.5], 2.5)


def _first_row_costs_at_most(name: str, pt: list, factor: float) -> None:
    """The program's first row takes at most factor × the steps of the row with every
    helper written in place, plus 300, and has its numbers."""
    t = pc.parse(_data(name))
    b = pc.jacobian_row(inline_helpers(t), pt, 0, record=False)
    a = pc.jacobian_row(t, pt, 0, max_steps=int(factor * b.steps) + 300, record=False)
    assert all(abs(x - y) <= 1e-9 * (1 + abs(y)) for x, y in zip(a.row, b.row))


@pytest.mark.xfail(strict=True, raises=pc.StepBudgetExceeded,
                   reason="known limitation (papers/calculus.md §9, 'A tangent multiplied by "
                          "zero')")
def test_a_direction_whose_derivative_is_multiplied_by_zero_costs_what_its_evaluation_does():
    """The thorough profile (2026-11-29, again): Ω(λg. chain(g 1)) ω G D at a function G
    along a function direction D whose body holds a second derivative and reads x2.
    Evaluating takes 5,429 steps; the gradient 128,828 (×23.7; the properties allow
    20×): rule 5's premises take D's derivative along the point (twice: once for the
    covector's ω part, once for G's), and most of it is multiplied by coefficients
    that are 0 at the point -- the gradient is (0, 0)."""
    text = _data("zero_coefficients_program.txt")
    v = pc.call(text, [0.3, 0.9], record=False)
    g = pc.grad(text, [0.3, 0.9], max_steps=20 * v.steps, record=False)
    assert list(g) == [0.0, 0.0]


@pytest.mark.xfail(strict=True, raises=pc.StepBudgetExceeded,
                   reason="known limitation (papers/calculus.md §9, 'A tangent multiplied by "
                          "zero'): forward mode computes a tangent before its coefficient")
def test_forward_mode_through_a_derivative_multiplied_by_zero_costs_what_reverse_mode_does():
    """The thorough profile (2026-11-29, at 80c674d): c + grad1 (grad1 (λm. 1 + m)) (q ⟨x,
    x⟩), q a helper holding nested pullbacks along function directions.  The second
    derivative of λm. 1 + m is 0 everywhere, so the gradient never needs q's tangent:
    372 steps (the evaluation 258).  jvp takes q ⟨x, x⟩'s tangent first (2,922 steps
    alone, against 1,817 for its gradient: forward mode there is 1.6× reverse mode) and
    learns only after it that the coefficient is 0: 3,294 steps, over the property's
    5 × (372 + 258) = 3,150.  The code before this session takes the same 3,294."""
    text = _data("zero_multiplied_jvp_program.txt")
    g = pc.grad(text, [0.3], record=False)
    v = pc.call(text, [0.3], record=False)
    jv = pc.jvp(text, [0.3], [1.0], max_steps=5 * (g.steps + v.steps), record=False)
    assert jv.tangent == 0.0 and list(g) == [0.0]


def test_a_helper_called_in_map_over_a_list_in_a_helpers_body_costs_what_it_does_in_place():
    """The thorough profile (2026-11-29, at e465e68): h23 = λa3. sum (map (λm. … mul_110 1
    …) (λf. λd. f 1 (f 1 d))) -- map written in h23's body over a list written there,
    its function calling the helper mul_110 (which calls mul_112, over x1).  8c would
    copy mul_110 to its call only if it saw that the list calls map's folding closure,
    and the list is bound to map's λl by an application the analysis does not follow:
    mul_110 and mul_112 stayed coordinates, 611 steps against 119 with the helpers written
    in place (the property allows 2.5 × 119 + 300 = 597).  8c now binds the λl that
    map's copy ends in to the list it is applied to (``_applied_binder``): 323 steps,
    mul_110 and mul_112 copied to their calls (map's partial application and the list
    stay coordinates: taking a list written in place as the binder's helper in
    ``_bound_by_call`` gives 201, but makes church-foldl's continuations one 8c each,
    a walk of the chain each, quadratic in work)."""
    text = _data("map_in_helper_body_program.txt")
    from pullback_calc.testing.programs import inline_helpers
    b = pc.jacobian_row(inline_helpers(pc.parse(text)), [0.3, 0.3], 0, record=False)
    a = pc.jacobian_row(text, [0.3, 0.3], 0, max_steps=int(2.5 * b.steps) + 300,
                        record=False)
    assert list(a.row) == list(b.row)
    assert a.steps <= 3 * b.steps, (a.steps, b.steps)  # (5.1× before)


@pytest.mark.parametrize("name, point, before", [
    ("map_in_helper_cons_program.txt", [0.3, 1.2], 1313),
    ("map_in_helper_numeral_program.txt", [0.3, 0.3], 1362),
    ("map_in_helper_computed_cell_program.txt", [0.3, -0.7], 4464)])
def test_a_helper_mapped_over_a_list_built_in_a_helpers_body_is_copied_to_its_calls(
        name, point, before):
    """The generator's map-helper shape (2026-11-30): map in a helper's body over a
    list built there by cons, or by a Church numeral applied to a cons closure, its
    function calling a helper c over the inputs.  8c had copied cons (and the
    numeral) into the body, so the list map's λl is applied to is a cell, ``(let x =
    a in λl. …) rest`` (x a computed element in the third), or ``(let f = λl. … in
    λa. f (f a)) nil``, which the call analysis did not take for a helper: c stayed
    a coordinate, each call a D-eval premise (1,313, 1,362 and 4,464 steps against
    482, 405 and 808 written in place; the property allows 2.5× + 300).
    ``_resolve`` now reads a cell after its lets, and a call of known code on known
    arguments, as a helper: 498, 445 and 853."""
    text = _data(name)
    from pullback_calc.testing.programs import inline_helpers
    b = pc.jacobian_row(inline_helpers(pc.parse(text)), point, 0, record=False)
    a = pc.jacobian_row(text, point, 0, max_steps=before, record=False)
    assert list(a.row) == list(b.row)
    assert a.steps <= 1.2 * b.steps, (a.steps, b.steps)


def test_a_helper_called_in_the_body_of_a_list_map_is_applied_to_is_copied_to_its_call():
    """The thorough profile (2026-11-30, at 7e1684c): h84 = λu. sum (map dy18 (λf. λd.
    f (let ⟨u82, m⟩ = pr37 u in u82 × m) (f 1 d))) -- the list map is applied to,
    written in h84's body, computes its first element by calling the helper pr37
    (which calls app_380, which calls pr42 ...).  The list runs where map's λl calls
    its binder, so pr37 is called there; the analysis walked the list as a value
    passed, an abstraction that is no call: pr37 and every helper before it stayed
    coordinates, 5,047 steps against 914 written in place (the property allows
    2.5 × 914 + 300 = 2,585).  Now 953."""
    text = _data("list_calling_a_helper_program.txt")
    from pullback_calc.testing.programs import inline_helpers
    b = pc.jacobian_row(inline_helpers(pc.parse(text)), [1.2, 1.2], 0, record=False)
    a = pc.jacobian_row(text, [1.2, 1.2], 0, max_steps=int(1.2 * b.steps), record=False)
    assert all(abs(x - y) <= 1e-9 * max(1.0, abs(y)) for x, y in zip(a.row, b.row)), \
        (list(a.row), list(b.row))


def test_a_pair_of_constants_a_helper_returns_is_bound_item_by_item():
    """The thorough profile (2026-11-30, at 7e1684c): ``let ⟨m13, m14⟩ = pr2 1`` with
    pr2 = λa. ⟨1, 1⟩, beside a closure taken out of a pair over x1, in a program
    whose value reads neither input.  β left ``let ⟨m13, m14⟩ = ⟨1, 1⟩``, which rule
    8 made a coordinate, and every stage after it one too: no pullback along a
    constant map (pbc) once x1 was no longer read, 292 steps against 93 with the
    pair's projection written in place (the property allows 2 × 93 + 100 = 286).
    8c binds a tuple of constants item by item: 101."""
    text = _data("stored_pair_of_constants_program.txt")
    from pullback_calc.testing.programs import project_written_pairs
    b = pc.grad(project_written_pairs(pc.parse(text)), [0.3, 0.3], record=False)
    a = pc.grad(text, [0.3, 0.3], max_steps=int(1.2 * b.steps), record=False)
    assert list(a) == list(b) == [0.0, 0.0]


def test_a_pair_returning_helper_over_function_inputs_costs_what_it_does_in_place():
    """The thorough profile (2026-11-30, at 9f25f31): helpers returning pairs, pulled back
    along function inputs (Ω(λg. g (…)) at λt. Ω(λg. …) …), over cons and written lists,
    two outputs.  The row took 49,232 steps against 15,646 with the helpers written in
    place (the property allows 2.5 × 15,646 + 300 = 39,415): the helper h27 is called
    only in the map of a pullback, Ω(λy1. h27 y1) ω P D, and 8c followed a pullback's
    map only when it was the helper's name itself, Ω(h27) ω.  h27 stayed a coordinate
    and rule 18 differentiated its closure along its direction.  8c now reads a map
    that only calls the helper as a call: 15,722 steps."""
    text = _data("pair_helper_function_inputs_program.txt")
    from pullback_calc.testing.programs import inline_helpers
    b = pc.jacobian_row(inline_helpers(pc.parse(text)), [-1.1, 1.5], 0, record=False)
    a = pc.jacobian_row(text, [-1.1, 1.5], 0, max_steps=int(1.1 * b.steps),
                        record=False)
    assert list(a.row) == list(b.row)


@pytest.mark.parametrize("name, row", [("function_direction_outputs_program.txt", 1)])
def test_a_closure_over_a_derivative_along_a_function_costs_what_its_evaluation_does(name, row):
    """The thorough profile (2026-11-29, at c635c0d): the second output (mk x1)(1), mk
    returning λt. Ω(λg. chain(g s)) ω G D -- a derivative at a function G along a
    function direction D that holds a pullback over a helper of the input.  Evaluating
    takes 379 steps; the row 8,144 (×21.5; the property allows 20×): rule 18
    differentiates mk's closure along ⟨dx1, dmul⟩ (4,708 steps), D's closure inside
    it, and its Church-numeral combinator inside that, for a row that is (0, 0) --
    G is the zero function, so every coefficient of D's derivative is 0.  Part of it
    was helpers: the helpers called in D's closures stayed coordinates until 8c counted
    a call in a pullback's direction, with the helpers in scope there (4,684 now; 4,942
    with every helper written in place: the rest is the zero class).  The next
    run (at dbae0a8) drew a second program, which was no zero class after all
    (``test_a_helper_called_by_a_returned_closure_costs_what_its_evaluation_does``)."""
    text = _data(name)
    v = pc.call(text, [0.3, 0.3], record=False)
    r = pc.jacobian_row(text, [0.3, 0.3], row, max_steps=20 * v.steps, record=False)
    assert list(r.row) == [0.0, 0.0]


def test_a_helper_called_by_a_returned_closure_costs_what_its_evaluation_does():
    """The thorough profile (2026-11-29, at dbae0a8): helpers over h = λ⟨m, a⟩. Ω(λg. g
    (chain m x1)) ω (λt. 1) (λt. 1), a derivative along a constant direction, summed
    over a list a Church numeral builds, inside the closure mk returns after a let (mk
    = λm. let s = sin(m) in λt. sum (…)).  Evaluating takes 161 steps; the row took
    3,319 (×20.6): h was a coordinate, and rule 18 took the tangent of each closure
    over it along the input.  With its helpers written in place the row takes 776;
    789 since 8c copies a helper called by the closure another helper returns."""
    text = _data("closure_helpers_outputs_program.txt")
    v = pc.call(text, [0.3, 0.3], record=False)
    r = pc.jacobian_row(text, [0.3, 0.3], 0, max_steps=6 * v.steps, record=False)
    assert list(r.row) == [0.0, 0.0]


def test_a_row_of_composed_helpers_costs_what_its_evaluation_does():
    """The thorough profile (2026-11-29, at e7f6448): exp(sin(thrice (λt. sin(π1 (pr t) ×
    π2 (pr t))) x1)), pr t applying twice to λt. sin(h t 1 t), h a curried helper over a
    chain of its first argument times x1 + 1.  Evaluating takes 129 steps; row 0 (not 0:
    -2.2423) took 2,616 (×20.3; the property allows 20×), 1,015 of them arithmetic: h,
    passed to twice inside pr's body, was a coordinate, and each of its calls a D-eval
    premise (19b) that evaluated its body again, forwards (8J), for its tangent -- once
    more at each level of nesting.  Rule 8c now copies a helper passed where a helper
    only calls it: 752 steps (the program with every helper written in place: 720)."""
    text = _data("composed_helpers_outputs_program.txt")
    v = pc.call(text, [0.3, 0.3], record=False)
    r = pc.jacobian_row(text, [0.3, 0.3], 0, max_steps=6 * v.steps, record=False)
    assert abs(r.row[0] + 2.242340534938699) < 1e-9
    assert not {"19b", "8J", "7J"} & set(r.rule_counts), r.rule_counts


def _row_costs_what_it_does_written_in_place(name: str, factor: float, slack: int) -> None:
    """Row 0 of the program in tests/data/name at (0.3, 0.3), within factor × the steps
    of the same program with every helper written in place, plus slack; the same row."""
    text = _data(name)
    w = pc.jacobian_row(inline_helpers(pc.parse(text)), [0.3, 0.3], 0, record=False)
    r = pc.jacobian_row(text, [0.3, 0.3], 0, max_steps=int(factor * w.steps) + slack,
                        record=False)
    assert list(r.row) == list(w.row)


def test_a_helper_inside_a_pullbacks_direction_costs_what_it_does_written_in_place():
    """The thorough profile (2026-11-29, at 010561f), the property of helpers passed to
    combinators: h21 = λa. (λt. 1) (Ω(λy. 1) ω (Ω(λm. m (a + a)) ω' P (λm. mul_118 ⟨1,
    1⟩)) 1) passed to a composition, mul_118 = λ⟨m, a⟩. x1 + 1 a helper over the input
    used only inside a direction the inner pullback is applied to.  A direction is no
    call, so mul_118 stayed a coordinate, h21 (which applies it) did too, and every
    closure over them was differentiated along the input: 815 steps, 179 with every
    helper written in place (the property allows 2.5× + 300 = 747).  A pullback's rules
    apply its point and direction (19a), so 8c now copies a helper called in them: 193."""
    _row_costs_what_it_does_written_in_place("direction_helpers_program.txt", 1.25, 10)


def test_a_helper_called_in_a_pullbacks_map_costs_what_it_does_written_in_place():
    """The thorough profile (2026-11-29, at 822b2cf): helpers returning pairs over the
    input (ω₁₅ = λt. ⟨x1 + x1, π… (pr (t))⟩, pr reading x2), called inside λt13. …
    that grad1 (grad1 …) differentiates, in a pullback's direction.  grad1 = λf. λz.
    Ω(f) ω z 1 does not call f, it pulls back along it: the helpers stayed
    coordinates, 117,233 steps for the row against 32,944 with every helper written in
    place (the evaluation 36,589).  A pullback's map runs as its let series where the
    pullback is applied, so 8c now copies a helper called there: 37,235."""
    _row_costs_what_it_does_written_in_place("pullback_map_helpers_program.txt", 1.25, 10)


def test_a_helper_called_in_a_pullbacks_one_form_costs_what_it_does_written_in_place():
    """Drawn at the end of the session of 2026-11-29 (the property of helpers passed to
    combinators, a random draw): h54, over the input through mk51 and h41, is called
    only in the 1-form λm. λω. (h54 1 3) × ω of a pullback along a constant map inside
    pr22's body.  8c did not count a call in a 1-form as one: h54 stayed a coordinate,
    and the closures over it were differentiated along the input, 2,363 steps for the
    row; 797 with every helper written in place (the property allows 2.5× + 300 =
    2,292).  Rule pb applies a 1-form to the map's value, so 8c now counts it: 917."""
    _row_costs_what_it_does_written_in_place("one_form_helpers_program.txt", 1.25, 10)


def test_a_foldl_in_a_closure_costs_what_it_does_written_in_place():
    """The thorough profile (2026-11-29, at 3d1d8b6), the property of helpers passed to
    combinators: twice (λt. sin(foldl (λacc. λel. acc × t + el) t [1, t])) x1.  foldl
    passes its folding function into the closure it hands to the list, but the list is
    foldl's *second* argument (z comes first), and 8c's look-ahead follows one partial
    application only: the folding function stays a coordinate, 881 steps for the row
    against 224 with the helpers written in place (the property allows 860).  The
    look-ahead follows the chain of partial applications now (foldl f z, then the
    list): 243."""
    _row_costs_what_it_does_written_in_place("foldl_in_closure_program.txt", 1.25, 10)


def test_a_pullback_along_a_helper_costs_what_it_does_written_in_place():
    """The thorough profile (2026-11-29, at 3133648): let q = λy. Ω(λm. grad1 (grad1
    (λt. m 1)) 1) ω (λt. …) (λt. x1) in Ω(q) (λm. λw. x1 × w) 1 1.  A pullback along
    q runs q's body as its let series, but at the top of the series 8c counted only
    lets that apply q: q stayed a coordinate, 1,731 steps for the row against 281 with
    the helpers written in place (the property allows 1,002).  A let Ω(q) ω applied at
    a point and a direction is a call of q now: 748 (the helpers' own evaluation is
    357 steps, 122 written in place)."""
    _row_costs_what_it_does_written_in_place("pullback_of_helper_program.txt", 2, 300)


def test_a_combinator_taken_out_of_a_pair_costs_what_it_does_written_in_place():
    """The thorough profile (2026-11-29, at 625bea0), the generator's stored calls: a
    helper over the input passed to comp inside (π1 ⟨comp f g, 0⟩) (1), in a direction
    of a pullback in the body of foldl's list.  8c's walk saw comp f g, a partial
    application, and stopped: the helper stayed a coordinate, so comp, the list and
    foldl's folding function did too, 5,868 steps for the row against 1,557 with the
    helpers written in place.  The walk looks through a projection of a tuple written
    in place (rule 2 makes it comp f g (1)): 1,565."""
    _row_costs_what_it_does_written_in_place("stored_combinator_program.txt", 1.25, 10)


@pytest.mark.parametrize("text", [
    # a helper over the input passed to twice
    "λx. let h = λa. sin(a) × (x + 1) in let tw = λg. λm. g (g m) in tw h x",
    # ... to a helper that is not closed (it reads x), and curried
    "λx. let h = λa. λb. sin(a) × (x + b) in let tw = λg. λm. g (g m 1) 1 + x in tw h x",
    # ... inside an abstraction passed to twice, in another helper's body
    "λx. let h = λa. sin(a) × (x + 1) in let tw = λg. λm. g (g m) in "
    "let pr = λa. ⟨tw (λt. sin(h t)) a, 1⟩ in let ⟨u, v⟩ = pr x in u × v",
    # ... the helper itself passed to twice in another helper's body
    "λx. let h = λa. sin(a) × (x + 1) in let tw = λg. λm. g (g m) in "
    "let pr = λa. tw h a in pr (pr x)",
    # ... to map's partial application, applied to a list written as a helper
    "λx. let map = λg. λl. λf. λd. l (λx. λacc. f (g x) acc) d in let h = λe. sin(e × x) "
    "in let l = λf. λd. f x (f 2 (f 3 d)) in map h l (λa. λb. a + b) 0",
    # ... called by the closure a helper returns after a let
    "λx. let h = λa. sin(a) × (x + 1) in let mk = λm. let s = sin(m) in λt. h (t × s) in "
    "mk 1 (mk 2 x)",
    # ... to map's partial application, applied to a list built by cons
    "λx. let nil = λf. λd. d in let cons = λx. λl. λf. λd. f x (l f d) in let map = λg. "
    "λl. λf. λd. l (λx. λacc. f (g x) acc) d in let h = λe. sin(e × x) in map h (cons x "
    "(cons 2 (cons 3 nil))) (λa. λb. a + b) 0",
    # ... partially applied first: comp f g
    "λx. let h = λa. sin(a) × (x + 1) in let comp = λf. λg. λz. f (g z) in comp h h x",
])
def test_a_helper_passed_to_a_helper_that_calls_it_is_copied_to_the_calls(text):
    """8c copies a helper over the input that is passed where another helper only
    calls it (twice h, comp h h, or inside an abstraction passed so): its calls become
    stages of the series, as if written in place.  A coordinate, each call was a D-eval
    premise (19b) evaluating its body again, forwards (8J), for the tangent."""
    g = pc.grad(text, [0.3], record=False)
    w = pc.grad(inline_helpers(pc.parse(text)), [0.3], record=False)
    assert close(g[0], w[0])
    assert not {"19b", "8J", "7J", "18"} & set(g.rule_counts), g.rule_counts
    assert g.steps <= 1.25 * w.steps + 10, (g.steps, w.steps)  # (8c, A-lift: the copies)


@pytest.mark.parametrize("name, x", [("zero_map_jvp_program.txt", -0.7),
                                     ("zero_map_jvp_program_2.txt", 1.2)])
def test_forward_mode_through_a_pullback_along_a_constant_function_costs_what_reverse_does(
        name, x):
    """The thorough profile (2026-11-29, a third time, in forward mode): Ω(p) ω V x with p
    a constant function and ω's body (mk x)(a) × w, mk returning a second derivative.
    Evaluating takes 199 steps and the gradient 302.  jvp took 4,263 (8.2× the two; the
    property allows 5×): the pullback of ω's tangent along p composed that tangent -- the
    second derivative differentiated once more -- with p's last stage map before the
    first stage's zero map made the whole 𝟎.  Rule pbc finds the map constant first:
    1,140.  The second program (the next thorough run): 7,019, now 3,311, against 735
    and 550."""
    text = _data(name)
    v = pc.call(text, [x], record=False)
    g = pc.grad(text, [x], record=False)
    jv = pc.jvp(text, [x], [1.0], record=False)
    assert close(jv.tangent, g[0])
    assert jv.steps <= 3 * (g.steps + v.steps), (jv.steps, g.steps, v.steps)


def test_a_pullback_along_a_constant_map_is_zero_without_its_1_form():
    """pbc: Ω(λp. L) ω with no variable of p in L is λp. let y = L in 𝟎 -- ω is never
    applied (its body may fail: it is not reached), L is evaluated at the point (a
    failing stage still fails), and no stage of L is differentiated."""
    r = pc.reduce("Ω(λx. let a = sin(2) in let b = a × a in b) (λz. λw. log(0 - 1) × w) 0.5 1")
    assert pc.pretty(r.value) == "𝟎" and r.rule_counts.get("pbc") == 1
    assert not {"pb", "5", "15"} & set(r.rule_counts), r.rule_counts
    with pytest.raises(pc.ReductionError, match="log is undefined"):
        pc.reduce("Ω(λx. let a = log(0 - 2) in let b = a × a in b) (λz. λw. z × w) 0.5 1")
    # a map that reads its variable is no constant one: pb and the chain rule, as before
    r = pc.reduce("Ω(λx. let a = sin(x) in let b = a × a in b) (λz. λw. z × w) 0.5 1")
    assert "pbc" not in r.rule_counts
    assert close(float(pc.pretty(r.value)), math.sin(0.5) ** 2 * 2 * math.sin(0.5) * math.cos(0.5))


def test_a_closure_taken_out_of_a_pair_runs_in_the_series():
    """The thorough profile (2026-11-30, at f119d93 and 588b839): closures passed to
    combinators three deep (iter of twice of twice), each partial application stored
    in a pair and taken out to be applied, ``(π1 ⟨iter f, 0⟩) x``, with a derivative
    at a function inside.  Rule 8 made the pair a coordinate, and the closure taken
    out of it one too: each call a D-eval premise running its body forwards.  The
    gradient took 105,827 steps against an evaluation of 4,906 (the property allows
    20×); 8c now takes a pair the series only projects apart (each ``let r = πᵢ q``
    becomes ``let r = aᵢ``), and copies a helper through such a pair: 7,382, and 7,358
    with every πᵢ ⟨…⟩ written as its item."""
    text = _data("stored_closure_pair_program.txt")
    v = pc.call(text, [-1.1, -1.1], record=False)
    g = pc.grad(text, [-1.1, -1.1], max_steps=2 * v.steps, record=False)
    assert list(g) == [0.0, 0.0]


@pytest.mark.parametrize("src, point", [
    # a closure over the input stored beside it, taken out and applied
    ("λ⟨x, y⟩. let twice = λf. λz. f (f z) in (π2 ⟨y, twice (λt. sin(t × x))⟩) y", [0.5, 0.7]),
    # a helper over the inputs called inside such a closure (8c copies it through the pair)
    ("λ⟨x1, x2⟩. let pr = λq. ⟨x1 + x2, log(1 + x1 × x1)⟩ in let iter = λf. λz. f z in "
     "(π1 ⟨iter (λt. sin(let z = pr t in π1 z − π2 z)), 3⟩) x1", [-0.7, 0.3]),
])
def test_a_pair_only_projected_is_taken_apart(src, point):
    """8c's pair case: the gradient agrees with sympy (``verify``) and costs what it
    does with each πᵢ ⟨…⟩ written as its item, within the A-names of the pair."""
    from pullback_calc.testing.programs import project_written_pairs
    g = pc.grad(src, point, verify=True, record=False)
    b = pc.grad(project_written_pairs(pc.parse(src)), point, record=False)
    assert list(g) == pytest.approx(list(b))
    assert g.steps <= b.steps + 10, (g.steps, b.steps)


def test_a_pair_whose_item_is_bound_again_before_its_projection_stays_whole():
    """``let q = ⟨x, 0⟩ in let x = sin(x) in π1 q × x``: taken apart, π1 q would
    become the new x.  8c leaves the pair to rule 8 (``projected_only`` refuses), and
    the gradient is sin x + x cos x."""
    from pullback_calc.reduction.calls import projected_only
    from pullback_calc.syntax.terms import Lam
    lam = pc.parse("λx. let q = ⟨x, 0⟩ in let x = sin(x) in let r = π1 q in r × x")
    assert isinstance(lam, Lam) and not projected_only(lam.body)
    assert projected_only(pc.parse("λx. let q = ⟨x, 0⟩ in let y = sin(x) in "
                                   "let r = π1 q in r × y").body)
    g = pc.grad("λx. let q = ⟨x, 0⟩ in let x = sin(x) in π1 q × x", [0.5], record=False)
    assert list(g) == pytest.approx([math.sin(0.5) + 0.5 * math.cos(0.5)])


def test_a_helper_called_in_a_jacobians_map_costs_what_it_does_in_place():
    """The thorough profile (2026-11-30, at 588b839): a helper over x1 (a fold, its
    parameters ignored) called in the 1-form of a pullback inside J(λy. …)·1 in
    another helper's body.  8c's call analysis read the map of a pullback as where
    its calls run, not the map of a Jacobian, and left the helper a coordinate: 1,323
    steps against 328 with the helpers written in place (the property allows 2.5 ×
    328 + 300 = 1,120).  Forward mode runs J(λy. S)·v's body where it is applied, so a
    call there is one: 353."""
    text = _data("jacobian_helper_form_program.txt")
    from pullback_calc.testing.programs import inline_helpers
    b = pc.jacobian_row(inline_helpers(pc.parse(text)), [0.3, 0.3], 0, record=False)
    a = pc.jacobian_row(text, [0.3, 0.3], 0, max_steps=int(1.2 * b.steps), record=False)
    assert list(a.row) == list(b.row)


@pytest.mark.parametrize("src, point", [
    # J(λy. h y)·v applied, in the program's body and in a helper's
    ("λ⟨x1, x2⟩. let h = λm. sin(m × x1) × cos(m + x2) in (J(λy. h y)·(x2)) (x1 × x2)",
     [0.3, 0.7]),
    ("λ⟨x1, x2⟩. let h = λm. sin(m × x1) × cos(m + x2) in "
     "let g = λa. (J(λy. h y)·(1)) (a × x2) in g (x1)", [0.3, 0.7]),
])
def test_a_helper_called_in_a_jacobians_map_is_copied_there(src, point):
    """8c copies h into J(λy. h y)·v (the gradient agrees with sympy, ``verify``, and
    costs what it does with h written in place)."""
    from pullback_calc.testing.programs import inline_helpers
    g = pc.grad(src, point, verify=True, record=False)
    b = pc.grad(inline_helpers(pc.parse(src)), point, record=False)
    assert list(g) == pytest.approx(list(b))
    assert g.steps <= b.steps + 10, (g.steps, b.steps)


def test_derivatives_nested_in_a_function_direction_cost_what_their_evaluation_does():
    """The thorough profile (2026-11-30, at 588b839): Ω(λg. chain(g x1)) at a function,
    along a function whose body pulls back along a 1-form holding grad1 (grad1 …) of a
    chain, over a composition of closures that hold grad1 (grad1 …) of chains
    themselves (stored in pairs).  The evaluation takes 2,891 steps; the gradient ran
    out of 3,000,000 (the property allows 20×): a covector's coefficient that is a
    formal sum at an open point was left unreduced by rule 5 (only products were
    settled) and later reduced as a tree, a step per path.  Now 47,145 steps; the row
    is forward mode's."""
    text = _data("nested_order_blowup_program.txt")
    v = pc.call(text, [0.3, 0.3], record=False)
    g = pc.grad(text, [0.3, 0.3], max_steps=20 * v.steps, record=False)
    assert list(g) == pc.jacobian(text, [0.3, 0.3], method="forward")[0]


def test_a_helper_called_in_a_let_bound_one_form_is_copied_to_its_calls():
    """The property's search (2026-11-30): h15 (a pair taken apart, over a second
    derivative) is called only in h21's body, in a map bound by a let there and at its
    point; h21 is called in the series and in a 1-form, which A-reduction names by a
    let, ``let fn = λz. λw. h21 x1 × w in let pb = Ω(λy. 2) fn``.  Rule pb applies the
    1-form once, where the pullback is applied at a point and a direction, so h21's
    call there is a call: 8c copies h15 into h21 and h21 to its calls.  The row took
    5,270 steps with h15 a coordinate, against 1,494 with the helpers written in
    place; now 1,516."""
    from pullback_calc.testing.programs import inline_helpers
    text = _data("helper_in_a_one_form_program.txt")
    b = pc.jacobian_row(inline_helpers(pc.parse(text)), [0.9, -0.7], 0, record=False)
    a = pc.jacobian_row(text, [0.9, -0.7], 0, record=False)
    assert list(a.row) == pytest.approx(list(b.row), rel=1e-12)
    assert a.steps <= b.steps + 50, (a.steps, b.steps)


def test_a_closure_iterated_in_a_function_direction_costs_linear_work_in_the_iterations():
    """The shape the program above comes down to: a function direction whose 1-form
    pulls back along a closure iterated k times (a Church numeral), each stage reading
    its input twice (mk t t), at the second derivative of a chain that mentions the
    direction's variable.  The forward premise's tangent at dx1 is a graph whose paths
    double per stage; rule 5 named the shared products of a coefficient but not the
    sums (nor a single coefficient whose factors are sums), and left a coefficient
    that is a sum unreduced: 1,377 / 1,703 / 2,641 steps at k = 1 / 3 / 5, now
    1,346 / 1,480 / 1,614."""
    text = _data("iterated_closure_direction_program.txt")

    def grad(k):
        it = "λf56. λz57. " + "f56 (" * k + "z57" + ")" * k
        src = text.replace("λf56. λz57. f56 (f56 (f56 z57))", it)
        g = pc.grad(src, [0.3, 0.3], record=False)
        assert list(g) == pytest.approx(pc.jacobian(src, [0.3, 0.3], method="forward")[0],
                                        rel=1e-9)
        return g.steps
    s1, s3, s5, s7 = grad(1), grad(3), grad(5), grad(7)
    assert s7 - s5 <= s5 - s3 <= s3 - s1 + 2, (s1, s3, s5, s7)


def test_renaming_a_shadowed_binder_apart_changes_no_step():
    """The thorough profile (2026-11-30, at 1e6cc74 and at 8c857e7) drew a foldl whose
    continuation ``λacc. k (f acc x)`` meets ``k = λacc. acc``: after β the series holds
    ``λacc. let acc = … in acc``, and the gradient takes one 8c more (93 steps) than the
    same program with every binder renamed apart (92): the traces part at the first 8c
    after that β.  8c's run of helpers called once went on past a kept stage only if
    the stage bound no name the run had seen (it could capture): such a stage is now
    renamed apart, and the series' repeated binders before the run too.  Both rows
    were right; the property ``test_renaming_and_spelling_change_nothing`` asks for the
    same steps (and renames to shadowing names: ``alpha_rename(…, "shadow")``)."""
    from pullback_calc.testing.programs import alpha_rename
    t = pc.parse(_data("shadowed_binder_program.txt"))
    a, b = pc.grad(t, [0.3, 0.3], record=False), pc.grad(alpha_rename(t, "engine"),
                                                          [0.3, 0.3], record=False)
    assert list(a) == list(b)
    assert a.steps == b.steps, (a.steps, b.steps)


def test_a_binder_named_as_a_direction_is_renamed_apart_in_rule_18():
    """A covector ``λdv1. …`` (the result of a pullback along ``λv1. …``) under rule
    18, whose environment binds another ``v1`` (the program repeats the name): the
    premise substitutes the direction P for p̂ = ⟨…, dv1, …⟩, and took the covector's
    own dv1 for it -- the normal form had a product of two directions (a
    JacobianError, "atoms that are not input coordinates").  The inner binder is now
    renamed apart from p's directions as from p.  Found by renaming binders to
    shadowing names (``alpha_rename(…, "shadow")``)."""
    from pullback_calc.testing.programs import alpha_rename
    src = ("λ⟨v1, v2⟩. Ω(λv1. Ω(λv4. let v1 = cos(v4) in v1 × v4) (λa. λb. b) v1 1) "
           "(λv4. λv3. v1 × v4 × v3) v2 2")
    t = pc.parse(src)
    a = pc.grad(t, [0.3, 0.3], record=False)
    b = pc.grad(alpha_rename(t, "plain"), [0.3, 0.3], record=False)
    assert list(a) == list(b) and a.steps == b.steps, (list(a), list(b), a.steps, b.steps)
    # the program is 2 v1 g(v2) g'(v2), g(u) = d/du (cos(u) u) = cos(u) − u sin(u)
    x1, u = 0.3, 0.3
    g, g1 = math.cos(u) - u * math.sin(u), -2 * math.sin(u) - u * math.cos(u)
    g2 = -3 * math.cos(u) + u * math.sin(u)
    assert list(a) == pytest.approx([2 * g * g1, 2 * x1 * (g1 * g1 + g * g2)])


def test_a_let_that_binds_the_inner_binder_again_does_not_send_the_tangent_forward():
    """``λz. λw. (let w = … in π1 w − π2 w) × w``: rule 18's tangent premise chose
    the forward rules because the let's w was taken for the symbolic inner w (an
    inert chain, ``_runs_forward``); renamed apart it ran by pullback: one step
    apart.  A name bound again is the new binding from there on."""
    from pullback_calc.testing.programs import alpha_rename
    t = pc.parse("λ⟨x1, x2⟩. Ω(λy. x1 × y) (λz. λw. (let w = ⟨x1 × z, x2⟩ in π1 w − π2 w) "
                 "× w) 1 0.5")
    a = pc.grad(t, [0.3, 0.3], record=False)
    b = pc.grad(alpha_rename(t, "plain"), [0.3, 0.3], record=False)
    assert list(a) == list(b) and a.steps == b.steps, (a.steps, b.steps)


def test_helpers_in_combinators_with_a_zero_row_cost_what_they_do_written_in_place():
    """The thorough profile's run th54 (2026-11-30) drew, for
    ``test_helpers_passed_to_combinators_cost_what_they_do_written_in_place``, a
    program whose first row is 0 (``J(λy. h41 ⟨y, x2, x1⟩)·x1`` applied to x2, h41 a
    foldr over a list whose cells call helpers holding nested pullbacks): 2,268 steps
    with its helpers, 359 with them written in place, over the property's
    2.5 × 359 + 300 = 1,197.  h41 calls a helper that is a coordinate, so 8c kept it
    a coordinate too, and reverse mode took h41's own tangent (1,103 steps: along
    everything it captures) to differentiate it along y afterwards; it is used once,
    in the Jacobian's map, and is moved there now (``inlined_once``): 379 steps."""
    t = pc.parse(_data("helpers_in_combinators_zero_row_program.txt"))
    from pullback_calc.testing.programs import inline_helpers
    b = pc.jacobian_row(inline_helpers(t), [0.9, 0.5], 0, record=False)
    a = pc.jacobian_row(t, [0.9, 0.5], 0, max_steps=int(2.5 * b.steps) + 300, record=False)
    assert list(a.row) == list(b.row) == [0.0, 0.0]


def test_a_helper_used_once_in_a_jacobian_in_a_helpers_body_costs_what_it_does_in_place():
    """th55 (2026-11-30), the same property: h16 (a foldr whose cells call nested
    ``grad1``s) used once in ``J(λy17. h16 ⟨y17, x2⟩)·x1``, inside the body of the
    helper dx18: 2,583 steps, 756 written in place, over 2.5 × 756 + 300 = 2,190.
    8c moved h16 only into a map that was the stage itself; it looks under
    abstractions now (1,130)."""
    t = pc.parse(_data("helper_in_a_jacobian_under_a_helper_program.txt"))
    from pullback_calc.testing.programs import inline_helpers
    b = pc.jacobian_row(inline_helpers(t), [0.3, 0.3], 0, record=False)
    a = pc.jacobian_row(t, [0.3, 0.3], 0, max_steps=int(2.5 * b.steps) + 300, record=False)
    assert list(a.row) == list(b.row) == [0.0, 0.0]


def test_a_chain_of_helpers_into_a_jacobian_costs_what_it_does_in_place():
    """th56 (2026-11-30), the same property: h35 (calling h34, which calls pr14's
    nested pullbacks) used once in h36's body, h36 used once in the map of
    ``J(λy37. h36 ⟨y37, x2⟩)·x1`` in h38's body: 2,941 steps, 983 written in place,
    over 2.5 × 983 + 300 = 2,757.  8c moved h36 into the map but had kept h35 a
    coordinate; it moves a helper used once in a helper so moved now (1,043)."""
    t = pc.parse(_data("helper_chain_into_a_jacobian_program.txt"))
    from pullback_calc.testing.programs import inline_helpers
    b = pc.jacobian_row(inline_helpers(t), [1.5, 0.5], 0, record=False)
    a = pc.jacobian_row(t, [1.5, 0.5], 0, max_steps=int(2.5 * b.steps) + 300, record=False)
    assert list(a.row) == pytest.approx(list(b.row))
    from pullback_calc.semantics import oracle
    want = oracle.jacobian_by_oracle(t, [1.5, 0.5])[0]
    assert list(a.row) == pytest.approx(list(want), rel=1e-9, abs=1e-12)


_CHURCH = ("let nil = λf. λd. d in let cons = λx. λl. λf. λd. f x (l f d) in "
           "let sum = λl. l (λx. λacc. x + acc) 0 in let foldr = λf. λz. λl. l f z in ")


@pytest.mark.parametrize("tail", ["(J(λy. k ⟨y, x1⟩)·x1) x2",
                                  "let d = λs. (J(λy. k ⟨y, x1⟩)·x1) s in d x2",
                                  "let k2 = λ⟨a, b⟩. k ⟨a, b⟩ + x2 in "
                                  "let d = λs. (J(λy. k2 ⟨y, x1⟩)·x1) s in d x2"])
@pytest.mark.parametrize("cell", ["b", "a × a × b"])
def test_a_helper_that_calls_a_coordinate_used_once_in_a_jacobian_costs_what_it_does_in_place(
        cell, tail):
    """th54's program, minimised: k calls pr, a helper 8c keeps as a coordinate
    (it computes and calls others), and is used once, in the map of
    ``J(λy. k ⟨y, x1⟩)·x1``.  Kept a coordinate, k's tangent along all it captures
    was taken first (1,037 steps where written in place takes 208, for a row of
    zeros; 2,398 against 1,206 when k reads y); th55 drew the Jacobian in a helper's
    body (``d``): 1,146 against 209, 2,791 against 1,207 until 8c looked for the map
    under abstractions too (320, 2,094 now); th56 drew a chain, k called by a
    helper k2 that the map calls: 1,392 against 433, 3,037 against 1,433 until 8c
    moved k on with k2 (596, 2,065).  Since th57's 18L along a zero direction and
    rule 9's live reads, the program in place takes 67 / 68 / 292 (840 / 841 / 1,067
    with a × a × b) and the helpers 102 / 157 / 422 (1,150 / 1,412 / 1,678): the
    bound is 2 × in place + 100 (the helpers without 8c's moves: 741 / 801 / 1,144,
    1,824 / 2,090 / 2,590, each over it).  The gradient is checked against
    its closed form: k ⟨a, b⟩ = ½ (u − v) c with u = 3 + 2 x1, v = x1 (3 + x1 + x2)
    and c the second cell."""
    from pullback_calc.testing.programs import inline_helpers
    t = pc.parse("λ⟨x1, x2⟩. " + _CHURCH +
                 "let h = λ⟨a, b⟩. sum (cons 3 (cons x1 (cons b nil))) in "
                 "let g = λc. foldr (λe. λacc. e × acc) (h ⟨x1, x2⟩) (λf. λd. f c d) in "
                 "let pr = λm. ⟨h ⟨2, m⟩, g m⟩ in "
                 "let k = λ⟨a, b⟩. foldr (λe. λacc. e × acc) 0.5 "
                 f"(λf. λd. f (let ⟨u, v⟩ = pr x1 in u − v) (f ({cell}) d)) in " + tail)
    b = pc.grad(inline_helpers(t), [0.9, 0.5], record=False)
    a = pc.grad(t, [0.9, 0.5], max_steps=2 * b.steps + 100, record=False)
    x1, x2 = 0.9, 0.5
    w = 3 + 2 * x1 - x1 * (3 + x1 + x2)  # u − v
    # d/dy of ½ w y² x1 at y = x2, times x1: w x1² x2 (zero when the cell is b)
    want = ([0.0, 0.0] if cell == "b" else
            [(2 - 3 - 2 * x1 - x2) * x1 * x1 * x2 + w * 2 * x1 * x2,
             -x1 * x1 * x1 * x2 + w * x1 * x1])
    assert list(a) == pytest.approx(want) and list(b) == pytest.approx(want)


def test_a_nested_grad_of_a_closure_over_a_constant_costs_what_it_does_in_place():
    """th57 (2026-11-30), the helpers property: ``J(λy35. z_534 ⟨y35, x1, y35⟩)·x2``
    with z_534 reading ``mk33 x1 x1``, a ``grad1`` of a closure over ``s25 = sin(x1)``
    -- constant along y: 3,975 steps, 1,436 written in place (the property's bound
    3,890).  The grad's function, bound by a let (``let f = λu27. … s25 …``), was a
    stage of the forward premise whose 18L tangent ``λu27. J(λs25. …)·𝟎 s25`` no rule
    saw was 0; the pullback through f was then differentiated along it (a tangent of
    second order, factors × 0).  18L gives 𝟎 along a zero direction now: 1,154."""
    t = pc.parse(_data("nested_grad_closure_zero_tangent_program.txt"))
    b = pc.jacobian_row(inline_helpers(t), [0.3, 0.5], 0, record=False)
    a = pc.jacobian_row(t, [0.3, 0.5], 0, max_steps=b.steps + 100, record=False)
    assert list(a.row) == list(b.row) == [0.0, 0.0]


@pytest.mark.parametrize("tail", ["(J(λy. k ⟨y, x1⟩)·x2) 0.5", "(J(λy. k ⟨y, x1⟩ × y)·x2) 0.5"])
@pytest.mark.parametrize("cell", ["sin(u × u) + s", "let a = sin(u × u) + s in tanh(a) × a"])
def test_a_grad_of_a_closure_over_a_constant_in_a_jacobian_costs_what_it_does_in_place(
        cell, tail):
    """th57's program, minimised: ``mk a m`` is grad1 at m of a closure over
    ``s = sin(a)``; k calls it, inside a Jacobian along y that k does not read.  The
    closure, a let-bound stage of the forward premise, had a lazy 18L tangent along
    s's direction 0 that nothing reduced to 0 (the deeper cell: 1,316 steps against
    557 written in place; the shallow one 432 against 359).  Checked by the oracle."""
    from pullback_calc.semantics import oracle
    t = pc.parse("λ⟨x1, x2⟩. let grad1 = λf. λz. Ω(f) (λa. λw. w) z 1 in "
                 f"let mk = λa. let s = sin(a) in λm. grad1 (λu. {cell}) m in "
                 "let k = λ⟨a, b⟩. log(1 + mk x1 x1 × mk x1 x1) in " + tail)
    b = pc.grad(inline_helpers(t), [0.3, 0.5], record=False)
    a = pc.grad(t, [0.3, 0.5], max_steps=b.steps + 50, record=False)
    want = oracle.jacobian_by_oracle(t, [0.3, 0.5])[0]
    assert list(a) == pytest.approx(list(want), rel=1e-9, abs=1e-12)
    assert list(b) == pytest.approx(list(want), rel=1e-9, abs=1e-12)


def test_a_helper_called_in_a_named_point_of_a_named_pullback_costs_what_it_does_in_place():
    """th69 (2026-12-01, ``test_a_helper_called_in_a_pullback_at_a_function_costs_what_it_
    does_in_place``): h20, a helper holding a pullback at a function, is called by h31, h31
    by h33, and h33 in the point ``λt. h33 ⟨t, t, t⟩`` of a pullback applied at a
    function, which A-normal form names with the pullback (``let pb = Ω(S) ω in let fn
    = λt. … in let app = pb fn``).  8c's call analysis read no named point passed to a
    named pullback as a call, so fn, h33, h31 and h20 stayed coordinates: 8,846 steps
    against 5,501 with every helper written in place (the property's bound 1.5 × 5,501 +
    300 = 8,551).  Now fn is read as rule pb applies it (``calls._note_pullback``):
    5,587 steps."""
    _first_row_costs_at_most("helper_partially_applied_in_pullback_map_program.txt",
                             [0.3, 1.2], 1.1)
    from pullback_calc.semantics import oracle
    t = pc.parse(_data("helper_partially_applied_in_pullback_map_program.txt"))
    got = pc.jacobian_row(t, [0.3, 1.2], 0, record=False).row
    assert list(got) == pytest.approx(list(oracle.jacobian_by_oracle(t, [0.3, 1.2])[0]),
                                      rel=1e-9, abs=1e-12)


def test_a_chain_into_a_function_input_with_helpers_costs_what_its_evaluation_does():
    """th69 (2026-12-01, ``test_a_function_input_applied_to_a_chain_costs_what_its_
    evaluation_does``): evaluation 5,641 steps, gradient 120,306 (×21.3; the property
    allows 20×), 81,865 with every helper written in place.  The same cause as the
    named point above: A-normal form names the pullback and its point, which 8c's
    analysis did not read as a call.  82,417 steps now (×14.6)."""
    text = _data("chain_into_function_input_program.txt")
    v = pc.call(text, [-0.7, 1.2], record=False)
    g = pc.grad(text, [-0.7, 1.2], max_steps=20 * v.steps, record=False)
    _first_row_costs_at_most("chain_into_function_input_program.txt", [-0.7, 1.2], 1.1)
    from pullback_calc.semantics import oracle
    want = oracle.jacobian_by_oracle(pc.parse(text), [-0.7, 1.2])[0]
    assert all(abs(x - y) <= 1e-7 * (1 + abs(y)) for x, y in zip(g, want))


def test_a_large_vector_jacobian_program_reduces_within_its_budget():
    """th70 (2026-12-01, ``test_subject_reduction_vector_jacobians_and_shadowed_names``):
    a ``vector-J`` program whose evaluation takes 25,792 steps; its gradient, 76,469
    (×3), ran out of that property's fixed 50,000-step budget, which is now 20× the
    evaluation as in the other user-program properties.  Its steps well typed are the
    property's to check (9 minutes here); this holds the gradient to the budget and
    the oracle."""
    text = _data("large_vector_jacobian_program.txt")
    v = pc.call(text, [0.5, 1.2], record=False)
    g = pc.grad(text, [0.5, 1.2], max_steps=4 * v.steps, record=False)
    from pullback_calc.semantics import oracle
    want = oracle.jacobian_by_oracle(pc.parse(text), [0.5, 1.2])[0]
    assert list(g) == pytest.approx(list(want), rel=1e-9, abs=1e-12)
