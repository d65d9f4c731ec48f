//! Halide's `test/correctness/interleave_x.cpp`: a u16 Func alternating 3 and 7 along x
//! (`select(x % 2 == 0, 3, 7)`), tiled 8x8 with the inner tile Vars named as the originals
//! and the inner x vectorized, holds the right value at every point. Halide's GPU and HVX
//! schedules are left out; the 128x128 output is shrunk to 64x64.

use crate::realize;
use tessera::prelude::*;

#[test]
fn alternating_values_in_vectorized_tiles() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let interleaved = Func::new("interleaved");
    interleaved
        .define(
            (x, y),
            select((x % 2).eq_(0), cast_to::<u16>(3), cast_to::<u16>(7)),
        )
        .unwrap();
    interleaved
        .tile(x, y, "xo", "yo", x, y, 8, 8)
        .vectorize_loop(x);
    let run = realize(&interleaved, &[64, 64]);
    let AnyBuffer::U16(out) = &run.realization.buffers[0] else {
        panic!("interleaved is u16");
    };
    for yy in 0..64 {
        for xx in 0..64 {
            let want = if xx % 2 == 0 { 3 } else { 7 };
            assert_eq!(out.get(&[xx, yy]), want, "interleaved({xx}, {yy})");
        }
    }
}
