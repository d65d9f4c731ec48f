//! Constant upper bounds of integer expressions (Halide's `find_constant_bound`), for loops
//! that must run a constant number of iterations. Interval analysis alone bounds
//! `min(x + 7, n) - x + 1` by itself: it bounds `min` and `-` separately and loses that both
//! `x`s are the same value. So the expression is split on each `min` and `max` in its sums:
//! it equals itself with the `min` replaced by one operand or by the other, and the
//! correlated terms of each replacement cancel when it is simplified (`(x + 7) - x + 1` is
//! 8). Signed 32/64-bit sums are assumed not to overflow, as the overflow contract does.

use super::bounds::{bounds_of_expr, Scope};
use super::fold::wraps;
use crate::ir::{BinaryOp, Expr, ExprKind};
use crate::simplify::simplify;

/// The most forms of one expression bounded: each split doubles them.
const MAX_FORMS: usize = 64;

/// The smallest constant the analysis proves `e` never exceeds when each variable in `scope`
/// lies in its interval (variables not in it are fixed but unknown); `None` if none is found.
pub fn constant_upper_bound(e: &Expr, scope: &Scope) -> Option<i128> {
    let ty = e.ty();
    if !ty.is_scalar() || !ty.is_int() || wraps(ty) {
        // Splitting a sum that may wrap does not keep its terms' order.
        return None;
    }
    let mut forms_left = MAX_FORMS;
    upper_bound(e, scope, &mut forms_left)
}

/// `constant_upper_bound` of `e`, bounding at most `forms_left` more forms of it.
fn upper_bound(e: &Expr, scope: &Scope, forms_left: &mut usize) -> Option<i128> {
    *forms_left = forms_left.saturating_sub(1);
    // The variables' ranges can also lose a correlation the form has not cancelled (`x` in
    // `min(x, n) - x`, bounded over x's range), so the form is bounded without them too.
    let e = simplify(e);
    let direct = [scope, &Scope::new()]
        .into_iter()
        .filter_map(|scope| bounds_of_expr(&e, scope).max?.as_int_const())
        .min();
    let Some(split) = split(&e, false).filter(|_| *forms_left >= 2) else {
        return direct;
    };
    let first = upper_bound(&split.first, scope, forms_left);
    let second = upper_bound(&split.second, scope, forms_left);
    let by_split = match split.bounds {
        // `e` is at most either form: the smaller bound holds.
        Bounds::Both => first.into_iter().chain(second).min(),
        // `e` is one form or the other: only the larger bound holds for both.
        Bounds::OneOf => first.zip(second).map(|(a, b)| a.max(b)),
    };
    direct.into_iter().chain(by_split).min()
}

/// An expression split on one of its `min`s or `max`s.
struct Split {
    /// The expression with the `min` or `max` replaced by its first operand.
    first: Expr,
    /// ... and by its second.
    second: Expr,
    bounds: Bounds,
}

/// How the two forms of a split relate to the expression split.
#[derive(Clone, Copy)]
enum Bounds {
    /// Each form is at least the expression (a `min` added, or a `max` subtracted).
    Both,
    /// The expression equals one form or the other (a `max` added, or a `min` subtracted).
    OneOf,
}

/// `e` split on the first `min` or `max` among the terms of its sum (`negated`: `e` is
/// itself subtracted from the sum); `None` if there is none.
fn split(e: &Expr, negated: bool) -> Option<Split> {
    let ExprKind::Binary(op, a, b) = e.kind() else {
        return None;
    };
    let rebuild = |split: Split, form: &dyn Fn(Expr) -> Expr| Split {
        first: form(split.first),
        second: form(split.second),
        bounds: split.bounds,
    };
    match op {
        BinaryOp::Min | BinaryOp::Max => Some(Split {
            first: a.clone(),
            second: b.clone(),
            bounds: if (*op == BinaryOp::Min) != negated {
                Bounds::Both
            } else {
                Bounds::OneOf
            },
        }),
        BinaryOp::Add | BinaryOp::Sub => {
            let b_negated = negated != (*op == BinaryOp::Sub);
            if let Some(s) = split(a, negated) {
                Some(rebuild(s, &|a| Expr::binary(*op, a, b.clone())))
            } else {
                let s = split(b, b_negated)?;
                Some(rebuild(s, &|b| Expr::binary(*op, a.clone(), b)))
            }
        }
        _ => None,
    }
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
    fn a_max_added_is_bounded_by_both_operands() {
        // A stencil's piece: max(min(x + 6, n), min(x + 8, m)) - x + 2 <= 10.
        let x = var("x");
        let min = |a: Expr, b: &str| Expr::binary(BinaryOp::Min, a, var(b));
        let end = Expr::binary(
            BinaryOp::Max,
            min(add(x.clone(), Expr::i32(6)), "n"),
            min(add(x.clone(), Expr::i32(8)), "m"),
        );
        let extent = add(sub(end, x.clone()), Expr::i32(2));
        assert_eq!(constant_upper_bound(&extent, &Scope::new()), Some(10));
        // max(x + 3, n) - x is unbounded when n is.
        let e = sub(
            Expr::binary(BinaryOp::Max, add(x.clone(), Expr::i32(3)), var("n")),
            x,
        );
        assert_eq!(constant_upper_bound(&e, &Scope::new()), None);
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
