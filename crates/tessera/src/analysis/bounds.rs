//! Interval analysis (Halide's `bounds_of_expr_in_scope`, paper §4.2): the symbolic range of
//! values an expression can take, given ranges for its variables. Variables not in the scope
//! are single points (their bound is the variable itself), so bounds come out in terms of
//! them.
//!
//! What the intervals promise:
//! - Integer arithmetic follows the overflow contract: unsigned and 8/16-bit signed
//!   arithmetic and all left shifts wrap, so their bounds are kept only when they are exact
//!   (otherwise the whole type); signed 32/64-bit addition, subtraction, multiplication and
//!   division are assumed not to overflow, neither in the expression nor in its bounds.
//! - Intervals of bool, unsigned and 8/16-bit signed expressions are always bounded (by the
//!   type at worst); floats loaded or called are unbounded, integers by their type.
//! - An interval says nothing about NaN: float intervals bound the non-NaN values, and the
//!   bounds of anything computed from a float assume that float was not NaN (a NaN converts
//!   to integer 0, compares false, ...).
//! - A vector expression's interval is scalar and bounds every lane.

use std::collections::HashMap;
use std::f64::consts::{FRAC_PI_2, PI};

use super::fold;
use super::func_values::FuncValueBounds;
use super::interval::{both, either, int_const, Interval};
use super::min_max_sums;
use super::solve::outer_range;
use crate::ir::substitute::free_vars;
use crate::ir::{BinaryOp, CallKind, Expr, ExprKind, Intrinsic, Symbol, Type, UnaryOp};
use crate::simplify::simplify;

/// The ranges of the variables an expression is analysed under.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    vars: HashMap<Symbol, Interval>,
}

impl Scope {
    pub fn new() -> Scope {
        Scope::default()
    }
    /// Sets the range of `name`, returning the previous one.
    pub fn insert(&mut self, name: Symbol, interval: Interval) -> Option<Interval> {
        self.vars.insert(name, interval)
    }
    pub fn get(&self, name: Symbol) -> Option<&Interval> {
        self.vars.get(&name)
    }
    pub fn remove(&mut self, name: Symbol) -> Option<Interval> {
        self.vars.remove(&name)
    }
    pub fn contains(&self, name: Symbol) -> bool {
        self.vars.contains_key(&name)
    }
    pub fn iter(&self) -> impl Iterator<Item = (Symbol, &Interval)> {
        self.vars.iter().map(|(n, i)| (*n, i))
    }
}

impl FromIterator<(Symbol, Interval)> for Scope {
    fn from_iter<I: IntoIterator<Item = (Symbol, Interval)>>(iter: I) -> Scope {
        Scope {
            vars: iter.into_iter().collect(),
        }
    }
}

/// The range of values `e` can take when each variable in `scope` lies in its interval.
pub fn bounds_of_expr(e: &Expr, scope: &Scope) -> Interval {
    simplified(bounds_of_expr_unsimplified(e, scope))
}

/// `bounds_of_expr` before simplification: the ends as interval arithmetic builds them (with
/// constants folded). The analysis assumes that no step of these overflows signed 32/64-bit
/// arithmetic, which only this form lets a test observe (simplifying an expression that
/// overflows may change its value).
pub fn bounds_of_expr_unsimplified(e: &Expr, scope: &Scope) -> Interval {
    Bounder::new(scope).bounds(e)
}

/// `interval` with both ends simplified.
pub(crate) fn simplified(interval: Interval) -> Interval {
    Interval {
        min: interval.min.map(|e| simplify(&e)),
        max: interval.max.map(|e| simplify(&e)),
    }
}

/// What is known about the sign of every value in an interval.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Sign {
    NonNegative,
    NonPositive,
    Unknown,
}

/// How an intrinsic maps its argument's range to its result's range.
#[derive(Clone, Copy)]
enum Monotonicity {
    Increasing,
    Decreasing,
    /// Neither: only the function's range bounds it.
    Neither,
}

type FloatRange = (Option<f64>, Option<f64>);

/// The bounds computation. It keeps the caller's scope plus the ranges of names bound inside
/// the expression being analysed (lets, loop variables, variables restricted by a select's
/// condition), innermost last.
pub(crate) struct Bounder<'a> {
    scope: &'a Scope,
    bindings: Vec<(Symbol, Interval)>,
    /// The values each Func can take, where known; other calls span their type.
    func_values: Option<&'a FuncValueBounds>,
}

impl<'a> Bounder<'a> {
    pub fn new(scope: &'a Scope) -> Bounder<'a> {
        Bounder {
            scope,
            bindings: Vec::new(),
            func_values: None,
        }
    }

    /// A bounder that bounds a call to a Func by the values the Func can take.
    pub fn with_func_values(scope: &'a Scope, func_values: &'a FuncValueBounds) -> Bounder<'a> {
        Bounder {
            func_values: Some(func_values),
            ..Bounder::new(scope)
        }
    }

    /// Binds `name` to `interval` until the matching `pop`.
    pub fn push(&mut self, name: Symbol, interval: Interval) {
        self.bindings.push((name, interval));
    }

    pub fn pop(&mut self) {
        self.bindings.pop();
    }

    fn lookup(&self, name: Symbol) -> Option<&Interval> {
        self.bindings
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .map(|(_, i)| i)
            .or_else(|| self.scope.get(name))
    }

    /// The interval of `e` under the current bindings.
    pub fn bounds(&mut self, e: &Expr) -> Interval {
        let ty = e.ty().element();
        let interval = self.node(e, ty);
        let may_have_wrapped = match e.kind() {
            ExprKind::Binary(op, a, _) => fold::may_wrap(*op, a.ty().element()),
            ExprKind::Unary(UnaryOp::Neg, _) | ExprKind::Ramp(..) => fold::wraps(ty),
            _ => false,
        };
        if may_have_wrapped && !interval.is_bounded() {
            // A bound was lost, so the exact result may have left the type and wrapped.
            return Interval::type_range(ty);
        }
        if fold::wraps(ty) {
            return or_type_range(interval, ty);
        }
        interval
    }

    /// Whether a bool interval is decided: `Some(true)` when its value is always true.
    pub fn decided(condition: &Interval) -> Option<bool> {
        let is = |e: &Option<Expr>, v: i128| e.as_ref().and_then(Expr::as_int_const) == Some(v);
        if is(&condition.min, 1) {
            Some(true)
        } else if is(&condition.max, 0) {
            Some(false)
        } else {
            None
        }
    }

    fn node(&mut self, e: &Expr, ty: Type) -> Interval {
        match e.kind() {
            ExprKind::IntImm(_) | ExprKind::UIntImm(_) | ExprKind::FloatImm(_) => {
                Interval::single_point(e.clone())
            }
            ExprKind::Var(n) | ExprKind::RVar(n, _) | ExprKind::Param(n, _) => {
                match self.lookup(*n) {
                    Some(interval) => interval.clone(),
                    None if e.ty().is_scalar() => Interval::single_point(e.clone()),
                    // A vector variable has no scalar expression bounding all its lanes.
                    None => Interval::type_range(ty),
                }
            }
            ExprKind::Cast(a) => {
                let x = self.bounds(a);
                match &x.min {
                    // One value converts to one value, whether the type holds it or not.
                    Some(p) if x.is_single_point() => Interval::single_point(fold::cast(ty, p)),
                    _ => self.cast(&x, a.ty().element(), ty),
                }
            }
            ExprKind::Unary(op, a) => {
                let x = self.bounds(a);
                match &x.min {
                    // The negation of one value is one value, wrapped or not.
                    Some(p) if x.is_single_point() => Interval::single_point(
                        fold::unary(*op, p).unwrap_or_else(|| Expr::unary(*op, p.clone())),
                    ),
                    _ => decreasing(*op, &x),
                }
            }
            ExprKind::Binary(op, a, b) => {
                // A sum whose terms cancel an operand of its min or max term is bounded by
                // that cancellation (a tile's extent by the tile's size).
                if let Some(distributed) = min_max_sums::distributed_over_min_max(e) {
                    return self.bounds(&distributed);
                }
                let (x, y) = (self.bounds(a), self.bounds(b));
                // A float operation on two single points is that single point (Halide's
                // rule): `1.0f / r_sigma` stays bounded although the divisor's sign is unknown.
                if let (true, true, true, Some(p), Some(q)) = (
                    a.ty().is_float(),
                    x.is_single_point(),
                    y.is_single_point(),
                    &x.min,
                    &y.min,
                ) {
                    if !is_float_division_by_zero(*op, q) {
                        return Interval::single_point(Expr::binary(*op, p.clone(), q.clone()));
                    }
                }
                self.binary(*op, &x, &y, a.ty().element())
            }
            ExprKind::Select(c, t, f) => {
                let condition = self.bounds(c);
                let arm = |s: &mut Self, truth: bool, arm: &Expr| {
                    s.with_condition(c, truth, |s| s.bounds(arm))
                };
                match Self::decided(&condition) {
                    Some(truth) => arm(self, truth, if truth { t } else { f }),
                    None => arm(self, true, t).union(&arm(self, false, f)),
                }
            }
            ExprKind::Let(name, value, body) => {
                let v = self.bounds(value);
                self.push(*name, v);
                let r = self.bounds(body);
                self.pop();
                r
            }
            ExprKind::Ramp(base, stride) => {
                let last = (e.ty().lanes / base.ty().lanes) as i64 - 1;
                if !ty.is_float() && !ty.can_represent_int(last as i128) {
                    return Interval::type_range(ty);
                }
                let (b, s) = (self.bounds(base), self.bounds(stride));
                let steps = Interval::new(Expr::zero(ty), Expr::make_const(ty, last));
                add(&b, &self.mul(&s, &steps, ty))
            }
            ExprKind::Broadcast(v) => self.bounds(v),
            ExprKind::Load { .. } => Interval::type_range(ty),
            ExprKind::Call {
                kind,
                args,
                name,
                value_index,
            } => match kind {
                CallKind::Func(_) => self
                    .func_values
                    .and_then(|values| values.get(*name, *value_index))
                    .map(|interval| or_type_range(interval.clone(), ty))
                    .unwrap_or_else(|| Interval::type_range(ty)),
                CallKind::Image(_) => Interval::type_range(ty),
                CallKind::Intrinsic(op) => self.intrinsic(*op, args, ty),
            },
            ExprKind::Invalid(_) => Interval::everything(),
        }
    }

    // ---- arithmetic ----------------------------------------------------------------------

    fn binary(&mut self, op: BinaryOp, x: &Interval, y: &Interval, ty: Type) -> Interval {
        use BinaryOp::*;
        if ty.is_bool() && matches!(op, Add | Sub | Mul | Div | Mod | Shl | Shr | BitXor) {
            return Interval::type_range(ty);
        }
        // Two single values give a single value: `x % 2` at a fixed x is that one point, not
        // the range of remainders, and `p * 2 - 1` of an i16 Param `p` is that one value,
        // wrapped or not, where the rules for ranges of wrapping types give up (the min and
        // max rules and comparisons keep points already).
        if let (
            Add | Sub | Mul | Div | Mod | Shl | Shr | BitAnd | BitOr | BitXor,
            true,
            true,
            Some(a),
            Some(b),
        ) = (op, x.is_single_point(), y.is_single_point(), &x.min, &y.min)
        {
            if !is_float_division_by_zero(op, b) {
                return Interval::single_point(one_value(op, a, b));
            }
        }
        match op {
            Add => add(x, y),
            Sub => sub(x, y),
            Mul => self.mul(x, y, ty),
            Div => self.div(x, y, ty),
            Mod => self.modulo(x, y, ty),
            Min => Interval {
                min: both(Min, &x.min, &y.min),
                max: either(Min, &x.max, &y.max),
            },
            Max => Interval {
                min: either(Max, &x.min, &y.min),
                max: both(Max, &x.max, &y.max),
            },
            Eq | Ne | Lt | Le | Gt | Ge => compare(op, x, y),
            And | Or => monotone_pair(op, x, y),
            BitAnd | BitOr if ty.is_bool() => monotone_pair(op, x, y),
            BitAnd | BitOr | BitXor => self.bitwise(op, x, y, ty),
            Shl if self.shift_in_range(y, ty) => self.scale(Shl, x, y, ty),
            Shr if self.sign(y, ty) == Sign::NonNegative => self.quotient(Shr, x, y, ty),
            // Negative amounts shift the other way, and large left shifts lose bits.
            Shl | Shr => Interval::type_range(ty),
        }
    }

    fn sign(&self, x: &Interval, ty: Type) -> Sign {
        let zero = Some(Expr::zero(ty));
        if !ty.is_int() && !ty.is_float() || fold::prove_cmp(BinaryOp::Ge, &x.min, &zero) {
            Sign::NonNegative
        } else if fold::prove_cmp(BinaryOp::Le, &x.max, &zero) {
            Sign::NonPositive
        } else {
            Sign::Unknown
        }
    }

    fn mul(&self, x: &Interval, y: &Interval, ty: Type) -> Interval {
        // (A float product with 0 is -0.0 or NaN for some factors, which the ends' own
        // products keep, and a single point of -0.0 must not become 0.0: 1 / -0.0 is -inf.)
        if !ty.is_float() && (is_zero_point(x) || is_zero_point(y)) {
            return Interval::single_point(Expr::zero(ty));
        }
        let p = |a: &Option<Expr>, b: &Option<Expr>, end| arith(BinaryOp::Mul, a, b, end);
        let (lo, hi) = match (self.sign(x, ty), self.sign(y, ty)) {
            (_, Sign::NonNegative) => return self.scale(BinaryOp::Mul, x, y, ty),
            (Sign::NonNegative, _) => return self.scale(BinaryOp::Mul, y, x, ty),
            (Sign::NonPositive, Sign::NonPositive) => {
                (p(&x.max, &y.max, Lower), p(&x.min, &y.min, Upper))
            }
            (Sign::Unknown, Sign::NonPositive) => (
                min2(p(&x.max, &y.min, Lower), p(&x.max, &y.max, Lower)),
                max2(p(&x.min, &y.min, Upper), p(&x.min, &y.max, Upper)),
            ),
            (Sign::NonPositive, Sign::Unknown) => (
                min2(p(&x.min, &y.max, Lower), p(&x.max, &y.max, Lower)),
                max2(p(&x.min, &y.min, Upper), p(&x.max, &y.min, Upper)),
            ),
            (Sign::Unknown, Sign::Unknown) => {
                let corners = |end| {
                    [
                        p(&x.min, &y.min, end),
                        p(&x.min, &y.max, end),
                        p(&x.max, &y.min, end),
                        p(&x.max, &y.max, end),
                    ]
                };
                let lo = corners(Lower).into_iter().reduce(min2).flatten();
                let hi = corners(Upper).into_iter().reduce(max2).flatten();
                (lo, hi)
            }
        };
        Interval { min: lo, max: hi }
    }

    /// `x op y` for `op` in {Mul, Shl} (multiplication by `y` or by `2^y`) when `y` is
    /// non-negative: increasing in `x`, and in `y` increasing for non-negative `x` and
    /// decreasing for non-positive `x`.
    fn scale(&self, op: BinaryOp, x: &Interval, y: &Interval, ty: Type) -> Interval {
        let p = |a: &Option<Expr>, b: &Option<Expr>, end| arith(op, a, b, end);
        let (lo, hi) = match self.sign(x, ty) {
            Sign::NonNegative => (p(&x.min, &y.min, Lower), p(&x.max, &y.max, Upper)),
            Sign::NonPositive => (p(&x.min, &y.max, Lower), p(&x.max, &y.min, Upper)),
            Sign::Unknown => (
                min2(p(&x.min, &y.min, Lower), p(&x.min, &y.max, Lower)),
                max2(p(&x.max, &y.min, Upper), p(&x.max, &y.max, Upper)),
            ),
        };
        Interval { min: lo, max: hi }
    }

    fn div(&self, x: &Interval, y: &Interval, ty: Type) -> Interval {
        let zero = Some(Expr::zero(ty));
        if is_zero_point(y) {
            // x / 0 is 0 for integers, and an infinity or NaN for floats.
            return if ty.is_float() {
                Interval::everything()
            } else {
                Interval::single_point(Expr::zero(ty))
            };
        }
        if fold::prove_cmp(BinaryOp::Gt, &y.min, &zero) {
            return self.quotient(BinaryOp::Div, x, y, ty);
        }
        if fold::prove_cmp(BinaryOp::Lt, &y.max, &zero) {
            // Both Euclidean and float division satisfy x / y == -(x / -y).
            return decreasing(
                UnaryOp::Neg,
                &self.quotient(BinaryOp::Div, x, &decreasing(UnaryOp::Neg, y), ty),
            );
        }
        if ty.is_float() {
            Interval::everything()
        } else if y.is_single_point() && x.is_bounded() {
            // One divisor d of unknown sign: x / d is monotonic in x (increasing for d > 0,
            // decreasing for d < 0, 0 for d = 0), so the ends are the quotients of x's ends.
            let (a, b) = (
                both(BinaryOp::Div, &x.min, &y.min),
                both(BinaryOp::Div, &x.max, &y.min),
            );
            Interval {
                min: min2(a.clone(), b.clone()),
                max: max2(a, b),
            }
        } else if ty.is_uint() {
            // A divisor that may be 0 gives 0, any other at most x.
            Interval {
                min: zero,
                max: x.max.clone(),
            }
        } else {
            // |x / y| <= |x| for every y (the Euclidean quotient included).
            let magnitude = both(BinaryOp::Max, &negated(&x.min), &x.max);
            Interval {
                min: negated(&magnitude),
                max: magnitude,
            }
        }
    }

    /// `x op y` for `op` in {Div, Shr} (floor division by `y` or by `2^y`) when `y` is
    /// positive (Div) or non-negative (Shr): increasing in `x`, and in `y` decreasing for
    /// non-negative `x` and increasing for negative `x`, tending to 0 or -1 for huge `y`.
    fn quotient(&self, op: BinaryOp, x: &Interval, y: &Interval, ty: Type) -> Interval {
        let q = |a: &Option<Expr>, b: &Option<Expr>, end| arith(op, a, b, end);
        // x op y.max, or 0 when the divisor is unbounded (a bound of the limit 0 or -1).
        let by_largest = |a: &Option<Expr>, end| match (&y.max, a) {
            (Some(_), _) => q(a, &y.max, end),
            (None, Some(_)) => Some(Expr::zero(ty)),
            (None, None) => None,
        };
        let (lo, hi) = match self.sign(x, ty) {
            Sign::NonNegative => (by_largest(&x.min, Lower), q(&x.max, &y.min, Upper)),
            Sign::NonPositive => (q(&x.min, &y.min, Lower), by_largest(&x.max, Upper)),
            Sign::Unknown => (
                min2(q(&x.min, &y.min, Lower), by_largest(&x.min, Lower)),
                max2(q(&x.max, &y.min, Upper), by_largest(&x.max, Upper)),
            ),
        };
        Interval { min: lo, max: hi }
    }

    fn modulo(&self, x: &Interval, y: &Interval, ty: Type) -> Interval {
        if ty.is_float() {
            // x - y * floor(x / y) in float arithmetic can land far outside [0, y).
            return Interval::everything();
        }
        let zero = Some(Expr::zero(ty));
        let one = Some(Expr::one(ty));
        if is_zero_point(y) {
            return Interval::single_point(Expr::zero(ty));
        }
        let positive = fold::prove_cmp(BinaryOp::Gt, &y.min, &zero);
        let negative = fold::prove_cmp(BinaryOp::Lt, &y.max, &zero);
        let x_non_negative = self.sign(x, ty) == Sign::NonNegative;
        if positive && x_non_negative && fold::prove_cmp(BinaryOp::Lt, &x.max, &y.min) {
            return x.clone();
        }
        // The Euclidean remainder lies in [0, |y| - 1], and is 0 when y is 0.
        let magnitude = if ty.is_uint() || fold::prove_cmp(BinaryOp::Ge, &y.min, &zero) {
            y.max.clone()
        } else if fold::prove_cmp(BinaryOp::Le, &y.max, &zero) {
            negated(&y.min)
        } else {
            both(BinaryOp::Max, &negated(&y.min), &y.max)
        };
        let mut hi = both(BinaryOp::Sub, &magnitude, &one);
        if !(positive || negative) {
            hi = both(BinaryOp::Max, &hi, &zero);
        }
        if x_non_negative {
            // A non-negative x is its own upper bound: x % y <= x.
            hi = either(BinaryOp::Min, &hi, &x.max);
        }
        Interval { min: zero, max: hi }
    }

    fn bitwise(&self, op: BinaryOp, x: &Interval, y: &Interval, ty: Type) -> Interval {
        let type_range = Interval::type_range(ty);
        let zero = Some(Expr::zero(ty));
        let (sx, sy) = (self.sign(x, ty), self.sign(y, ty));
        let non_negative = sx == Sign::NonNegative && sy == Sign::NonNegative;
        let non_positive = sx == Sign::NonPositive && sy == Sign::NonPositive;
        match op {
            // x & y clears bits: it is at most either non-negative operand, and never
            // negative if one is not.
            BinaryOp::BitAnd if non_negative => Interval {
                min: zero,
                max: either(BinaryOp::Min, &x.max, &y.max),
            },
            BinaryOp::BitAnd if sx == Sign::NonNegative => Interval {
                min: zero,
                max: x.max.clone(),
            },
            BinaryOp::BitAnd if sy == Sign::NonNegative => Interval {
                min: zero,
                max: y.max.clone(),
            },
            BinaryOp::BitAnd if non_positive => Interval {
                min: type_range.min,
                max: zero,
            },
            BinaryOp::BitAnd => Interval {
                min: type_range.min,
                max: both(BinaryOp::Max, &x.max, &y.max),
            },
            // x | y sets bits: it is at least the smaller operand (at least the larger when
            // both are non-negative), and for non-negative operands x ^ y <= x | y <= the
            // all-ones number covering both.
            BinaryOp::BitOr if non_negative => Interval {
                min: either(BinaryOp::Max, &x.min, &y.min),
                max: all_ones_covering(&x.max, &y.max),
            },
            BinaryOp::BitOr => Interval {
                min: both(BinaryOp::Min, &x.min, &y.min),
                max: if non_positive { zero } else { type_range.max },
            },
            BinaryOp::BitXor if non_negative => Interval {
                min: zero,
                max: all_ones_covering(&x.max, &y.max),
            },
            _ => type_range,
        }
    }

    /// Whether shift amounts in `y` are provably in `[0, bits)`.
    fn shift_in_range(&self, y: &Interval, ty: Type) -> bool {
        let bits = Some(Expr::make_const(ty, ty.bits as i64));
        self.sign(y, ty) == Sign::NonNegative && fold::prove_cmp(BinaryOp::Lt, &y.max, &bits)
    }

    // ---- conversions -----------------------------------------------------------------------

    fn cast(&mut self, x: &Interval, from: Type, to: Type) -> Interval {
        if to.is_bool() {
            return compare(BinaryOp::Ne, x, &Interval::single_point(Expr::zero(from)));
        }
        let cast_end = |e: &Option<Expr>| e.as_ref().map(|e| fold::cast(to, e));
        let exact = Interval {
            min: cast_end(&x.min),
            max: cast_end(&x.max),
        };
        // Conversions to floats round monotonically, and float to integer conversion
        // truncates and saturates monotonically.
        if to.is_float() || to.can_represent_type(from) {
            return exact;
        }
        if from.is_float() {
            return or_type_range(exact, to);
        }
        let fits_below = !from.can_represent_int(to.int_min())
            || fold::prove_cmp(BinaryOp::Ge, &x.min, &Some(int_const(from, to.int_min())));
        let fits_above = !from.can_represent_int(to.int_max())
            || fold::prove_cmp(BinaryOp::Le, &x.max, &Some(int_const(from, to.int_max())));
        if x.is_bounded() && fits_below && fits_above {
            exact
        } else {
            Interval::type_range(to)
        }
    }

    // ---- intrinsics --------------------------------------------------------------------

    fn intrinsic(&mut self, op: Intrinsic, args: &[Expr], ty: Type) -> Interval {
        use Intrinsic::*;
        if !op.has_value() {
            return Interval::type_range(ty);
        }
        let x = self.bounds(&args[0]);
        let arg_ty = args[0].ty().element();
        let call = |op: Intrinsic, ends: &[&Option<Expr>]| -> Option<Expr> {
            let ends: Option<Vec<Expr>> = ends.iter().map(|e| (*e).clone()).collect();
            fold::intrinsic(ty, op, &ends?)
        };
        let zero = Some(Expr::zero(ty));
        match op {
            Abs => match self.sign(&x, arg_ty) {
                Sign::NonNegative => Interval {
                    min: call(Abs, &[&x.min]),
                    max: call(Abs, &[&x.max]),
                },
                Sign::NonPositive => Interval {
                    min: call(Abs, &[&x.max]),
                    max: call(Abs, &[&x.min]),
                },
                Sign::Unknown => Interval {
                    min: zero,
                    max: max2(call(Abs, &[&x.min]), call(Abs, &[&x.max])),
                },
            },
            Absd => {
                let y = self.bounds(&args[1]);
                if fold::prove_cmp(BinaryOp::Ge, &x.min, &y.max) {
                    Interval {
                        min: guard_nan(call(Absd, &[&x.min, &y.max]), Lower),
                        max: guard_nan(call(Absd, &[&x.max, &y.min]), Upper),
                    }
                } else if fold::prove_cmp(BinaryOp::Le, &x.max, &y.min) {
                    Interval {
                        min: guard_nan(call(Absd, &[&y.min, &x.max]), Lower),
                        max: guard_nan(call(Absd, &[&y.max, &x.min]), Upper),
                    }
                } else {
                    Interval {
                        min: zero,
                        max: max2(
                            guard_nan(call(Absd, &[&x.min, &y.max]), Upper),
                            guard_nan(call(Absd, &[&x.max, &y.min]), Upper),
                        ),
                    }
                }
            }
            Cosh => {
                // Even and convex: largest at an end, never below 1.
                let hi = max2(call(Cosh, &[&x.min]), call(Cosh, &[&x.max]));
                Interval {
                    min: Some(Expr::make_float(ty, 1.0)),
                    max: hi,
                }
            }
            Pow if self.sign(&x, arg_ty) == Sign::NonNegative => Interval {
                min: zero,
                max: None,
            },
            Pow | Tan => Interval::everything(),
            IsNan | IsInf | IsFinite | Reinterpret => Interval::type_range(ty),
            PopCount | CountLeadingZeros | CountTrailingZeros => {
                Interval::from_consts(ty, 0, arg_ty.bits as i64)
            }
            SaturatingCast if ty.is_bool() => self.cast(&x, arg_ty, ty),
            SaturatingCast => {
                let range = Interval::type_range(ty);
                Interval {
                    min: call(SaturatingCast, &[&x.min]).or(range.min),
                    max: call(SaturatingCast, &[&x.max]).or(range.max),
                }
            }
            Lerp => self.lerp(args, &x, ty),
            Likely | LikelyIfInnermost | MemoizeTag => x,
            // What is promised bounds the value: intersected with constant bounds of the
            // value, otherwise the promise alone (a Param with a range is bounded by the
            // range, not by itself: a symbolic end would need proofs about it the range
            // alone gives, like a positive divisor).
            PromiseClamped => {
                let (lo, hi) = (self.bounds(&args[1]), self.bounds(&args[2]));
                let promised = Interval {
                    min: lo.min,
                    max: hi.max,
                };
                let constant = |e: &Option<Expr>| e.as_ref().is_some_and(Expr::is_const);
                if constant(&x.min) && constant(&x.max) {
                    x.intersect(&promised)
                } else {
                    promised
                }
            }
            Require { .. } | Print { .. } => self.bounds(&args[1]),
            Interleave => {
                let mut all = x;
                for a in &args[1..] {
                    all = all.union(&self.bounds(a));
                }
                all
            }
            _ => {
                let (monotonicity, domain, range) = float_function_shape(op);
                monotone_function(op, &x, ty, monotonicity, domain, range)
            }
        }
    }

    /// `lerp(a, b, w)`, evaluated as `a * (1 - w) + b * w`.
    fn lerp(&mut self, args: &[Expr], a: &Interval, ty: Type) -> Interval {
        let b = self.bounds(&args[1]);
        let w = self.bounds(&args[2]);
        let weight_ty = args[2].ty().element();
        if ty.is_float() {
            // Float rounding can step just outside [a, b]; the arithmetic it performs, bounded
            // operation by operation, cannot.
            let w = self.cast(&w, weight_ty, ty);
            let one = Interval::single_point(Expr::one(ty));
            return add(&self.mul(a, &sub(&one, &w), ty), &self.mul(&b, &w, ty));
        }
        // Integer operands are blended exactly in f64 and rounded to nearest, so a weight in
        // [0, 1] keeps the result between them (64-bit operands are not exact in f64). An
        // unsigned integer weight always is in [0, 1] (it stands for `w / max`), and its blend
        // is exact at every width.
        let weight_in_unit = fold::prove_cmp(BinaryOp::Ge, &w.min, &Some(Expr::zero(weight_ty)))
            && fold::prove_cmp(BinaryOp::Le, &w.max, &Some(Expr::one(weight_ty)));
        if weight_ty.is_uint() || (ty.bits <= 32 && weight_in_unit) {
            Interval {
                min: both(BinaryOp::Min, &a.min, &b.min),
                max: both(BinaryOp::Max, &a.max, &b.max),
            }
        } else {
            Interval::type_range(ty)
        }
    }

    // ---- conditions ----------------------------------------------------------------------

    /// Runs `f` with the variables that `condition == truth` restricts narrowed accordingly.
    pub fn with_condition<R>(
        &mut self,
        condition: &Expr,
        truth: bool,
        f: impl FnOnce(&mut Self) -> R,
    ) -> R {
        let pushed = self.restrict(condition, truth, Narrow::InScope);
        let r = f(self);
        for _ in 0..pushed {
            self.pop();
        }
        r
    }

    /// Pushes narrowed intervals for the variables that `condition == truth` constrains by a
    /// comparison (which variables: `narrow`); returns how many it pushed (to `pop`
    /// afterwards).
    ///
    /// Each comparison narrows its variables given the others' current intervals, so one
    /// narrowing may enable another (`2x + 30 < y && y >= 100 - x` over `[0, 99]²`: `x <= 34`
    /// first, then `y >= 66`). While a pass narrows a variable inside a compound side (only
    /// those take part in such chains), the conjunction is applied again, up to
    /// `RESTRICT_PASSES` passes (Halide's RDom predicates give the bounding box so found).
    pub fn restrict(&mut self, condition: &Expr, truth: bool, narrow: Narrow) -> usize {
        const RESTRICT_PASSES: usize = 3;
        let mut pushed = 0;
        for _ in 0..RESTRICT_PASSES {
            let mut solved_changed = false;
            pushed += self.restrict_pass(condition, truth, narrow, &mut solved_changed);
            if !solved_changed {
                break;
            }
        }
        pushed
    }

    /// One pass of `restrict`; sets `solved_changed` when a variable inside a compound side
    /// of a comparison was narrowed.
    fn restrict_pass(
        &mut self,
        condition: &Expr,
        truth: bool,
        narrow: Narrow,
        solved_changed: &mut bool,
    ) -> usize {
        match condition.kind() {
            ExprKind::Binary(BinaryOp::And, a, b) if truth => {
                self.restrict_pass(a, true, narrow, solved_changed)
                    + self.restrict_pass(b, true, narrow, solved_changed)
            }
            ExprKind::Binary(BinaryOp::Or, a, b) if !truth => {
                self.restrict_pass(a, false, narrow, solved_changed)
                    + self.restrict_pass(b, false, narrow, solved_changed)
            }
            ExprKind::Unary(UnaryOp::Not, a) => {
                self.restrict_pass(a, !truth, narrow, solved_changed)
            }
            ExprKind::Call {
                kind: CallKind::Intrinsic(Intrinsic::Likely | Intrinsic::LikelyIfInnermost),
                args,
                ..
            } => self.restrict_pass(&args[0], truth, narrow, solved_changed),
            ExprKind::Binary(op, a, b) => {
                let holding = if truth {
                    Some(*op)
                } else {
                    op.negated_comparison()
                };
                let Some((op, swapped)) =
                    holding.zip(holding.and_then(BinaryOp::swapped_comparison))
                else {
                    return 0;
                };
                self.restrict_var(a, op, b, narrow)
                    + self.restrict_var(b, swapped, a, narrow)
                    + self.restrict_solved(op, a, b, solved_changed)
            }
            _ => 0,
        }
    }

    /// Narrows each in-scope variable inside a compound side of the scalar i32 comparison
    /// `a op b` to where solving the comparison for it (`solve::outer_range`, the other
    /// variables at their current intervals) says it can hold; returns how many it pushed.
    fn restrict_solved(
        &mut self,
        op: BinaryOp,
        a: &Expr,
        b: &Expr,
        solved_changed: &mut bool,
    ) -> usize {
        let solvable = matches!(
            op,
            BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge | BinaryOp::Eq
        );
        if !solvable || a.ty() != Type::i32() {
            return 0;
        }
        let bare = |e: &Expr, v: Symbol| matches!(e.kind(), ExprKind::Var(n) if *n == v);
        let mut vars: Vec<Symbol> = free_vars(a).into_iter().chain(free_vars(b)).collect();
        // Sorted by name so the narrowed bounds come out the same on every run.
        vars.sort_by_key(|v| v.as_str());
        vars.dedup();
        let comparison = Expr::binary(op, a.clone(), b.clone());
        let mut pushed = 0;
        for v in vars {
            let Some(current) = self.lookup(v).cloned() else {
                continue;
            };
            if bare(a, v) || bare(b, v) {
                continue;
            }
            let range = outer_range(&comparison, v);
            let lower = range.lower.and_then(|l| self.bounds(&l).min);
            let upper = range.upper.and_then(|u| self.bounds(&u).max);
            // A constant end no tighter than a constant current one is left out; only
            // constant ends tightened call for another pass (symbolic ones would grow).
            let constant = |e: &Option<Expr>| e.as_ref().and_then(Expr::as_int_const);
            let tighter = |new: &Option<Expr>, old: &Option<Expr>, lower: bool| match (
                constant(new),
                constant(old),
            ) {
                (Some(n), Some(o)) => Some(if lower { n > o } else { n < o }),
                _ => None,
            };
            let mut limit = Interval {
                min: None,
                max: None,
            };
            for (new, old, is_lower) in [(lower, &current.min, true), (upper, &current.max, false)]
            {
                let Some(new) = new else { continue };
                let t = tighter(&Some(new.clone()), old, is_lower);
                if t == Some(false) {
                    continue;
                }
                *solved_changed |= t == Some(true);
                if is_lower {
                    limit.min = Some(new);
                } else {
                    limit.max = Some(new);
                }
            }
            if !limit.is_everything() {
                self.push(v, current.intersect(&limit));
                pushed += 1;
            }
        }
        pushed
    }

    /// Narrows `var` (if it is a variable `narrow` admits) to satisfy `var op other`.
    fn restrict_var(&mut self, var: &Expr, op: BinaryOp, other: &Expr, narrow: Narrow) -> usize {
        let var = match var.kind() {
            ExprKind::Broadcast(v) => v,
            _ => var,
        };
        let (ExprKind::Var(name) | ExprKind::RVar(name, _) | ExprKind::Param(name, _)) = var.kind()
        else {
            return 0;
        };
        let current = match self.lookup(*name) {
            Some(current) => current.clone(),
            None if narrow == Narrow::AlsoFixed
                && matches!(var.kind(), ExprKind::Var(_))
                && !var.ty().is_float() =>
            {
                Interval::single_point(var.clone())
            }
            None => return 0,
        };
        let ty = var.ty().element();
        let o = self.bounds(other);
        let step = |end: &Option<Expr>, op: BinaryOp| {
            if ty.is_float() {
                end.clone()
            } else {
                both(op, end, &Some(Expr::one(ty)))
            }
        };
        let limit = match op {
            BinaryOp::Lt => Interval {
                min: None,
                max: step(&o.max, BinaryOp::Sub),
            },
            BinaryOp::Le => Interval {
                min: None,
                max: o.max,
            },
            BinaryOp::Gt => Interval {
                min: step(&o.min, BinaryOp::Add),
                max: None,
            },
            BinaryOp::Ge => Interval {
                min: o.min,
                max: None,
            },
            BinaryOp::Eq => o,
            _ => return 0,
        };
        self.push(*name, current.intersect(&limit));
        1
    }
}

/// Whether `Bounder::restrict` can narrow a variable under some truth of `condition`: a
/// scalar condition with a comparison (under `&&`, `||`, `!` and `likely`) of which one side
/// is an integer variable or parameter. Everything else narrows nothing.
pub fn may_narrow(condition: &Expr) -> bool {
    let variable = |e: &Expr| {
        matches!(
            e.kind(),
            ExprKind::Var(_) | ExprKind::RVar(..) | ExprKind::Param(..)
        ) && !e.ty().is_float()
    };
    if condition.ty().lanes != 1 {
        return false;
    }
    match condition.kind() {
        ExprKind::Binary(BinaryOp::And | BinaryOp::Or, a, b) => may_narrow(a) || may_narrow(b),
        ExprKind::Unary(UnaryOp::Not, a) => may_narrow(a),
        ExprKind::Call {
            kind: CallKind::Intrinsic(Intrinsic::Likely | Intrinsic::LikelyIfInnermost),
            args,
            ..
        } => may_narrow(&args[0]),
        ExprKind::Binary(op, a, b) if op.is_comparison() => variable(a) || variable(b),
        _ => false,
    }
}

/// Which variables a condition narrows (`Bounder::restrict`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Narrow {
    /// Only those in scope, which range over intervals.
    InScope,
    /// Also integer variables defined outside the analysed code (one value there): `y`
    /// under `y < e` becomes `[y, min(y, e - 1)]`, empty where the condition fails. For code
    /// under an `if`, whose regions then stop where the condition stops them (a
    /// `GuardWithIf` tail tested outside a Func computed inside it).
    AlsoFixed,
}

/// `x` with missing ends replaced by the limits of integer type `ty`.
fn or_type_range(x: Interval, ty: Type) -> Interval {
    let range = Interval::type_range(ty);
    Interval {
        min: x.min.or(range.min),
        max: x.max.or(range.max),
    }
}

fn negated(e: &Option<Expr>) -> Option<Expr> {
    e.as_ref().and_then(|e| fold::unary(UnaryOp::Neg, e))
}

/// `a op b` of two single values: folded when both are constants and the result is exact,
/// so that later bounds built from it (a range's ends times it) see a constant and refuse an
/// overflowing product instead of folding it wrapped; else the operation itself, wrapped or
/// not, which is still the one value.
fn one_value(op: BinaryOp, a: &Expr, b: &Expr) -> Expr {
    fold::binary(op, a, b).unwrap_or_else(|| Expr::binary(op, a.clone(), b.clone()))
}

/// Whether `op` divides a float by the bound `divisor` 0. Bounds compare as numbers, so a
/// bound 0.0 may stand for -0.0 (`sqrt(-0.0)` is bounded by 0.0): the quotient of single
/// points would be an infinity of either sign, not a single point.
fn is_float_division_by_zero(op: BinaryOp, divisor: &Expr) -> bool {
    op == BinaryOp::Div && divisor.ty().is_float() && divisor.is_zero()
}

fn is_zero_point(x: &Interval) -> bool {
    x.is_single_point() && x.min.as_ref().is_some_and(Expr::is_zero)
}

fn min2(a: Option<Expr>, b: Option<Expr>) -> Option<Expr> {
    both(BinaryOp::Min, &a, &b)
}

fn max2(a: Option<Expr>, b: Option<Expr>) -> Option<Expr> {
    both(BinaryOp::Max, &a, &b)
}

/// Which end of an interval an expression is.
#[derive(Clone, Copy)]
enum End {
    Lower,
    Upper,
}
use End::{Lower, Upper};

/// A float end that is never NaN. Arithmetic on ends can meet infinities of opposite signs
/// (or 0 and an infinity) where the values themselves do not, and a NaN end would bound
/// nothing while a later `min`/`max` could silently drop it. Under `max(a, b) = a > b ? a :
/// b`, `max(e, -inf)` is `e` unless `e` is NaN, which becomes `-inf` (an upper end becomes
/// `+inf` the same way).
fn guard_nan(e: Option<Expr>, end: End) -> Option<Expr> {
    let e = e?;
    if !e.ty().is_float() || e.is_const() {
        return Some(e);
    }
    let (op, limit) = match end {
        Lower => (BinaryOp::Max, f64::NEG_INFINITY),
        Upper => (BinaryOp::Min, f64::INFINITY),
    };
    let limit = Expr::make_float(e.ty(), limit);
    Some(Expr::binary(op, e, limit))
}

/// `a op b` as the given end, for an arithmetic `op`.
fn arith(op: BinaryOp, a: &Option<Expr>, b: &Option<Expr>, end: End) -> Option<Expr> {
    guard_nan(both(op, a, b), end)
}

fn add(x: &Interval, y: &Interval) -> Interval {
    Interval {
        min: arith(BinaryOp::Add, &x.min, &y.min, Lower),
        max: arith(BinaryOp::Add, &x.max, &y.max, Upper),
    }
}

fn sub(x: &Interval, y: &Interval) -> Interval {
    Interval {
        min: arith(BinaryOp::Sub, &x.min, &y.max, Lower),
        max: arith(BinaryOp::Sub, &x.max, &y.min, Upper),
    }
}

/// `op x` for a decreasing operator (negation, logical and bitwise not).
fn decreasing(op: UnaryOp, x: &Interval) -> Interval {
    let apply = |e: &Option<Expr>| e.as_ref().and_then(|e| fold::unary(op, e));
    Interval {
        min: apply(&x.max),
        max: apply(&x.min),
    }
}

/// `x op y` for an operator increasing in both operands (`&&`, `||` on bools).
fn monotone_pair(op: BinaryOp, x: &Interval, y: &Interval) -> Interval {
    Interval {
        min: both(op, &x.min, &y.min),
        max: both(op, &x.max, &y.max),
    }
}

/// A comparison's bool interval: `[certainly true, possibly true]`.
fn compare(op: BinaryOp, x: &Interval, y: &Interval) -> Interval {
    use BinaryOp::*;
    let c = |op: BinaryOp, a: &Option<Expr>, b: &Option<Expr>| both(op, a, b);
    let (certain, possible) = match op {
        Lt | Le => (c(op, &x.max, &y.min), c(op, &x.min, &y.max)),
        Gt | Ge => (c(op, &x.min, &y.max), c(op, &x.max, &y.min)),
        Eq => (
            both(And, &c(Eq, &x.min, &y.max), &c(Eq, &x.max, &y.min)),
            either(And, &c(Le, &x.min, &y.max), &c(Le, &y.min, &x.max)),
        ),
        Ne => (
            either(Or, &c(Lt, &x.max, &y.min), &c(Lt, &y.max, &x.min)),
            both(Or, &c(Ne, &x.min, &y.max), &c(Ne, &x.max, &y.min)),
        ),
        _ => unreachable!("internal error: {op:?} is not a comparison"),
    };
    Interval {
        min: Some(certain.unwrap_or_else(|| Expr::bool_(false))),
        max: Some(possible.unwrap_or_else(|| Expr::bool_(true))),
    }
}

/// The smallest `2^k - 1` at least both ends (both constants), else their sum: upper bounds
/// of `x | y` and `x ^ y` for non-negative operands.
fn all_ones_covering(a: &Option<Expr>, b: &Option<Expr>) -> Option<Expr> {
    let (ae, be) = (a.as_ref()?, b.as_ref()?);
    match (ae.as_int_const(), be.as_int_const()) {
        (Some(x), Some(y)) => {
            // (Ends of an interval narrowed to nothing, in code that cannot run, may be
            // negative even so.)
            let largest = x.max(y).max(0);
            let ones = (1i128 << (128 - largest.leading_zeros())) - 1;
            Some(int_const(ae.ty(), ones))
        }
        _ => both(BinaryOp::Add, a, b),
    }
}

/// How a float intrinsic maps ranges: its monotonicity, the domain outside which it is NaN
/// (argument ends are clamped into it), and its range (padded outward by a rounding step
/// where it is irrational).
fn float_function_shape(op: Intrinsic) -> (Monotonicity, FloatRange, FloatRange) {
    use Intrinsic::*;
    use Monotonicity::*;
    const HALF_PI: f64 = FRAC_PI_2 + 2.0 * f64::EPSILON;
    const FULL_PI: f64 = PI + 4.0 * f64::EPSILON;
    let all = (None, None);
    let non_negative = (Some(0.0), None);
    let unit = (Some(-1.0), Some(1.0));
    match op {
        Floor | Ceil | Round | Trunc | Sinh => (Increasing, all, all),
        Exp => (Increasing, all, non_negative),
        Log => (Increasing, non_negative, all),
        Sqrt => (Increasing, non_negative, non_negative),
        Tanh => (Increasing, all, unit),
        Atan => (Increasing, all, (Some(-HALF_PI), Some(HALF_PI))),
        Asin => (Increasing, unit, (Some(-HALF_PI), Some(HALF_PI))),
        Acos => (Decreasing, unit, (Some(0.0), Some(FULL_PI))),
        Sin | Cos => (Neither, all, unit),
        Atan2 => (Neither, all, (Some(-FULL_PI), Some(FULL_PI))),
        Hypot => (Neither, all, non_negative),
        _ => unreachable!("internal error: {op:?} has its own bounds rule"),
    }
}

fn monotone_function(
    op: Intrinsic,
    x: &Interval,
    ty: Type,
    monotonicity: Monotonicity,
    domain: FloatRange,
    range: FloatRange,
) -> Interval {
    let constant = |v: Option<f64>| v.map(|v| Expr::make_float(ty, v));
    let domain = Interval {
        min: constant(domain.0),
        max: constant(domain.1),
    };
    let range = Interval {
        min: constant(range.0),
        max: constant(range.1),
    };
    // The function at an end of the argument clamped into the domain (at the domain's own
    // end, `fallback`, when the argument is unbounded there).
    let apply = |end: &Option<Expr>, fallback: &Option<Expr>| {
        let argument = match end {
            Some(_) => either(
                BinaryOp::Min,
                &either(BinaryOp::Max, end, &domain.min),
                &domain.max,
            ),
            None => fallback.clone(),
        };
        argument.and_then(|a| fold::intrinsic(ty, op, &[a]))
    };
    let image = match monotonicity {
        Monotonicity::Increasing => Interval {
            min: apply(&x.min, &domain.min),
            max: apply(&x.max, &domain.max),
        },
        Monotonicity::Decreasing => Interval {
            min: apply(&x.max, &domain.max),
            max: apply(&x.min, &domain.min),
        },
        Monotonicity::Neither => Interval::everything(),
    };
    image.intersect(&range)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::image_param::ImageParam;
    use crate::lang::math::{abs, cast, clamp, lerp, max, min, select, sqrt};
    use crate::lang::operators::ExprOps;
    use crate::lang::var::Var;

    fn range(v: Var, lo: i64, hi: i64) -> (Symbol, Interval) {
        (v.name(), Interval::from_consts(Type::i32(), lo, hi))
    }

    fn bounds(e: Expr, scope: &Scope) -> String {
        bounds_of_expr(&e, scope).to_string()
    }

    #[test]
    fn a_float_division_by_a_zero_bound_is_unbounded_whatever_the_zeros_sign() {
        // sqrt(-0.0) is -0.0, bounded by 0.0: 3 / sqrt(-0.0) is -inf, not 3 / 0.0 = +inf.
        let f = Type::f32();
        let root = Expr::intrinsic(f, Intrinsic::Sqrt, vec![Expr::make_float(f, -0.0)]);
        let quotient = Expr::binary(BinaryOp::Div, Expr::make_float(f, 3.0), root);
        let b = bounds_of_expr(&quotient, &Scope::default());
        assert!(b.min.is_none() && b.max.is_none(), "{quotient}: {b}");
    }

    #[test]
    fn a_product_quotient_or_remainder_of_single_values_is_a_single_value() {
        let (x, k) = (Var::new("x"), Var::new("k"));
        // x at one unknown value, k over a range.
        let s: Scope = [(x.name(), Interval::single_point(x.expr())), range(k, 0, 3)]
            .into_iter()
            .collect();
        for e in [x % 2, x / 3, x * x] {
            let b = bounds_of_expr(&e, &s);
            assert!(b.is_single_point(), "{e}: {b}");
        }
        assert_eq!(bounds((x + k) % 2, &s), "[0, 1]");
    }

    /// interval_fuzz seed 21: a constant computed from single values was kept as an
    /// expression, so a range's end times it (`3 * ~(-14 % -894836811)`, which overflows i32)
    /// was folded wrapped, to a positive value, and "proved" the product non-negative: the
    /// remainder below was bounded by [0, 0], though at y = 1, x = -15 it is 22.
    #[test]
    fn a_constant_made_of_single_values_is_folded_before_it_scales_a_range() {
        let (x, y) = (Var::new("x"), Var::new("y"));
        let s: Scope = [range(y, 0, 3)].into_iter().collect();
        let constant = !(Expr::from(-14) % -894836811);
        let e = (y * constant) % (x * -4);
        let b = bounds_of_expr(&e, &s);
        let hi = b.max.expect("the remainder has an upper bound");
        let at = crate::ir::substitute::substitute(&hi, x.name(), &Expr::i32(-15));
        let hi = crate::simplify::simplify(&at).as_int_const();
        assert!(hi.is_some_and(|hi| hi >= 22), "{e}: {hi:?}");
    }

    /// The box `Bounder::with_condition` gives `x` and `y` under `cond`, as constants.
    fn box_under(cond: &Expr, x: Var, y: Var, s: &Scope) -> [Option<i128>; 4] {
        let ends = |i: Interval| {
            let i = simplified(i);
            [i.min, i.max].map(|e| e.and_then(|e| e.as_int_const()))
        };
        let ([x0, x1], [y0, y1]) = Bounder::new(s).with_condition(cond, true, |b| {
            (ends(b.bounds(&x.expr())), ends(b.bounds(&y.expr())))
        });
        [x0, x1, y0, y1]
    }

    #[test]
    fn linear_conditions_narrow_each_variable_given_the_others_to_a_fixed_point() {
        // Halide's reduction_non_rectangular `two_linear_bounds`: x's bounds come from y's,
        // then y's from x's narrowed ones, giving Halide's box [1, 34] x [66, 99]. It holds
        // the exact bounding box of the points satisfying both (a plain loop's: the corner
        // where both bounds on y meet, y = 77, is not found one variable at a time).
        let (x, y) = (Var::new("x"), Var::new("y"));
        let s: Scope = [range(x, 0, 99), range(y, 0, 99)].into_iter().collect();
        let cond = (x * 2 + 30).lt(y) & y.ge(100 - x);
        let inside = |a: i128, b: i128| 2 * a + 30 < b && b >= 100 - a;
        let points: Vec<(i128, i128)> = (0..100)
            .flat_map(|a| (0..100).map(move |b| (a, b)))
            .filter(|&(a, b)| inside(a, b))
            .collect();
        let lowest = |f: fn(&(i128, i128)) -> i128| points.iter().map(f).min();
        let highest = |f: fn(&(i128, i128)) -> i128| points.iter().map(f).max();
        let exact = [
            lowest(|p| p.0),
            highest(|p| p.0),
            lowest(|p| p.1),
            highest(|p| p.1),
        ];
        assert_eq!(exact, [Some(1), Some(34), Some(77), Some(99)]);
        assert_eq!(
            box_under(&cond, x, y, &s),
            [Some(1), Some(34), Some(66), Some(99)]
        );
    }

    #[test]
    fn narrowing_by_linear_conditions_keeps_every_point_satisfying_them() {
        // Pairs of linear predicates over [-6, 6]²: the narrowed box holds every point where
        // both hold (checked point by point), and is empty-or-tighter than the whole square.
        let (x, y) = (Var::new("x"), Var::new("y"));
        let s: Scope = [range(x, -6, 6), range(y, -6, 6)].into_iter().collect();
        let coefficients = [(1, 1, -3), (2, -1, 0), (-3, 2, 4), (1, -3, 5), (-1, -1, 2)];
        let mut narrowed = 0;
        for &(a, b, c) in &coefficients {
            for &(d, e, f) in &coefficients {
                let first = (x * a + y * b + c).lt(0);
                let second = (x * e + y * d).ge(f);
                let k = |c: i32| i128::from(c);
                let holds = |p: i128, q: i128| {
                    k(a) * p + k(b) * q + k(c) < 0 && k(e) * p + k(d) * q >= k(f)
                };
                let [x0, x1, y0, y1] = box_under(&(first.clone() & second.clone()), x, y, &s);
                let within = |v: i128, lo: Option<i128>, hi: Option<i128>| {
                    lo.is_none_or(|lo| lo <= v) && hi.is_none_or(|hi| v <= hi)
                };
                for p in -6..=6 {
                    for q in -6..=6 {
                        if holds(p, q) {
                            assert!(
                                within(p, x0, x1) && within(q, y0, y1),
                                "({p}, {q}) satisfies {first} && {second}, outside \
                                 [{x0:?}, {x1:?}] x [{y0:?}, {y1:?}]"
                            );
                        }
                    }
                }
                narrowed += usize::from([x0, x1, y0, y1] != [Some(-6), Some(6), Some(-6), Some(6)]);
            }
        }
        assert!(narrowed > 10, "only {narrowed} of 25 boxes narrowed");
    }

    #[test]
    fn stencil_index_shapes() {
        let x = Var::new("x");
        let s: Scope = [range(x, 0, 99)].into_iter().collect();
        assert_eq!(bounds(x + 1, &s), "[1, 100]");
        assert_eq!(bounds(x - 1, &s), "[-1, 98]");
        assert_eq!(bounds(2 * x - 1, &s), "[-1, 197]");
        assert_eq!(bounds(x * -3, &s), "[-297, 0]");
        assert_eq!(bounds(x / 2, &s), "[0, 49]");
        assert_eq!(bounds((x + 1) / 2, &s), "[0, 50]");
        assert_eq!(bounds(x % 4, &s), "[0, 3]");
        assert_eq!(bounds(x / -2, &s), "[-49, 0]");
        assert_eq!(bounds(x - x, &s), "[-99, 99]");
        assert_eq!(bounds(min(x, 5), &s), "[0, 5]");
        assert_eq!(bounds(max(x - 50, 0), &s), "[0, 49]");
        let small: Scope = [range(x, 0, 2)].into_iter().collect();
        assert_eq!(bounds(x % 4, &small), "[0, 2]");
    }

    #[test]
    fn euclidean_division_of_negative_ranges() {
        let x = Var::new("x");
        let s: Scope = [range(x, -5, 5)].into_iter().collect();
        assert_eq!(bounds(x / 2, &s), "[-3, 2]");
        assert_eq!(bounds(x / -2, &s), "[-2, 3]");
        assert_eq!(bounds(x % 3, &s), "[0, 2]");
        assert_eq!(bounds(x % -3, &s), "[0, 2]");
        let y = Var::new("y");
        let divisor: Scope = [range(x, -5, 5), range(y, -2, 3)].into_iter().collect();
        assert_eq!(bounds(x / y, &divisor), "[-5, 5]");
        assert_eq!(bounds(x % y, &divisor), "[0, 2]");
        let positive: Scope = [range(x, -5, 5), range(y, 2, 3)].into_iter().collect();
        assert_eq!(bounds(x / y, &positive), "[-3, 2]");
    }

    #[test]
    fn clamp_select_and_unknown_variables() {
        let (x, w) = (Var::new("x"), Var::new("w"));
        // A variable outside the scope is its own bound.
        assert_eq!(bounds(x + 1, &Scope::new()), "[x + 1, x + 1]");
        // An unbounded x: only the clamp bounds the result; w stays symbolic.
        let s: Scope = [(x.name(), Interval::everything())].into_iter().collect();
        assert_eq!(bounds(clamp(x, 0, w - 1), &s), "[0, max(w - 1, 0)]");
        assert_eq!(bounds(x + 1, &s), "[-inf, +inf]");
        let bounded: Scope = [range(x, 0, 20)].into_iter().collect();
        // The select's condition narrows x in each arm.
        assert_eq!(bounds(select(x.lt(10), x, 10 - x), &bounded), "[-10, 9]");
        // A condition decided by the bounds picks one arm.
        assert_eq!(bounds(select(x.ge(0), x, -100), &bounded), "[0, 20]");
        assert_eq!(bounds(x.lt(21), &bounded), "[true, true]");
        assert_eq!(bounds(x.lt(10), &bounded), "[false, true]");
        assert_eq!(bounds(x.eq_(30).or(x.gt(20)), &bounded), "[false, false]");
        // An arm that cannot run sees an empty (inverted) range, and must still not fail.
        let either_sign: Scope = [range(x, -10, 10)].into_iter().collect();
        let dead = x.ge(0).and(x.lt(-5));
        let e = select(dead, Expr::from(x) | Expr::from(x), 0);
        assert_eq!(bounds(e, &either_sign), "[0, 0]");
    }

    #[test]
    fn symbolic_ranges() {
        let (x, y) = (Var::new("x"), Var::new("y"));
        let s: Scope = [(x.name(), Interval::new(y.expr(), y + 10))]
            .into_iter()
            .collect();
        assert_eq!(bounds(x + 1, &s), "[y + 1, y + 11]");
        assert_eq!(bounds(x * 2, &s), "[y*2, y*2 + 20]");
        assert_eq!(bounds(x / 4, &s), "[y/4, (y + 10)/4]");
        // The simplifier cancels y, and proves the difference non-negative.
        assert_eq!(bounds(x - y, &s), "[0, 10]");
        assert_eq!(bounds((x - y) / 2 + (x - y) % 4, &s), "[0, 8]");
    }

    #[test]
    fn narrow_and_unsigned_types_respect_wrapping() {
        let x = Var::new("x");
        let input = ImageParam::new(Type::u8(), 1, "input");
        let s: Scope = [range(x, 0, 99)].into_iter().collect();
        let at = |dx: i32| input.at([x + dx]);
        assert_eq!(bounds(cast(Type::i32(), at(0)), &s), "[0, 255]");
        let sum = cast(Type::u16(), at(-1)) + cast(Type::u16(), at(0)) + cast(Type::u16(), at(1));
        assert_eq!(bounds(sum.clone(), &s), "[(u16)0, (u16)765]");
        // The same sum in u8 may wrap, so it can be anything.
        assert_eq!(bounds(at(0) + at(1), &s), "[(u8)0, (u8)255]");
        assert_eq!(bounds(at(0) / cast(Type::u8(), 2), &s), "[(u8)0, (u8)127]");
        assert_eq!(bounds(cast(Type::u8(), sum / 3), &s), "[(u8)0, (u8)255]");
        let narrow: Scope = [(x.name(), Interval::from_consts(Type::u8(), 0, 100))]
            .into_iter()
            .collect();
        let v = Expr::var(x.name(), Type::u8());
        let two = Expr::make_const(Type::u8(), 2);
        let doubled = Expr::binary(BinaryOp::Mul, v.clone(), two.clone());
        assert_eq!(bounds(doubled, &narrow), "[(u8)0, (u8)200]");
        let tripled = Expr::binary(BinaryOp::Mul, v.clone(), Expr::make_const(Type::u8(), 3));
        assert_eq!(bounds(tripled, &narrow), "[(u8)0, (u8)255]");
        let shifted = Expr::binary(BinaryOp::Shl, v.clone(), two);
        assert_eq!(bounds(shifted, &narrow), "[(u8)0, (u8)255]");
        // A u8 over a range is still a u8; narrowing it to i8 may change it. One unknown
        // value stays one value, wrapped or not.
        let u = Symbol::new("u");
        let unknown = Expr::var(u, Type::u8());
        let ranged: Scope = [(u, Interval::from_consts(Type::u8(), 0, 200))]
            .into_iter()
            .collect();
        let narrowed = cast(Type::i8(), unknown.clone());
        assert_eq!(bounds(narrowed.clone(), &ranged), "[(i8)-128, (i8)127]");
        assert_eq!(bounds(narrowed, &Scope::new()), "[i8(u), i8(u)]");
        let fifteen = Expr::make_const(Type::u8(), 15);
        let masked = Expr::binary(BinaryOp::BitAnd, unknown.clone(), fifteen.clone());
        assert_eq!(bounds(masked.clone(), &ranged), "[(u8)0, (u8)15]");
        assert_eq!(bounds(masked, &Scope::new()), "[u & (u8)15, u & (u8)15]");
        let p = crate::lang::param::Param::<i16>::new("p").expr();
        let doubled = Expr::binary(BinaryOp::Mul, p.clone(), Expr::make_const(Type::i16(), 2));
        let wrapping = Expr::binary(BinaryOp::Sub, doubled, Expr::make_const(Type::i16(), 1));
        assert_eq!(
            bounds(wrapping, &Scope::new()),
            "[p*(i16)2 - (i16)1, p*(i16)2 - (i16)1]"
        );
        let negated = Expr::unary(UnaryOp::Neg, unknown);
        assert_eq!(bounds(negated, &Scope::new()), "[-u, -u]");
    }

    #[test]
    fn loads_calls_and_intrinsics() {
        let x = Var::new("x");
        let s: Scope = [range(x, -5, 3)].into_iter().collect();
        assert_eq!(bounds(abs(x.expr()), &s), "[(u32)0, (u32)5]");
        let f = ImageParam::new(Type::f32(), 1, "f");
        assert_eq!(bounds(f.at([x.expr()]), &s), "[-inf, +inf]");
        assert_eq!(bounds(sqrt(f.at([x.expr()])), &s), "[0.0f, +inf]");
        let unit = clamp(f.at([x.expr()]), 0.0f32, 1.0f32);
        assert_eq!(bounds(unit.clone() * 2.0f32 + 1.0f32, &s), "[1.0f, 3.0f]");
        let image = ImageParam::new(Type::u8(), 1, "image");
        let blend = lerp(image.at([x.expr()]), image.at([x + 1]), unit.clone());
        assert_eq!(bounds(blend, &s), "[(u8)0, (u8)255]");
        let i16_image = ImageParam::new(Type::i16(), 1, "wide");
        let blend = lerp(i16_image.at([x.expr()]), 7i32 as i16 as i32, unit);
        assert_eq!(bounds(blend, &s), "[(i16)-32768, (i16)32767]");
        let t = Symbol::new("t");
        let tv = Expr::var(t, Type::i32());
        let let_e = Expr::let_in(t, x * 2, tv.clone() + tv);
        assert_eq!(bounds(let_e, &s), "[-20, 12]");
        let ramp = Expr::ramp(x.expr(), Expr::i32(2), 4);
        assert_eq!(bounds(ramp, &s), "[-5, 9]");
    }
}
