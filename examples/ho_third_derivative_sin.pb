# Three nested pullbacks: the third derivative of sin at 0.3,
#     sin'''(0.3) = −cos 0.3 = −0.955336489125606
#
# Reduces to:  -0.955336489125606
#
# Run it:
#     pullback-calc reduce examples/ho_third_derivative_sin.pb --no-trace
#     pullback-calc reduce examples/ho_third_derivative_sin.pb

Ω(λx. Ω(λy. Ω(λz. sin(z)) (λz. λw. w) y 1) (λz. λw. w) x 1) (λz. λw. w) 0.3 1
