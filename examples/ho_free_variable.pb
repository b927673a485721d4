# A free variable: h is not bound, so h x cannot be differentiated further.
# Open terms are part of the calculus, but a name nobody bound is usually a
# typo, so the command line wants free variables declared with their type:
# the `free h : ℝ → ℝ` line below (or --free 'h : R -> R' on the command line).
# The pullback of λz. λw. w along λx. h x at 2 stays a value -- the covector
#     λdx. (J(λx. h x)·dx) 2
# i.e. "h'(2) · dx", kept symbolic (the paper's values of the form
# (J(λp.E)·P) V whose function is a variable).  Substituting a function for
# h later finishes the job: with h = sin, applied to 1, it gives cos 2.
#
# Reduces to:  λdx. J(λx. h x)·dx 2
#
# Run it:
#     pullback-calc reduce examples/ho_free_variable.pb
#     pullback-calc reduce -e '(λh. Ω(λx. h x) (λz. λw. w) 2 1) (λx. sin(x))' --no-trace

free h : ℝ → ℝ

Ω(λx. h x) (λz. λw. w) 2
