# Shared subexpressions, R^2 -> R^2: s and t are each computed once and used
# several times.  The let series keeps the sharing through A-reduction, so
# the reduction does the work of s and t once (no expression swell), as
# reverse-mode AD does.
#
# Run it:
#     pullback-calc jacobian examples/shared.pb --at 0.5,2
#     pullback-calc check    examples/shared.pb --at 0.5,2

λ⟨x, y⟩.
  let s = x × y + 1 in       # used four times
  let t = s × s − x in       # used twice
  ⟨t + s × y, t × s / y⟩
