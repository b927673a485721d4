# foldl on Church lists: Horner's rule, differentiated in the variable.
#
#     foldl = λg. λz0. λl. l (λx. λk. λacc. k (g acc x)) (λacc. acc) z0
#     p     = λx. foldl (λacc. λc. acc × x + c) 0 [3, −1, 2, 5]
#           = λx. ((3x − 1)x + 2)x + 5 = 3x³ − x² + 2x + 5
#
# (foldl is foldr building a function, so the list's fold returns a
# continuation: a higher-order fold.)  p'(x) = 9x² − 2x + 2, which at x = 2 is
# 36 − 4 + 2 = 34: the pullback of λz. λw. w along p at 2, applied to 1.
#
# Reduces to:  34
#
# Run it:
#     pullback-calc reduce examples/ho_list_foldl.pb --no-trace
#     pullback-calc reduce examples/ho_list_foldl.pb

let nil = λf. λd. d in
let cons = λx. λl. λf. λd. f x (l f d) in
let foldl = λg. λz0. λl. l (λx. λk. λacc. k (g acc x)) (λacc. acc) z0 in
Ω(λx. foldl (λacc. λc. acc × x + c) 0 (cons 3 (cons (−1) (cons 2 (cons 5 nil)))))
  (λz. λw. w) 2 1
