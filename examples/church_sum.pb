# Example 3.2 of Mak & Ong: the pullback of a 1-form along `sum` on Church lists.
#
#     sum = λl. l (λx. λacc. x + acc) 0         sums a Church-encoded list
#
# A Church list [a, b, c] is λc. λn. c a (c b (c c n)).  Pulling the 1-form
# λz. λw. w back along sum, at the point [1, 2, 3], gives a covector on
# Church lists: sum is linear, so it is `sum` itself,
#     λdl. dl (λx. λacc. x + acc) 0
# (see church_sum_covector.pb).  Here it is applied to the tangent list
# [10, 20, 30], so the whole term reduces to the numeral 60.
#
# Run it:
#     pullback-calc reduce examples/church_sum.pb
#     pullback-calc reduce examples/church_sum.pb --no-trace

let sum = λl. l (λx. λacc. x + acc) 0 in
Ω(sum) (λz. λw. w)
  (λc. λn. c 1 (c 2 (c 3 n)))          # the point: the list [1, 2, 3]
  (λc. λn. c 10 (c 20 (c 30 n)))       # the tangent: the list [10, 20, 30]
