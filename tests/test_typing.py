"""Type inference: one test (at least) per rule, plus errors and deep terms."""
import pytest

from pullback_calc.errors import TypeError_
from pullback_calc.syntax.prims import P
from pullback_calc.syntax.terms import (App, Dual, Jac, Lam, Num, Pos, Prim, Proj, Pullback,
                                        Sum, Tuple, Var, Zero, let)
from pullback_calc.syntax.types import Arrow, DualT, Prod, R, TVar, show_type
from pullback_calc.typing.check import infer, infer_with_free, typecheck, types_equal

x, y, z, w, v, l, a, b, c, k = (Var(n) for n in "xyzwvlabck")
RR = Prod((R, R))


def T(*items):
    return Tuple(tuple(items))


def lam(pat, body, ann=None):
    return Lam(pat, body, ann)


def shown(term, env=None):
    return show_type(infer(term, env))


# the running example f(x, y) = ((x + 1)(2x + y²))²
F = lam(T(x, y),
        let(a, P("add", x, Num(1)),
            let(b, P("add", P("mul", Num(2), x), P("pow", y, Num(2))),
                let(c, P("mul", a, b), P("pow", c, Num(2))))))


# ---- the rules --------------------------------------------------------------------

def test_var_from_env_and_free_variables():
    assert infer(x, {"x": RR}) == RR
    t, free = infer_with_free(P("add", x, y))
    assert t == R and free == {"x": R, "y": R}
    t, free = infer_with_free(x)
    assert isinstance(t, TVar) and free["x"] == t


def test_numeral_and_prims():
    assert infer(Num(2)) == R
    assert infer(P("sin", P("mul", x, Num(3)))) == R
    assert infer(P("pow", Num(2), Num(3))) == R


def test_lambda_and_application():
    ident = infer(lam(x, x))
    assert isinstance(ident, Arrow) and isinstance(ident.dom, TVar) and ident.dom == ident.cod
    assert types_equal(infer(lam(T(x, y), x)), Arrow(Prod((TVar(-2), TVar(-3))), TVar(-2)))
    assert infer(lam(x, P("sin", x))) == Arrow(R, R)
    assert infer(App(lam(x, P("sin", x)), Num(1))) == R
    assert infer(App(Var("f"), Num(1)), {"f": Arrow(R, RR)}) == RR
    assert typecheck(lam(T(x, y), P("add", x, y))) == Arrow(RR, R)


def test_running_example():
    assert infer(F) == Arrow(RR, R)
    assert infer(App(F, T(Num(1.5), Num(2)))) == R


def test_tuple_projection_zero_sum():
    assert infer(T(Num(1), T(Num(2), Num(3)))) == Prod((R, RR))
    assert infer(Proj(2, T(Num(1), T(Num(2), Num(3))))) == RR
    assert isinstance(infer(Zero()), TVar)
    assert infer(Sum((T(Num(1), Num(2)), Zero()))) == RR
    assert infer(Sum((Zero(), lam(x, x), lam(y, P("sin", y))))) == Arrow(R, R)


def test_shadowing_restores_scope():
    t = lam(x, T(let(x, T(Num(1), Num(2)), x), P("sin", x)))
    assert infer(t) == Arrow(R, Prod((RR, R)))


def test_let_with_tuple_pattern():
    t = let(T(a, b), T(Num(1), T(Num(2), Num(3))), b)
    assert infer(t) == RR


def test_jacobian():
    assert infer(Jac(lam(x, P("sin", x)), Num(1))) == Arrow(R, R)
    j = Jac(lam(T(x, y), T(P("mul", x, y), x)), T(Num(1), Num(0)))
    assert infer(j) == Arrow(RR, RR)


def test_dual_map_linear_ok():
    t = Dual(lam(v, P("mul", Num(3), v)), lam(w, w))
    assert infer(t) == DualT(R)
    t = Dual(lam(T(x, y), P("add", x, y)), lam(w, w))
    assert infer(t) == DualT(RR)


@pytest.mark.parametrize("body", [P("mul", v, v), P("sin", v), P("add", v, Num(1))])
def test_dual_map_nonlinear_rejected(body):
    with pytest.raises(TypeError_, match="not linear in the bound variable") as e:
        infer(Dual(lam(v, body), lam(w, w), Pos(3, 4)))
    assert "v" in e.value.message and e.value.pos == Pos(3, 4)


# ---- lin(S) (§2.5): what the dual maps' side condition accepts and rejects -------------

def _lin_ok(src, env=None):
    from pullback_calc.syntax.parser import parse
    return infer(parse(src), env)


def _lin_rejected(src, env=None):
    from pullback_calc.syntax.parser import parse
    with pytest.raises(TypeError_, match="not linear"):
        infer(parse(src), env)


@pytest.mark.parametrize("src, env", [
    ("(λx. x × x)⋆ ω", None),
    ("(λx. sin(x))⋆ ω", None),
    ("(λx. 2 × 3)⋆ ω", None),                          # a non-zero constant: affine
    ("(λx. let v = 1 in v + x)⋆ ω", None),             # v is 1, not a zero
    # f x with f not a functional: a function of the environment, an annotation, a let-bound
    # λ (even a linear one: only types say "functional"), a function of two arguments
    ("(λx. f x)⋆ ω", {"f": Arrow(R, R)}),
    ("λf : ℝ → ℝ. (λx. f x)⋆ ω", None),
    ("let f = λy. y × y in (λx. f x)⋆ ω", None),
    ("let f = λy. 2 × y in (λx. f x)⋆ ω", None),
    ("λf. ⟨f 1 2, (λx. f x)⋆ ω⟩", None),
    ("(λx. (λω. ω x) (λy. y × y))⋆ φ", None),          # a let-bound λ, not a functional
    ("λf. (λx. f x × f x)⋆ ω", None),                  # a functional, but squared
    # the point of a Jacobian or pullback is not a linear position in general
    ("(λx. J(λz. z × z)·1 x)⋆ φ", None),
    ("(λx. J(λ⟨z, u⟩. z × u)·⟨x, 0⟩ ⟨2, x⟩)⋆ φ", None),  # x × x: bilinear S, x in both
    ("(λg. J(λ⟨a, h⟩. h a)·⟨1, g⟩ ⟨g 1, g⟩)⋆ φ", None),  # S = h a is not linear in ⟨a, h⟩
    ("(λx. Ω(λy. y × y) (λz. λw. z × w) x 1)⋆ φ", None),
    ("(λx. ρ x 2)⋆ φ", None),                          # x at the point of a 1-form
    ("(λd : ℝ × ℝ. let j = J(λv. v × v)·(π1 d) in j (π2 d))⋆ φ", None),  # 2 d₁ d₂
    ("(λx. J(λv. x × v)·x)⋆ φ", None),                                   # x²
    ("(λx. J(λ⟨v, u⟩. x + v + u)·⟨x, 1⟩)⋆ φ", None),                     # x + 1
    # a dual map free of the variables must be zero: f 2 is not (f 𝟎 is, below)
    ("(λd. (λf. f 1)⋆ d ⊕ (λf. f 2)⋆ (λw. w))⋆ φ", None),
])
def test_lin_rejects(src, env):
    _lin_rejected(src, env)


@pytest.mark.parametrize("src, env, shown", [
    # 𝟎 and the numeral 0 are linear in everything, also as a constant factor or let-bound
    ("(λx. 2 × 𝟎)⋆ ω", None, "α⋆"),
    ("(λx. 2 × 0)⋆ ω", None, "α⋆"),
    ("(λx. let v = 𝟎 in v + x)⋆ ω", None, "ℝ⋆"),
    ("(λx. let v = 𝟎 in v × x)⋆ ω", None, "ℝ⋆"),
    ("(λx. let v = 1 in v × x)⋆ ω", None, "ℝ⋆"),
    # a functional applied: a variable of type σ⋆ (given, or inferred so), a dual map,
    # a pullback at a point
    ("(λx. ω (3 × x))⋆ (λw. w)", {"ω": DualT(R)}, "ℝ⋆"),
    ("λω. (λx. ω (3 × x))⋆ (λw. w)", None, "ℝ⋆ → ℝ⋆"),
    ("λf : ℝ⋆. (λx. f x)⋆ ω", None, "ℝ⋆ → ℝ⋆"),
    ("λf. (λx. f (f x))⋆ ω", None, "ℝ⋆ → ℝ⋆"),
    ("(λx. (λω. ω x) ψ)⋆ φ", None, "α⋆"),
    ("(λx. ((λy. 3 × y)⋆ ω) x)⋆ φ", None, "ℝ⋆"),
    ("(λx. Ω(λy. y × y) (λz. λw. z × w) 2 x)⋆ φ", None, "ℝ⋆"),
    ("(λx. ρ 2 x)⋆ φ", None, "α⋆"),
    # a bound variable typed σ⋆ by the sum: f 𝟎 = 0, so the second summand is zero
    ("(λd. (λf. f 1)⋆ d ⊕ (λf. f 𝟎)⋆ (λw. w))⋆ φ", None, "ℝ⋆⋆"),
    # J(λq.S)·P V through the point: S linear in the components that mention the variables
    ("(λg. J(λ⟨a, h⟩. h a)·⟨1, g⟩ ⟨2, g⟩)⋆ φ", None, "(ℝ → α)⋆"),   # g'(2) + g(2)
    ("(λg. J(λ⟨a, h⟩. h a)·⟨1, g⟩ ⟨2, 𝟎⟩)⋆ φ", None, "(ℝ → α)⋆"),   # g(2)
    ("(λx. J(λ⟨z, u⟩. z × u)·⟨1, x⟩ ⟨2, x⟩)⋆ φ", None, "ℝ⋆"),        # 3 x
    ("(λx. J(λz. x + z)·x x)⋆ φ", None, "ℝ⋆"),                        # x
    ("(λy. J(λ⟨⟨x, fn⟩, app⟩. app x)·⟨⟨1, 𝟎⟩, J(λ⟨x, fn⟩. y x)·⟨1, 𝟎⟩ ⟨2, λw. w⟩⟩ "
     "⟨⟨2, λw. w⟩, y 2⟩)⋆ (λw. w)", None, "(ℝ → ℝ → ℝ)⋆"),            # what 16c builds
    # … and its A-normal forms: a let-bound Jacobian (or let series ending in one) applied
    ("(λd : ℝ × ℝ. J(λv. v)·(π1 d) (π2 d))⋆ φ", None, "(ℝ × ℝ)⋆"),
    ("(λd : ℝ × ℝ. let j = J(λv. v)·(π1 d) in j (π2 d))⋆ φ", None, "(ℝ × ℝ)⋆"),
    ("(λd : ℝ × ℝ. let j = let e = π1 d in J(λv. v)·e in j (π2 d))⋆ φ", None, "(ℝ × ℝ)⋆"),
    ("(λd : ℝ × ℝ. let j = J(λv. v)·(π1 d) in λd. j d)⋆ φ", None, "(ℝ × ℝ)⋆"),
    # the variables in the map and in the direction: S jointly linear where P mentions them
    ("(λx. J(λ⟨v, u⟩. ⟨x, x⟩)·⟨x, x⟩)⋆ φ", None, "α⋆"),                      # 0
    ("(λx. let j = J(λ⟨v, u⟩. ⟨x, x⟩)·⟨x, x⟩ in j ⟨x, x⟩)⋆ φ", None, "α⋆"),
    ("(λx. J(λ⟨v, u⟩. x + v × u)·⟨x, 0⟩)⋆ φ", None, "ℝ⋆"),                # u x
])
def test_lin_accepts(src, env, shown):
    assert show_type(_lin_ok(src, env)) == shown


def test_lin_alone_knows_no_functionals():
    # without the checker's types, lin takes no variable for a functional
    from pullback_calc.syntax.parser import parse
    from pullback_calc.syntax.subst import linear, linear_needs
    body = parse("λx. ω (3 × x)").body
    assert not linear(body, frozenset("x"))
    assert linear(body, frozenset("x"), lambda name, k, binder: name == "ω" and k == 0)
    assert linear_needs(body, frozenset("x"), lambda *_: True) == {("ω", 0, None)}
    # a variable bound inside the term is asked about with its binder
    t = parse("λx. (λf. f x) g")
    assert linear_needs(t.body, frozenset("x"), lambda *_: True) == {("f", 0, t.body.fun)}
    assert not linear(t.body, frozenset("x"), lambda name, k, binder: binder is None)


def test_dual_map_functional_mismatch():
    with pytest.raises(TypeError_, match="functional") as e:
        infer(Dual(lam(v, T(v, v), R), Num(1)))
    assert e.value.expected == DualT(RR) and e.value.actual == R


def test_pullback():
    pb = Pullback(F, lam(z, lam(w, w)))
    assert infer(pb) == Arrow(RR, DualT(RR))
    assert show_type(infer(pb)) == "ℝ × ℝ → (ℝ × ℝ)⋆"
    assert infer(App(pb, T(Num(1.5), Num(2)))) == DualT(RR)
    # a 1-form whose body projects: λz. λw. π1 w : τ → τ⋆ with τ = ℝ × ℝ
    pb2 = Pullback(lam(x, T(x, x)), lam(z, lam(w, Proj(1, w))))
    assert infer(pb2) == Arrow(R, DualT(R))


def test_pullback_errors():
    with pytest.raises(TypeError_, match="1-form") as e:
        infer(Pullback(F, lam(z, z)))
    assert types_equal(e.value.expected, Arrow(R, DualT(R)))
    with pytest.raises(TypeError_, match="function of a pullback"):
        infer(Pullback(Num(1), lam(z, lam(w, w))))


def test_covector_application_and_dual_representative():
    assert infer(App(c, T(Num(1), Num(2))), {"c": DualT(RR)}) == R
    # k is first used as a function ℝ → β, then as a covector: ℝ⋆ wins
    t = lam(k, T(App(k, Num(1)), Dual(lam(v, P("mul", Num(3), v)), k)))
    assert show_type(infer(t)) == "ℝ⋆ → ℝ × ℝ⋆"


def test_church_list_sum():
    s = lam(l, App(App(l, lam(x, lam(Var("acc"), P("add", x, Var("acc"))))), Num(0)))
    cons = Var("cons")
    nil = Var("nil")
    church = lam(cons, lam(nil, App(App(cons, Num(1)), App(App(cons, Num(2)), nil))))
    assert types_equal(infer(s), Arrow(Arrow(Arrow(R, Arrow(R, R)), Arrow(R, TVar(-9))),
                                       TVar(-9)))
    assert infer(App(s, church)) == R


# ---- projections ------------------------------------------------------------------

SUM_PROJ = lam(y, P("add", Proj(1, y), Proj(2, y)))


def test_projection_postponed_then_resolved():
    assert infer(App(SUM_PROJ, T(Num(1), Num(2)))) == R
    f = Var("f")
    # not a let: the projection's argument type is only known at the very end
    assert infer(App(lam(f, App(f, T(Num(1), Num(2)))), SUM_PROJ)) == R
    assert infer(App(Var("g"), SUM_PROJ), {"g": Arrow(Arrow(RR, R), R)}) == R


def test_projection_unresolved_asks_for_annotation():
    t = lam(y, P("add", Proj(1, y, Pos(1, 7)), Proj(2, y, Pos(1, 14))))
    with pytest.raises(TypeError_, match="annotation") as e:
        infer(t)
    assert e.value.pos == Pos(1, 7) and "line 1, column 7" in e.value.message


def test_projection_with_annotation():
    assert infer(lam(y, SUM_PROJ.body, RR)) == Arrow(RR, R)


def test_projection_errors():
    with pytest.raises(TypeError_, match="out of range"):
        infer(Proj(3, T(Num(1), Num(2))))
    with pytest.raises(TypeError_, match="out of range"):
        infer(App(lam(y, Proj(3, y)), T(Num(1), Num(2))))
    with pytest.raises(TypeError_, match="product"):
        infer(Proj(1, Num(1)))
    with pytest.raises(TypeError_, match="out of range"):  # found after postponement
        infer(App(Var("g"), lam(y, Proj(3, y))), {"g": Arrow(Arrow(RR, R), R)})


# ---- error reporting ----------------------------------------------------------------

def test_mismatch_message_and_position():
    arg = Tuple((x, y), Pos(2, 9))
    with pytest.raises(TypeError_) as e:
        infer(Prim("sin", (arg,), Pos(2, 5)), {"x": R, "y": R})
    err = e.value
    assert "argument of sin" in err.message
    assert "expected ℝ" in err.message and "found ℝ × ℝ" in err.message
    assert err.pos == Pos(2, 9) and err.expected == R and err.actual == RR


def test_mismatch_position_falls_back_to_enclosing_node():
    with pytest.raises(TypeError_) as e:
        infer(Lam(T(x, y), P("add", Num(1), T(x, y)), None, Pos(5, 1)))
    assert e.value.pos == Pos(5, 1) and "right operand of +" in e.value.message


def test_application_errors():
    with pytest.raises(TypeError_, match="function of an application") as e:
        infer(App(Num(1), Num(2), Pos(1, 1)))
    assert e.value.actual == R and e.value.pos == Pos(1, 1)
    with pytest.raises(TypeError_, match="expected ℝ, found ℝ × ℝ"):
        infer(App(lam(x, P("sin", x)), T(Num(1), Num(2))))
    with pytest.raises(TypeError_, match="expected ℝ, found ℝ × ℝ"):
        infer(App(Var("f"), T(Num(1), Num(2))), {"f": Arrow(R, R)})


def test_sum_and_jacobian_mismatch():
    with pytest.raises(TypeError_, match="summand"):
        infer(Sum((Num(1), T(Num(1), Num(2)))))
    with pytest.raises(TypeError_, match="direction") as e:
        infer(Jac(lam(T(x, y), x), Num(1)))
    assert e.value.actual == R


def test_pattern_and_annotation_mismatch():
    with pytest.raises(TypeError_, match="annotated pattern"):
        infer(lam(T(x, y), x, R))
    with pytest.raises(TypeError_, match="value bound to"):
        infer(let(T(a, b), Num(1), a))
    with pytest.raises(TypeError_, match="value bound to"):
        infer(App(lam(x, x, RR), Num(1)))


def test_occurs_check():
    with pytest.raises(TypeError_, match="cannot construct infinite type"):
        infer(lam(x, App(x, x)))


def test_a_name_used_at_two_types_is_named_with_a_way_out():
    """The paper's let is simply typed ((λx. N) M): `twice twice` has no type, as in
    the simply typed λ-calculus, and the message says so and what to write instead."""
    import pullback_calc as pc
    src = "λx. let twice = λf. λt. f (f t) in twice {} (λa. a × x) 1"
    with pytest.raises(TypeError_, match="`twice` would need two types here.*second copy"):
        pc.typecheck(pc.parse(src.format("twice")))
    copy = "λx. let twice = λf. λt. f (f t) in let twice2 = λf. λt. f (f t) in " \
        "twice twice2 (λa. a × x) 1"
    assert list(pc.grad(copy, 0.5)) == [4 * 0.5 ** 3]  # (x⁴)' at 0.5


def test_dual_arrow_cycle_is_an_error_not_a_hang():
    # k : α → ℝ and also (α)⋆ with α = k's own type
    with pytest.raises(TypeError_):
        infer(lam(k, App(k, k)))
    with pytest.raises(TypeError_):
        infer(lam(k, Dual(lam(v, P("mul", Num(3), v)), App(k, k))))


# ---- types_equal ----------------------------------------------------------------------

def test_types_equal():
    a1, a2, b1 = TVar(-100), TVar(-101), TVar(-102)
    assert types_equal(Arrow(a1, a2), Arrow(b1, TVar(-103)))
    assert not types_equal(Arrow(a1, a1), Arrow(b1, TVar(-103)))
    assert not types_equal(Arrow(a1, a2), Arrow(b1, b1))
    assert types_equal(DualT(RR), Arrow(RR, R))
    assert types_equal(Arrow(R, DualT(R)), Arrow(R, Arrow(R, R)))
    assert not types_equal(DualT(R), Arrow(R, RR))
    assert not types_equal(Prod((R, R, R)), RR)


# ---- deep terms ------------------------------------------------------------------------

N = 10_000


def test_deep_sin_chain():
    t = x
    for _ in range(N):
        t = P("sin", t)
    assert infer(lam(x, t)) == Arrow(R, R)


def test_long_let_chain():
    t = Var(f"x{N}")
    for i in range(N, 0, -1):
        t = let(Var(f"x{i}"), P("add", Var(f"x{i - 1}"), Num(1)), t)
    assert infer(lam(Var("x0"), t)) == Arrow(R, R)


def test_deep_error_is_reported():
    t = T(x, x)
    for _ in range(N):
        t = P("sin", t)
    with pytest.raises(TypeError_, match="found"):
        infer(t)


def test_subterm_types_are_the_types_in_context():
    # the function of Ω(λx. 1) ω ⟨1, 2⟩ is ℝ × ℝ → ℝ only because of its point
    from pullback_calc.typing.check import subterm_types
    f = Lam(Var("x"), Num(1.0))
    w = Var("w")
    t = App(Pullback(f, w), Tuple((Num(1.0), Num(2.0))))
    got = subterm_types(t, {id(f), id(w)})
    assert set(got) == {id(f), id(w)}  # only the ones asked for
    assert show_type(got[id(f)]) == show_type(Arrow(RR, R))
    alone = subterm_types(f, {id(f)})[id(f)]
    assert isinstance(alone, Arrow) and isinstance(alone.dom, TVar)  # no context: open
    with pytest.raises(TypeError_):
        subterm_types(t, {id(f)}, expected=R)


def test_lin_reads_a_nest_of_failing_lets_in_linear_work(monkeypatch):
    """lin(S) re-reads a let of a tuple or a Jacobian with its value in place when
    the let alone fails (A-name's parts of a Jacobian linear through its point).
    Each constant tuple let fails only after its body is read, so re-reading at
    every let of a nest doubled the work per let: a fixed number of re-readings."""
    import pullback_calc as pc
    from pullback_calc.syntax import subst as S
    calls = []
    real = S.subst
    monkeypatch.setattr(S, "subst", lambda t, m: calls.append(1) or real(t, m))
    k = 14
    body = "sin(dx) × t0"
    src = body
    for i in range(k, 0, -1):
        src = f"let t{i} = ⟨t{i - 1}, 1⟩ in {src}"
    t = pc.parse(f"let t0 = 1 in {src}")
    assert not S.linear(t, frozenset({"dx"}))
    assert len(calls) <= S._INLININGS
    # and the case it is for still reads linear
    assert S.linear(pc.parse("let jac = J(λ⟨x, y⟩. 0)·⟨dx, 1⟩ in let p = ⟨0, 1⟩ in jac p"),
                    frozenset({"dx"}))


def test_projections_waiting_on_each_other_are_solved_in_linear_work():
    """A helper per level of a nest of tuples, ``out_i = λt. π1 t`` applied to the next
    one's result (testing.programs.TupleNest, "helper"): each projection is postponed
    (t's type unknown where it is read) and waits on the one applied inside it.  Retried
    in the order met, one was solved per pass: 54,713 → 201,497 calls from 96 to 192
    levels (the thorough profile, 2026-11-30, through the gradient's work per doubling).
    Alternate passes run backwards: linear."""
    import pullback_calc as pc
    from pullback_calc.results.rows import function_type
    from pullback_calc.testing.programs import TupleNest
    from pullback_calc.testing.work import count_calls

    nest = TupleNest("helper", ((1, 2),), "x", 0.3)

    def work(k):
        term = pc.parse(nest.text(k))
        return count_calls(lambda: function_type(term, 1))[0]
    work(3)
    a, b = work(96), work(192)
    assert b <= 2.2 * a, (a, b)
    assert str(function_type(pc.parse(nest.text(5)), 1)[1]) == "ℝ"
