# Polar to Cartesian coordinates, R^2 -> R^2:
#     (r, t) |-> (r cos t, r sin t)
# Its Jacobian is [[cos t, -r sin t], [sin t, r cos t]]: at (2, 0.5) that is
#     [[0.8776, -0.9589], [0.4794, 1.7552]]  (to 4 places).
#
# Run it:
#     pullback-calc jacobian examples/polar.pb --at 2,0.5
#     pullback-calc jacobian examples/polar.pb --at 2,0.5 --row 1 --trace
#     pullback-calc check    examples/polar.pb --at 2,0.5

λ⟨r, t⟩. ⟨r × cos(t), r × sin(t)⟩
