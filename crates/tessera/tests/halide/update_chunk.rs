//! Halide's `test/correctness/update_chunk.cpp`: a producer computed inside the reduction
//! loop of its consumer's update (`f.compute_at(g, r)` for `g(x, r) = f(r, x) + 1`). Halide's
//! test only runs it; here the output is checked too.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn a_producer_computed_per_reduction_iteration() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let r = RDom::new([(0, 10)]);
    let f = Func::new("f");
    f.define((x, y), x * y).unwrap();
    let g = Func::new("g");
    g.define((x, y), 0).unwrap();
    g.update((x.expr(), r.x().expr()), f.at((r.x(), x)) + 1)
        .unwrap();
    f.compute_at(&g, r.x());
    let run = check(&g, &TestInputs::new(), &[0, 0], &[10, 10]);
    let out = crate::i32_values(&run);
    for yy in 0..10 {
        for xx in 0..10 {
            assert_eq!(i64::from(out.get(&[xx, yy])), xx * yy + 1, "g({xx}, {yy})");
        }
    }
}
