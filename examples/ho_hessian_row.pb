# A Hessian row by nested pullbacks (reverse over reverse), for
#     f(x, y) = x² y + sin(x y)        at (0.7, 1.3).
# The inner pullback, applied to the direction ⟨1, 0⟩, is ∂f/∂x as a function
# of ⟨x, y⟩; the outer pullback's covector is its gradient, row 0 of the
# Hessian:  [2y − y² sin(xy),  2x + cos(xy) − xy sin(xy)]
#         = [1.2657386799239838, 1.2952973463709567]
# (pullback_calc.hessian_row builds the same term.)
#
# Reduces to:  λ⟨dx, dy⟩. 1.2657386799239838 × dx ⊕ 1.2952973463709567 × dy
#
# Run it:
#     pullback-calc reduce examples/ho_hessian_row.pb --no-trace
#     pullback-calc reduce examples/ho_hessian_row.pb

Ω(λ⟨x, y⟩. Ω(λ⟨x, y⟩. x × x × y + sin(x × y)) (λz. λw. w) ⟨x, y⟩ ⟨1, 0⟩)
  (λz. λw. w) ⟨0.7, 1.3⟩
