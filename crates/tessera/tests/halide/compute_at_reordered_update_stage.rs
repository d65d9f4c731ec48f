//! Halide's `test/correctness/compute_at_reordered_update_stage.cpp` (Halide issue 3388): a
//! producer stored at the consumer's x and computed at its y, where the consumer's update
//! (the only stage using it) reorders the loops to y inside x. Values checked with plain
//! Rust (Halide's copy of the output buffer is left out).

use crate::{i32_values, realize};
use tessera::prelude::*;

#[test]
fn producer_at_a_reordered_update() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x + y).unwrap();
    let g = Func::new("g");
    g.define((x, y), 0).unwrap();
    g.update((x, y), g.at((x, y)) + f.at((x, y))).unwrap();
    g.update_stage(0).reorder((y, x));
    f.store_at(&g, x).compute_at(&g, y);
    let run = realize(&g, &[10, 10]);
    let out = i32_values(&run);
    for yy in 0..10 {
        for xx in 0..10 {
            assert_eq!(i64::from(out.get(&[xx, yy])), xx + yy, "at ({xx}, {yy})");
        }
    }
}
