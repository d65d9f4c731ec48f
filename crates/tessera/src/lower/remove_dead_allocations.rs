//! Dead-allocation removal: an allocation nothing loads from is dropped, along with the stores
//! into it (they have no observable effect).

use crate::ir::visit::visit_stmt_exprs;
use crate::ir::{ExprKind, Stmt, StmtKind, Symbol};

fn is_loaded(s: &Stmt, buffer: Symbol) -> bool {
    let mut found = false;
    visit_stmt_exprs(s, &mut |e| {
        if let ExprKind::Load { buffer: b, .. } = e.kind() {
            found |= *b == buffer;
        }
        !found
    });
    found
}

fn drop_stores(s: &Stmt, buffer: Symbol) -> Stmt {
    match s.kind() {
        // A prefetch of a buffer nothing reads is useless too.
        StmtKind::Store { buffer: b, .. } | StmtKind::Prefetch { buffer: b, .. }
            if *b == buffer =>
        {
            Stmt::empty()
        }
        _ => s.map_children(|e| e.clone(), |c| drop_stores(c, buffer)),
    }
}

pub fn remove_dead_allocations(s: &Stmt) -> Stmt {
    let s = s.map_children(|e| e.clone(), remove_dead_allocations);
    match s.kind() {
        StmtKind::Allocate { buffer, body, .. } if !is_loaded(body, *buffer) => {
            drop_stores(body, *buffer)
        }
        _ => s,
    }
}
