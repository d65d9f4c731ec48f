//! Halide's `test/correctness/vectorized_initialization.cpp`: the pure definition of a Func
//! vectorized by 4 must cover the points its update reads beyond the output: the update
//! `f(r) = f(r - 1) + f(r + 1)` for r in [0, 4) reads f(-1) and f(4), so the sequence is 0, 2,
//! 5, 9. Halide marks the update `unscheduled()`; Tessera has no such marker (it only
//! silences a warning), so it is left out.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn a_vectorized_initialization_covers_the_update() {
    let x = Var::new("x");
    let r = RDom::new([(0, 4)]);
    let f = Func::new("f");
    f.define(x, x).unwrap();
    f.update(r.x(), f.at(r.x() - 1) + f.at(r.x() + 1)).unwrap();
    f.compute_root().vectorize(x, 4);
    let g = Func::new("g");
    g.define(x, f.at(x)).unwrap();
    let run = check(&g, &TestInputs::new(), &[0], &[4]);
    let out = crate::i32_values(&run);
    let got: Vec<i32> = (0..4).map(|i| out.get(&[i])).collect();
    assert_eq!(got, [0, 2, 5, 9]);
}
