# map with a real parameter: a function ℝ → (Church list), so the output is a
# function and rule 18 (D-curry) differentiates under its λs.
#
#     f = λa. map (λx. sin(a × x)) [1, 2, 3]        = [sin a, sin 2a, sin 3a]
#
# The 1-form on the output sums the tangent list:
#     λz. λdz. dz (λx. λacc. x + acc) 0
# so pulling it back along f at a = 0.5 and applying the result to 1 gives
#     d/da (sin a + sin 2a + sin 3a) = cos 0.5 + 2 cos 1 + 3 cos 1.5
#                                    = 2.170398778629761
#
# Reduces to:  2.170398778629761
#
# Run it:
#     pullback-calc reduce examples/ho_list_map.pb --no-trace
#     pullback-calc reduce examples/ho_list_map.pb

let nil = λf. λd. d in
let cons = λx. λl. λf. λd. f x (l f d) in
let map = λg. λl. λf. λd. l (λx. λacc. f (g x) acc) d in
Ω(λa. map (λx. sin(a × x)) (cons 1 (cons 2 (cons 3 nil))))
  (λz. λdz. dz (λx. λacc. x + acc) 0)       # the 1-form: sum the tangent list
  0.5                                        # the point a
  1                                          # the tangent da
