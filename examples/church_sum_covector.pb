# Example 3.2 of Mak & Ong without the tangent: the pullback of λz. λw. w
# along sum = λl. l (λx. λacc. x + acc) 0 at the Church list [1, 2, 3].
# The normal form is a covector on Church lists -- sum itself, as sum is linear:
#     λdl. dl (λx. λacc. x + acc) 0
# (church_sum.pb applies it to the tangent list [10, 20, 30] and gets 60.)
#
# Run it:
#     pullback-calc reduce examples/church_sum_covector.pb
#     pullback-calc reduce examples/church_sum_covector.pb --no-trace --ascii

let sum = λl. l (λx. λacc. x + acc) 0 in
Ω(sum) (λz. λw. w) (λc. λn. c 1 (c 2 (c 3 n)))
