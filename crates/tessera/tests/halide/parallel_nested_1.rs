//! Halide's `test/correctness/parallel_nested_1.cpp`: a producer with two nested parallel
//! loops computed inside its consumer's parallel loop. Halide's 64 x 64 x 64 output is
//! shrunk to 16 x 16 x 8; its Hexagon schedule is left out.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn parallel_loops_inside_a_parallel_loop() {
    let (x, y, z) = (Var::new("x"), Var::new("y"), Var::new("z"));
    let k = Param::<i32>::new("k");
    let f = Func::new("f");
    f.define((x, y, z), x * y + z * k.expr() + 1).unwrap();
    let g = Func::new("g");
    g.define((x, y, z), f.at((x, y, z)) + 2).unwrap();
    f.parallel(x).parallel(y);
    g.parallel(z);
    f.compute_at(&g, z);
    let run = check(
        &g,
        &TestInputs::new().param(k.bind(3)),
        &[0; 3],
        &[16, 16, 8],
    );
    crate::assert_i32_output(&run, 0, |p| p[0] * p[1] + p[2] * 3 + 3);
}
