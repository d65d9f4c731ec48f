//! Loads at clamped ramps. A boundary condition reads `f(clamp(x, lo, hi))`; over the
//! vector lanes `x = b + i` of a loop's first and last iterations (which loop partitioning
//! leaves clamped) the index `clamp(ramp(b, 1, n), lo, hi) + offset` has no linear form, so
//! the load would be a gather: one load and one insertion per lane. Its lanes inside
//! `[lo, hi]` are consecutive elements and the others repeat one of two elements, so it is
//! made as a dense load predicated to the lanes inside (the others are not read) blended with
//! the two edge elements broadcast: the same values, a handful of instructions.

use super::values::Value;
use super::Codegen;
use crate::error::Result;
use crate::ir::{BinaryOp, Expr, ExprKind, Symbol, Type};

/// `outer(inner(ramp(base, 1, n), inner_bound), outer_bound)` with a min and a max: a ramp
/// clamped to `[lo, hi]`.
struct ClampedRamp {
    ramp: Expr,
    base: Expr,
    lo: Expr,
    hi: Expr,
    outer: BinaryOp,
    outer_bound: Expr,
    inner: BinaryOp,
    inner_bound: Expr,
}

impl ClampedRamp {
    /// The clamped index of the scalar `x`.
    fn at(&self, x: Expr) -> Expr {
        let inner = Expr::binary(self.inner, x, self.inner_bound.clone());
        Expr::binary(self.outer, inner, self.outer_bound.clone())
    }
}

/// The scalar a broadcast repeats.
fn broadcast_scalar(e: &Expr) -> Option<&Expr> {
    match e.kind() {
        ExprKind::Broadcast(s) if s.ty().is_scalar() => Some(s),
        _ => None,
    }
}

/// `a op b` as the operand that is not a broadcast and the broadcast scalar, if one is.
fn with_broadcast<'a>(a: &'a Expr, b: &'a Expr) -> Option<(&'a Expr, &'a Expr)> {
    match (broadcast_scalar(a), broadcast_scalar(b)) {
        (_, Some(s)) => Some((a, s)),
        (Some(s), None) => Some((b, s)),
        (None, None) => None,
    }
}

fn clamped_ramp(e: &Expr) -> Option<ClampedRamp> {
    let ExprKind::Binary(outer @ (BinaryOp::Min | BinaryOp::Max), a, b) = e.kind() else {
        return None;
    };
    let (inner, outer_bound) = with_broadcast(a, b)?;
    let ExprKind::Binary(inner_op, c, d) = inner.kind() else {
        return None;
    };
    let (ramp, inner_bound) = with_broadcast(c, d)?;
    let ExprKind::Ramp(base, stride) = ramp.kind() else {
        return None;
    };
    if !base.ty().is_scalar() || stride.as_int_const() != Some(1) {
        return None;
    }
    let (lo, hi) = match (outer, inner_op) {
        (BinaryOp::Max, BinaryOp::Min) => (outer_bound, inner_bound),
        (BinaryOp::Min, BinaryOp::Max) => (inner_bound, outer_bound),
        _ => return None,
    };
    Some(ClampedRamp {
        ramp: ramp.clone(),
        base: base.clone(),
        lo: lo.clone(),
        hi: hi.clone(),
        outer: *outer,
        outer_bound: outer_bound.clone(),
        inner: *inner_op,
        inner_bound: inner_bound.clone(),
    })
}

impl<'ctx> Codegen<'ctx> {
    /// `buffer[index]` of type `ty` as a dense load blended with its edge elements, when the
    /// index is a clamped ramp of stride 1 plus a uniform offset; `None` otherwise.
    pub(super) fn load_clamped_ramp(
        &mut self,
        ty: Type,
        buffer: Symbol,
        index: &Expr,
    ) -> Result<Option<Value<'ctx>>> {
        let lanes = ty.lanes;
        if lanes < 4 {
            return Ok(None);
        }
        let (Some(varying), offset) = super::gathers::uniform_offset(index) else {
            return Ok(None);
        };
        let Some(c) = clamped_ramp(&varying) else {
            return Ok(None);
        };
        let shifted = |e: Expr| match &offset {
            Some(o) => Expr::binary(BinaryOp::Add, e, o.clone()),
            None => e,
        };
        let vector = |s: &Expr| s.clone().broadcast_to(lanes);
        let compare = |op, bound: &Expr| Expr::binary(op, c.ramp.clone(), vector(bound));
        // The lanes below `lo` read what the first lane reads, those above `hi` what the last
        // lane reads (the ramp increases: its lanes are loop coordinates, which fit the index
        // type). Both are read by the load replaced, so they are in bounds.
        let edge = |lane: i64| {
            let x = Expr::binary(
                BinaryOp::Add,
                c.base.clone(),
                Expr::make_const(c.base.ty(), lane),
            );
            Expr::load(ty.element(), buffer, shifted(c.at(x))).broadcast_to(lanes)
        };
        let inside = Expr::binary(
            BinaryOp::And,
            compare(BinaryOp::Ge, &c.lo),
            compare(BinaryOp::Le, &c.hi),
        );
        let dense = Expr::new(
            ty,
            ExprKind::Load {
                buffer,
                index: Expr::ramp(
                    shifted(c.base.clone()),
                    Expr::make_const(c.base.ty(), 1),
                    lanes,
                ),
                predicate: Some(inside),
            },
        );
        let value = Expr::select(
            compare(BinaryOp::Lt, &c.lo),
            edge(0),
            Expr::select(compare(BinaryOp::Gt, &c.hi), edge(lanes as i64 - 1), dense),
        );
        Ok(Some(self.expr(&value)?))
    }
}
