# The running example of Mak & Ong (Example 3.1):
#
#     f(x, y) = ((x + 1)(2x + y^2))^2        f : R x R -> R
#
# Its Jacobian at (1.5, 2) is [420, 350]:
#     df/dx = 2(x+1)(2x+y^2) * ((2x+y^2) + 2(x+1)) = 2 * 2.5 * 7 * 12 = 420
#     df/dy = 2(x+1)(2x+y^2) * (x+1) * 2y          = 2 * 17.5 * 2.5 * 4 = 350
#
# Run it:
#     pullback-calc demo                                    (this example, explained)
#     pullback-calc jacobian examples/running_example.pb --at 1.5,2
#     pullback-calc jacobian examples/running_example.pb --at 1.5,2 --trace
#     pullback-calc check    examples/running_example.pb --at 1.5,2

λ⟨x, y⟩. ((x + 1) × (2 × x + y ^ 2)) ^ 2
