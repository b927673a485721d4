# foldr on Church lists: a product, differentiated in a shift.
#
#     foldr = λg. λz0. λl. l g z0
#     f     = λa. foldr (λx. λacc. (x + a) × acc) 1 [1, 2, 3]
#           = λa. (1 + a)(2 + a)(3 + a)
#
# f'(0) = 2·3 + 1·3 + 1·2 = 11: the pullback of λz. λw. w along f at 0,
# applied to 1.
#
# Reduces to:  11
#
# Run it:
#     pullback-calc reduce examples/ho_list_foldr.pb --no-trace
#     pullback-calc reduce examples/ho_list_foldr.pb

let nil = λf. λd. d in
let cons = λx. λl. λf. λd. f x (l f d) in
let foldr = λg. λz0. λl. l g z0 in
Ω(λa. foldr (λx. λacc. (x + a) × acc) 1 (cons 1 (cons 2 (cons 3 nil))))
  (λz. λw. w) 0 1
