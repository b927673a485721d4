# sum ∘ map square on Church lists, differentiated in the FUNCTION SPACE:
# the tangent is itself a Church list of numbers.
#
#     f = λl. sum (map (λx. x × x) l)          at the point  l = [1, 2, 3]
#
# A Church list [a, b, c] is λc. λn. c a (c b (c c n)), a function, and f
# only ever applies l: f l = l (λx. λacc. x × x + acc) 0.  So f is LINEAR in
# l as a function, and its derivative along the Church list v = [10, 20, 30]
# is f v = 10² + 20² + 30² = 1400 (not the usual gradient 2·(1·10 + 2·20 +
# 3·30) = 280: see ho_list_sum_squares_curve.pb for that reading).  The
# difference: here the tangent is added to the list as a FUNCTION,
# pointwise, (l ⊕ εv) c n = l c n + ε·v c n, which is not the list
# [1 + 10ε, 2 + 20ε, 3 + 30ε]; perturbing the elements needs a tangent
# built by J from a curve of lists, as the other example does.
#
# Reduces to:  1400
#
# Run it:
#     pullback-calc reduce examples/ho_list_sum_squares.pb --no-trace
#     pullback-calc reduce examples/ho_list_sum_squares.pb

let nil = λf. λd. d in
let cons = λx. λl. λf. λd. f x (l f d) in
let sum = λl. l (λx. λacc. x + acc) 0 in
let map = λg. λl. λf. λd. l (λx. λacc. f (g x) acc) d in
Ω(λl. sum (map (λx. x × x) l)) (λz. λw. w)
  (cons 1 (cons 2 (cons 3 nil)))             # the point: the list [1, 2, 3]
  (cons 10 (cons 20 (cons 30 nil)))          # the tangent: the Church list [10, 20, 30]
