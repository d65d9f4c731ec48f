//! A total order on expressions, used to put the operands of commutative operators and the
//! terms of sums in one canonical order, so that equal values built in different orders become
//! structurally equal. Constants sort last (so they end up on the right); variables sort by
//! name.

use std::cmp::Ordering;

use crate::ir::{CallKind, Expr, ExprKind};

fn rank(e: &Expr) -> u8 {
    match e.kind() {
        ExprKind::Var(_) => 0,
        ExprKind::Param(..) => 1,
        ExprKind::RVar(..) => 2,
        ExprKind::Load { .. } => 3,
        ExprKind::Call { .. } => 4,
        ExprKind::Cast(_) => 5,
        ExprKind::Unary(..) => 6,
        ExprKind::Binary(..) => 7,
        ExprKind::Select(..) => 8,
        ExprKind::Let(..) => 9,
        ExprKind::Ramp(..) => 10,
        ExprKind::Broadcast(_) if !e.is_const() => 11,
        ExprKind::Invalid(_) => 12,
        ExprKind::IntImm(_)
        | ExprKind::UIntImm(_)
        | ExprKind::FloatImm(_)
        | ExprKind::Broadcast(_) => 13,
    }
}

fn children(e: &Expr) -> Vec<Expr> {
    let mut out = Vec::new();
    e.for_each_child(|c| out.push(c.clone()));
    out
}

/// The canonical order: by kind, then by the data of the node, then by children.
pub(super) fn compare(a: &Expr, b: &Expr) -> Ordering {
    if a.same_as(b) {
        return Ordering::Equal;
    }
    let by_rank = rank(a).cmp(&rank(b));
    if by_rank != Ordering::Equal {
        return by_rank;
    }
    let by_data = match (a.kind(), b.kind()) {
        (ExprKind::Var(x), ExprKind::Var(y))
        | (ExprKind::Param(x, _), ExprKind::Param(y, _))
        | (ExprKind::RVar(x, _), ExprKind::RVar(y, _)) => x.as_str().cmp(y.as_str()),
        (ExprKind::IntImm(x), ExprKind::IntImm(y)) => x.cmp(y),
        (ExprKind::UIntImm(x), ExprKind::UIntImm(y)) => x.cmp(y),
        (ExprKind::FloatImm(x), ExprKind::FloatImm(y)) => x.0.total_cmp(&y.0),
        (ExprKind::Unary(x, _), ExprKind::Unary(y, _)) => (*x as u8).cmp(&(*y as u8)),
        (ExprKind::Binary(x, ..), ExprKind::Binary(y, ..)) => (*x as u8).cmp(&(*y as u8)),
        (ExprKind::Let(x, ..), ExprKind::Let(y, ..)) => x.as_str().cmp(y.as_str()),
        (ExprKind::Load { buffer: x, .. }, ExprKind::Load { buffer: y, .. }) => {
            x.as_str().cmp(y.as_str())
        }
        (
            ExprKind::Call {
                name: x,
                kind: kx,
                value_index: vx,
                ..
            },
            ExprKind::Call {
                name: y,
                kind: ky,
                value_index: vy,
                ..
            },
        ) => x
            .as_str()
            .cmp(y.as_str())
            .then(call_kind_rank(kx).cmp(&call_kind_rank(ky)))
            .then(vx.cmp(vy)),
        (ExprKind::Invalid(x), ExprKind::Invalid(y)) => x.cmp(y),
        _ => Ordering::Equal,
    };
    if by_data != Ordering::Equal {
        return by_data;
    }
    let by_type = a.ty().cmp(&b.ty());
    if by_type != Ordering::Equal {
        return by_type;
    }
    let (ca, cb) = (children(a), children(b));
    for (x, y) in ca.iter().zip(&cb) {
        let c = compare(x, y);
        if c != Ordering::Equal {
            return c;
        }
    }
    ca.len().cmp(&cb.len())
}

fn call_kind_rank(k: &CallKind) -> u8 {
    match k {
        CallKind::Func(_) => 0,
        CallKind::Image(_) => 1,
        CallKind::Intrinsic(_) => 2,
    }
}
