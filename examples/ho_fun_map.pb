# A function-typed input passed to map: differentiating
#     F = λg. sum (map g [1, 2, 3])      = λg. g 1 + g 2 + g 3
# w.r.t. the function g, at g = λx. x × x.  The covector over ℝ → ℝ samples
# the tangent function at the list's elements:
#     λdg. dg 1 ⊕ dg 2 ⊕ dg 3
# Applied to dg = sin it would give sin 1 + sin 2 + sin 3.
#
# Reduces to:  λdg. dg 1 ⊕ dg 2 ⊕ dg 3
#
# Run it:
#     pullback-calc reduce examples/ho_fun_map.pb --no-trace
#     pullback-calc reduce examples/ho_fun_map.pb

let nil = λf. λd. d in
let cons = λx. λl. λf. λd. f x (l f d) in
let sum = λl. l (λx. λacc. x + acc) 0 in
let map = λg. λl. λf. λd. l (λx. λacc. f (g x) acc) d in
Ω(λg. sum (map g (cons 1 (cons 2 (cons 3 nil))))) (λz. λw. w) (λx. x × x)
