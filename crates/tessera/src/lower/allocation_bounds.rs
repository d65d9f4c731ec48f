//! Allocation bounds: each `Realize` gets lets sizing its storage, `f.<x>.min_realized` and
//! `f.<x>.extent_realized`: the union of every point written and read inside it, with the
//! loops between the storage and the compute level ranging over all their iterations (so with
//! `store_root`, storage spans what all iterations of the sliding loop touch).

use super::bounds_inference::{bounded, func_box, union_boxes};
use super::names::{realized_extent, realized_min};
use super::realization_order::Environment;
use crate::error::{Error, Result};
use crate::ir::{BinaryOp, Expr, Stmt, StmtKind};
use crate::simplify::simplify;

pub fn allocation_bounds(s: &Stmt, env: &Environment) -> Result<Stmt> {
    let mut error = None;
    let s = s.map_children(
        |e| e.clone(),
        |c| {
            allocation_bounds(c, env).unwrap_or_else(|e| {
                error.get_or_insert(e);
                c.clone()
            })
        },
    );
    if let Some(e) = error {
        return Err(e);
    }
    let StmtKind::Realize { func, body, .. } = s.kind() else {
        return Ok(s);
    };
    let f = env.func(*func).read();
    let touched = union_boxes(func_box(body, *func, true), func_box(body, *func, false))
        .ok_or_else(|| {
            Error::Schedule(format!(
                "internal error: {func} is realized but never touched"
            ))
        })?;
    let mut out = s.clone();
    for (d, arg) in f.args.iter().enumerate().rev() {
        let (min, max) = bounded(&touched[d], || {
            format!("the storage of {func} in dimension {d} ({arg})")
        })?;
        // The region is empty (max < min) where everything touching it is guarded off in
        // this instance (a GuardWithIf tail past the end): nothing is stored then.
        let extent = simplify(&Expr::binary(
            BinaryOp::Max,
            Expr::binary(
                BinaryOp::Add,
                Expr::binary(BinaryOp::Sub, max, min.clone()),
                Expr::i32(1),
            ),
            Expr::i32(0),
        ));
        out = Stmt::let_stmt(realized_extent(*func, *arg), extent, out);
        out = Stmt::let_stmt(realized_min(*func, *arg), min, out);
    }
    Ok(out)
}
