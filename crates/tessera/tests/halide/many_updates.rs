//! Halide's `test/correctness/many_updates.cpp`: a root Func with 40 update definitions —
//! for each i in [0, 20), `f(x, i) += 1` (a row) and `f(i, y) += 1` (a column) — over
//! `f(x, y) = x + y`. Halide only realizes it over 20x20; here every point must also be
//! `x + y + 2` (each point lies in one updated row and one updated column).

use crate::{i32_values, realize};
use tessera::prelude::*;

#[test]
fn forty_row_and_column_updates() {
    const N: i32 = 20;
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x + y).unwrap();
    for i in 0..N {
        f.update(
            (Expr::from(x), Expr::from(i)),
            f.at((Expr::from(x), Expr::from(i))) + 1,
        )
        .unwrap();
        f.update(
            (Expr::from(i), Expr::from(y)),
            f.at((Expr::from(i), Expr::from(y))) + 1,
        )
        .unwrap();
    }
    f.compute_root();
    let run = realize(&f, &[N as i64, N as i64]);
    let out = i32_values(&run);
    for yy in 0..N as i64 {
        for xx in 0..N as i64 {
            assert_eq!(out.get(&[xx, yy]) as i64, xx + yy + 2, "f({xx}, {yy})");
        }
    }
}
