//! Halide's `test/correctness/uninitialized_read.cpp`: one point of the output needs one point
//! of `g`, but `g` is vectorized by 4, so it computes 4 points and loads 4 of its root
//! producer `f`, whose allocation must therefore be 4 wide. Halide checks, by tracing f's
//! realization, that it is exactly 4 wide; here f's allocation must be at most 4 elements
//! while the output is right and every load of the run (interpreted, and native in checked
//! mode) stays inside f's storage. Halide also fixes the output's bounds to [0, 1); Tessera
//! has no output-buffer constraints, and the output realized is [0, 1).

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn a_vectorized_consumer_of_one_point_reads_a_whole_vector() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, x).unwrap();
    f.compute_root();
    let g = Func::new("g");
    g.define(x, f.at(x) + 1).unwrap();
    g.compute_root().vectorize(x, 4);
    let h = Func::new("h");
    h.define(x, g.at(x) + 2).unwrap();
    let run = check(&h, &TestInputs::new(), &[0], &[1]);
    assert_eq!(crate::i32_values(&run).get(&[0]), 3);
    let elements = run.allocation("f");
    assert!(elements <= 4, "f allocates {elements} elements, Halide 4");
}
