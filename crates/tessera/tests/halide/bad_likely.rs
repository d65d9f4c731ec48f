//! Halide's `test/correctness/bad_likely.cpp`: `likely` tagging a value of a select whose
//! condition holds on a disjoint range (`x < 10 || x > 20`) must not make loop partitioning
//! compute wrong values. The values are checked with plain Rust.

use crate::{i32_values, realize};
use tessera::prelude::*;

#[test]
fn likely_on_a_disjoint_range() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, select(x.lt(10).or(x.gt(20)), likely(1), 2))
        .unwrap();
    let run = realize(&f, &[30]);
    let out = i32_values(&run);
    for i in 0..30 {
        let correct = if !(10..=20).contains(&i) { 1 } else { 2 };
        assert_eq!(out.get(&[i]), correct, "at {i}");
    }
}
