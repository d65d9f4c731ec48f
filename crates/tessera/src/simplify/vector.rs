//! Vector nodes: a ramp with stride zero is a broadcast, a broadcast of a broadcast is one
//! broadcast, and an operation applied to broadcasts only — binary operators (comparisons and
//! min/max included), unary operators, selects — is a broadcast of the scalar operation
//! (every operation is lane-wise). Together with the ramp arithmetic of `+`, `-`, `*`, `/`,
//! `%` and casts (in their families), this puts vector index arithmetic in the canonical form
//! code generation needs: `ramp(base, stride, lanes)` with a scalar base and stride.

use std::sync::OnceLock;

use super::info::Origin;
use super::rules::RuleSet;
use super::Simplifier;
use crate::ir::{Expr, ExprKind};

pub(super) fn rules() -> &'static RuleSet {
    static RULES: OnceLock<RuleSet> = OnceLock::new();
    RULES.get_or_init(|| {
        rules! {
            Any {
                "-broadcast(x)" => "broadcast(-x)";
                "select(broadcast(x), broadcast(y), broadcast(z))" => "broadcast(select(x, y, z))";
            }
            Bool {
                "!broadcast(x)" => "broadcast(!x)";
            }
            Int {
                // Not for floats: x + 0.0 is not x when x is -0.0.
                "ramp(x, 0)" => "broadcast(x)";
                "~broadcast(x)" => "broadcast(~x)";
            }
        }
    })
}

/// Simplifies vector node `e` (of any kind), if one of the vector rewrites applies.
pub(super) fn simplify(s: &mut Simplifier, e: &Expr) -> Option<Expr> {
    if let ExprKind::Broadcast(inner) = e.kind() {
        if let ExprKind::Broadcast(x) = inner.kind() {
            return Some(s.make(x.clone().broadcast_to(e.ty().lanes / x.ty().lanes)));
        }
    }
    lift_broadcasts(s, e).or_else(|| rules().apply(s, e))
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
