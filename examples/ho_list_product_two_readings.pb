# The product of a Church list, prod = λl. foldr (λx. λacc. x × acc) 1 l, at
# [1, 2, 3], differentiated w.r.t. the list in both readings, side by side:
#
#   ⟨ along the Church list v = [10, 20, 30]             (function space),
#     along the tangent of t ↦ [1 + 10t, 2 + 20t, 3 + 30t]  (curve of lists) ⟩
#
# prod only applies l, so it is linear in l as a function: along the Church
# list v its derivative is prod v = 10·20·30 = 6000.  Along the curve the
# elements move, and the derivative is the usual gradient
# Σ vᵢ·Πⱼ≠ᵢ xⱼ = 10·6 + 20·3 + 30·2 = 180.
#
# Reduces to:  ⟨6000, 180⟩
#
# Run it:
#     pullback-calc reduce examples/ho_list_product_two_readings.pb --no-trace

let nil = λf. λd. d in
let cons = λx. λl. λf. λd. f x (l f d) in
let prod = λl. l (λx. λacc. x × acc) 1 in
⟨ Ω(prod) (λz. λw. w) (cons 1 (cons 2 (cons 3 nil))) (cons 10 (cons 20 (cons 30 nil))),
  Ω(prod) (λz. λw. w) (cons 1 (cons 2 (cons 3 nil)))
    ((J(λt. cons (1 + 10 × t) (cons (2 + 20 × t) (cons (3 + 30 × t) nil)))·1) 0) ⟩
