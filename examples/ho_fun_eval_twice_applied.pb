# The covector of ev2 = λg. g (g 0.5) at g = sin (ho_fun_eval_twice.pb),
# applied to the tangent function dg = λx. x × x:
#     dg (sin 0.5) + cos(sin 0.5) · dg 0.5
#       = sin(0.5)² + cos(sin 0.5) / 4 = 0.4516638597453433
# the derivative at h = 0 of h ↦ G (G 0.5) with G = λx. sin x + h·x².
#
# Reduces to:  0.4516638597453433
#
# Run it:
#     pullback-calc reduce examples/ho_fun_eval_twice_applied.pb --no-trace
#     pullback-calc reduce examples/ho_fun_eval_twice_applied.pb

Ω(λg. g (g 0.5)) (λz. λw. w)
  (λx. sin(x))          # the point g
  (λx. x × x)           # the tangent function dg
