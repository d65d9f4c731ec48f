//! Sums of a `min` or `max` and terms that cancel one of its operands, for interval analysis:
//! `min(a, b) + r` is `min(a + r, b + r)`, and where `b + r` is a constant `k` (its terms
//! cancel), `min(a + r, k)`, which bounds the sum by `k` where bounding each term apart would
//! not. This is the shape of a split tile's extent: a tile guarded at the end of its region
//! spans `min(max, min_0 + o * 64 + 63) - (min_0 + o * 64)`, at most 63 whatever `o` is, and
//! a loop over that extent inside the tile stays within the tile. Halide's simplifier has
//! such rules (`min(x + c0, y) - x` → `min(y - x, c0)`); Tessera's keeps `min` an atom of its
//! linear forms, so interval analysis distributes the sum itself. Signed 32/64-bit sums only:
//! the identity holds in unbounded integers, which is what interval analysis assumes of them.

use crate::ir::{BinaryOp, Expr, ExprKind};
use crate::simplify::{is_linear_node, LinearForm};

/// `e`, a signed 32/64-bit scalar sum with a `min` or `max` term one of whose operands the
/// other terms cancel to a constant `k`, as `min(e with the term replaced by its other
/// operand, k)` (or `max`, by which way `e` moves with the term); `None` if it has no such
/// term.
pub(super) fn distributed_over_min_max(e: &Expr) -> Option<Expr> {
    let ty = e.ty();
    if !ty.is_int() || ty.bits < 32 || !ty.is_scalar() || !is_linear_node(e) {
        return None;
    }
    let mut atoms = Vec::new();
    min_max_terms(e, &mut atoms);
    if atoms.is_empty() {
        return None;
    }
    let form = LinearForm::of(e)?;
    for (term, coefficient) in &form.terms {
        let ExprKind::Binary(op @ (BinaryOp::Min | BinaryOp::Max), a, b) = term.kind() else {
            continue;
        };
        for (cancelled, other) in [(a, b), (b, a)] {
            let Some(k) = LinearForm::of(&with_term(e, term, cancelled))
                .and_then(|f| f.as_constant())
                .filter(|k| ty.can_represent_int(*k))
            else {
                continue;
            };
            // `e` grows with the term where its coefficient is positive: the min of the two
            // sums is then the sum at the min; where it is negative, the sum at the min is
            // their max.
            let result = if (*coefficient > 0) == (*op == BinaryOp::Min) {
                BinaryOp::Min
            } else {
                BinaryOp::Max
            };
            return Some(Expr::binary(
                result,
                with_term(e, term, other),
                Expr::make_const(ty, k as i64),
            ));
        }
    }
    None
}

/// The `min` and `max` terms of the sum `e` (its atoms through sums, differences, negations
/// and products by constants).
fn min_max_terms(e: &Expr, found: &mut Vec<Expr>) {
    if is_linear_node(e) {
        e.for_each_child(|c| min_max_terms(c, found));
    } else if matches!(
        e.kind(),
        ExprKind::Binary(BinaryOp::Min | BinaryOp::Max, ..)
    ) {
        found.push(e.clone());
    }
}

/// The sum `e` with its term `term` (wherever it is a term, not inside another one)
/// replaced by `by`.
fn with_term(e: &Expr, term: &Expr, by: &Expr) -> Expr {
    if e == term {
        by.clone()
    } else if is_linear_node(e) {
        e.map_children(|c| with_term(c, term, by))
    } else {
        e.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Symbol, Type};
    use crate::lang::math::min;
    use crate::lang::var::Var;

    #[test]
    fn a_guarded_tile_extent_is_bounded_by_the_tile() {
        // min(max, base + 63) - base + 8, with base = m + o * 64
        let (m, o, max) = (Var::new("m"), Var::new("o"), Var::new("max"));
        let base = m + o * 64;
        let extent = min(max, base.clone() + 63) - base + 8;
        let d = distributed_over_min_max(&extent).unwrap();
        assert_eq!(d.to_string(), "min(max - (m + o*64) + 8, 71)", "{extent}");
    }

    #[test]
    fn a_subtracted_min_becomes_a_max() {
        // x - min(x - 3, y) + 1 = max(x - y + 1, 4)
        let (x, y) = (Var::new("x"), Var::new("y"));
        let e = x - min(x - 3, y) + 1;
        let d = distributed_over_min_max(&e).unwrap();
        assert_eq!(d.to_string(), "max(x - y + 1, 4)");
    }

    #[test]
    fn nothing_to_distribute() {
        let (x, y, z) = (Var::new("x"), Var::new("y"), Var::new("z"));
        assert_eq!(distributed_over_min_max(&(min(x, y) + z)), None);
        // Inside another atom, a min is not a term of the sum.
        assert_eq!(distributed_over_min_max(&(min(x, y) / 2 - x)), None);
        // Wrapping types keep their sums.
        let narrow = |n: &str| Expr::var(Symbol::new(n), Type::i16());
        let wrapping = min(narrow("x"), narrow("y")) - narrow("x");
        assert_eq!(distributed_over_min_max(&wrapping), None);
    }
}
