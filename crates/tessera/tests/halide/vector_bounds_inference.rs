//! Halide's `test/correctness/vector_bounds_inference.cpp`: two producers computed at the root
//! and vectorized by 4, each reading its producer at ±1, so each region grows by 2 on both
//! sides and is not a multiple of the vector width: the output `(g(x - 1) + g(x + 1)) + y`
//! must be `4x + y` over 36x2.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn vectorized_producers_of_stencils() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (f, g, h) = (Func::new("f"), Func::new("g"), Func::new("h"));
    h.define(x, x).unwrap();
    g.define(x, h.at(x - 1) + h.at(x + 1)).unwrap();
    f.define((x, y), (g.at(x - 1) + g.at(x + 1)) + y).unwrap();
    h.compute_root().vectorize(x, 4);
    g.compute_root().vectorize(x, 4);
    let run = check(&f, &TestInputs::new(), &[0, 0], &[36, 2]);
    let out = crate::i32_values(&run);
    for yy in 0..2 {
        for xx in 0..36 {
            assert_eq!(out.get(&[xx, yy]) as i64, xx * 4 + yy, "f({xx}, {yy})");
        }
    }
}
