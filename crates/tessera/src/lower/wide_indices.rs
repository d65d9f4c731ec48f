//! Large buffers (Halide's `Target::LargeBuffers`): every flat index computed in 64 bits.
//! Storage flattening writes an index as 32-bit sums of products of coordinates and strides,
//! `x + y * stride.1 + z * stride.2`, which wraps once an element lies 2^31 or more from a
//! buffer's first one, although each coordinate and stride fits in 32 bits. With large
//! buffers on, each index's sums, differences, products, divisions, minima and maxima take
//! 64-bit operands (the coordinates and strides themselves stay 32-bit, widened), so every
//! later pass, the interpreter and native code compute the exact offset. Without it indices
//! stay 32-bit, which the overflow checks and the checks of buffers passed in guarantee.

use crate::ir::visit::{mutate_expr_children, mutate_stmt_children, Mutator};
use crate::ir::{Expr, ExprKind, Stmt, StmtKind, Type};

use super::overflow_checks::widened;

/// `s` with the index of every flat `Load` and `Store` computed in 64 bits.
pub fn widen_indices(s: &Stmt) -> Stmt {
    Widen.mutate_stmt(s)
}

struct Widen;

impl Mutator for Widen {
    fn mutate_expr(&mut self, e: &Expr) -> Expr {
        let e = mutate_expr_children(self, e);
        match e.kind() {
            ExprKind::Load {
                buffer,
                index,
                predicate,
            } if index.ty() == Type::i32() => {
                Expr::predicated_load(e.ty(), *buffer, widened(index), predicate.clone())
            }
            _ => e,
        }
    }

    fn mutate_stmt(&mut self, s: &Stmt) -> Stmt {
        let s = mutate_stmt_children(self, s);
        match s.kind() {
            StmtKind::Store {
                buffer,
                index,
                value,
                predicate,
            } if index.ty() == Type::i32() => Stmt::new(StmtKind::Store {
                buffer: *buffer,
                index: widened(index),
                value: value.clone(),
                predicate: predicate.clone(),
            }),
            _ => s,
        }
    }
}
