# The covector of sum ∘ map square at the Church list [1, 2, 3], without a
# tangent: a covector over Church lists (a value of type (list)⋆).
#
#     Ω(λl. sum (map (λx. x × x) l)) (λz. λw. w) [1, 2, 3]
#
# The call-by-value strategy never reduces under λ, so the normal form still
# shows the inlined map and square as let-redexes under the binders:
#     λdl. dl (λx. λacc. (let x = let x = x in x × x in λacc. x + acc) acc) 0
# Read out with the bodies reduced too (pullback_calc.strong_normal_form, a
# read-out, not a reduction rule) it is f itself -- f is linear in l as a
# function:
#     λdl. dl (λx. λacc. x × x + acc) 0
# Applied to the Church list [10, 20, 30] it gives 1400
# (ho_list_sum_squares.pb); applied to the tangent of the curve
# t ↦ [1 + 10t, 2 + 20t, 3 + 30t] it gives 280 (ho_list_sum_squares_curve.pb).
#
# Reduces to:  λdl. dl (λx. λacc. (let x = let x = x in x × x in λacc. x + acc) acc) 0
#
# Run it:
#     pullback-calc reduce examples/ho_list_sum_squares_covector.pb --no-trace
#     python -c 'import pullback_calc as pc; print(pc.pretty(pc.strong_normal_form(open("examples/ho_list_sum_squares_covector.pb").read())))'

let nil = λf. λd. d in
let cons = λx. λl. λf. λd. f x (l f d) in
let sum = λl. l (λx. λacc. x + acc) 0 in
let map = λg. λl. λf. λd. l (λx. λacc. f (g x) acc) d in
Ω(λl. sum (map (λx. x × x) l)) (λz. λw. w) (cons 1 (cons 2 (cons 3 nil)))
