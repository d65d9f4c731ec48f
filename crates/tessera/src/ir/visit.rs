//! The one visitor and the one mutator abstraction over `Expr` and `Stmt`. A pass overrides
//! `visit_expr`/`mutate_expr` (and the `Stmt` counterparts), matches the node kinds it cares
//! about, and hands every other node to the `walk_*`/`mutate_*_children` defaults, which
//! recurse. Mutators rebuild a node only when a child changed, so untouched subtrees stay
//! shared.

use super::expr::{CallKind, Expr, ExprKind, Intrinsic};
use super::stmt::Stmt;
use std::collections::{HashMap, HashSet};

pub trait Visitor {
    fn visit_expr(&mut self, e: &Expr) {
        walk_expr(self, e)
    }
    fn visit_stmt(&mut self, s: &Stmt) {
        walk_stmt(self, s)
    }
}

/// Visits the children of `e`.
pub fn walk_expr<V: Visitor + ?Sized>(v: &mut V, e: &Expr) {
    e.for_each_child(|c| v.visit_expr(c))
}

/// Visits the child expressions, then the child statements, of `s` in source order.
pub fn walk_stmt<V: Visitor + ?Sized>(v: &mut V, s: &Stmt) {
    // Collect first: the two closures cannot both borrow `v` mutably.
    let mut exprs = Vec::new();
    let mut stmts = Vec::new();
    s.for_each_child(|e| exprs.push(e.clone()), |c| stmts.push(c.clone()));
    exprs.iter().for_each(|e| v.visit_expr(e));
    stmts.iter().for_each(|c| v.visit_stmt(c));
}

pub trait Mutator {
    fn mutate_expr(&mut self, e: &Expr) -> Expr {
        mutate_expr_children(self, e)
    }
    fn mutate_stmt(&mut self, s: &Stmt) -> Stmt {
        mutate_stmt_children(self, s)
    }
}

pub fn mutate_expr_children<M: Mutator + ?Sized>(m: &mut M, e: &Expr) -> Expr {
    e.map_children(|c| m.mutate_expr(c))
}

pub fn mutate_stmt_children<M: Mutator + ?Sized>(m: &mut M, s: &Stmt) -> Stmt {
    let m = std::cell::RefCell::new(m);
    s.map_children(
        |e| m.borrow_mut().mutate_expr(e),
        |c| m.borrow_mut().mutate_stmt(c),
    )
}

/// Whether `e` reads memory (loads, calls to Funcs and images, or the cache's lookups and
/// stores, which copy a buffer): such an expression may not be moved across the stores of
/// the code around it.
pub fn reads_memory(e: &Expr) -> bool {
    let mut found = false;
    visit_exprs(e, &mut |n| {
        found |= matches!(
            n.kind(),
            ExprKind::Load { .. }
                | ExprKind::Call {
                    kind: CallKind::Func(_)
                        | CallKind::Image(_)
                        | CallKind::Intrinsic(
                            Intrinsic::MemoizeLookup { .. } | Intrinsic::MemoizeStore { .. }
                        ),
                    ..
                }
        );
        !found
    });
    found
}

/// Whether `e` prints (`lang::print`) where evaluated: such an expression may not be moved
/// where it would be evaluated a different number of times.
pub fn prints(e: &Expr) -> bool {
    let mut found = false;
    visit_exprs(e, &mut |n| {
        found |= matches!(
            n.kind(),
            ExprKind::Call {
                kind: CallKind::Intrinsic(Intrinsic::Print { .. }),
                ..
            }
        );
        !found
    });
    found
}

/// The most expression nodes, as trees, a definition or a statement after inlining may hold:
/// beyond, lowering and compiling it would take minutes and gigabytes.
pub const MAX_TREE_NODES: usize = 1 << 20;

/// Whether `exprs`, as trees (a subexpression counted each time it is used), have at most
/// `limit` nodes in all.
pub fn tree_nodes_within<'a>(exprs: impl IntoIterator<Item = &'a Expr>, limit: usize) -> bool {
    tree_nodes(exprs, limit) <= limit
}

/// The nodes of `exprs` as trees (a subexpression counted each time it is used), or
/// `limit + 1` if there are more. The count follows the shared graph, so it takes time in the
/// number of distinct nodes: a tree of 2^70 nodes built by sharing is counted at once, where
/// walking it would never end.
pub fn tree_nodes<'a>(exprs: impl IntoIterator<Item = &'a Expr>, limit: usize) -> usize {
    fn size(e: &Expr, limit: usize, sizes: &mut HashMap<usize, usize>) -> usize {
        if let Some(&n) = sizes.get(&e.node_id()) {
            return n;
        }
        let mut n = 1usize;
        e.for_each_child(|c| n = n.saturating_add(size(c, limit, sizes)).min(limit + 1));
        sizes.insert(e.node_id(), n);
        n
    }
    let mut sizes = HashMap::new();
    let mut total = 0usize;
    for e in exprs {
        total = total.saturating_add(size(e, limit, &mut sizes));
        if total > limit {
            return limit + 1;
        }
    }
    total
}

/// The distinct nodes of `exprs` (a node shared by several parents counted once), or
/// `limit + 1` if there are more.
pub fn distinct_nodes<'a>(exprs: impl IntoIterator<Item = &'a Expr>, limit: usize) -> usize {
    fn count(e: &Expr, limit: usize, seen: &mut HashSet<usize>) -> bool {
        if !seen.insert(e.node_id()) {
            return true;
        }
        let mut within = seen.len() <= limit;
        e.for_each_child(|c| within = within && count(c, limit, seen));
        within
    }
    let mut seen = HashSet::new();
    if exprs.into_iter().all(|e| count(e, limit, &mut seen)) {
        seen.len()
    } else {
        limit + 1
    }
}

/// The number of nodes of `e`.
pub fn node_count(e: &Expr) -> usize {
    let mut n = 0;
    visit_exprs(e, &mut |_| {
        n += 1;
        true
    });
    n
}

/// A visitor built from a closure that sees every expression node, pre-order; returning
/// `false` stops descent below that node.
pub fn visit_exprs(e: &Expr, f: &mut dyn FnMut(&Expr) -> bool) {
    if f(e) {
        e.for_each_child(|c| visit_exprs(c, f))
    }
}

/// Every statement of `s` (itself included), pre-order; returning `false` stops descent below
/// that statement. Expressions are not visited (`visit_stmt_exprs`).
pub fn visit_stmts(s: &Stmt, f: &mut dyn FnMut(&Stmt) -> bool) {
    if f(s) {
        s.for_each_child(|_| {}, |c| visit_stmts(c, f))
    }
}

/// Whether some statement of `s` (itself included) satisfies `pred`.
pub fn any_stmt(s: &Stmt, pred: impl Fn(&Stmt) -> bool) -> bool {
    let mut found = false;
    visit_stmts(s, &mut |st| {
        found |= pred(st);
        !found
    });
    found
}

/// Whether some node of `e` (itself included) satisfies `pred`.
pub fn any_node(e: &Expr, pred: impl Fn(&Expr) -> bool) -> bool {
    let mut found = false;
    visit_exprs(e, &mut |n| {
        found |= pred(n);
        !found
    });
    found
}

/// Every expression node in a statement tree, pre-order (see `visit_exprs`).
pub fn visit_stmt_exprs(s: &Stmt, f: &mut dyn FnMut(&Expr) -> bool) {
    struct ClosureVisitor<'a>(&'a mut dyn FnMut(&Expr) -> bool);
    impl Visitor for ClosureVisitor<'_> {
        fn visit_expr(&mut self, e: &Expr) {
            if (self.0)(e) {
                walk_expr(self, e)
            }
        }
    }
    ClosureVisitor(f).visit_stmt(s)
}

/// A mutator from a closure over expressions: `f` returns `Some(replacement)` to replace a
/// node (its children are not visited), or `None` to recurse into it.
pub fn mutate_exprs(e: &Expr, f: &mut dyn FnMut(&Expr) -> Option<Expr>) -> Expr {
    match f(e) {
        Some(r) => r,
        None => e.map_children(|c| mutate_exprs(c, f)),
    }
}
