//! Unrolling: a loop scheduled `unroll` becomes one copy of its body per iteration, each with
//! the loop variable bound to its value. The extent must be a constant by now (splits give
//! unrolled inner loops constant extents); anything else is a schedule error.

use crate::error::{Error, Result};
use crate::ir::{BinaryOp, Expr, ForKind, Stmt, StmtKind};

pub fn unroll_loops(s: &Stmt) -> Result<Stmt> {
    let mut error = None;
    let out = unroll(s, &mut error);
    match error {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

fn unroll(s: &Stmt, error: &mut Option<Error>) -> Stmt {
    match s.kind() {
        StmtKind::For {
            name,
            min,
            extent,
            kind: ForKind::Unrolled,
            body,
        } => {
            let body = unroll(body, error);
            let Some(n) = extent.as_int_const() else {
                error.get_or_insert_with(|| {
                    Error::schedule(format!("cannot unroll loop {name}: its extent {extent} is not a constant; split it by a constant factor and unroll the inner loop"))
                });
                return s.clone();
            };
            Stmt::block((0..n as i64).map(|i| {
                let value = Expr::binary(BinaryOp::Add, min.clone(), Expr::make_const(min.ty(), i));
                Stmt::let_stmt(*name, value, body.clone())
            }))
        }
        _ => s.map_children(|e| e.clone(), |c| unroll(c, error)),
    }
}
