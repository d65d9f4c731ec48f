//! Constructors for bound expressions that fold constants with the exact scalar semantics of
//! `eval::value`. A bound is only useful if it is the exact mathematical result, so each
//! constructor answers `None` ("no bound known") instead of an expression that would not be:
//! when folding two constants overflows the type, when a float result is NaN, and when it
//! would have to build symbolic arithmetic that may wrap at run time or that starts from the
//! smallest or largest value of the type. Which arithmetic may
//! wrap follows the overflow contract: unsigned and 8/16-bit signed types always wrap, shifts
//! left wrap in every integer type, signed 32/64-bit addition, subtraction, multiplication and
//! division are assumed not to overflow (as in Halide).

use crate::eval::value::{self, Value};
use crate::ir::{BinaryOp, Expr, Intrinsic, Type, TypeCode, UnaryOp};

/// Whether all arithmetic in `ty` wraps observably (rather than being assumed not to).
pub fn wraps(ty: Type) -> bool {
    match ty.code {
        TypeCode::Bool | TypeCode::UInt => true,
        TypeCode::Int => ty.bits < 32,
        TypeCode::Float => false,
    }
}

/// Whether `a op b` in type `ty` may produce a wrapped (not mathematically exact) result.
pub fn may_wrap(op: BinaryOp, ty: Type) -> bool {
    use BinaryOp::*;
    match op {
        Shl => ty.is_int_or_uint(),
        Add | Sub | Mul => wraps(ty),
        // Only the signed quotient MIN / -1 does not fit its type.
        Div => wraps(ty) && ty.is_int(),
        _ => false,
    }
}

/// Whether `r`, the evaluator's (wrapped) result of `x op y`, is the exact integer result.
fn is_exact(op: BinaryOp, x: i128, y: i128, r: i128, bits: u8) -> bool {
    let exact = match op {
        BinaryOp::Add => x.checked_add(y),
        BinaryOp::Sub => x.checked_sub(y),
        BinaryOp::Mul => x.checked_mul(y),
        BinaryOp::Div if y != 0 => Some(x.div_euclid(y)),
        // Amounts of the full width or more, and negative amounts, are defined (not wrapping)
        // by `value::binary`; only an in-range left shift can lose bits.
        BinaryOp::Shl if (0..bits as i128).contains(&y) => x.checked_mul(1i128 << y),
        _ => return true,
    };
    exact == Some(r)
}

/// `a op b`, folded when both are constants; `None` when the result is not exact.
pub fn binary(op: BinaryOp, a: &Expr, b: &Expr) -> Option<Expr> {
    let ty = a.ty();
    if let (Some(x), Some(y)) = (Value::from_const(a), Value::from_const(b)) {
        let result = value::binary(op, x, y, ty);
        // Integer and bool values are never NaN.
        if result.as_f64().is_nan() {
            return None;
        }
        if let (Some(x), Some(y), Some(r)) = (x.as_i128(), y.as_i128(), result.as_i128()) {
            if !is_exact(op, x, y, r, ty.bits) {
                return None;
            }
        }
        let result_ty = if op.is_comparison() {
            Type::bool_()
        } else {
            ty
        };
        return Some(result.to_expr(result_ty));
    }
    use BinaryOp::*;
    let identity = match op {
        Min | Max | And | Or if a == b => Some(a),
        Add if b.is_zero() => Some(a),
        Add if a.is_zero() => Some(b),
        Sub if b.is_zero() => Some(a),
        Mul | Div if b.is_one() => Some(a),
        Mul if a.is_one() => Some(b),
        // The limits of the type absorb (or vanish in) min and max.
        Min if type_limit(a) == Some(Limit::Min) || type_limit(b) == Some(Limit::Max) => Some(a),
        Min if type_limit(b) == Some(Limit::Min) || type_limit(a) == Some(Limit::Max) => Some(b),
        Max if type_limit(a) == Some(Limit::Max) || type_limit(b) == Some(Limit::Min) => Some(a),
        Max if type_limit(b) == Some(Limit::Max) || type_limit(a) == Some(Limit::Min) => Some(b),
        _ => None,
    };
    if let Some(e) = identity {
        return Some(e.clone());
    }
    let on_limit = type_limit(a).is_some() || type_limit(b).is_some();
    if may_wrap(op, ty) || (is_arithmetic(op) && on_limit) {
        return None;
    }
    Some(Expr::binary(op, a.clone(), b.clone()))
}

fn is_arithmetic(op: BinaryOp) -> bool {
    matches!(op, BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Limit {
    Min,
    Max,
}

/// Whether `e` is the smallest or largest value of its (integer) type. Such an end says no
/// more than the type does, and arithmetic moving it outward overflows, so symbolic
/// arithmetic on it gives no bound rather than one that is wrong whenever it overflows.
fn type_limit(e: &Expr) -> Option<Limit> {
    let ty = e.ty();
    let v = e.as_int_const().filter(|_| ty.is_int_or_uint())?;
    if v == ty.int_min() {
        Some(Limit::Min)
    } else if v == ty.int_max() {
        Some(Limit::Max)
    } else {
        None
    }
}

/// `op a`, folded for constants; `None` when a negation is not exact.
pub fn unary(op: UnaryOp, a: &Expr) -> Option<Expr> {
    let ty = a.ty();
    if let Some(x) = Value::from_const(a) {
        if op == UnaryOp::Neg {
            if let Some(i) = x.as_i128() {
                if !ty.can_represent_int(-i) {
                    return None;
                }
            }
        }
        return Some(value::unary(op, x, ty).to_expr(ty));
    }
    if op == UnaryOp::Neg && wraps(ty) {
        return None;
    }
    Some(Expr::unary(op, a.clone()))
}

/// `a` converted to `ty` (folded for constants). Casts never fail; whether one preserves the
/// value is the caller's question.
pub fn cast(ty: Type, a: &Expr) -> Expr {
    match Value::from_const(a) {
        Some(x) => value::cast(x, a.ty(), ty).to_expr(ty),
        None => Expr::cast(ty, a.clone()),
    }
}

/// Intrinsic `op` of type `ty` applied to `args`, folded when all are constants; `None` when
/// the folded result is NaN.
pub fn intrinsic(ty: Type, op: Intrinsic, args: &[Expr]) -> Option<Expr> {
    let values: Option<Vec<Value>> = args.iter().map(Value::from_const).collect();
    let Some(values) = values.filter(|_| !op.has_effects()) else {
        return Some(Expr::intrinsic(ty, op, args.to_vec()));
    };
    let types: Vec<Type> = args.iter().map(Expr::ty).collect();
    let result = value::intrinsic(op, &values, &types, ty);
    if result.as_i128().is_none() && result.as_f64().is_nan() {
        return None;
    }
    Some(result.to_expr(ty))
}

/// Whether the bool expression `cond` is provably true (by the simplifier, when it is not
/// already a constant).
pub fn prove(cond: &Expr) -> bool {
    match cond.as_int_const() {
        Some(v) => v == 1,
        None => crate::simplify::can_prove(cond),
    }
}

/// Whether `a op b` (a comparison) provably holds; false when either side is unknown.
pub fn prove_cmp(op: BinaryOp, a: &Option<Expr>, b: &Option<Expr>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => binary(op, a, b).is_some_and(|c| prove(&c)),
        _ => false,
    }
}
