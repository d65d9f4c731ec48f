//! Constant upper bounds of integer expressions (Halide's `find_constant_bound`), for loops
//! that must run a constant number of iterations. Interval analysis alone bounds
//! `min(x + 7, n) - x + 1` by itself: it bounds `min` and `-` separately and loses that both
//! `x`s are the same value. So the expression is split on each `min` and `max` in its sums:
//! it equals itself with the `min` replaced by one operand or by the other, and the
//! correlated terms of each replacement cancel when it is simplified (`(x + 7) - x + 1` is
//! 8). Signed 32/64-bit sums are assumed not to overflow, as the overflow contract does.
//! A `min` added to a sum and one subtracted are split together, operand with operand
//! (`min(y + 1, 17) - min(y - 1, 15)` is at most `(y + 1) - (y - 1)` where the subtracted
//! `min` is its first operand, and at most `17 - 15` where its second), as are a `max` added
//! and a `min` of the same operands subtracted (`max(a, b) - min(a, b)` is `a - b` or `b - a`):
//! splitting each alone loses that the two choose together.
//! Where that finds no bound, a variable divided by constants is split by its residue:
//! `((y/2 + 1)/2 - y/4 + 2` is, for `y = 4k + r` with each `r` in `0..4`, a sum whose `k`s
//! cancel (`(4k + r)/4` is `k + r/4`), so its largest form bounds it (3).

use super::bounds::{bounds_of_expr, Scope};
use super::fold::wraps;
use super::interval::Interval;
use crate::ir::substitute::{substitute, uses_var};
use crate::ir::visit::visit_exprs;
use crate::ir::{BinaryOp, Expr, ExprKind, Symbol, Type};
use crate::simplify::{gcd, simplify};

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
    // Paired splits first: where there are some, splitting terms alone tends to fail after
    // spending the forms they need.
    let by_pairs = paired_splits(&e)
        .into_iter()
        .filter_map(|split| split_bound(split, scope, forms_left))
        .min();
    let by_split = split(&e).and_then(|split| split_bound(split, scope, forms_left));
    direct
        .into_iter()
        .chain(by_pairs)
        .chain(by_split)
        .min()
        .or_else(|| by_residues(&e, scope, forms_left))
}

/// The bound of an expression from the bounds of the two forms it was split into, if there
/// are forms left to bound them.
fn split_bound(split: Split, scope: &Scope, forms_left: &mut usize) -> Option<i128> {
    if *forms_left < 2 {
        return None;
    }
    let first = upper_bound(&split.first, scope, forms_left);
    let second = upper_bound(&split.second, scope, forms_left);
    match split.bounds {
        // `e` is at most either form: the smaller bound holds.
        Bounds::Both => first.into_iter().chain(second).min(),
        // `e` is at most one form or the other: only the larger bound holds for both.
        Bounds::OneOf => first.zip(second).map(|(a, b)| a.max(b)),
    }
}

/// The bound of `e` as the largest bound of its forms with a variable `x` it divides by
/// constants replaced by `P*x + r`, for each residue `r` modulo the period `P` of those
/// divisions: every value of `x` is one of them, and in each the divisions pull `x` out
/// whole, so terms in `x` may cancel. `None` if there is no such variable or a form has
/// no bound.
fn by_residues(e: &Expr, scope: &Scope, forms_left: &mut usize) -> Option<i128> {
    let (x, ty, period) = divided_vars(e)
        .into_iter()
        .map(|(x, ty)| (x, ty, period(e, x)))
        .find(|&(.., period)| period >= 2)?;
    if period > *forms_left as i128 {
        return None;
    }
    let constant = |v: i128| Expr::make_const(ty, v as i64);
    let mut bound = None;
    for r in 0..period {
        let residue = Expr::binary(
            BinaryOp::Add,
            Expr::binary(BinaryOp::Mul, Expr::var(x, ty), constant(period)),
            constant(r),
        );
        // x runs over its interval, so the new x over that interval less r, divided by P.
        let quotient = |end: &Option<Expr>| {
            end.as_ref().map(|end| {
                simplify(&Expr::binary(
                    BinaryOp::Div,
                    Expr::binary(BinaryOp::Sub, end.clone(), constant(r)),
                    constant(period),
                ))
            })
        };
        let mut scope = scope.clone();
        if let Some(Interval { min, max }) = scope.get(x).cloned() {
            scope.insert(
                x,
                Interval {
                    min: quotient(&min),
                    max: quotient(&max),
                },
            );
        }
        let form = upper_bound(&substitute(e, x, &residue), &scope, forms_left)?;
        bound = bound.max(Some(form));
    }
    bound
}

/// The variables of `e` divided (or taken modulo) by a constant greater than 1, in order of
/// appearance, whose types do not wrap and whose names no `let` in `e` binds.
fn divided_vars(e: &Expr) -> Vec<(Symbol, Type)> {
    let mut let_bound = Vec::new();
    visit_exprs(e, &mut |n| {
        if let ExprKind::Let(name, ..) = n.kind() {
            let_bound.push(*name);
        }
        true
    });
    let mut found: Vec<(Symbol, Type)> = Vec::new();
    visit_exprs(e, &mut |n| {
        if let ExprKind::Binary(BinaryOp::Div | BinaryOp::Mod, a, b) = n.kind() {
            if b.as_int_const().is_some_and(|c| c > 1) {
                visit_exprs(a, &mut |m| {
                    if let ExprKind::Var(name) = m.kind() {
                        let ty = m.ty();
                        if ty.is_scalar()
                            && ty.is_int()
                            && !wraps(ty)
                            && !let_bound.contains(name)
                            && !found.iter().any(|(f, _)| f == name)
                        {
                            found.push((*name, ty));
                        }
                    }
                    true
                });
            }
        }
        true
    });
    found
}

/// The period in `x` of the divisions of `e` by constants: the least common multiple, over
/// the divisions whose numerators use `x`, of the divisor times its numerator's period
/// (`(x/2 + 1)/2` repeats its pattern every 4 values of `x`), or of the divisor over its
/// common factor with `x`'s coefficient where the numerator is linear in `x` (`(4x + y) % 2`
/// does not vary with `x`). Saturates at `MAX_FORMS + 1`.
fn period(e: &Expr, x: Symbol) -> i128 {
    let cap = MAX_FORMS as i128 + 1;
    let mut p = 1i128;
    visit_exprs(e, &mut |n| match n.kind() {
        ExprKind::Binary(BinaryOp::Div | BinaryOp::Mod, a, b) if uses_var(a, x) => {
            if let Some(c) = b.as_int_const().filter(|&c| c > 1) {
                let q = match linear_coefficient(a, x) {
                    Some(k) => c / gcd(c, k.abs()),
                    // A numerator using `x` only through remainders repeats exactly, so
                    // dividing it repeats with the same period.
                    None if used_only_in_remainders(a, x) => period(a, x),
                    None => c.saturating_mul(period(a, x)).min(cap),
                };
                p = (p / gcd(p, q) * q).min(cap);
                false
            } else {
                true
            }
        }
        _ => true,
    });
    p
}

/// Whether every use of `x` in `e` is inside a remainder by a constant.
fn used_only_in_remainders(e: &Expr, x: Symbol) -> bool {
    match e.kind() {
        ExprKind::Var(name) => *name != x,
        ExprKind::Binary(BinaryOp::Mod, _, b) if b.as_int_const().is_some_and(|c| c > 1) => true,
        _ => {
            let mut only = true;
            e.for_each_child(|c: &Expr| only &= used_only_in_remainders(c, x));
            only
        }
    }
}

/// The constant `k` such that `e` is `k*x` plus terms without `x`, if `e` is such a sum.
fn linear_coefficient(e: &Expr, x: Symbol) -> Option<i128> {
    match e.kind() {
        ExprKind::Var(name) if *name == x => Some(1),
        _ if !uses_var(e, x) => Some(0),
        ExprKind::Binary(BinaryOp::Add, a, b) => {
            linear_coefficient(a, x)?.checked_add(linear_coefficient(b, x)?)
        }
        ExprKind::Binary(BinaryOp::Sub, a, b) => {
            linear_coefficient(a, x)?.checked_sub(linear_coefficient(b, x)?)
        }
        ExprKind::Binary(BinaryOp::Mul, a, b) => match (a.as_int_const(), b.as_int_const()) {
            (Some(k), None) => linear_coefficient(b, x)?.checked_mul(k),
            (None, Some(k)) => linear_coefficient(a, x)?.checked_mul(k),
            _ => None,
        },
        _ => None,
    }
}

/// An expression split on one of its `min`s or `max`s (or on two together).
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
    /// One form or the other is at least the expression (a `max` added, or a `min`
    /// subtracted: the expression equals one of them).
    OneOf,
}

/// A `min` or `max` among the terms of a sum.
#[derive(Clone)]
struct Term {
    op: BinaryOp,
    a: Expr,
    b: Expr,
    /// Whether it is subtracted from the sum.
    negated: bool,
}

/// The `min`s and `max`s among the terms of the sum `e`, in order.
fn terms(e: &Expr) -> Vec<Term> {
    let mut found = Vec::new();
    map_terms(e, false, &mut |term| {
        found.push(term);
        None
    });
    found
}

/// `e` with its `min` and `max` terms numbered `i` (in the order of `terms`) replaced by `by`.
fn with_terms(e: &Expr, replaced: &[(usize, &Expr)]) -> Expr {
    let mut index = 0;
    map_terms(e, false, &mut |_| {
        let by = replaced
            .iter()
            .find(|(i, _)| *i == index)
            .map(|(_, by)| (*by).clone());
        index += 1;
        by
    })
}

/// `e` (subtracted from its sum when `negated`) with each `min` or `max` among the terms of
/// its sum replaced by what `replace` returns for it, if anything. Terms are reached through
/// additions, subtractions, and multiplications and divisions by positive constants, which
/// keep the order of values (a Euclidean division rounds down whatever the sign), so
/// `(min(n, t) + 1)/2 - t/2` has one.
fn map_terms(e: &Expr, negated: bool, replace: &mut dyn FnMut(Term) -> Option<Expr>) -> Expr {
    let ExprKind::Binary(op, a, b) = e.kind() else {
        return e.clone();
    };
    let rebuilt = |new_a: Expr, new_b: Expr| {
        if new_a.same_as(a) && new_b.same_as(b) {
            e.clone()
        } else {
            Expr::binary(*op, new_a, new_b)
        }
    };
    match op {
        BinaryOp::Min | BinaryOp::Max => replace(Term {
            op: *op,
            a: a.clone(),
            b: b.clone(),
            negated,
        })
        .unwrap_or_else(|| e.clone()),
        BinaryOp::Add | BinaryOp::Sub => {
            let new_a = map_terms(a, negated, replace);
            let new_b = map_terms(b, negated != (*op == BinaryOp::Sub), replace);
            rebuilt(new_a, new_b)
        }
        BinaryOp::Div | BinaryOp::Mul if b.as_int_const().is_some_and(|c| c > 0) => {
            rebuilt(map_terms(a, negated, replace), b.clone())
        }
        _ => e.clone(),
    }
}

/// `e` split on the first `min` or `max` among the terms of its sum; `None` if there is none.
fn split(e: &Expr) -> Option<Split> {
    let term = terms(e).into_iter().next()?;
    Some(Split {
        first: with_terms(e, &[(0, &term.a)]),
        second: with_terms(e, &[(0, &term.b)]),
        bounds: if (term.op == BinaryOp::Min) != term.negated {
            Bounds::Both
        } else {
            Bounds::OneOf
        },
    })
}

/// `e` split on the first pair of terms of its sum, one added and one subtracted, that choose
/// their operands together, in each way they pair:
/// - two `min`s (or two `max`s), `x = min(a, b)` added and `y = min(c, d)` subtracted: where
///   `y` is `c`, `x` is at most `a`, and where it is `d`, at most `b` (for `max`: where `x` is
///   `a`, `y` is at least `c`...), so `e` is at most the form with `a` and `c` or the one
///   with `b` and `d`; and likewise pairing `a` with `d` and `b` with `c`;
/// - a `max` and a `min` of the same operands, `max(a, b)` added and `min(a, b)` subtracted
///   (or the reverse): the one is `a` where the other is `b`, and `b` where it is `a`.
fn paired_splits(e: &Expr) -> Vec<Split> {
    let terms = terms(e);
    let form = |i: usize, x: &Expr, j: usize, y: &Expr| with_terms(e, &[(i, x), (j, y)]);
    let one_of = |first: Expr, second: Expr| Split {
        first,
        second,
        bounds: Bounds::OneOf,
    };
    for (i, x) in terms.iter().enumerate().filter(|(_, t)| !t.negated) {
        for (j, y) in terms.iter().enumerate().filter(|(_, t)| t.negated) {
            if x.op == y.op {
                return vec![
                    one_of(form(i, &x.a, j, &y.a), form(i, &x.b, j, &y.b)),
                    one_of(form(i, &x.a, j, &y.b), form(i, &x.b, j, &y.a)),
                ];
            }
            let same_operands = (x.a == y.a && x.b == y.b) || (x.a == y.b && x.b == y.a);
            if same_operands {
                return vec![one_of(form(i, &x.a, j, &x.b), form(i, &x.b, j, &x.a))];
            }
        }
    }
    Vec::new()
}

/// An expression at least `e` with each multiple of a division rounding down, `t/k*k` (a
/// region rounded to a split's factor), replaced by `t` where `e` never decreases as it
/// grows and by `t - (k - 1)` where `e` never increases (`t - (k - 1) <= t/k*k <= t` for
/// `k > 0`, a Euclidean division rounding down whatever the sign). Without the division,
/// `t`'s terms may cancel with the rest of `e` (the rounded end of a window against its
/// own start), so the result may have a constant bound where `e` shows none. A constant
/// multiple of a sum, `min` or `max` is distributed to reach the divisions inside
/// (`min(a, t/k - 1)*k`). `None` if `e` has no such multiple.
pub fn without_roundings(e: &Expr) -> Option<Expr> {
    let mut found = false;
    let relaxed = relax_roundings(e, true, &mut found);
    found.then_some(relaxed)
}

/// `without_roundings` of `e` where `upper`; where not, an expression at most `e`.
fn relax_roundings(e: &Expr, upper: bool, found: &mut bool) -> Expr {
    let ExprKind::Binary(op, a, b) = e.kind() else {
        return e.clone();
    };
    let positive = b.as_int_const().filter(|&k| k > 0);
    match op {
        BinaryOp::Add | BinaryOp::Min | BinaryOp::Max => Expr::binary(
            *op,
            relax_roundings(a, upper, found),
            relax_roundings(b, upper, found),
        ),
        BinaryOp::Sub => Expr::binary(
            *op,
            relax_roundings(a, upper, found),
            relax_roundings(b, !upper, found),
        ),
        BinaryOp::Mul if positive.is_some() => relax_scaled(a, b, upper, found),
        BinaryOp::Div if positive.is_some() => {
            Expr::binary(*op, relax_roundings(a, upper, found), b.clone())
        }
        _ => e.clone(),
    }
}

/// `relax_roundings` of `e*k` for a constant `k > 0`.
fn relax_scaled(e: &Expr, k: &Expr, upper: bool, found: &mut bool) -> Expr {
    let ExprKind::Binary(op, a, b) = e.kind() else {
        return Expr::binary(BinaryOp::Mul, e.clone(), k.clone());
    };
    match op {
        BinaryOp::Div if b.as_int_const() == k.as_int_const() => {
            *found = true;
            let t = relax_roundings(a, upper, found);
            if upper {
                t
            } else {
                let below = Expr::binary(BinaryOp::Sub, k.clone(), Expr::make_const(k.ty(), 1));
                Expr::binary(BinaryOp::Sub, t, below)
            }
        }
        BinaryOp::Add | BinaryOp::Min | BinaryOp::Max => Expr::binary(
            *op,
            relax_scaled(a, k, upper, found),
            relax_scaled(b, k, upper, found),
        ),
        BinaryOp::Sub => Expr::binary(
            *op,
            relax_scaled(a, k, upper, found),
            relax_scaled(b, k, !upper, found),
        ),
        _ => Expr::binary(BinaryOp::Mul, relax_roundings(e, upper, found), k.clone()),
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
    fn a_rounding_to_a_factor_is_bounded_by_what_it_rounds() {
        // The end of a window [a, b] rounded up by 6 past a, less a, with b = min(a + 5, n):
        // relaxed to b - a + 6, at most 11.
        let a = var("a");
        let b = Expr::binary(BinaryOp::Min, add(a.clone(), Expr::i32(5)), var("n"));
        let six = Expr::i32(6);
        let rounded = Expr::binary(
            BinaryOp::Mul,
            Expr::binary(
                BinaryOp::Div,
                add(sub(b, a.clone()), six.clone()),
                six.clone(),
            ),
            six,
        );
        let extent = sub(add(a.clone(), rounded), a.clone());
        let relaxed = without_roundings(&extent).expect("a rounding");
        assert_eq!(constant_upper_bound(&relaxed, &Scope::new()), Some(11));
        // Subtracted, a rounding is replaced by its least value: 10 - (a/4*4) + a <= 13.
        let four = Expr::i32(4);
        let down = Expr::binary(
            BinaryOp::Mul,
            Expr::binary(BinaryOp::Div, a.clone(), four.clone()),
            four,
        );
        let e = add(sub(Expr::i32(10), down), a.clone());
        let relaxed = without_roundings(&e).expect("a rounding");
        assert_eq!(constant_upper_bound(&relaxed, &Scope::new()), Some(13));
        assert!(without_roundings(&a).is_none());
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
    fn divisions_of_a_variable_are_bounded_by_their_residues() {
        // Rows of a producer upsampled twice by 2: ((y/2 + 1)/2) - (y/2)/2 + 2 is 2 or 3.
        let y = var("y");
        let half = |e: Expr| Expr::binary(BinaryOp::Div, e, Expr::i32(2));
        let e = add(
            sub(
                half(add(half(y.clone()), Expr::i32(1))),
                half(half(y.clone())),
            ),
            Expr::i32(2),
        );
        assert_eq!(constant_upper_bound(&e, &Scope::new()), Some(3));
        // The largest value it takes, with Euclidean division: the bound is exact.
        let value = |y: i64| (y.div_euclid(2) + 1).div_euclid(2) - y.div_euclid(4) + 2;
        assert_eq!((-40..40).map(value).max(), Some(3));
        // In a scope the residues keep y's range: y % 8 - y / 8 for y in [0, 15] is at most 7.
        let mut scope = Scope::new();
        scope.insert(Symbol::new("y"), Interval::from_consts(Type::i32(), 0, 15));
        let e = sub(
            Expr::binary(BinaryOp::Mod, y.clone(), Expr::i32(8)),
            Expr::binary(BinaryOp::Div, y.clone(), Expr::i32(8)),
        );
        assert_eq!(constant_upper_bound(&e, &scope), Some(7));
        // A division that does not cancel stays unbounded.
        assert_eq!(constant_upper_bound(&half(y), &Scope::new()), None);
    }

    #[test]
    fn a_min_inside_a_division_by_a_constant_is_split() {
        // The rows of a producer upsampled by 2 that one row t of a strip ending at n reads:
        // (min(n, t) + 1)/2 - t/2 + 1 is 1 or 2 (2 when t < n), whatever n.
        let t = add(var("strip"), var("row"));
        let half = |e: Expr| Expr::binary(BinaryOp::Div, e, Expr::i32(2));
        let end = Expr::binary(BinaryOp::Min, var("n"), t.clone());
        let extent = add(sub(half(add(end, Expr::i32(1))), half(t)), Expr::i32(1));
        assert_eq!(constant_upper_bound(&extent, &Scope::new()), Some(2));
        let value = |n: i64, t: i64| (n.min(t) + 1).div_euclid(2) - t.div_euclid(2) + 1;
        let largest = (-9..9)
            .flat_map(|n| (-9..9).map(move |t| value(n, t)))
            .max();
        assert_eq!(largest, Some(2));
        // Subtracted, a min inside a scaled term is one operand or the other: 3*t - 3*min(t,
        // n) is unbounded (n may be far below t), and stays so.
        let scaled = |e: Expr| Expr::binary(BinaryOp::Mul, e, Expr::i32(3));
        let e = sub(
            scaled(var("t")),
            scaled(Expr::binary(BinaryOp::Min, var("t"), var("n"))),
        );
        assert_eq!(constant_upper_bound(&e, &Scope::new()), None);
        // ... while 3*min(t, n) - 3*t is at most 0.
        let e = sub(
            scaled(Expr::binary(BinaryOp::Min, var("t"), var("n"))),
            scaled(var("t")),
        );
        assert_eq!(constant_upper_bound(&e, &Scope::new()), Some(0));
    }

    fn min(a: Expr, b: Expr) -> Expr {
        Expr::binary(BinaryOp::Min, a, b)
    }

    fn max(a: Expr, b: Expr) -> Expr {
        Expr::binary(BinaryOp::Max, a, b)
    }

    fn offset(e: &Expr, by: i32) -> Expr {
        add(e.clone(), Expr::i32(by))
    }

    #[test]
    fn a_min_added_and_a_min_subtracted_are_split_together() {
        // The rows a clamped stencil reads: min(y + 1, 17) - min(y - 1, 15) + 1 is 3.
        let y = var("y");
        let e = offset(
            &sub(
                min(offset(&y, 1), Expr::i32(17)),
                min(offset(&y, -1), Expr::i32(15)),
            ),
            1,
        );
        assert_eq!(constant_upper_bound(&e, &Scope::new()), Some(3));
        // Operands paired crosswise: max(n, y + 2) - max(y, n - 1) is at most 2.
        let e = sub(
            max(var("n"), offset(&y, 2)),
            max(y.clone(), offset(&var("n"), -1)),
        );
        assert_eq!(constant_upper_bound(&e, &Scope::new()), Some(2));
        let value = |n: i64, y: i64| n.max(y + 2) - y.max(n - 1);
        let largest = (-9..9)
            .flat_map(|n| (-9..9).map(move |y| value(n, y)))
            .max();
        assert_eq!(largest, Some(2));
        // Mins of unrelated bounds stay unbounded: min(x, n) - min(x, m) grows with n - m.
        let x = var("x");
        let e = sub(min(x.clone(), var("n")), min(x, var("m")));
        assert_eq!(constant_upper_bound(&e, &Scope::new()), None);
    }

    #[test]
    fn a_max_and_a_min_of_the_same_operands_are_split_together() {
        // The window of a stencil clamped to two different rows, its ends the max and the
        // min of the clamped rows: at most 3 rows.
        let y = var("y");
        let (low, high) = (
            min(offset(&y, -1), Expr::i32(15)),
            min(offset(&y, 1), Expr::i32(17)),
        );
        let e = offset(
            &sub(
                max(low.clone(), high.clone()),
                min(low.clone(), high.clone()),
            ),
            1,
        );
        assert_eq!(constant_upper_bound(&e, &Scope::new()), Some(3));
        let value = |y: i64| {
            let (low, high) = ((y - 1).min(15), (y + 1).min(17));
            low.max(high) - low.min(high) + 1
        };
        assert_eq!((-40..40).map(value).max(), Some(3));
        // Mirrored (the window of a consumer reading it negated), in either order.
        let negate = |e: Expr| sub(Expr::i32(0), e);
        let e = offset(
            &sub(
                max(negate(high.clone()), negate(low.clone())),
                min(negate(low), negate(high)),
            ),
            1,
        );
        assert_eq!(constant_upper_bound(&e, &Scope::new()), Some(3));
    }

    #[test]
    fn one_min_added_and_subtracted_inside_scaled_terms_is_split_together() {
        // Rows of a 2x upsample downsampled by 3, two output rows per iteration, the last
        // clamped to m: (min(m, 2y) + 1)/2*3 - min(m, 2y)/2*3 + 5 is at most 8.
        let scaled_half = |e: Expr| {
            Expr::binary(
                BinaryOp::Mul,
                Expr::binary(BinaryOp::Div, e, Expr::i32(2)),
                Expr::i32(3),
            )
        };
        let row = min(
            var("m"),
            Expr::binary(BinaryOp::Mul, Expr::i32(2), var("y")),
        );
        let e = offset(&sub(scaled_half(offset(&row, 1)), scaled_half(row)), 5);
        assert_eq!(constant_upper_bound(&e, &Scope::new()), Some(8));
        let value = |m: i64, y: i64| {
            let row = m.min(2 * y);
            (row + 1).div_euclid(2) * 3 - row.div_euclid(2) * 3 + 5
        };
        let largest = (-9..9)
            .flat_map(|m| (-9..9).map(move |y| value(m, y)))
            .max();
        assert_eq!(largest, Some(8));
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
