"""Expression and definition helpers shared by the app definitions."""

import halide as hl


def left_sum(terms: list) -> hl.Expr:
    """terms[0] + terms[1] + ..., summed left to right (float sums are not reassociated)."""
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    return total


def defined(name: str, args: list, value: hl.Expr) -> hl.Func:
    """A new Func `name` with the pure definition `name(args) = value`."""
    f = hl.Func(name)
    f[args] = value
    return f
