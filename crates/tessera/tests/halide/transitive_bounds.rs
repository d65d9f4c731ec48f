//! Halide's `test/correctness/transitive_bounds.cpp`: a root producer can be fully unrolled
//! because its only consumer is bounded by a constant (`g.bound(x, 0, 4)`). Halide's test
//! only runs it; here the output is checked too.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn a_producer_unrolled_over_its_consumers_constant_bounds() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, x).unwrap();
    let g = Func::new("g");
    g.define(x, f.at(x) + 1).unwrap();
    g.bound(x, 0, 4);
    f.compute_root().unroll_loop(x);
    let run = check(&g, &TestInputs::new(), &[0], &[4]);
    let out = crate::i32_values(&run);
    for i in 0..4 {
        assert_eq!(out.get(&[i]), i as i32 + 1, "g({i})");
    }
}
