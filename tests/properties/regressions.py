"""Every counterexample the property suite has found, kept as an explicit
``@example`` regression (terms as concrete syntax), and the engine bugs that
are still open.

When a property fails, Hypothesis prints the shrunk counterexample; add its
``pretty`` form to the list of that property here.  If it is an engine bug
that is not fixed yet, add it to ``KNOWN_ENGINE_BUGS`` instead (with the
value the term should have), and teach ``known_engine_bug`` (stuck values)
or ``linearity_bug`` (subject reduction) its signature so that the properties set it aside:
``test_prop_known_bugs.py`` runs the bug's terms as strict xfails, so the day
the engine is fixed the test reports it, and the terms move to the
regressions proper (and the signature goes).
"""
from __future__ import annotations

from hypothesis import example

import pullback_calc as pc
from pullback_calc.syntax.terms import Term

# ---- found by the generators, now passing ------------------------------------------------

#: parse ∘ pretty (both spellings) must be the identity up to α
ROUND_TRIP = [
    # a negative numeral on the right of an operator: ``a − -1`` must print as ``a − (-1)``
    "1 − (-1)",
    "neg(2) ^ 2",
    "(-2) ^ 2",
    "let v : ℝ × ℝ = 𝟎 in v",
    "(λx : (ℝ × ℝ)⋆. x) (λ⟨a, b⟩. a)",
    "(λ⟨x, y⟩ : ℝ × ℝ. x)⋆ (λω. ω)",
    "(λω. ω) ⊕ (λdx. dx)",
    "λx_1. x_1",
]

#: closed terms of type ℝ: they reduce to a numeral equal to the oracle's value
CLOSED_REAL = [
    "J(λx : (ℝ × ℝ)⋆. -2)·(λz : ℝ × ℝ. π1 z) (λz : ℝ × ℝ. π1 z) ^ 2",
    "(let b : ℝ × ℝ = let v : ℝ × ℝ = 𝟎 in v in 𝟎) ^ 3 ⊕ exp(tanh(let w = ⟨1.5, λω. ω⟩ in π1 w))",
    "(λf. f)⋆ (λg. 3 × g 0.5) (J(λf. 𝟎)·(J(λw. 2)·(λu. -1) (λz. -1)))",
    # D-eval into the zero function 𝟎 (was stuck: 𝟎 taken for the paper's value 2)
    "Ω(λx. Ω(λy. 3) (λz. λw. w) x x) (λz. λw. w) 1 1",
    "(J(λc. (J(λd. d)·c) c)·1) 𝟎",
    # like atoms of a function type collected as 2 × g (was ill-typed and stuck)
    "Ω(λg. g ⊕ g) (λz. λw. w 1) (λx. x) (λx. 5 × x)",
    # a user's dx captured by the direction of x (was 2 instead of cos(1.2))
    "Ω(λz. let dx = 1 in let x = z in dx) (λz. λw. w) 1.2 1",
    "Ω(λz. let dx = sin(z) in let x = 2 × z in dx) (λz. λw. w) 1.2 1",
    # rule 17 declined on a function of the environment (was stuck)
    "(J(λ⟨g, x⟩. (J(λy. g y)·x) 2)·⟨λc. c, 1⟩) ⟨λc. c × c, 1⟩",
    "Ω(λx. let g = λc. c in (J(λy. g y)·x) 1) (λz. λw. w) 0 1",
    # rule 6 captured a free variable of the inner map (was 9 instead of 3)
    "((λω. (λx. ((λx. x)⋆ ((λy. y × x)⋆ ω)) 3)⋆ (λw. w))⋆ (λf. f 1)) (λw. w)",
    # D-eval into a Jacobian value at a symbolic point (bug d-eval-into-jacobian-value, was
    # stuck): 19c no longer looks inside the function when the argument's tangent is 0,
    # and 19b keeps the derivative of a function it cannot look inside as a value-1 form
    "Ω(λp. J(λx. x (λy. 1))·(λg. 1) p) (λz. λw. w) (λg. 1) (λg. 1)",
    "Ω(λx. let k = λa. λb. 1 in J(λy. k 1 (k 1 1))·1 1) (λz. λw. w) 0 1",
    "Ω(λa. Ω(λg. g (g a)) (λz. λw. w) (λx. x) (λx. x)) (λz. λw. w) 0.5 1",
    # a let-bound helper of two arguments used by an inner pullback (was stuck)
    "Ω(λx. let k = λa. λb. a × b in Ω(λy. k y y) (λz. λw. w) x 1) (λz. λw. w) 0.5 1",
    # found by test_prop_progress (thorough): an unknown function k (k 1 1), not a
    # variable, in function position; 19b once put it in the map of J(λz. ā₁ z)·T₀,
    # where rule 17 could not look inside it later (now: in the point)
    "Ω(λx. let k = λx. π1 ⟨λx. 1, x⟩ in Ω(λx. k (k 1 1) x) (λz. λw. w) 1 1) (λz. λw. w) 0.1 0.25",
    # the thorough profile (2026-12-01, test_higher_order_rows_…): rule 6 composed the maps
    # of a tuple-valued Jacobian's derivative reading x ⊕ x (x : ℝ × ℝ) as the real
    # combination 2 × x -- ill-typed, and the gradient stuck at π1 0
    "Ω(λ⟨x1, x2⟩. π1 (J(λx : ℝ × ℝ. ⟨x1, π1 x⟩ ⊕ x ⊕ x)·⟨1, 1⟩ ⟨1, 1⟩)) (λz. λw. w) "
    "⟨0, 0⟩ ⟨1, 0⟩",
    # the thorough profile (2026-12-01, test_subject_reduction_higher_order): at's
    # parameter g and the pullback's g share the direction name dg, and rule pb bound the
    # outer dg, free in the point ⟨⟨1, 1⟩, λx. dg⟩, by the inner stage map's pattern
    "let at = λx. λg. g x in Ω(λg. J(λx. at x (λx. g))·1 1) (λx. λw. w) 0.1 0.25",
]

#: closed terms (of any type) whose every step must preserve the type
SUBJECT_REDUCTION = [
    # β drops the annotation: π1 𝟎 is typable, but the checker cannot infer it
    "π1 (let x = 1 in let x = 1 in let v : ℝ × ℝ = 𝟎 in v)",
    # rule 3 makes 𝟎 the numeral 0 in a dual map's body (lin(S) rejected the numeral 0)
    "(λx. x + 𝟎)⋆ (λw. w)",
    "Ω(λg. g ⊕ g) (λz. λw. w 1) (λx. x) (λx. 5 × x)",
    # rule 6 captured x (open: x, ω free): (λx. x 1 × x)⋆ ω is ill-typed
    "(λx. x)⋆ ((λy. y 1 × x)⋆ ω)",
    # A-reduction under a dual map's binder: let app = d mul in app (lin rejected it)
    "(λd. (J(λy. d (y × y))·1) 2)⋆ (λw. w)",
    # 16c's premise was stuck on the map's binder y (value 1) and left y in the point of
    # a Jacobian (bug dual-body-not-linear-after-16c): 19b now reads y as λz. y z
    "(J(λx. (λy. y x x)⋆ (λw. w))·1) 2",
    # rule 9 leaves 2 × 𝟎 in a dual map's body (bug zero-argument-not-linear): lin(S)
    # now takes a product with a zero factor for 0, linear in everything
    "((λc. 2 × (J(λz. 1)·c) 1)⋆ (λa. a)) 3",
    # an inner pullback's covector at a symbolic point, differentiated: u × 0 in its body
    "Ω(λx. let k = λa. λb. a × b in Ω(λy. k y y) (λz. λw. w) x 1) (λz. λw. w) 0.5 1",
    # A-name under a dual map's binder: let v = 𝟎 in v + π1 dx (lin took v for a constant)
    "Ω(λx : ℝ × ℝ. J(λy. 𝟎 + π1 x)·(λx. x)) (λx. λw. w (λx. x)) ⟨0.1, 0.1⟩ ⟨0.25, 0.25⟩",
    # dual-app moves x into the argument of ω: (λx. ω (3 × x))⋆ (λw. w) (lin rejected the
    # application of a functional; the checker now types ω as one)
    "((λω. (λx. ((λy. y × x)⋆ ω) 3)⋆ (λw. w))⋆ (λf. f 1)) (λw. w)",
    # 16c, then A-name names the Jacobian J(λv. v)·(π1 dv) applied at the point π2 dv
    "Ω(λv : ℝ × ℝ. J(λx. J(λv. v)·(π1 v) (π2 v))·(let h = λy. y in λu. u)) "
    "(λy. λw : ℝ⋆ → ℝ. w (λu. 𝟎)) ⟨0.3, -0.2⟩ ⟨-1.5, 2.75⟩",
    # found by the thorough profile (bug 16b-unused-let-in-J-point): the lazy 18L tangent of
    # a tuple component carried the whole environment, and with it the names of the dual
    # map's kept lets (app_10 = x …) into a J's point its body never reads, a position
    # lin(S) rejects.  18L now keeps only the coordinates the body uses.
    "let map = λg. λl. λc. λn. l (λx. λacc. c (g x) acc) n in Ω(λl. map (λx. 1) "
    "(λx. λx. 1) (λx. λx. 1) ((λx. ⟨x (λx. λx. 1) 1, x (λx. λx. l) 1⟩)⋆ "
    "(λx : ℝ × ℝ. π1 x) (λx. λx. 1))) (λx. λw. w) 0.1 0.25",
    # found by the thorough profile (2026-11-28): rule 13 leaves J(λ⟨x, y⟩. 0)·⟨dx, 1⟩ ⟨0, 1⟩
    # in a dual map's body (linear through its point), and A-name binds the Jacobian by a
    # let, which lin(S) rejected: the direction ⟨dx, 1⟩ alone is not linear in dx
    "Ω(λx. J(λy. J(λ⟨x, y⟩. 0)·⟨x, 1⟩ ⟨0, 1⟩)·1) (λx. λw. w 1) 0.1 0.25",
    # the thorough profile (2026-11-28, second run): A-name names the function of
    # (let c = λx. λx. dl in λn. n) 𝟎, a constant function applied to a zero, and lin(S)
    # rejected let app = … in app 𝟎 (the value alone is not linear in dl)
    "let nil = λc. λn. n in Ω(λl. J(λx. nil (λx. λx. l) 𝟎)·1) (λx. λw. w 1) 0.1 0.25",
]

#: terms whose decomposition at every step the naive decomposer must reproduce
DECOMPOSITION = [
    # J(λx. 1)·0: the numeral 0 is a zero vector, absorbing in the direction (rule 3)
    "let x = 1 in J(λx. 1)·0 1",
    # issue 26: D-curry inside a forward premise (18L, the forward judgment), whose lazy
    # tangent left the premise unreduced into rule 18's value
    "let x = 2 in (J(λx. let x = let x = ⟨1, 1⟩ in λy. λv. π1 x in ⟨1, 1⟩)·1) x",
    # found by the thorough profile (2026-11-28): 8J binds an inert direction, a formal sum
    # with an inert item, by a let, which the naive decomposer took for a β-redex (its
    # notion of inert lagged §8's: a sum with an inert item is inert)
    "Ω(λx. let sum = λl. l (λx. λacc. x + acc) 0 in sum (λf. λd. f x (f (let a1 = x in "
    "let a2 = cos(a1) × a1 in let a3 = sin(a2 × a2) + x in let a4 = cos(a3) × a3 in a4) "
    "(f (let p8 = λy5. -1 in Ω(p8) (λmul_16. λw7. w7) x x) d)))) (λz. λw. w) 0.9 1",
    # found by the CI profile once a search took another path (2026-11-29): 8c moves an
    # abstraction used once as the body of another (let app_2 = λy. x_4); the naive
    # decomposer counted a λ's body as an operand A-name would bind again, and gave 8
    "Ω(λx : ℝ × ℝ. (λx. ⟨x 1 1, x 1 1⟩)⋆ (λx : ℝ × ℝ. π1 x) (let x = λy. π1 x in λy. x)) "
    "(λx. λw. w) ⟨0.1, 0.1⟩ ⟨0.25, 0.25⟩",
    # rules 8Js and 8Jz (2026-11-29): a covector's coefficient h z (a second derivative)
    # moved after its atom J(λy. p y)·dy u, which is 0 (p constant), and its tangent dropped
    "Ω(λx. let grad1 = λf. λz. Ω(f) (λa. λw. w) z 1 in let p = λy. x in let h = λm. grad1 "
    "(grad1 (λu. sin(u × u × m))) m in Ω(p) (λz. λw. h z × w) 1 1 + h x) (λa. λw. w) 0.3 1",
    # pbc (2026-11-29): the pullback along a constant map, a let series that reads no x
    "Ω(λx. let a = sin(2) in let b = a × a in b) (λz. λw. z × w) 0.5 1",
    # 8Jz alone, and a product whose left factor is the zero one
    "(J(λ⟨x, y, f⟩. let b = y × 1 in let a = f x in a × b)·⟨1, 1, λt. 1⟩) ⟨0.5, 0, λt. sin(t)⟩",
    "(J(λ⟨x, y, f⟩. let b = y × 1 in let a = f x in b × a)·⟨1, 1, λt. 1⟩) ⟨0.5, 0, λt. sin(t)⟩",
    # 8c copies a helper over x passed where another helper only calls it (2026-11-29):
    # to twice, to a partial application of comp, and inside an abstraction passed to
    # twice in a third helper's body (h is then called by pr's body, through twice)
    "Ω(λx. let h = λa. sin(a) × (x + 1) in let tw = λg. λm. g (g m) in tw h x) "
    "(λz. λw. w) 0.3 1",
    "Ω(λx. let h = λa. sin(a) × (x + 1) in let comp = λf. λg. λz. f (g z) in comp h h x) "
    "(λz. λw. w) 0.3 1",
    "Ω(λx. let h = λa. sin(a) × (x + 1) in let tw = λg. λm. g (g m) in let pr = λa. "
    "⟨tw (λt. sin(h t)) a, 1⟩ in let ⟨u, v⟩ = pr x in u × v) (λz. λw. w) 0.3 1",
    # ... and into map's partial application, whose list (a helper) calls the closure
    "Ω(λx. let map = λg. λl. λf. λd. l (λx. λacc. f (g x) acc) d in let h = λe. sin(e × x) "
    "in let m = map h in let l = λf. λd. f x (f 2 d) in m l (λa. λb. a + b) 0) "
    "(λz. λw. w) 0.3 1",
    # ... and the list first, passed to map's partial application, which applies h
    "Ω(λx. let map = λg. λl. λf. λd. l (λx. λacc. f (g x) acc) d in let h = λe. sin(e × x) "
    "in let l = λf. λd. f x (f 2 d) in map h l (λa. λb. a + b) 0) (λz. λw. w) 0.3 1",
    # ... and a helper that returns a closure after a let, the closure calling the copy
    "Ω(λx. let h = λa. sin(a) × (x + 1) in let mk = λm. let s = sin(m) in λt. h (t × s) in "
    "mk 1 x) (λz. λw. w) 0.3 1",
    # ... and to map's partial application applied to a list built by cons, whose cells
    # pass the folding closure on to their tails, down to nil
    "Ω(λx. let nil = λf. λd. d in let cons = λx. λl. λf. λd. f x (l f d) in let map = λg. "
    "λl. λf. λd. l (λx. λacc. f (g x) acc) d in let h = λe. sin(e × x) in map h (cons x "
    "(cons 2 nil)) (λa. λb. a + b) 0) (λz. λw. w) 0.3 1",
    # ... and with the list library bound outside the map (the cells then closures whose
    # tails are lets of the series, one named l as map's binder is)
    "let nil = λf. λd. d in let cons = λx. λl. λf. λd. f x (l f d) in let sum = λl. l "
    "(λx. λacc. x + acc) 0 in let map = λg. λl. λf. λd. l (λx. λacc. f (g x) acc) d in "
    "Ω(λx. let g = λe. sin(e × x) in sum (map g (cons 1 (cons 2 (cons 3 nil))))) "
    "(λz. λw. w) 0.3 1",
    # ... and to a list a Church numeral builds (a call of known code on known arguments,
    # its value applied), through an alias of a helper of two conses
    "Ω(λx. let nil = λf. λd. d in let cons = λx. λl. λf. λd. f x (l f d) in let map = λg. "
    "λl. λf. λd. l (λx. λacc. f (g x) acc) d in let g = λe. sin(e × x) in map g (let two = "
    "λl. cons (x × x) (cons (x × x) l) in (λf. λa. f (f a)) two nil) (λa. λb. a + b) 0) "
    "(λz. λw. w) 0.3 1",
    # ... and inside a direction a pullback is applied to, in another helper's body
    "Ω(λx. let m = λa. sin(a) × (x + 1) in let h = λa. Ω(λg. g a) (λz. λw. w) (λt. t) "
    "(λt. m t) in h x) (λz. λw. w) 0.3 1",
    # ... and as the map of a pullback (grad1 = λf. λz. Ω(f) ω z 1, applied to a closure
    # that calls the helper)
    "Ω(λx. let grad1 = λf. λz. Ω(f) (λa. λw. w) z 1 in let h = λa. sin(a) × (x + 1) in "
    "grad1 (λt. h (t × t)) x) (λz. λw. w) 0.3 1",
    # ... and in a pullback's 1-form (which rule pb applies to the map's value)
    "Ω(λx. let h = λa. sin(a) × (x + 1) in let k = λa. Ω(λy. y × y) (λz. λw. h z × w) a 1 "
    "in k x) (λz. λw. w) 0.3 1",
    # ... but not where the helper passes its parameter on (k, a list's fold) or stores it
    "Ω(λx. let h = λa. sin(a) × (x + 1) in let k = λg. λm. ⟨g, m⟩ in π1 (k h x) x) "
    "(λz. λw. w) 0.3 1",
    # ... and pulled back along at the top of the series (Ω(q) ω P D: rule pb runs q's
    # body there; the thorough profile, 2026-11-29, at 3133648)
    "Ω(λx. let q = λy. sin(y) × x in Ω(q) (λm. λw. x × w) 1 1) (λz. λw. w) 0.3 1",
    # ... but not when the pullback, the call of twice, or map's partial application on a
    # list is stored, not applied to the end: what it would run never runs in the series
    # (the naive decomposer lacked these guards until 2026-11-29; the engine had them)
    "Ω(λx. let q = λy. sin(y) × x in let p = ⟨Ω(q) (λm. λw. x × w), 1⟩ in π1 p 1 1) "
    "(λz. λw. w) 0.3 1",
    "Ω(λx. let h = λa. sin(a) × (x + 1) in let tw = λg. λm. g (g m) in let r = tw h in "
    "let p = ⟨r, 1⟩ in (π1 p) x) (λz. λw. w) 0.3 1",
    "Ω(λx. let h = λa. sin(a) × (x + 1) in let tw = λg. λm. g (g m) in let k = λa. "
    "⟨tw h, a⟩ in (π1 (k 1)) x) (λz. λw. w) 0.3 1",
    "Ω(λx. let map = λg. λl. λf. λd. l (λx. λacc. f (g x) acc) d in let h = λe. "
    "sin(e × x) in let m = map h in let l = λf. λd. f x (f 2 d) in let r = m l in let p = "
    "⟨r, 1⟩ in (π1 p) (λa. λb. a + b) 0) (λz. λw. w) 0.3 1",
    # ... and foldl's folding function, the list foldl's second argument: the look-ahead
    # follows the chain of partial applications (foldl g x, then the list; the thorough
    # profile, 2026-11-29, at 3d1d8b6), also in a closure passed to twice
    "Ω(λx. let foldl = λf. λz. λl. l (λx. λk. λacc. k (f acc x)) (λacc. acc) z in let g = "
    "λacc. λel. acc × x + el in foldl g x (λf. λd. f 1 (f x d))) (λz. λw. w) 0.3 1",
    "Ω(λx. let foldl = λf. λz. λl. l (λx. λk. λacc. k (f acc x)) (λacc. acc) z in let tw = "
    "λg. λm. g (g m) in tw (λt. sin(foldl (λacc. λel. acc × t + el) t (λf. λd. f 1 (f t "
    "d)))) x) (λz. λw. w) 0.3 1",
    # ... and through a call of comp taken out of a pair and applied, (π1 ⟨comp h h, 0⟩) b
    # (rule 2 makes it comp h h b; the thorough profile, 2026-11-29, at 625bea0), with
    # the last argument after the projection too -- but not when the pair's other item
    # is taken (π2 ⟨comp h h, b⟩: the call never runs)
    "Ω(λx. let h = λa. sin(a) × (x + 1) in let comp = λf. λg. λz. f (g z) in let k = λb. "
    "(π1 ⟨comp h h, 0⟩) b in k x) (λz. λw. w) 0.3 1",
    "Ω(λx. let h = λa. sin(a) × (x + 1) in let comp = λf. λg. λz. f (g z) in let k = λb. "
    "(π1 ⟨comp h, 0⟩) h b in k x) (λz. λw. w) 0.3 1",
    "Ω(λx. let h = λa. sin(a) × (x + 1) in let comp = λf. λg. λz. f (g z) in let k = λb. "
    "π2 ⟨comp h h, b⟩ in k x) (λz. λw. w) 0.3 1",
    # rule 1 keeps an inert let read a few lets on (2026-11-29): the adjoints of tanh
    # written with exp interleave (c₂₄ = c₂₃ × (-1), read by c₂₈), at its second derivative
    "Ω(λx. Ω(λx. (exp(x) − exp(−x)) / (exp(x) + exp(−x))) (λz. λw. w) x 1) (λz. λw. w) 0.5 1",
    # ... but not when the chain's result is stored (foldl g x in a pair)
    "Ω(λx. let foldl = λf. λz. λl. l (λx. λk. λacc. k (f acc x)) (λacc. acc) z in let g = "
    "λacc. λel. acc × x + el in let p = ⟨foldl g x, 1⟩ in (π1 p) (λf. λd. f 1 (f x d))) "
    "(λz. λw. w) 0.3 1",
    # a let in a helper's body binds a map that calls the helper h being copied, and the
    # pullback's point calls h too (the thorough profile, 2026-11-29, at c714e97): the
    # let's abstraction applies h, known code once h is copied -- but not a function
    # that is no helper (f, an input function: h stays a coordinate)
    "Ω(λx. let h = λb. sin(b) + x in let g = λa. (let p = λy. h y in Ω(p) (λz. λw. w) "
    "(h a) 1) in g 0.5) (λz. λw. w) 0.3 1",
    "Ω(λ⟨x, f⟩. let h = λb. sin(b) + x in let g = λa. (let p = λy. h y in Ω(p) (λz. λw. w) "
    "(f (h a)) 1) in g 0.5) (λz. λw. w) ⟨0.3, λt. t × t⟩ ⟨1, λt. 0⟩",
]

#: open terms (free x : ℝ, v : ℝ × ℝ, …) whose decomposition the naive decomposer
#: must reproduce
OPEN_DECOMPOSITION = [
    # the thorough profile (2026-11-28): a kept let of a formal sum with an inert item
    # (1 ⊕ π1 v) in the functional of a dual map, lifted out of it
    "Ω(λx : ℝ × ℝ. −π1 x) (λx. λw. w) (let x = x in ⟨1, 1⟩ ⊕ ⟨π1 v, 1⟩) v",
    # 8Js at an open point: the coefficient f z moves after the atom y × x (x free)
    "(J(λ⟨z, y, f⟩. let a = f z in let b = y × x in a × b)·⟨1, 1, λt. 1⟩) ⟨0.5, 0, λt. sin(t)⟩",
]


def examples(sources, *, wrap=lambda t: t):
    """A decorator adding ``@example(wrap(parse(s)))`` for each source string."""
    def deco(f):
        for s in reversed(list(sources)):
            f = example(wrap(pc.parse(s)))(f)
        return f
    return deco


# ---- engine bugs still open ----------------------------------------------------------------

#: name → (summary, [(closed term of type ℝ, the value it should reduce to)], [closed terms
#: every reduct of which should type-check]): the shrunk counterexamples.
KNOWN_ENGINE_BUGS = {
}


# ---- the signatures of the open bugs ---------------------------------------------------------


def known_engine_bug(value: Term):
    """The name of the open engine bug a stuck term shows, or None.  (None is
    open now: the last one, d-eval-into-jacobian-value, was fixed with progress
    at ℝ, issue 9; a closed term of type ℝ that does not reduce to a numeral is
    a failure.)"""
    return None


def linearity_bug(step, reduct: Term):
    """The open bug that explains why the checker rejects a dual map of
    ``reduct``, the term after ``step``, as not linear, or None.  (None is open:
    the last one, 16b-unused-let-in-J-point, was fixed in rule 18L, which keeps
    only the coordinates of the environment the body uses; the four before it,
    16b/16c, A-name of a 𝟎, a 𝟎 argument of × and dual-app, in lin(S), §2.5.)"""
    return None


__all__ = ["ROUND_TRIP", "CLOSED_REAL", "SUBJECT_REDUCTION", "DECOMPOSITION",
           "OPEN_DECOMPOSITION", "examples",
           "KNOWN_ENGINE_BUGS", "known_engine_bug", "linearity_bug"]
