//! Halide's `test/correctness/reschedule.cpp`: a Func realized, then vectorized and realized
//! again, must be compiled anew: the first run's stores are scalar, the second's vectors
//! (Halide traces the stores; here the lowered code of each run is inspected). Both runs'
//! values are checked.

use crate::lower_common::{walk_stmts, Checked};
use crate::realize;
use tessera::ir::StmtKind;
use tessera::prelude::*;

/// The (scalar, vector) stores of a run's lowered code.
fn stores(run: &Checked) -> (usize, usize) {
    let (mut scalar, mut vector) = (0, 0);
    walk_stmts(&run.lowered.stmt, &mut |s| {
        if let StmtKind::Store { value, .. } = s.kind() {
            if value.ty().lanes > 1 {
                vector += 1;
            } else {
                scalar += 1;
            }
        }
    });
    (scalar, vector)
}

#[test]
fn a_func_vectorized_after_it_was_realized() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, Expr::from(x)).unwrap();
    let first = realize(&f, &[10]);
    crate::assert_i32_output(&first, 0, |p| p[0]);
    f.vectorize(x, 4);
    let second = realize(&f, &[10]);
    crate::assert_i32_output(&second, 0, |p| p[0]);
    assert_eq!(stores(&first).1, 0, "the first run has vector stores");
    assert!(stores(&second).1 > 0, "the second run has no vector stores");
}
