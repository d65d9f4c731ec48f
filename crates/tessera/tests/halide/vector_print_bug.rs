//! Halide's `test/correctness/vector_print_bug.cpp`: a print of the vectorized Var itself,
//! vectorized by 4 over 8 points, prints each lane's value on a line of its own, in order,
//! in every runner.

use crate::print_common::print_in_each_runner;
use tessera::prelude::*;

#[test]
fn a_print_vectorized_by_four_prints_every_lane() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, print(x, &[])).unwrap();
    f.vectorize(x, 4);
    for run in print_in_each_runner(&f, &[], &[8]) {
        let want: Vec<String> = (0..8).map(|i| i.to_string()).collect();
        assert_eq!(run.lines, want, "{}", run.runner);
        let out = run.output.clone().into_typed::<i32>().unwrap();
        for i in 0..8 {
            assert_eq!(out.get(&[i]), i as i32, "{} at {i}", run.runner);
        }
    }
}
