"""Expression helpers shared by the app definitions."""

import halide as hl


def left_sum(terms: list) -> hl.Expr:
    """terms[0] + terms[1] + ..., summed left to right (float sums are not reassociated)."""
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    return total
