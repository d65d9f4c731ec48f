//! Halide's `test/correctness/sliding_backwards.cpp`: a producer stored at the root and
//! computed per x of a consumer reading it at `100 - x` and `101 - x`, so the window slides
//! backwards: 10 outputs need 11 points of g, each computed once. Halide counts the calls of
//! an extern function in g; here the interpreter counts the points g computes.

use crate::lower_common::{check, Checked, TestInputs};
use tessera::prelude::*;

fn run_backwards() -> Checked {
    let x = Var::new("x");
    let g = Func::new("g");
    g.define(x, x * 3).unwrap();
    let f = Func::new("f");
    f.define(x, g.at(100 - x) + g.at(100 - x + 1)).unwrap();
    g.compute_at(&f, x).store_root();
    let run = check(&f, &TestInputs::new(), &[0], &[10]);
    let out = crate::i32_values(&run);
    for i in 0..10 {
        let want = (100 - i as i32) * 3 + (101 - i as i32) * 3;
        assert_eq!(out.get(&[i]), want, "f({i})");
    }
    run
}

#[test]
fn the_values_of_a_window_sliding_backwards() {
    run_backwards();
}

#[test]
fn a_window_sliding_backwards_computes_each_point_once() {
    let count = run_backwards().provides("g");
    assert!(count <= 11, "g computed {count} points, Halide 11");
}
