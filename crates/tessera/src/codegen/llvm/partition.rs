//! Loop partitioning for the clamp that vectorized and split loops leave behind (the common
//! case of Halide's PartitionLoops). A split with a ShiftInwards tail makes every iteration
//! start at `min(c, x * k)`, which is `x * k` in all iterations but the last. A serial loop
//! over `x` whose body uses such a clamp (`k > 0` a constant, `c` invariant in the loop: it
//! names nothing bound inside the loop and loads nothing) runs as two loops: the steady
//! iterations, where `x * k <= c`, with the clamp replaced by `x * k`, then the remaining
//! iterations with the body unchanged. The results are the same; steady iterations do less
//! work, and their addresses are affine in the loop variable, which LLVM strength-reduces.

use std::collections::HashSet;

use crate::ir::substitute::free_vars;
use crate::ir::visit::{mutate_expr_children, visit_stmt_exprs, Mutator};
use crate::ir::{BinaryOp, Expr, ExprKind, Stmt, StmtKind, Symbol, Type};

/// A loop split in two: `[min, min + steady_extent)` runs `steady_body`, the rest the
/// original body.
pub(super) struct Partition {
    pub steady_extent: Expr,
    pub steady_body: Stmt,
}

/// The partition of `for (name, min, extent) body`, if its body has a clamp to remove.
pub(super) fn partition(name: Symbol, min: &Expr, extent: &Expr, body: &Stmt) -> Option<Partition> {
    if min.ty() != Type::i32() {
        return None;
    }
    let bound = bound_names(body);
    let (clamp, limit, scaled, k) = find_clamp(name, body, &bound)?;
    // x * k <= c  <=>  x <= floor(c / k), so the steady iterations are the first
    // floor(c / k) - min + 1 of them, clamped to [0, extent].
    let last = Expr::binary(BinaryOp::Div, limit, Expr::i32(k));
    let count = Expr::binary(
        BinaryOp::Add,
        Expr::binary(BinaryOp::Sub, last, min.clone()),
        Expr::i32(1),
    );
    let steady_extent = Expr::binary(
        BinaryOp::Max,
        Expr::binary(BinaryOp::Min, count, extent.clone()),
        Expr::i32(0),
    );
    let steady_body = Replace {
        target: clamp,
        replacement: scaled,
    }
    .mutate_stmt(body);
    Some(Partition {
        steady_extent,
        steady_body,
    })
}

/// The first clamp `min(c, x * k)` (either operand order) in `body`: the clamp, `c`, `x * k`
/// and `k`.
fn find_clamp(
    name: Symbol,
    body: &Stmt,
    bound: &HashSet<Symbol>,
) -> Option<(Expr, Expr, Expr, i32)> {
    let mut found = None;
    visit_stmt_exprs(body, &mut |e| {
        if found.is_some() {
            return false;
        }
        if let ExprKind::Binary(BinaryOp::Min, a, b) = e.kind() {
            for (limit, scaled) in [(a, b), (b, a)] {
                if let Some(k) = scaled_loop_var(scaled, name) {
                    if invariant(limit, name, bound) {
                        found = Some((e.clone(), limit.clone(), scaled.clone(), k));
                        return false;
                    }
                }
            }
        }
        true
    });
    found
}

/// `k` if `e` is the scalar i32 `name * k` (or `k * name`) with `k > 0`.
fn scaled_loop_var(e: &Expr, name: Symbol) -> Option<i32> {
    if e.ty() != Type::i32() {
        return None;
    }
    let ExprKind::Binary(BinaryOp::Mul, a, b) = e.kind() else {
        return None;
    };
    let is_var = |x: &Expr| matches!(x.kind(), ExprKind::Var(n) if *n == name);
    let k = match (is_var(a), is_var(b)) {
        (true, false) => b.as_int_const(),
        (false, true) => a.as_int_const(),
        _ => None,
    }?;
    i32::try_from(k).ok().filter(|&k| k > 0)
}

/// Whether `e` has the same value in every iteration of the loop over `name`.
fn invariant(e: &Expr, name: Symbol, bound: &HashSet<Symbol>) -> bool {
    let mut pure = true;
    crate::ir::visit::visit_exprs(e, &mut |n| {
        if matches!(n.kind(), ExprKind::Load { .. } | ExprKind::Call { .. }) {
            pure = false;
        }
        pure
    });
    pure && free_vars(e)
        .iter()
        .all(|v| *v != name && !bound.contains(v))
}

/// Every name a let, a loop or a let expression binds inside `s`.
fn bound_names(s: &Stmt) -> HashSet<Symbol> {
    let mut names = HashSet::new();
    collect_bound(s, &mut names);
    names
}

fn collect_bound(s: &Stmt, names: &mut HashSet<Symbol>) {
    match s.kind() {
        StmtKind::LetStmt { name, .. } | StmtKind::For { name, .. } => {
            names.insert(*name);
        }
        _ => {}
    }
    let mut exprs = Vec::new();
    s.for_each_child(|e| exprs.push(e.clone()), |c| collect_bound(c, names));
    for e in exprs {
        crate::ir::visit::visit_exprs(&e, &mut |n| {
            if let ExprKind::Let(name, _, _) = n.kind() {
                names.insert(*name);
            }
            true
        });
    }
}

/// Replaces every occurrence of one expression.
struct Replace {
    target: Expr,
    replacement: Expr,
}

impl Mutator for Replace {
    fn mutate_expr(&mut self, e: &Expr) -> Expr {
        if *e == self.target {
            return self.replacement.clone();
        }
        mutate_expr_children(self, e)
    }
}
