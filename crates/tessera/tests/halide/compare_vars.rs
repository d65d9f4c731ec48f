//! Halide's `test/correctness/compare_vars.cpp`: `select(x == y, 1, 0)` over a 10 x 10
//! grid, checked with plain Rust.

use crate::{i32_values, realize};
use tessera::prelude::*;

#[test]
fn equal_vars() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), select(x.eq_(y), 1, 0)).unwrap();
    let run = realize(&f, &[10, 10]);
    let out = i32_values(&run);
    for yy in 0..10 {
        for xx in 0..10 {
            assert_eq!(out.get(&[xx, yy]), i32::from(xx == yy), "at ({xx}, {yy})");
        }
    }
}
