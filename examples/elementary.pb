# Every function symbol but sin, cos and tanh, R^2 -> R^3:
# exp, log, sqrt, ^ (with a variable exponent too), tan, /, unary minus.
# (log and sqrt need positive arguments, so keep x, y > 0.)
#
# Run it:
#     pullback-calc jacobian examples/elementary.pb --at 0.7,1.3
#     pullback-calc check    examples/elementary.pb --at 0.7,1.3
#     pullback-calc check    examples/elementary.pb --at 2,0.25

λ⟨x, y⟩.
  ⟨ exp(x / y) + log(x × y) × sqrt(x + y),
    x ^ y − tan(x / 2) ^ 2,
    −(1 / (x + y ^ 3)) + sqrt(exp(−x)) ⟩
