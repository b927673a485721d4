# A function-typed input used twice: the pullback along
#     ev2 = λg. g (g 0.5)        : (ℝ → ℝ) → ℝ
# at g = sin.  Moving g to g + ε·dg moves both the outer application (by
# dg (g 0.5)) and its argument (by dg 0.5, times g' at g 0.5), so the
# covector over ℝ → ℝ is
#     λdg. dg (sin 0.5) ⊕ cos(sin 0.5) × dg 0.5
#        = λdg. dg 0.479425538604203 ⊕ 0.8872600507176526 × dg 0.5
# (ho_fun_eval_twice_applied.pb applies it to a tangent function.)
#
# Reduces to:  λdg. dg 0.479425538604203 ⊕ 0.8872600507176526 × dg 0.5
#
# Run it:
#     pullback-calc reduce examples/ho_fun_eval_twice.pb
#     pullback-calc reduce examples/ho_fun_eval_twice.pb --no-trace

Ω(λg. g (g 0.5)) (λz. λw. w) (λx. sin(x))
