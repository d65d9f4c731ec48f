//! Halide's `test/correctness/two_vector_args.cpp`: a vectorized consumer calls its producer
//! with the same vector in two arguments (`f(x, y) = g(x, x)`). Halide's test only runs it;
//! here the output is checked too.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn a_vector_passed_as_two_arguments() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let g = Func::new("g");
    g.define((x, y), x + y).unwrap();
    let f = Func::new("f");
    f.define((x, y), g.at((x, x))).unwrap();
    f.vectorize(x, 4);
    let run = check(&f, &TestInputs::new(), &[0, 0], &[4, 4]);
    let out = crate::i32_values(&run);
    for yy in 0..4 {
        for xx in 0..4 {
            assert_eq!(out.get(&[xx, yy]), 2 * xx as i32, "at ({xx}, {yy})");
        }
    }
}
