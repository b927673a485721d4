# A function-typed input: the pullback along evaluation at a point,
#     ev = λg. g 2        : (ℝ → ℝ) → ℝ
# at g = λx. x × x.  ev is linear in g (g only sits in function position), so
# the covector over the function space ℝ → ℝ is ev itself:
#     λdg. dg 2
# -- "evaluate the tangent function at 2", whatever g is.  Applied to the
# tangent function λx. 5 × x it gives 10.
#
# Reduces to:  λdg. dg 2
#
# Run it:
#     pullback-calc reduce examples/ho_fun_eval.pb
#     pullback-calc reduce -e 'Ω(λg. g 2) (λz. λw. w) (λx. x × x) (λx. 5 × x)' --no-trace

Ω(λg. g 2) (λz. λw. w) (λx. x × x)
