# Perturbation confusion (Siskind & Pearlmutter): the derivative at x = 2 of
#     λx. x × (d/dy (x + y) at y = 3)
# The inner derivative is 1 for every x, so the outer one is 1.  An AD that
# confuses the inner perturbation (of y) with the outer one (of x) gets 2.
# Here the inner pullback is a term like any other; the reduction keeps the
# two derivatives apart.
#
# Reduces to:  1
#
# Run it:
#     pullback-calc reduce examples/ho_perturbation_confusion.pb
#     pullback-calc reduce examples/ho_perturbation_confusion.pb --no-trace

Ω(λx. x × (Ω(λy. x + y) (λz. λw. w) 3 1)) (λz. λw. w) 2 1
