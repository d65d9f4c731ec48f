//! Solving conditions for one integer variable (Halide's `Solve`): the range of a loop
//! variable `v` where a boolean condition holds, found by reducing each comparison to a
//! linear inequality `k * v + r <= 0` with a constant `k`.
//!
//! Two approximations, for the two questions lowering asks:
//! - [`inner_range`]: bounds within which the condition surely holds (on every lane), or
//!   `None`. Loop partitioning takes the steady state from it, so it may only be too small.
//!   Through `min`/`max` (a `min` needs only one side), negations (a clamp's lower bound of
//!   0 simplifies to `-min(x, hi) <= 0`), ramps and broadcasts (their extreme lanes), and
//!   divisions by a constant dividing `v`'s coefficient (an upsampling's `x / 2`).
//! - [`outer_range`]: bounds outside which the condition surely fails (scalar conditions).
//!   Trimming no-op iterations cuts a loop to it, so it may only be too big; it also says
//!   when the condition holds everywhere within its bounds.

use crate::ir::substitute::uses_var;
use crate::ir::{BinaryOp, Expr, ExprKind, Symbol, Type, UnaryOp};
use crate::simplify::simplify;

/// Where a condition surely holds: `lower <= v <= upper` for every listed bound, and the
/// conditions that do not depend on `v` at all.
#[derive(Default)]
pub struct InnerRange {
    pub lower: Vec<Expr>,
    pub upper: Vec<Expr>,
    pub invariant: Vec<Expr>,
}

impl InnerRange {
    /// Adds `other`'s bounds and conditions (the intersection of the two ranges).
    pub fn extend(&mut self, other: InnerRange) {
        let union = |mine: &mut Vec<Expr>, theirs: Vec<Expr>| {
            for e in theirs {
                if !mine.contains(&e) {
                    mine.push(e);
                }
            }
        };
        union(&mut self.lower, other.lower);
        union(&mut self.upper, other.upper);
        union(&mut self.invariant, other.invariant);
    }
}

/// Bounds on `v` under which the boolean `cond` (every lane of it) holds, or `None` when
/// they cannot be found.
pub fn inner_range(cond: &Expr, v: Symbol) -> Option<InnerRange> {
    match cond.kind() {
        ExprKind::Binary(BinaryOp::And, a, b) => {
            let mut s = inner_range(a, v)?;
            s.extend(inner_range(b, v)?);
            Some(s)
        }
        ExprKind::Binary(BinaryOp::Or, a, b) => inner_range(a, v).or_else(|| inner_range(b, v)),
        ExprKind::Unary(UnaryOp::Not, c) => inner_range(&negate(c)?, v),
        // Every lane is the scalar condition.
        ExprKind::Broadcast(c) => inner_range(c, v),
        ExprKind::Binary(op, a, b) if op.is_comparison() && a.ty().element() == Type::i32() => {
            inner_non_positive(&as_non_positive(*op, a, b)?, v)
        }
        _ if !uses_var(cond, v) && cond.ty().is_scalar() => Some(InnerRange {
            invariant: vec![cond.clone()],
            ..InnerRange::default()
        }),
        _ => None,
    }
}

/// Bounds on `v` under which every lane of the integer `e` is `<= 0`.
fn inner_non_positive(e: &Expr, v: Symbol) -> Option<InnerRange> {
    // Lifting leaves unsimplified pieces (`x16(a) - ramp(b, 1, 16)`); simplifying them gives
    // the canonical ramps and broadcasts matched below.
    let e = simplify(&lift_min_max(e));
    let e = lift_min_max(&e);
    match e.kind() {
        // min(p, q) <= 0 when either is; prefer the side that constrains v.
        ExprKind::Binary(BinaryOp::Min, p, q) => {
            let (first, second) = if uses_var(p, v) { (p, q) } else { (q, p) };
            inner_non_positive(first, v).or_else(|| inner_non_positive(second, v))
        }
        ExprKind::Binary(BinaryOp::Max, p, q) => {
            let mut s = inner_non_positive(p, v)?;
            s.extend(inner_non_positive(q, v)?);
            Some(s)
        }
        // The lanes of a ramp are linear: the first and last are the extremes.
        ExprKind::Ramp(base, stride) => {
            // A ramp of vectors (nested vectorization) has `lanes` steps of its base's lanes.
            let lanes = (e.ty().lanes / base.ty().lanes) as i32;
            let last = Expr::binary(
                BinaryOp::Add,
                base.clone(),
                Expr::binary(
                    BinaryOp::Mul,
                    stride.clone(),
                    Expr::make_const(stride.ty(), i64::from(lanes - 1)),
                ),
            );
            let mut s = inner_non_positive(base, v)?;
            s.extend(inner_non_positive(&simplify(&last), v)?);
            Some(s)
        }
        ExprKind::Broadcast(x) => inner_non_positive(x, v),
        _ if e.ty().is_scalar() => {
            let (k, r) = affine(&e, v)?;
            Some(match linear_bound(k, r) {
                LinearBound::Invariant(holds) => InnerRange {
                    invariant: vec![holds],
                    ..InnerRange::default()
                },
                LinearBound::AtMost(upper) => InnerRange {
                    upper: vec![upper],
                    ..InnerRange::default()
                },
                LinearBound::AtLeast(lower) => InnerRange {
                    lower: vec![lower],
                    ..InnerRange::default()
                },
            })
        }
        _ => None,
    }
}

/// Where the loop variable can be when a condition holds: inclusive bounds (none when
/// unbounded) and whether the condition holds everywhere within them.
pub struct OuterRange {
    pub lower: Option<Expr>,
    pub upper: Option<Expr>,
    pub exact: bool,
}

impl OuterRange {
    fn anywhere() -> OuterRange {
        OuterRange {
            lower: None,
            upper: None,
            exact: false,
        }
    }

    /// Where both conditions can hold.
    fn both(a: OuterRange, b: OuterRange) -> OuterRange {
        let tighter = |op: BinaryOp, x: Option<Expr>, y: Option<Expr>| match (x, y) {
            (Some(x), Some(y)) => Some(Expr::binary(op, x, y)),
            (x, y) => x.or(y),
        };
        OuterRange {
            lower: tighter(BinaryOp::Max, a.lower, b.lower),
            upper: tighter(BinaryOp::Min, a.upper, b.upper),
            exact: a.exact && b.exact,
        }
    }

    /// Where either condition can hold.
    fn either(a: OuterRange, b: OuterRange) -> OuterRange {
        let looser =
            |op: BinaryOp, x: Option<Expr>, y: Option<Expr>| Some(Expr::binary(op, x?, y?));
        OuterRange {
            lower: looser(BinaryOp::Min, a.lower, b.lower),
            upper: looser(BinaryOp::Max, a.upper, b.upper),
            exact: false,
        }
    }
}

/// Where `v` can be when the scalar boolean `cond` holds.
pub fn outer_range(cond: &Expr, v: Symbol) -> OuterRange {
    use BinaryOp::*;
    match cond.kind() {
        ExprKind::Binary(And, a, b) => OuterRange::both(outer_range(a, v), outer_range(b, v)),
        ExprKind::Binary(Or, a, b) => OuterRange::either(outer_range(a, v), outer_range(b, v)),
        ExprKind::Unary(UnaryOp::Not, c) => {
            negate(c).map_or_else(OuterRange::anywhere, |c| outer_range(&c, v))
        }
        ExprKind::Binary(op, a, b) if op.is_comparison() && a.ty() == Type::i32() => {
            let solved = |op: BinaryOp| {
                as_non_positive(op, a, b)
                    .map_or_else(OuterRange::anywhere, |e| outer_non_positive(&e, v))
            };
            match op {
                Eq => OuterRange::both(solved(Le), solved(Ge)),
                op => solved(*op),
            }
        }
        _ => OuterRange::anywhere(),
    }
}

/// Where `v` can be when the scalar i32 `e` is `<= 0`.
fn outer_non_positive(e: &Expr, v: Symbol) -> OuterRange {
    // Mins and maxes not involving `v` stay in the affine form's remainder; the others are
    // lifted to the top and split on.
    let e = if affine(e, v).is_some() {
        e.clone()
    } else {
        lift_min_max(&simplify(&lift_min_max(e)))
    };
    match e.kind() {
        ExprKind::Binary(BinaryOp::Min, p, q) if uses_var(&e, v) => {
            OuterRange::either(outer_non_positive(p, v), outer_non_positive(q, v))
        }
        ExprKind::Binary(BinaryOp::Max, p, q) if uses_var(&e, v) => {
            OuterRange::both(outer_non_positive(p, v), outer_non_positive(q, v))
        }
        _ => match affine(&e, v).map(|(k, r)| linear_bound(k, r)) {
            Some(LinearBound::AtMost(upper)) => OuterRange {
                lower: None,
                upper: Some(upper),
                exact: true,
            },
            Some(LinearBound::AtLeast(lower)) => OuterRange {
                lower: Some(lower),
                upper: None,
                exact: true,
            },
            _ => OuterRange::anywhere(),
        },
    }
}

/// An integer `e` with `e <= 0` exactly when `a op b` (`op` one of `<=`, `<`, `>=`, `>`), or
/// `None` for another comparison.
fn as_non_positive(op: BinaryOp, a: &Expr, b: &Expr) -> Option<Expr> {
    let difference = |x: &Expr, y: &Expr, plus: i32| {
        let d = Expr::binary(BinaryOp::Sub, x.clone(), y.clone());
        let plus = Expr::i32(plus).broadcast_to(x.ty().lanes);
        simplify(&Expr::binary(BinaryOp::Add, d, plus))
    };
    Some(match op {
        BinaryOp::Le => difference(a, b, 0),
        BinaryOp::Lt => difference(a, b, 1),
        BinaryOp::Ge => difference(b, a, 0),
        BinaryOp::Gt => difference(b, a, 1),
        _ => return None,
    })
}

/// What `k * v + r <= 0` says about `v`.
enum LinearBound {
    AtMost(Expr),
    AtLeast(Expr),
    /// `k` is 0: the condition, free of `v`.
    Invariant(Expr),
}

fn linear_bound(k: i32, r: Expr) -> LinearBound {
    let zero = Expr::i32(0);
    match k {
        0 => LinearBound::Invariant(Expr::binary(BinaryOp::Le, r, zero)),
        // k v + r <= 0  <=>  v <= floor(-r / k)
        k if k > 0 => LinearBound::AtMost(Expr::binary(
            BinaryOp::Div,
            Expr::binary(BinaryOp::Sub, zero, r),
            Expr::i32(k),
        )),
        // -m v + r <= 0  <=>  v >= ceil(r / m)
        k => LinearBound::AtLeast(Expr::binary(
            BinaryOp::Div,
            Expr::binary(BinaryOp::Add, r, Expr::i32(-k - 1)),
            Expr::i32(-k),
        )),
    }
}

/// `!c` with the negation pushed into comparisons.
fn negate(c: &Expr) -> Option<Expr> {
    use BinaryOp::*;
    Some(match c.kind() {
        ExprKind::Binary(op @ (Lt | Le | Gt | Ge), a, b) => {
            Expr::binary(op.negated_comparison()?, a.clone(), b.clone())
        }
        ExprKind::Binary(And, a, b) => Expr::binary(Or, negate(a)?, negate(b)?),
        ExprKind::Binary(Or, a, b) => Expr::binary(And, negate(a)?, negate(b)?),
        ExprKind::Unary(UnaryOp::Not, a) => a.clone(),
        _ => return None,
    })
}

/// `e` with `min`/`max` moved above additions, subtractions, multiplications by constants,
/// ramps and broadcasts (all lane-wise identities), so conditions can be split on them.
fn lift_min_max(e: &Expr) -> Expr {
    use BinaryOp::*;
    let split = |e: &Expr| match e.kind() {
        ExprKind::Binary(op @ (Min | Max), p, q) => Some((*op, p.clone(), q.clone())),
        _ => None,
    };
    let flip = |op: BinaryOp| if op == Min { Max } else { Min };
    match e.kind() {
        ExprKind::Binary(op @ (Add | Sub), a, b) => {
            let (a, b) = (lift_min_max(a), lift_min_max(b));
            let rebuild = |x: Expr, y: Expr| lift_min_max(&Expr::binary(*op, x, y));
            if let Some((m, p, q)) = split(&a) {
                Expr::binary(m, rebuild(p, b.clone()), rebuild(q, b))
            } else if let Some((m, p, q)) = split(&b) {
                // a - min(p, q) = max(a - p, a - q)
                let m = if *op == Sub { flip(m) } else { m };
                Expr::binary(m, rebuild(a.clone(), p), rebuild(a, q))
            } else {
                Expr::binary(*op, a, b)
            }
        }
        ExprKind::Binary(Mul, a, b) => {
            let a = lift_min_max(a);
            match (split(&a), constant_of(b)) {
                (Some((m, p, q)), Some(c)) if c != 0 => {
                    let m = if c < 0 { flip(m) } else { m };
                    let times = |x: Expr| lift_min_max(&Expr::binary(Mul, x, b.clone()));
                    Expr::binary(m, times(p), times(q))
                }
                _ => Expr::binary(Mul, a, b.clone()),
            }
        }
        ExprKind::Ramp(base, stride) => {
            let base = lift_min_max(base);
            let lanes = e.ty().lanes / base.ty().lanes;
            match split(&base) {
                Some((m, p, q)) => Expr::binary(
                    m,
                    Expr::ramp(p, stride.clone(), lanes),
                    Expr::ramp(q, stride.clone(), lanes),
                ),
                None => Expr::ramp(base, stride.clone(), lanes),
            }
        }
        ExprKind::Broadcast(x) => {
            let x = lift_min_max(x);
            let lanes = e.ty().lanes / x.ty().lanes;
            match split(&x) {
                Some((m, p, q)) => Expr::binary(m, p.broadcast_to(lanes), q.broadcast_to(lanes)),
                None => x.broadcast_to(lanes),
            }
        }
        // The simplifier writes `0 - a` as `-a`: -min(p, q) = max(-p, -q), and the negation
        // goes into ramps and broadcasts so their lanes can still be bounded.
        ExprKind::Unary(UnaryOp::Neg, a) => {
            let neg = |x: &Expr| lift_min_max(&Expr::unary(UnaryOp::Neg, x.clone()));
            let a = lift_min_max(a);
            if let Some((m, p, q)) = split(&a) {
                return Expr::binary(flip(m), neg(&p), neg(&q));
            }
            match a.kind() {
                ExprKind::Ramp(base, stride) => lift_min_max(&Expr::ramp(
                    Expr::unary(UnaryOp::Neg, base.clone()),
                    Expr::unary(UnaryOp::Neg, stride.clone()),
                    a.ty().lanes / base.ty().lanes,
                )),
                ExprKind::Broadcast(x) => neg(x).broadcast_to(a.ty().lanes / x.ty().lanes),
                _ => Expr::unary(UnaryOp::Neg, a),
            }
        }
        _ => e.clone(),
    }
}

/// A scalar integer constant, looking through broadcasts.
fn constant_of(e: &Expr) -> Option<i128> {
    match e.kind() {
        ExprKind::Broadcast(x) => constant_of(x),
        _ => e.as_int_const(),
    }
}

/// `(k, r)` with `e == k * v + r`, `k` constant and `r` free of `v` (scalar i32 `e`).
fn affine(e: &Expr, v: Symbol) -> Option<(i32, Expr)> {
    if !uses_var(e, v) {
        return Some((0, e.clone()));
    }
    match e.kind() {
        ExprKind::Var(n) if *n == v && e.ty() == Type::i32() => Some((1, Expr::i32(0))),
        ExprKind::Unary(UnaryOp::Neg, a) => {
            let (k, r) = affine(a, v)?;
            Some((k.checked_neg()?, Expr::unary(UnaryOp::Neg, r)))
        }
        ExprKind::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), a, b) => {
            let ((ka, ra), (kb, rb)) = (affine(a, v)?, affine(b, v)?);
            let k = if *op == BinaryOp::Add {
                ka.checked_add(kb)?
            } else {
                ka.checked_sub(kb)?
            };
            Some((k, Expr::binary(*op, ra, rb)))
        }
        ExprKind::Binary(BinaryOp::Mul, a, b) => {
            let (x, c) = match (a.as_int_const(), b.as_int_const()) {
                (_, Some(c)) => (a, c),
                (Some(c), _) => (b, c),
                _ => return None,
            };
            let c = i32::try_from(c).ok()?;
            let (k, r) = affine(x, v)?;
            Some((
                k.checked_mul(c)?,
                Expr::binary(BinaryOp::Mul, r, Expr::i32(c)),
            ))
        }
        // (k v + r) / c = (k / c) v + r / c when c > 0 divides k (division rounds down, so
        // whole multiples of c pass through it): an upsampling's `x / 2` of a vector base.
        ExprKind::Binary(BinaryOp::Div, a, b) => {
            let c = i32::try_from(b.as_int_const()?).ok().filter(|&c| c > 0)?;
            let (k, r) = affine(a, v)?;
            (k % c == 0).then(|| (k / c, Expr::binary(BinaryOp::Div, r, Expr::i32(c))))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::ir::substitute::substitute_map;

    const X: &str = "x";
    const Y: &str = "y";
    const XS: std::ops::RangeInclusive<i32> = -12..=12;
    const YS: std::ops::RangeInclusive<i32> = -6..=6;

    fn x() -> Expr {
        Expr::var(X, Type::i32())
    }
    fn y() -> Expr {
        Expr::var(Y, Type::i32())
    }
    fn c(v: i32) -> Expr {
        Expr::i32(v)
    }
    /// A condition's meaning, written as plain Rust over `x` and `y`.
    type Truth = fn(i32, i32) -> bool;

    fn bin(op: BinaryOp, a: Expr, b: Expr) -> Expr {
        Expr::binary(op, a, b)
    }

    /// The constant `e` folds to with `x` and `y` set (only `y` for the solver's bounds).
    fn value(e: &Expr, x: i32, y: i32) -> i128 {
        let env = HashMap::from([(Symbol::new(X), c(x)), (Symbol::new(Y), c(y))]);
        let folded = simplify(&substitute_map(e, &env));
        folded
            .as_int_const()
            .unwrap_or_else(|| panic!("{e} does not fold to a constant: {folded}"))
    }

    /// The `x` of `XS` inside the inner range, at `y`.
    fn inner_points(range: &InnerRange, y: i32) -> Vec<i32> {
        let holds = |e: &Expr| value(e, 0, y) != 0;
        if !range.invariant.iter().all(holds) {
            return Vec::new();
        }
        XS.filter(|&x| {
            range.lower.iter().all(|lo| value(lo, 0, y) <= x as i128)
                && range.upper.iter().all(|hi| x as i128 <= value(hi, 0, y))
        })
        .collect()
    }

    /// The `x` of `XS` inside the outer range, at `y`.
    fn outer_points(range: &OuterRange, y: i32) -> Vec<i32> {
        XS.filter(|&x| {
            range.lower.iter().all(|lo| value(lo, 0, y) <= x as i128)
                && range.upper.iter().all(|hi| x as i128 <= value(hi, 0, y))
        })
        .collect()
    }

    /// Checks `inner_range` and `outer_range` of `cond` against `truth` (a plain Rust
    /// reference) by brute force: inner points satisfy it, points satisfying it are outer,
    /// and an exact outer range is the truth. Returns how many inner points there were over
    /// all `y`, so a test can require that the inner range is not trivially empty.
    fn check(cond: &Expr, truth: impl Fn(i32, i32) -> bool) -> usize {
        let inner = inner_range(cond, Symbol::new(X));
        let mut inner_count = 0;
        for y in YS {
            if let Some(inner) = &inner {
                for x in inner_points(inner, y) {
                    assert!(truth(x, y), "{cond}: x = {x}, y = {y} is inner but fails");
                    inner_count += 1;
                }
            }
            if cond.ty().is_scalar() {
                let outer = outer_range(cond, Symbol::new(X));
                let reachable = outer_points(&outer, y);
                for x in XS.filter(|&x| truth(x, y)) {
                    assert!(reachable.contains(&x), "{cond}: x = {x}, y = {y} outside");
                }
                if outer.exact {
                    assert!(reachable.iter().all(|&x| truth(x, y)), "{cond} not exact");
                }
            }
        }
        inner_count
    }

    #[test]
    fn linear_inequality_is_solved_exactly() {
        use BinaryOp::*;
        // 2 * x + 3 < y
        let cond = bin(Lt, bin(Add, bin(Mul, c(2), x()), c(3)), y());
        let truth = |x: i32, y: i32| 2 * x + 3 < y;
        assert!(check(&cond, truth) > 0);
        let inner = inner_range(&cond, Symbol::new(X)).unwrap();
        let outer = outer_range(&cond, Symbol::new(X));
        assert!(outer.exact && outer.lower.is_none() && outer.upper.is_some());
        for y in YS {
            let holds: Vec<i32> = XS.filter(|&x| truth(x, y)).collect();
            assert_eq!(inner_points(&inner, y), holds, "y = {y}");
        }
        // A negative coefficient bounds x from below: 5 - 3 * x <= y.
        let cond = bin(Le, bin(Sub, c(5), bin(Mul, x(), c(3))), y());
        assert!(check(&cond, |x, y| 5 - 3 * x <= y) > 0);
        assert!(inner_range(&cond, Symbol::new(X)).unwrap().lower.len() == 1);
    }

    #[test]
    fn conditions_through_min_max_and_logic() {
        use BinaryOp::*;
        let cases: Vec<(Expr, Truth)> = vec![
            // The lower side of a clamp: 0 <= min(x, y) (the simplifier writes it negated).
            (bin(Le, c(0), bin(Min, x(), y())), |x, y| 0 <= x.min(y)),
            (bin(Lt, bin(Max, x(), c(2)), y()), |x, y| x.max(2) < y),
            (
                bin(Ge, bin(Min, bin(Mul, x(), c(3)), c(7)), bin(Sub, y(), c(4))),
                |x, y| (3 * x).min(7) >= y - 4,
            ),
            // Where `max(min(likely(x), 9), 0)` is `x`: the in-bounds case of a clamp.
            (
                bin(And, bin(Le, c(0), bin(Min, x(), c(9))), bin(Le, x(), c(9))),
                |x, _| x.clamp(0, 9) == x,
            ),
            (bin(Or, bin(Lt, x(), c(-2)), bin(Gt, x(), y())), |x, y| {
                x < -2 || x > y
            }),
            (
                bin(And, bin(Le, y(), x()), bin(Lt, x(), bin(Add, y(), c(5)))),
                |x, y| y <= x && x < y + 5,
            ),
            (Expr::unary(UnaryOp::Not, bin(Ge, x(), y())), |x, y| x < y),
            // x / 2 of an even multiple: (4 * x + 1) / 2 <= y.
            (
                bin(Le, bin(Div, bin(Add, bin(Mul, x(), c(4)), c(1)), c(2)), y()),
                |x, y| (4 * x + 1).div_euclid(2) <= y,
            ),
            // A condition free of x holds everywhere or nowhere.
            (bin(Lt, y(), c(2)), |_, y| y < 2),
        ];
        for (cond, truth) in cases {
            assert!(check(&cond, truth) > 0, "{cond}: the inner range is empty");
        }
    }

    #[test]
    fn vector_conditions_hold_on_every_lane() {
        use BinaryOp::*;
        // ramp(x, 1, 4) < broadcast(y): every lane x + i < y.
        let lanes = Expr::ramp(x(), c(1), 4);
        let cond = bin(Lt, lanes.clone(), y().broadcast_to(4));
        assert!(check(&cond, |x, y| (0..4).all(|i| x + i < y)) > 0);
        // 0 <= ramp(x - 2, -1, 4) for a reversed read.
        let reversed = Expr::ramp(bin(Sub, x(), c(2)), c(-1), 4);
        let cond = bin(Le, c(0).broadcast_to(4), reversed);
        assert!(check(&cond, |x, _| (0..4).all(|i| x - 2 - i >= 0)) > 0);
    }

    #[test]
    fn unsolvable_conditions_give_no_range() {
        use BinaryOp::*;
        let unsolvable = [
            // Not linear in x.
            bin(Lt, bin(Mul, x(), x()), y()),
            // A coefficient that is not a constant.
            bin(Lt, bin(Mul, x(), y()), c(5)),
            // A division that does not divide x's coefficient.
            bin(Le, bin(Div, x(), c(3)), y()),
            // Equality only bounds from outside.
            bin(Eq, x(), y()),
        ];
        for cond in &unsolvable {
            assert!(inner_range(cond, Symbol::new(X)).is_none(), "{cond}");
        }
        let outer = outer_range(&unsolvable[0], Symbol::new(X));
        assert!(outer.lower.is_none() && outer.upper.is_none() && !outer.exact);
        // Where an equality can hold is still bounded on both sides.
        let outer = outer_range(&unsolvable[3], Symbol::new(X));
        assert!(outer.lower.is_some() && outer.upper.is_some() && outer.exact);
        assert!(check(&unsolvable[3], |x, y| x == y) == 0);
    }
}
