# Nested differentiation: the second derivative of cos at 0, by a pullback
# of a pullback.  The inner term
#     λx. Ω(λy. cos(y)) (λz. λw. w) x 1        = λx. cos'(x) = λx. −sin x
# is itself differentiated by the outer pullback: after A-reduction the
# inner pullback is a named value pb applied to x, and rule 19b
# differentiates that application -- its premise reduces the pullback at a
# fresh point u to the covector λdy. −sin(u) × dy, which rule 18
# differentiates in u.  No numerical differentiation anywhere:
#     cos''(0) = −cos 0 = −1
#
# Reduces to:  -1
#
# Run it:
#     pullback-calc reduce examples/ho_second_derivative_cos.pb
#     pullback-calc reduce examples/ho_second_derivative_cos.pb --no-trace

Ω(λx. Ω(λy. cos(y)) (λz. λw. w) x 1) (λz. λw. w) 0 1
