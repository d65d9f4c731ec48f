//! Vector nodes: a ramp with stride zero is a broadcast, a broadcast of a broadcast is one
//! broadcast, and an operator applied to broadcasts is a broadcast of the scalar operation
//! (every operation is lane-wise). Ramp arithmetic lives with `+`, `-` and `*`.

use std::sync::OnceLock;

use super::info::Origin;
use super::rules::RuleSet;
use super::Simplifier;
use crate::ir::{Expr, ExprKind};

pub(super) fn rules() -> &'static RuleSet {
    static RULES: OnceLock<RuleSet> = OnceLock::new();
    RULES.get_or_init(|| {
        rules! {
            Int {
                // Not for floats: x + 0.0 is not x when x is -0.0.
                "ramp(x, 0)" => "broadcast(x)";
            }
        }
    })
}

pub(super) fn simplify(s: &mut Simplifier, e: &Expr) -> Option<Expr> {
    if let ExprKind::Broadcast(inner) = e.kind() {
        if let ExprKind::Broadcast(x) = inner.kind() {
            return Some(s.make(x.clone().broadcast_to(e.ty().lanes / x.ty().lanes)));
        }
    }
    rules().apply(s, e)
}

/// `broadcast(a) op broadcast(b)` as `broadcast(a op b)`.
pub(super) fn lift_broadcasts(s: &mut Simplifier, e: &Expr) -> Option<Expr> {
    let ExprKind::Binary(op, a, b) = e.kind() else {
        return None;
    };
    let (ExprKind::Broadcast(x), ExprKind::Broadcast(y)) = (a.kind(), b.kind()) else {
        return None;
    };
    if x.ty() != y.ty() || (a.is_const() && b.is_const()) {
        return None;
    }
    // Lane by lane the same operation on the same values: what held for `e` holds for it.
    let scalar = Expr::binary(*op, x.clone(), y.clone());
    let origin = if s.info(e).no_wrap {
        Origin::Proven
    } else {
        Origin::Derived
    };
    s.record(&scalar, origin);
    let scalar = s.rewrite(&scalar);
    let lanes = e.ty().lanes / scalar.ty().lanes;
    Some(s.make(scalar.broadcast_to(lanes)))
}
