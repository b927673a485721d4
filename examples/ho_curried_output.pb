# A curried output (rule 18, D-curry): f = λx. λy. x × y : ℝ → (ℝ → ℝ).
# A 1-form on ℝ → ℝ is given as λh. λdh. dh 3: "the tangent function at 3".
# Pulling it back along f at x = 2: the tangent of f at 2 along dx is the
# function λy. dx × y (rule 18 differentiates under λy), which at 3 is 3·dx:
#     λdx. 3 × dx
#
# Reduces to:  λdx. 3 × dx
#
# Run it:
#     pullback-calc reduce examples/ho_curried_output.pb
#     pullback-calc reduce examples/ho_curried_output.pb --no-trace

Ω(λx. λy. x × y) (λh. λdh. dh 3) 2
