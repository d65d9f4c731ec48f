//! Halide's `test/correctness/sliding_reduction.cpp`: a Func with two updates, stored at root
//! and computed per row of its consumer `g(x, y) = f(x, y) + f(x, y - 1) + f(x, y - 2)`
//! (2 x 10), its rows slid over y where the updates allow it. Halide's last stage calls an
//! extern function that returns 99 and counts the calls; here that stage reads a Func
//! `counter(x, y) = 99` computed at its innermost loop, whose points the interpreter counts,
//! one per point of the last stage, which must be at most Halide's count.

use crate::{assert_i32_output, realize};
use tessera::prelude::*;

/// `f`'s last stage `f(x, y) = counter(x, y)`, then `g` of `f` realized over 2 x 10: every
/// value is 3 · 99. Returns the points of f's last stage (those of `counter`).
fn points_of_last_stage(f: &Func, x: Var, y: Var) -> u64 {
    let counter = Func::new("counter");
    counter.define((x, y), 99).unwrap();
    f.update((x, y), counter.at((x, y))).unwrap();
    let g = Func::new("g");
    g.define((x, y), f.at((x, y)) + f.at((x, y - 1)) + f.at((x, y - 2)))
        .unwrap();
    f.store_root().compute_at(&g, y);
    counter.compute_at(f.update_stage(1), x);
    let run = realize(&g, &[2, 10]);
    assert_i32_output(&run, 0, |_| 99 * 3);
    run.provides("counter")
}

/// `f(x, y) = x; f(0, y) += f(1, y) + f(column, y)`.
fn f_with_a_row_update(column: i32) -> (Func, Var, Var) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x.expr()).unwrap();
    f.update_add(
        (Expr::from(0), y.expr()),
        f.at((1, y.expr())) + f.at((column, y.expr())),
    )
    .unwrap();
    (f, x, y)
}

#[test]
fn a_reduction_slid_over_y() {
    let (f, x, y) = f_with_a_row_update(0);
    // Each of the 12 rows of f once.
    let points = points_of_last_stage(&f, x, y);
    assert!(points <= 24, "{points} points of f's last stage, Halide 24");
}

#[test]
fn a_scattering_update_is_not_slid() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x.expr()).unwrap();
    f.update_add(
        (x.expr(), x.expr()),
        f.at((x.expr(), Expr::from(0))) + f.at((x.expr(), Expr::from(1))),
    )
    .unwrap();
    // 3 rows of f per row of g.
    let points = points_of_last_stage(&f, x, y);
    assert!(points <= 60, "{points} points of f's last stage, Halide 60");
}

#[test]
fn a_reduction_slid_two_rows_at_a_time() {
    let (f, x, y) = f_with_a_row_update(2);
    f.unroll(y, 2);
    // Halide: 24 rows, two per row of g (the unrolled pure stage computes two, so every
    // stage does), the loop extended by two iterations to warm up. Tessera: the first row
    // of g computes f's 3 rows, each later one the newest two, in every stage: 21 rows.
    let points = points_of_last_stage(&f, x, y);
    assert!(points <= 48, "{points} points of f's last stage, Halide 48");
}
