"""Rule 13's product rule, on purpose.

A Jacobian inside the differentiated body whose map depends on the input
linearly *and* whose direction depends on it too,

    λ⟨x1, x2⟩. let a = c1 × x1 + c2 × x2 in let d = F1 ⟨x1, x2⟩ in
               let e = F2 ⟨x1, x2⟩ in (J(λy. a × G(y))·d) e

is differentiated by rule 13's third case (J(λq.S[P/p])·ā ⊕ J(λq.S[V/p])·â).
The general generators reach that case rarely (the mutant ``13-drop-summand``
survived them), so this generator builds it every time; the row must equal
the oracle's forward mode and central finite differences.
"""
from hypothesis import event, given, note
from hypothesis import strategies as st

import pullback_calc as pc
from pullback_calc.testing import strategies as S

from test_prop_derivatives import assert_row_by_oracles

G = ["sin(y)", "y × y", "exp(y)", "y", "cos(y) × y"]
COEFF = st.sampled_from([1.0, 2.0, -1.0, 0.5, 3.0])

#: (f, point) with the product case of rule 13 inside f
PRODUCT_RULE = st.builds(
    lambda c1, c2, f1, f2, g, pt: (pc.parse(
        f"λ⟨x1, x2⟩. let a = {c1} × x1 + {c2} × x2 in let d = ({pc.pretty(f1)}) ⟨x1, x2⟩ in "
        f"let e = ({pc.pretty(f2)}) ⟨x1, x2⟩ in (J(λy. a × {g})·d) e"), pt),
    COEFF, COEFF, S.first_order_functions(2, budget=8), S.first_order_functions(2, budget=8),
    st.sampled_from(G),
    st.lists(st.integers(-12, 12).map(lambda k: k / 10), min_size=2, max_size=2))


@given(PRODUCT_RULE)
def test_jacobians_linear_in_the_input_through_map_and_direction(x):
    f, pt = x
    note(f"f = {pc.pretty(f)} at {pt}")
    assert_row_by_oracles(f, pt)
    event("rule 13 fired" if "13" in pc.jacobian_row(f, pt, 0).rule_counts else "no rule 13")
