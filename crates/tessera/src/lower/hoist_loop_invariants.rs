//! Loop-invariant hoisting: lets at the top of a loop body whose values do not depend on the
//! loop (or on anything the loop changes) move outside the loop, so they are computed once.

use std::collections::HashSet;

use crate::ir::substitute::free_vars;
use crate::ir::visit::reads_memory;
use crate::ir::{Stmt, StmtKind, Symbol};

pub fn hoist_loop_invariants(s: &Stmt) -> Stmt {
    let s = s.map_children(|e| e.clone(), hoist_loop_invariants);
    let StmtKind::For {
        name,
        min,
        extent,
        kind,
        body,
    } = s.kind()
    else {
        return s;
    };
    // Names whose values vary with the loop: the loop variable and lets depending on it.
    let mut varying: HashSet<Symbol> = HashSet::from([*name]);
    let mut hoisted = Vec::new();
    let mut kept = Vec::new();
    let mut cur = body.clone();
    while let StmtKind::LetStmt {
        name: n,
        value,
        body,
    } = cur.kind()
    {
        // A load may read what the loop stores, so lets that load stay inside.
        if free_vars(value).iter().any(|v| varying.contains(v)) || reads_memory(value) {
            varying.insert(*n);
            kept.push((*n, value.clone()));
        } else {
            hoisted.push((*n, value.clone()));
        }
        cur = body.clone();
    }
    if hoisted.is_empty() {
        return s;
    }
    let inner = kept
        .into_iter()
        .rev()
        .fold(cur, |b, (n, v)| Stmt::let_stmt(n, v, b));
    let lp = Stmt::for_loop(*name, min.clone(), extent.clone(), *kind, inner);
    hoisted
        .into_iter()
        .rev()
        .fold(lp, |b, (n, v)| Stmt::let_stmt(n, v, b))
}
