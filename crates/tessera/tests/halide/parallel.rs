//! Halide's `test/correctness/parallel.cpp`: `f(x) = x * k` with its only loop parallel.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn a_parallel_loop() {
    let x = Var::new("x");
    let k = Param::<i32>::new("k");
    let f = Func::new("f");
    f.define(x, x * k.expr()).unwrap();
    f.parallel(x);
    let run = check(&f, &TestInputs::new().param(k.bind(3)), &[0], &[16]);
    crate::assert_i32_output(&run, 0, |p| p[0] * 3);
}
