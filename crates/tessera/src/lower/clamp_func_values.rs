//! After loop synthesis: a Func value used as a coordinate (inside the arguments of a call
//! or of a store) is clamped to the values the Func can take (`analysis::func_values`), so
//! interval analysis bounds the region it indexes, as Halide's bounds of a call do:
//! `g(x) = in(f(x))` with `f(x) = clamp(x, 10, 20)` reads `in` over [10, 20] only.
//!
//! The clamp is real code, not a promise: every value a definition stores lies inside the
//! bound, so it changes no value computed, but storage read where nothing was computed (past
//! a region, in a select's arm not taken) holds anything, and the clamp keeps such a value
//! from indexing outside the storage and buffers sized for the bound.

use crate::analysis::func_values::FuncValueBounds;
use crate::ir::visit::{mutate_stmt_children, Mutator};
use crate::ir::{BinaryOp, CallKind, Expr, ExprKind, Stmt, StmtKind};

use super::realization_order::Environment;

/// `s` with every Func value used as a coordinate clamped to its bounds.
pub fn clamp_func_values(s: &Stmt, env: &Environment) -> Stmt {
    let funcs = env.order.iter().map(|name| env.func(*name));
    let bounds = FuncValueBounds::of_funcs(funcs);
    ClampCoordinates { bounds }.mutate_stmt(s)
}

struct ClampCoordinates {
    bounds: FuncValueBounds,
}

impl ClampCoordinates {
    /// `e`, with the Func calls inside coordinates clamped; `e` is itself (inside) a
    /// coordinate when `in_coordinate`.
    fn rewrite(&self, e: &Expr, in_coordinate: bool) -> Expr {
        match e.kind() {
            ExprKind::Call {
                kind: kind @ (CallKind::Func(_) | CallKind::Image(_)),
                name,
                value_index,
                ..
            } => {
                let call = e.map_children(|a| self.rewrite(a, true));
                match (kind, self.bounds.get(*name, *value_index)) {
                    (CallKind::Func(_), Some(bound)) if in_coordinate => {
                        let clamped = match &bound.max {
                            Some(hi) => Expr::binary(BinaryOp::Min, call, hi.clone()),
                            None => call,
                        };
                        match &bound.min {
                            Some(lo) => Expr::binary(BinaryOp::Max, clamped, lo.clone()),
                            None => clamped,
                        }
                    }
                    _ => call,
                }
            }
            _ => e.map_children(|c| self.rewrite(c, in_coordinate)),
        }
    }
}

impl Mutator for ClampCoordinates {
    fn mutate_expr(&mut self, e: &Expr) -> Expr {
        self.rewrite(e, false)
    }

    fn mutate_stmt(&mut self, s: &Stmt) -> Stmt {
        match s.kind() {
            StmtKind::Provide { func, args, values } => Stmt::new(StmtKind::Provide {
                func: *func,
                args: args.iter().map(|a| self.rewrite(a, true)).collect(),
                values: values.iter().map(|v| self.rewrite(v, false)).collect(),
            }),
            _ => mutate_stmt_children(self, s),
        }
    }
}
