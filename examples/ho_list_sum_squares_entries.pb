# sum ∘ map square, differentiated in the ENTRIES of the list: the usual gradient.
#
#     f = λ⟨x1, x2, x3⟩. sum (map (λx. x × x) (cons x1 (cons x2 (cons x3 nil))))
#
# The inputs are the three reals that build the list, not the Church list
# itself, so Ω differentiates in ℝ³: the covector at ⟨1, 2, 3⟩ is
#     λ⟨dx1, dx2, dx3⟩. 6 × dx3 ⊕ 4 × dx2 ⊕ 2 × dx1      (2·xᵢ, the gradient)
# and along ⟨10, 20, 30⟩ it gives Σ 2·xᵢ·tᵢ = 2·(10 + 40 + 90) = 280, the same
# as the tangent of a curve of lists (ho_list_sum_squares_curve.pb).  With the
# Church list itself as the input (ho_list_sum_squares.pb) the derivative is
# taken in the function space and the same tangent gives Σ tᵢ² = 1400:
# papers/calculus.md, "Derivatives in a function space", shows them side by side.
#
# Reduces to:  280
#
# Run it:
#     pullback-calc reduce examples/ho_list_sum_squares_entries.pb --no-trace
#     pullback-calc check  examples/ho_list_sum_squares_entries.pb

let nil = λf. λd. d in
let cons = λx. λl. λf. λd. f x (l f d) in
let sum = λl. l (λx. λacc. x + acc) 0 in
let map = λg. λl. λf. λd. l (λx. λacc. f (g x) acc) d in
Ω(λ⟨x1, x2, x3⟩. sum (map (λx. x × x) (cons x1 (cons x2 (cons x3 nil)))))
  (λz. λw. w)
  ⟨1, 2, 3⟩                                  # the point: the entries
  ⟨10, 20, 30⟩                               # the tangent: one per entry
