# The dot product of two Church lists, differentiated w.r.t. the first, the
# second fixed at w = [4, 5, 6].
#
# Simple types (no polymorphism) cannot zip two Church lists, so the fixed
# list is first folded into a 3-slot register  vec3 w = ⟨4, 5, 6⟩  (lists of
# length ≤ 3), and the other list's foldr consumes it slot by slot, passing
# the shifted register on (a continuation k : ℝ × ℝ × ℝ → ℝ):
#     dot l w = l (λx. λk. λv. x × π1 v + k ⟨π2 v, π3 v, 0⟩) (λv. 0) (vec3 w)
#
# The pullback of λz. λw. w along λl. dot l [4, 5, 6] at l = [1, 2, 3] is a
# covector on Church lists -- dot itself with w already folded, as dot is
# linear in l:
#     λdl. dl (λx. λk. λv. x × π1 v + k ⟨π2 v, π3 v, 0⟩) (λv. 0) ⟨4, 5, 6⟩
# Applied to the unit lists [1,0,0], [0,1,0], [0,0,1] it gives the gradient
# 4, 5, 6; applied to [10, 20, 30] it gives 320.  dot is linear in the
# elements too, so here the two readings of a list tangent (a Church list,
# or the tangent of a curve of lists) agree.
#
# Reduces to:  λdl. dl (λx. λk. λv. x × π1 v + k ⟨π2 v, π3 v, 0⟩) (λv. 0) ⟨4, 5, 6⟩
#
# Run it:
#     pullback-calc reduce examples/ho_list_dot.pb --no-trace
#     pullback-calc reduce examples/ho_list_dot.pb --no-trace --ascii

let nil = λf. λd. d in
let cons = λx. λl. λf. λd. f x (l f d) in
let vec3 = λw. w (λx. λv. ⟨x, π1 v, π2 v⟩) ⟨0, 0, 0⟩ in
let dot = λl. λw. l (λx. λk. λv. x × π1 v + k ⟨π2 v, π3 v, 0⟩) (λv. 0) (vec3 w) in
Ω(λl. dot l (λc. λn. c 4 (c 5 (c 6 n)))) (λz. λw. w) (cons 1 (cons 2 (cons 3 nil)))
