# A curried output with a non-linear body: f = λx. λy. sin(x × y), the 1-form
# λh. λdh. dh 3 (evaluate the tangent function at 3), at x = 2, applied to
# the tangent dx = 1:  d/dx sin(3x) at 2 = 3 cos 6 = 2.880510859951098.
#
# Reduces to:  2.880510859951098
#
# Run it:
#     pullback-calc reduce examples/ho_curried_output_sin.pb
#     pullback-calc reduce examples/ho_curried_output_sin.pb --no-trace

Ω(λx. λy. sin(x × y)) (λh. λdh. dh 3) 2 1
