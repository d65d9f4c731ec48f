//! Halide's `test/correctness/split_reuse_inner_name_bug.cpp`: four splits, each reusing the
//! name `x` for the loop it makes (`split(x, x0, x, 16).split(x, x, x1, 2).split(x, x2, x,
//! 4).split(x, x, x3, 2)`), lower and run; Halide checks no value, here the output (1
//! everywhere) is checked.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn splits_reusing_the_inner_name() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, 1).unwrap();
    f.compute_root()
        .split(x, "x0", x, 16)
        .split(x, x, "x1", 2)
        .split(x, "x2", x, 4)
        .split(x, x, "x3", 2);
    let run = check(&f, &TestInputs::new(), &[0], &[1024]);
    let out = crate::i32_values(&run);
    for i in 0..1024 {
        assert_eq!(out.get(&[i]), 1, "at {i}");
    }
}
