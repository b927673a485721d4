# A sum of products around a cycle, R^4 -> R:
#     f(a, b, c, d) = ab + bc + cd + da
# Its gradient is (b + d, a + c, b + d, a + c): at (1, 2, 3, 4) it is [6, 4, 6, 4].
#
# Run it:
#     pullback-calc jacobian examples/sum_of_products.pb --at 1,2,3,4
#     pullback-calc check    examples/sum_of_products.pb --at 1,2,3,4

λ⟨a, b, c, d⟩. a × b + b × c + c × d + d × a
