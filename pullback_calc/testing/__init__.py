"""Test support: an independent denotational oracle for the calculus."""
from ..semantics.oracle import (ZERO, DualNumber, OracleError, apply, central_difference,
                                covector_apply, derivative, evaluate, fresh_tag,
                                jacobian_by_oracle, leaves, perturb, prim, row_by_oracle,
                                shape_point, tangent_value)

__all__ = ["ZERO", "DualNumber", "OracleError", "evaluate", "apply", "derivative",
           "central_difference", "row_by_oracle", "covector_apply", "tangent_value",
           "perturb", "fresh_tag", "prim", "jacobian_by_oracle", "shape_point", "leaves"]
