//! Short builders of the IR that unit tests write by hand (`x * y + z`, a store), one copy for
//! every pass's tests.

use super::{BinaryOp, Expr, Stmt, StmtKind, Symbol, Type};

/// The 32-bit integer variable `name`.
pub fn var(name: &str) -> Expr {
    Expr::var(Symbol::new(name), Type::i32())
}

pub fn add(a: &Expr, b: &Expr) -> Expr {
    Expr::binary(BinaryOp::Add, a.clone(), b.clone())
}

pub fn mul(a: &Expr, b: &Expr) -> Expr {
    Expr::binary(BinaryOp::Mul, a.clone(), b.clone())
}

/// `buffer[index] = value`, unpredicated.
pub fn store(buffer: &str, index: Expr, value: Expr) -> Stmt {
    Stmt::new(StmtKind::Store {
        buffer: Symbol::new(buffer),
        index,
        value,
        predicate: None,
    })
}
