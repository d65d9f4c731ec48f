//! Constant folding, by calling the evaluator's scalar semantics (`eval::value`) so that a
//! folded constant is always what evaluation would have produced; plus whether an integer
//! operation wrapped around (its result differs from the unbounded-integer result), which the
//! `Exact` rules must not rely on.

use crate::eval::value::{self, Value};
use crate::ir::{BinaryOp, CallKind, Expr, ExprKind, Intrinsic, Type, UnaryOp};

/// Whether a flagged integer operation (one the evaluator checks for signed overflow) gave
/// something other than its unbounded-integer result.
fn wrapped(op: BinaryOp, x: i128, y: i128, r: i128) -> bool {
    let exact = match op {
        BinaryOp::Add => x.checked_add(y),
        BinaryOp::Sub => x.checked_sub(y),
        BinaryOp::Mul => x.checked_mul(y),
        BinaryOp::Div if y != 0 => x.checked_div_euclid(y),
        _ => return false,
    };
    // Beyond i128 it is certainly beyond every type.
    exact != Some(r)
}

/// `a op b` in type `ty`, and whether it wrapped around.
pub(super) fn binary(op: BinaryOp, a: Value, b: Value, ty: Type) -> (Value, bool) {
    let v = value::binary(op, a, b, ty);
    let wrapped = match (a.as_i128(), b.as_i128(), v.as_i128()) {
        (Some(x), Some(y), Some(r)) if ty.is_int_or_uint() => wrapped(op, x, y, r),
        _ => false,
    };
    (v, wrapped)
}

/// `op a` in type `ty`, and whether it wrapped around.
pub(super) fn unary(op: UnaryOp, a: Value, ty: Type) -> (Value, bool) {
    let v = value::unary(op, a, ty);
    let wrapped = op == UnaryOp::Neg
        && ty.is_int_or_uint()
        && matches!((a.as_i128(), v.as_i128()), (Some(x), Some(r)) if -x != r);
    (v, wrapped)
}

/// The scalar value of a constant (looking through broadcasts).
fn constant(e: &Expr) -> Option<Value> {
    match e.kind() {
        ExprKind::Broadcast(v) => constant(v),
        _ => Value::from_const(e),
    }
}

/// Whether a call of `op` giving a `ty` marks the likely arm of a select, min or max: that
/// arm being a constant does not make the mark say less, so it stays for loop partitioning
/// (a `likely` condition that is constant has nothing left to say, and folds).
fn marks_likely_arm(op: Intrinsic, ty: Type) -> bool {
    matches!(op, Intrinsic::Likely | Intrinsic::LikelyIfInnermost) && !ty.is_bool()
}

/// `e` with constant operands replaced by its value (a broadcast for vectors).
pub(super) fn fold(e: &Expr) -> Option<Expr> {
    let ty = e.ty();
    let v = match e.kind() {
        ExprKind::Cast(a) => value::cast(constant(a)?, a.ty().element(), ty.element()),
        ExprKind::Unary(op, a) => value::unary(*op, constant(a)?, ty.element()),
        ExprKind::Binary(op, a, b) => {
            value::binary(*op, constant(a)?, constant(b)?, a.ty().element())
        }
        ExprKind::Broadcast(a) if !a.is_const() => return None,
        ExprKind::Call {
            kind: CallKind::Intrinsic(op),
            args,
            ..
        } if op.is_lanewise()
            && op.has_value()
            && !op.has_effects()
            && !marks_likely_arm(*op, ty) =>
        {
            let values = args.iter().map(constant).collect::<Option<Vec<_>>>()?;
            let types: Vec<Type> = args.iter().map(|a| a.ty().element()).collect();
            value::intrinsic(*op, &values, &types, ty.element())
        }
        _ => return None,
    };
    Some(v.to_expr(ty.element()).broadcast_to(ty.lanes))
}
