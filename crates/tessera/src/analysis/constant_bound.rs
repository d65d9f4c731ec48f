//! Constant upper bounds of integer expressions (Halide's `find_constant_bound`), for loops
//! that must run a constant number of iterations. Interval analysis alone bounds
//! `min(x + 7, n) - x + 1` by itself: it bounds `min` and `-` separately and loses that both
//! `x`s are the same value. So a `min` added to the rest of a sum is first replaced by each of
//! its operands in turn (each replacement is an upper bound of the whole, assuming, as the
//! overflow contract does, that signed 32/64-bit sums do not overflow), and the correlated
//! terms then cancel when each form is simplified: `(x + 7) - x + 1` is 8.

use super::bounds::{bounds_of_expr, Scope};
use super::fold::wraps;
use crate::ir::{BinaryOp, Expr, ExprKind};
use crate::simplify::simplify;

/// The most forms of one expression tried: each `min` in a sum doubles them.
const MAX_FORMS: usize = 16;

/// The smallest constant the analysis proves `e` never exceeds when each variable in `scope`
/// lies in its interval (variables not in it are fixed but unknown); `None` if none is found.
pub fn constant_upper_bound(e: &Expr, scope: &Scope) -> Option<i128> {
    let ty = e.ty();
    if !ty.is_scalar() || !ty.is_int() || wraps(ty) {
        // Replacing a term of a sum that may wrap by a bigger one does not bound the sum.
        return None;
    }
    std::iter::once(e.clone())
        .chain(bounding_forms(e, Side::Upper))
        .filter_map(|form| bounds_of_expr(&simplify(&form), scope).max?.as_int_const())
        .min()
}

/// Which way a form bounds the expression it was made from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    /// The form is never smaller.
    Upper,
    /// The form is never larger.
    Lower,
}

impl Side {
    fn opposite(self) -> Side {
        match self {
            Side::Upper => Side::Lower,
            Side::Lower => Side::Upper,
        }
    }
}

/// Forms of `e` bounding it on `side`, with the `min`s (for an upper bound; `max`s for a
/// lower one) of its sums replaced by one of their operands; just `e` when there are none
/// or the forms would be more than `MAX_FORMS`.
fn bounding_forms(e: &Expr, side: Side) -> Vec<Expr> {
    let forms = match e.kind() {
        ExprKind::Binary(BinaryOp::Min, a, b) if side == Side::Upper => {
            [bounding_forms(a, side), bounding_forms(b, side)].concat()
        }
        ExprKind::Binary(BinaryOp::Max, a, b) if side == Side::Lower => {
            [bounding_forms(a, side), bounding_forms(b, side)].concat()
        }
        ExprKind::Binary(op @ BinaryOp::Add, a, b) => {
            combinations(*op, &bounding_forms(a, side), &bounding_forms(b, side))
        }
        ExprKind::Binary(op @ BinaryOp::Sub, a, b) => combinations(
            *op,
            &bounding_forms(a, side),
            &bounding_forms(b, side.opposite()),
        ),
        _ => Vec::new(),
    };
    if forms.is_empty() || forms.len() > MAX_FORMS {
        vec![e.clone()]
    } else {
        forms
    }
}

/// `a op b` for every pair of forms.
fn combinations(op: BinaryOp, a: &[Expr], b: &[Expr]) -> Vec<Expr> {
    a.iter()
        .flat_map(|a| {
            b.iter()
                .map(move |b| Expr::binary(op, a.clone(), b.clone()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Interval;
    use crate::ir::{Symbol, Type};

    fn var(name: &str) -> Expr {
        Expr::var(Symbol::new(name), Type::i32())
    }

    fn add(a: Expr, b: Expr) -> Expr {
        Expr::binary(BinaryOp::Add, a, b)
    }

    fn sub(a: Expr, b: Expr) -> Expr {
        Expr::binary(BinaryOp::Sub, a, b)
    }

    #[test]
    fn a_min_correlated_with_the_rest_of_a_sum_is_bounded() {
        // The extent of the last piece of a split by 8: min(x + 7, n) - x + 1.
        let x = var("x");
        let end = Expr::binary(BinaryOp::Min, add(x.clone(), Expr::i32(7)), var("n"));
        let extent = add(sub(end, x), Expr::i32(1));
        assert_eq!(constant_upper_bound(&extent, &Scope::new()), Some(8));
    }

    #[test]
    fn a_max_subtracted_is_bounded_by_either_operand() {
        // 10 - max(x, y) + x <= 10.
        let x = var("x");
        let e = add(
            sub(
                Expr::i32(10),
                Expr::binary(BinaryOp::Max, x.clone(), var("y")),
            ),
            x,
        );
        assert_eq!(constant_upper_bound(&e, &Scope::new()), Some(10));
    }

    #[test]
    fn variables_in_scope_bound_by_their_ranges() {
        // 8 - i for i in [3, 7].
        let mut scope = Scope::new();
        scope.insert(Symbol::new("i"), Interval::from_consts(Type::i32(), 3, 7));
        let e = sub(Expr::i32(8), var("i"));
        assert_eq!(constant_upper_bound(&e, &scope), Some(5));
    }

    #[test]
    fn no_bound_without_one() {
        let e = sub(var("n"), var("x"));
        assert_eq!(constant_upper_bound(&e, &Scope::new()), None);
        let wrapping = Expr::binary(BinaryOp::Min, var("n"), Expr::i32(7));
        let narrow = Expr::cast(Type::u8(), wrapping);
        assert_eq!(
            constant_upper_bound(&add(narrow.clone(), narrow), &Scope::new()),
            None
        );
    }
}
