//! Loads by lane parity. A vectorized upsampling reads `f((x + 1) / 2)`: over lanes
//! `x = b + i` the index steps by 0 or 1 depending on `b`'s parity, which is unknown, so it
//! has no linear form and the load would be a gather. Over the even lanes alone
//! (`x = b + 2i`) and over the odd ones it is a ramp of stride 1, which the simplifier
//! derives from the lanes `ir::lanes` extracts. Such a load is made as two dense (or
//! strided) loads of half the lanes, interleaved by one shuffle — as Halide does. Each half
//! loads exactly the original's lanes, so the value is the same.

use super::values::Value;
use super::Codegen;
use crate::error::Result;
use crate::ir::lanes::{contains_ramp, extract_lanes};
use crate::ir::visit::visit_exprs;
use crate::ir::{BinaryOp, Expr, ExprKind, Symbol, Type};
use crate::simplify::simplify;

impl<'ctx> Codegen<'ctx> {
    /// `buffer[index]` (lanes where `predicate` is false reading zero) as its even and odd
    /// lanes, when the index divides a lane-varying integer by 2 and each half's index is
    /// linear; `None` otherwise.
    pub(super) fn load_by_parity(
        &mut self,
        ty: Type,
        buffer: Symbol,
        index: &Expr,
        predicate: Option<&Expr>,
    ) -> Result<Option<Value<'ctx>>> {
        let lanes = ty.lanes;
        if lanes < 4 || !lanes.is_multiple_of(2) || !divides_lanes_by_two(index) {
            return Ok(None);
        }
        let half = lanes / 2;
        let mut loads = Vec::with_capacity(2);
        for start in 0..2 {
            let part = |e: &Expr| extract_lanes(e, start, 2, half).map(|e| simplify(&e));
            let (Some(index), predicate) = (part(index), predicate.map(part)) else {
                return Ok(None);
            };
            let predicate = match predicate {
                Some(Some(p)) => Some(p),
                Some(None) => return Ok(None),
                None => None,
            };
            if self.linear(&index)?.is_none() {
                return Ok(None);
            }
            loads.push((index, predicate));
        }
        let mut halves = Vec::with_capacity(2);
        for (index, predicate) in &loads {
            halves.push(self.load(ty.with_lanes(half), buffer, index, predicate.as_ref())?);
        }
        let interleave: Vec<u32> = (0..u32::from(half))
            .flat_map(|i| [i, i + u32::from(half)])
            .collect();
        Ok(Some(self.shuffle(halves[0], halves[1], &interleave)))
    }
}

/// Whether `e` divides, or takes the remainder of, a lane-varying integer vector by 2.
fn divides_lanes_by_two(e: &Expr) -> bool {
    let mut found = false;
    visit_exprs(e, &mut |n| {
        if let ExprKind::Binary(BinaryOp::Div | BinaryOp::Mod, a, b) = n.kind() {
            let by_two = match b.kind() {
                ExprKind::Broadcast(c) => c.as_int_const() == Some(2),
                _ => false,
            };
            found |= by_two && a.ty().is_int_or_uint() && contains_ramp(a);
        }
        !found
    });
    found
}
