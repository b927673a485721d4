# sum ∘ map square on Church lists, differentiated along a CURVE of lists:
# the usual gradient.
#
#     f = λl. sum (map (λx. x × x) l)          at the point  l = [1, 2, 3]
#
# The tangent here is the velocity at t = 0 of the curve of lists
#     t ↦ [1 + 10t, 2 + 20t, 3 + 30t],
# written (J(λt. cons (1 + 10 × t) …)·1) 0: a function-valued Jacobian, so
# the elements themselves are perturbed and the derivative is the usual
# Σ 2·xᵢ·vᵢ = 2·(10 + 40 + 90) = 280.  With the Church list [10, 20, 30]
# itself as the tangent (ho_list_sum_squares.pb) the answer is 1400 = Σ vᵢ²
# instead: that adds [10, 20, 30] to [1, 2, 3] as a function (pointwise in
# the fold's arguments), and f, which only applies its list, is linear in
# that sense.  Both are derivatives of the same f; they differ in the
# direction, a list of numbers versus the tangent of a curve of lists.
#
# Reduces to:  280
#
# Run it:
#     pullback-calc reduce examples/ho_list_sum_squares_curve.pb --no-trace
#     pullback-calc reduce examples/ho_list_sum_squares_curve.pb

let nil = λf. λd. d in
let cons = λx. λl. λf. λd. f x (l f d) in
let sum = λl. l (λx. λacc. x + acc) 0 in
let map = λg. λl. λf. λd. l (λx. λacc. f (g x) acc) d in
Ω(λl. sum (map (λx. x × x) l)) (λz. λw. w)
  (cons 1 (cons 2 (cons 3 nil)))                                          # the point
  ((J(λt. cons (1 + 10 × t) (cons (2 + 20 × t) (cons (3 + 30 × t) nil)))·1) 0)   # the tangent
