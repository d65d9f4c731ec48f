//! Halide's `test/correctness/hoist_loop_invariant_if_statements.cpp`: `select(p, …,
//! undef())` in a producer computed per x of a consumer that also selects on p makes an if
//! on p in each, which must be lifted out of every loop (Halide inspects its lowered IR for
//! an if inside a loop). Here the final lowered statement is inspected the same way, and the
//! values (p true) are checked with plain Rust over 64 x 64 instead of 1024 x 1024.

use crate::lower_common::{check, walk_stmts, TestInputs};
use tessera::ir::{Stmt, StmtKind};
use tessera::prelude::*;

/// Whether an `if` lies inside a loop of `s`.
fn if_in_loop(s: &Stmt) -> bool {
    let mut found = false;
    walk_stmts(s, &mut |st| {
        if let StmtKind::For { body, .. } = st.kind() {
            walk_stmts(body, &mut |inner| {
                found |= matches!(inner.kind(), StmtKind::IfThenElse { .. });
            });
        }
    });
    found
}

#[test]
fn ifs_on_a_param_leave_the_loops() {
    const N: i64 = 64;
    let (x, y) = (Var::new("x"), Var::new("y"));
    let p = Param::<bool>::new("p");
    let f = Func::new("f");
    f.define((x, y), select(p.expr(), x + y, undef_of(Type::i32())))
        .unwrap();
    let g = Func::new("g");
    g.define(
        (x, y),
        select(p.expr(), f.at((x, y)), undef_of(Type::i32())),
    )
    .unwrap();
    f.compute_at(&g, x);
    let run = check(&g, &TestInputs::new().param(p.bind(true)), &[0, 0], &[N, N]);
    let out = crate::i32_values(&run);
    for yy in 0..N {
        for xx in 0..N {
            assert_eq!(i64::from(out.get(&[xx, yy])), xx + yy, "at ({xx}, {yy})");
        }
    }
    assert!(
        !if_in_loop(&run.lowered.stmt),
        "an if inside a loop:\n{}",
        run.lowered.stmt
    );
}
