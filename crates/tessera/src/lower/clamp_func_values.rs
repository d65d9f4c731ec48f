//! After loop synthesis: a Func value used as a coordinate (inside the arguments of a call
//! or of a store) is clamped to the values the Func can take (`analysis::func_values`), so
//! interval analysis bounds the region it indexes, as Halide's bounds of a call do:
//! `g(x) = in(f(x))` with `f(x) = clamp(x, 10, 20)` reads `in` over [10, 20] only. Only
//! where the clamp narrows the coordinate's bounds: one clamped already is left alone.
//!
//! The clamp is real code, not a promise: every value a definition stores lies inside the
//! bound, so it changes no value computed, but storage read where nothing was computed (past
//! a region, in a select's arm not taken) holds anything, and the clamp keeps such a value
//! from indexing outside the storage and buffers sized for the bound.

use crate::analysis::func_values::FuncValueBounds;
use crate::analysis::{bounds_of_expr, Interval, Scope};
use crate::ir::visit::{mutate_exprs, mutate_stmt_children, Mutator};
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
    /// `e` with the coordinates of its calls rewritten (`coordinate`).
    fn rewrite(&self, e: &Expr) -> Expr {
        mutate_exprs(e, &mut |n| match n.kind() {
            ExprKind::Call {
                kind: CallKind::Func(_) | CallKind::Image(_),
                ..
            } => Some(n.map_children(|a| self.coordinate(a))),
            _ => None,
        })
    }

    /// Coordinate `a` with the Func calls whose values it uses clamped, where that narrows
    /// its bounds (a coordinate clamped already, like a lookup table's index, keeps its
    /// loads as they are), and the coordinates inside it rewritten.
    fn coordinate(&self, a: &Expr) -> Expr {
        let a = self.rewrite(a);
        let clamped = mutate_exprs(&a, &mut |n| match n.kind() {
            ExprKind::Call {
                kind: CallKind::Func(_),
                name,
                value_index,
                ..
            } => Some(match self.bounds.get(*name, *value_index) {
                Some(bound) => clamp(n, bound),
                None => n.clone(),
            }),
            // An image's values have no bound; its coordinates were rewritten above.
            ExprKind::Call {
                kind: CallKind::Image(_),
                ..
            } => Some(n.clone()),
            _ => None,
        });
        let scope = Scope::new();
        if clamped != a && bounds_of_expr(&clamped, &scope) != bounds_of_expr(&a, &scope) {
            clamped
        } else {
            a
        }
    }
}

/// `call` clamped to `bound` (at the ends it has).
fn clamp(call: &Expr, bound: &Interval) -> Expr {
    let below_max = match &bound.max {
        Some(hi) => Expr::binary(BinaryOp::Min, call.clone(), hi.clone()),
        None => call.clone(),
    };
    match &bound.min {
        Some(lo) => Expr::binary(BinaryOp::Max, below_max, lo.clone()),
        None => below_max,
    }
}

impl Mutator for ClampCoordinates {
    fn mutate_expr(&mut self, e: &Expr) -> Expr {
        self.rewrite(e)
    }

    fn mutate_stmt(&mut self, s: &Stmt) -> Stmt {
        match s.kind() {
            StmtKind::Provide { func, args, values } => Stmt::new(StmtKind::Provide {
                func: *func,
                args: args.iter().map(|a| self.coordinate(a)).collect(),
                values: values.iter().map(|v| self.rewrite(v)).collect(),
            }),
            _ => mutate_stmt_children(self, s),
        }
    }
}
