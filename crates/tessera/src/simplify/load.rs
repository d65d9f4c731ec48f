//! Predicated loads: a predicate true on every lane is no predicate; false on every lane,
//! the load reads nothing and is zero (what a masked-off lane reads).

use crate::ir::{Expr, ExprKind};

pub(super) fn simplify(e: &Expr) -> Option<Expr> {
    let ExprKind::Load {
        buffer,
        index,
        predicate: Some(p),
    } = e.kind()
    else {
        return None;
    };
    match p.as_int_const()? {
        0 => Some(Expr::zero(e.ty())),
        _ => Some(Expr::new(
            e.ty(),
            ExprKind::Load {
                buffer: *buffer,
                index: index.clone(),
                predicate: None,
            },
        )),
    }
}
