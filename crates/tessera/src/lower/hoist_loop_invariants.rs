//! Loop-invariant hoisting: lets at the top of a loop body whose values do not depend on the
//! loop (or on anything the loop changes) move outside the loop, so they are computed once
//! (not those that read memory or print).

use std::collections::HashSet;

use crate::ir::substitute::free_vars;
use crate::ir::visit::{prints, reads_memory};
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
        // A load may read what the loop stores, so lets that load stay inside; a print
        // prints once per iteration, so it stays too.
        if free_vars(value).iter().any(|v| varying.contains(v))
            || reads_memory(value)
            || prints(value)
        {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BinaryOp, Expr, ForKind, Type};
    use crate::lang::print::print;

    #[test]
    fn a_let_that_prints_stays_in_its_loop_and_a_plain_one_moves_out() {
        let (i, printed, plain) = (Symbol::new("i"), Symbol::new("p"), Symbol::new("c"));
        let sum = Expr::binary(
            BinaryOp::Add,
            Expr::var(printed, Type::i32()),
            Expr::var(plain, Type::i32()),
        );
        let body = Stmt::new(StmtKind::Store {
            buffer: Symbol::new("out"),
            index: Expr::var(i, Type::i32()),
            value: sum,
            predicate: None,
        });
        let body = Stmt::let_stmt(printed, print(Expr::i32(5), &[]), body);
        let six = Expr::binary(BinaryOp::Mul, Expr::i32(2), Expr::i32(3));
        let body = Stmt::let_stmt(plain, six, body);
        let lp = Stmt::for_loop(i, Expr::i32(0), Expr::i32(4), ForKind::Serial, body);
        let hoisted = hoist_loop_invariants(&lp);
        let StmtKind::LetStmt { name, body, .. } = hoisted.kind() else {
            panic!("the plain let is hoisted: {hoisted}");
        };
        assert_eq!(*name, plain);
        let StmtKind::For { body, .. } = body.kind() else {
            panic!("the loop follows: {hoisted}");
        };
        assert!(
            matches!(body.kind(), StmtKind::LetStmt { name, .. } if *name == printed),
            "{hoisted}"
        );
    }
}
