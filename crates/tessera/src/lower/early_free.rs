//! Early frees (Halide's `inject_early_frees`): each allocation is released right after the
//! last statement that accesses it, not where its `Allocate` ends. A Func computed at root
//! encloses its consumers, so its `Allocate` usually ends with the pipeline: without early
//! frees every root Func's storage stays live to the end, and a chain of root stages writes
//! ever new memory that is never in cache (stencil_chain's 32 stages of 7.9 MB each).
//!
//! The `Free` goes on the `Allocate`'s straight-line path, so it runs exactly once: the pass
//! descends through blocks, lets, produce/consume markers and other allocations to the last
//! statement accessing the buffer, and frees after it; an access inside a loop, a branch or
//! an atomic section frees after that whole statement. An allocation accessed by the last
//! statement of its body is left to its `Allocate`. The buffers each statement accesses are
//! computed once per node and remembered, so the pass is linear in the size of the loop nest
//! however deeply root allocations nest.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::ir::visit::{walk_expr, Visitor};
use crate::ir::{Expr, ExprKind, Stmt, StmtKind, Symbol};

/// `s` with a `Free` after the last access of each allocation that ends before its scope.
pub fn early_free(s: &Stmt) -> Stmt {
    EarlyFrees::default().rewrite(s)
}

/// The pass, with the buffers each statement accesses remembered by node: the frees of
/// nested allocations ask about the same statements once per enclosing allocation, and
/// walking them each time made the pass quadratic in the nesting of root allocations.
#[derive(Default)]
struct EarlyFrees {
    /// Keyed by `Stmt::node_id`; the node is kept alive so that no id is reused.
    accessed: FxHashMap<usize, (Stmt, FxHashSet<Symbol>)>,
}

impl EarlyFrees {
    fn rewrite(&mut self, s: &Stmt) -> Stmt {
        let s = s.map_children(|e| e.clone(), |c| self.rewrite(c));
        match s.kind() {
            StmtKind::Allocate {
                buffer,
                ty,
                extents,
                memory,
                body,
            } => match self.with_free(body, *buffer) {
                Some(body) => Stmt::new(StmtKind::Allocate {
                    buffer: *buffer,
                    ty: *ty,
                    extents: extents.clone(),
                    memory: *memory,
                    body,
                }),
                None => s,
            },
            _ => s,
        }
    }

    /// `s` with `Free(buffer)` right after its last access, or none when that access ends
    /// `s` (or cannot be followed on the straight-line path).
    fn with_free(&mut self, s: &Stmt, buffer: Symbol) -> Option<Stmt> {
        let free = || Stmt::new(StmtKind::Free { buffer });
        match s.kind() {
            StmtKind::Block(stmts) => {
                let last = stmts.iter().rposition(|c| self.accesses(c, buffer))?;
                let mut stmts = stmts.clone();
                match self.with_free(&stmts[last], buffer) {
                    Some(inner) => stmts[last] = inner,
                    None if last + 1 < stmts.len() => stmts.insert(last + 1, free()),
                    None => return None,
                }
                Some(Stmt::block(stmts))
            }
            StmtKind::LetStmt { name, value, body } => {
                let body = if self.accesses(body, buffer) {
                    self.with_free(body, buffer)?
                } else if expr_accesses(value, buffer) && !body.is_empty() {
                    Stmt::block([free(), body.clone()])
                } else {
                    return None;
                };
                Some(Stmt::new(StmtKind::LetStmt {
                    name: *name,
                    value: value.clone(),
                    body,
                }))
            }
            StmtKind::ProducerConsumer {
                name,
                is_producer,
                body,
            } => Some(Stmt::new(StmtKind::ProducerConsumer {
                name: *name,
                is_producer: *is_producer,
                body: self.with_free(body, buffer)?,
            })),
            StmtKind::Allocate {
                buffer: other,
                ty,
                extents,
                memory,
                body,
            } if !extents.iter().any(|e| expr_accesses(e, buffer)) => {
                Some(Stmt::new(StmtKind::Allocate {
                    buffer: *other,
                    ty: *ty,
                    extents: extents.clone(),
                    memory: *memory,
                    body: self.with_free(body, buffer)?,
                }))
            }
            _ => None,
        }
    }

    /// Whether `s` loads from, stores to or frees `buffer`.
    fn accesses(&mut self, s: &Stmt, buffer: Symbol) -> bool {
        self.buffers_accessed(s).contains(&buffer)
    }

    /// The buffers `s` loads from, stores to or frees, computed once per node.
    fn buffers_accessed(&mut self, s: &Stmt) -> &FxHashSet<Symbol> {
        let key = s.node_id();
        if !self.accessed.contains_key(&key) {
            let mut finder = LoadFinder::default();
            let mut children = Vec::new();
            s.for_each_child(|e| finder.visit_expr(e), |c| children.push(c.clone()));
            let mut buffers = finder.buffers;
            if let StmtKind::Store { buffer, .. }
            | StmtKind::Prefetch { buffer, .. }
            | StmtKind::Free { buffer } = s.kind()
            {
                buffers.insert(*buffer);
            }
            for c in &children {
                buffers.extend(self.buffers_accessed(c).iter().copied());
            }
            self.accessed.insert(key, (s.clone(), buffers));
        }
        &self.accessed[&key].1
    }
}

fn expr_accesses(e: &Expr, buffer: Symbol) -> bool {
    let mut finder = LoadFinder::default();
    finder.visit_expr(e);
    finder.buffers.contains(&buffer)
}

/// The buffers an expression loads from.
#[derive(Default)]
struct LoadFinder {
    buffers: FxHashSet<Symbol>,
}

impl Visitor for LoadFinder {
    fn visit_expr(&mut self, e: &Expr) {
        if let ExprKind::Load { buffer, .. } = e.kind() {
            self.buffers.insert(*buffer);
        }
        walk_expr(self, e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{MemoryType, Type};

    fn store(buffer: Symbol, value: Expr) -> Stmt {
        Stmt::new(StmtKind::Store {
            buffer,
            index: Expr::from(0),
            value,
            predicate: None,
        })
    }

    /// `depth` nested allocations, each stored once before the next is allocated, the
    /// innermost reading the outermost: `alloc b0 { b0 = 1; alloc b1 { b1 = 2; ... out = b0 } }`.
    fn nest(depth: usize) -> (Stmt, Vec<Symbol>) {
        let buffers: Vec<Symbol> = (0..depth).map(|i| Symbol::new(&format!("b{i}"))).collect();
        let read_first = Expr::load(Type::i32(), buffers[0], Expr::from(0));
        let mut s = store(Symbol::new("out"), read_first);
        for (i, &b) in buffers.iter().enumerate().rev() {
            s = Stmt::new(StmtKind::Allocate {
                buffer: b,
                ty: Type::i32(),
                extents: vec![Expr::from(1)],
                memory: MemoryType::Heap,
                body: Stmt::block([store(b, Expr::from(i as i32)), s]),
            });
        }
        (s, buffers)
    }

    #[test]
    fn nested_allocations_are_freed_after_their_last_access_in_linear_work() {
        for depth in [4, 64, 256] {
            let (s, buffers) = nest(depth);
            let mut pass = EarlyFrees::default();
            let out = pass.rewrite(&s);
            let text = out.to_string();
            // Every buffer but the outermost (read innermost, last) is freed right after its
            // store; the outermost is left to its Allocate.
            for (i, b) in buffers.iter().enumerate() {
                let freed = text.contains(&format!("free {b}\n"));
                assert_eq!(freed, i > 0, "depth {depth}, {b}: {text}");
            }
            // Each statement's buffers are computed once: a few per level, not a walk of
            // every level below per allocation (depth² / 2 for 256 levels is 32768).
            assert!(
                pass.accessed.len() <= 8 * depth,
                "depth {depth}: {} statements' buffers computed",
                pass.accessed.len()
            );
        }
    }
}
