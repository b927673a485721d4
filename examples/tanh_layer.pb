# A small neural-network layer, R^3 -> R^2: two tanh units with fixed weights
# and biases, then a linear read-out.  Row p of the Jacobian is what reverse
# mode (backpropagation) computes for output p.
#
# Run it:
#     pullback-calc jacobian examples/tanh_layer.pb --at 0.5,-1,2
#     pullback-calc check    examples/tanh_layer.pb --at 0.5,-1,2
#     pullback-calc check    examples/tanh_layer.pb --at -0.3,0.2,0.1

λ⟨x1, x2, x3⟩.
  let h1 = tanh(0.5 × x1 − 0.25 × x2 + 0.1 × x3 + 0.2) in   # hidden unit 1
  let h2 = tanh(−0.3 × x1 + 0.8 × x2 − 0.5 × x3 − 0.1) in   # hidden unit 2
  ⟨1.5 × h1 − 2 × h2 + 0.05, h1 × h2⟩                        # read-out
