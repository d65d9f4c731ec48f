//! The shape of an atomic update's store (`StmtKind::Atomic`): a store of `buffer[index]`
//! whose value reads that same point, recognised as `buffer[index] op operand` where it is
//! one. Vectorization reduces such an operand horizontally; code generation makes it one
//! `atomicrmw`, or a compare-and-swap loop when the value has another shape.

use super::lanes::extract_lanes;
use super::{BinaryOp, Expr, ExprKind, Symbol, Type};

/// Whether `e` is an unpredicated load of `buffer[index]`.
pub fn is_load_of(e: &Expr, buffer: Symbol, index: &Expr) -> bool {
    matches!(e.kind(), ExprKind::Load { buffer: b, index: i, predicate: None } if *b == buffer && i == index)
}

/// Whether `e` loads from `buffer` anywhere.
pub fn reads_buffer(e: &Expr, buffer: Symbol) -> bool {
    let mut found = false;
    super::visit::visit_exprs(e, &mut |n| {
        found |= matches!(n.kind(), ExprKind::Load { buffer: b, .. } if *b == buffer);
        !found
    });
    found
}

/// Whether `value` reads the point `buffer[index]`.
pub fn reads_point(value: &Expr, buffer: Symbol, index: &Expr) -> bool {
    let mut found = false;
    super::visit::visit_exprs(value, &mut |n| {
        found |= is_load_of(n, buffer, index);
        !found
    });
    found
}

/// `value` as `buffer[index] op operand` (or `operand op buffer[index]` for an operator
/// that commutes), where the operand does not read `buffer`: the operator and the operand.
pub fn split_update(value: &Expr, buffer: Symbol, index: &Expr) -> Option<(BinaryOp, Expr)> {
    let ExprKind::Binary(op, a, b) = value.kind() else {
        return None;
    };
    let commutes = !matches!(
        op,
        BinaryOp::Sub | BinaryOp::Div | BinaryOp::Mod | BinaryOp::Shl | BinaryOp::Shr
    ) && !op.is_comparison();
    let operand = if is_load_of(a, buffer, index) {
        b
    } else if commutes && is_load_of(b, buffer, index) {
        a
    } else {
        return None;
    };
    (!reads_buffer(operand, buffer)).then(|| (*op, operand.clone()))
}

/// The value `x` for which `a op x` is `a` for every `a` of type `ty`, for the operators an
/// update can reduce lanes by (`min`, `max`, `+`, `*`, the bitwise and logical ones).
pub fn identity(op: BinaryOp, ty: Type) -> Option<Expr> {
    use BinaryOp::*;
    let float = ty.is_float();
    Some(match op {
        // -0.0, not 0.0: -0.0 + -0.0 is -0.0.
        Add if float => Expr::make_float(ty, -0.0),
        Add | BitOr | BitXor | Or if !float => Expr::zero(ty),
        Mul if !ty.is_bool() => Expr::one(ty),
        BitAnd | And if !float => Expr::make_const(ty, -1),
        Min if float => Expr::make_float(ty, f64::INFINITY),
        Max if float => Expr::make_float(ty, f64::NEG_INFINITY),
        Min if ty.is_int_or_uint() => Expr::make_const(ty, ty.int_max() as i64),
        Max if ty.is_int_or_uint() => Expr::make_const(ty, ty.int_min() as i64),
        _ => return None,
    })
}

/// The lanes of the vector `v` combined by `op` (associative and commutative) into one
/// scalar: `v` cut into the widest equal parts `lanes::extract_lanes` can take apart (its two
/// halves, unless nested vectorization repeats an inner vector: that vector's copies), the
/// parts combined lane by lane, and so on down to one lane; `None` where not even single
/// lanes can be taken apart.
pub fn reduce_lanes(op: BinaryOp, v: &Expr) -> Option<Expr> {
    let lanes = v.ty().lanes;
    if lanes == 1 {
        return Some(v.clone());
    }
    let parts = (1..lanes)
        .rev()
        .filter(|&width| lanes.is_multiple_of(width))
        .find_map(|width| {
            (0..lanes / width)
                .map(|i| extract_lanes(v, i * width, 1, width))
                .collect::<Option<Vec<_>>>()
        })?;
    let combined = parts.into_iter().reduce(|a, b| Expr::binary(op, a, b))?;
    reduce_lanes(op, &combined)
}
