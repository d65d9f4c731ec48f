//! Stores of values that differ by lane parity (Halide's `Interleaver` in `Deinterleave.cpp`):
//! a vectorized `select(x % 2 == 0, a(x / 2), b(x / 2))` tests the remainder of a ramp by a
//! small constant k, so its lanes alternate between kinds of value (other arithmetic on such
//! a remainder is left whole). Its store computes the
//! lanes `i, i + k, ..` of the value separately for each i (`ir::lanes::extract_lanes`, then
//! simplified: over them `x % k` is one value and `x / k` a ramp) and stores
//! `interleave(lanes 0, .., lanes k-1)`. The values of a Tuple are vector lets stored
//! after all are computed: a let statement's value is split the same way.
//!
//! Each part computes exactly the original's lanes, and an interleave puts them back in
//! place, so the stored vector is the same. Runs after `interleave_stores` (whose merged
//! values are interleaves already, left alone).

use crate::ir::lanes::{contains_ramp, extract_lanes};
use crate::ir::visit::visit_exprs;
use crate::ir::{BinaryOp, Expr, ExprKind, Intrinsic, Stmt, StmtKind};
use crate::simplify::simplify;

/// The largest k whose remainders are split into k parts (Halide's bound): more parts are
/// more, narrower, vectors.
const MAX_PARTS: i128 = 4;

pub fn parity_stores(s: &Stmt) -> Stmt {
    let s = s.map_children(|e| e.clone(), parity_stores);
    match s.kind() {
        StmtKind::Store {
            buffer,
            index,
            value,
            predicate,
        } => match by_parity(value) {
            Some(value) => Stmt::new(StmtKind::Store {
                buffer: *buffer,
                index: index.clone(),
                value,
                predicate: predicate.clone(),
            }),
            None => s,
        },
        StmtKind::LetStmt { name, value, body } => match by_parity(value) {
            Some(value) => Stmt::let_stmt(*name, value, body.clone()),
            None => s,
        },
        _ => s,
    }
}

/// `value` as the interleave of its lanes by their remainder modulo k, if a select of it
/// tests the remainder of a lane-varying integer by a constant k (2 to `MAX_PARTS`)
/// dividing its lanes into parts of 2 or more.
fn by_parity(value: &Expr) -> Option<Expr> {
    let lanes = value.ty().lanes;
    let k = remainder_divisor(value)?;
    let k = u16::try_from(k).ok()?;
    if !lanes.is_multiple_of(k) || lanes / k < 2 {
        return None;
    }
    let parts = (0..k)
        .map(|i| extract_lanes(value, i, k, lanes / k).map(|e| simplify(&e)))
        .collect::<Option<Vec<_>>>()?;
    Some(Expr::intrinsic(value.ty(), Intrinsic::Interleave, parts))
}

/// The first k of a remainder `v % broadcast(k)` of a vector `v` with a ramp in it, in the
/// condition of a select of `e`. Only a select is split: its two arms are otherwise both
/// computed for every lane, where each part computes one arm. Arithmetic on the remainder
/// (an upsampling's alternating weights) is cheap at full width, and split it would turn
/// the value's dense loads into strided ones (local_laplacian 1.08 of the time).
fn remainder_divisor(e: &Expr) -> Option<i128> {
    let mut found = None;
    visit_exprs(e, &mut |n| {
        if let ExprKind::Select(condition, _, _) = n.kind() {
            found = remainder_in(condition);
        }
        found.is_none()
    });
    found
}

/// The first k of a remainder `v % broadcast(k)` in `e`, `v` a vector with a ramp in it.
fn remainder_in(e: &Expr) -> Option<i128> {
    let mut found = None;
    visit_exprs(e, &mut |n| {
        if let ExprKind::Binary(BinaryOp::Mod, a, b) = n.kind() {
            if let ExprKind::Broadcast(c) = b.kind() {
                found = c.as_int_const().filter(|k| {
                    (2..=MAX_PARTS).contains(k) && a.ty().is_int_or_uint() && contains_ramp(a)
                });
            }
        }
        found.is_none()
    });
    found
}
