//! Halide's `test/correctness/autotune_bug_5.cpp`: an upsampling select computed per row of
//! a consumer split in y and reordered (`yi, y, x`), reading a Func computed at root. Halide
//! only checks that it runs; here the values are checked with plain Rust. The 1024 x 1024
//! input is shrunk to what the 100 x 100 output reads.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn upsampling_per_row_of_a_reordered_split() {
    const N: i64 = 100;
    let input = ImageParam::new(Type::f32(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let clamped = Func::new("clamped");
    clamped.define((x, y), input.at((x, y))).unwrap();
    let upsampledx = Func::new("upsampledx");
    upsampledx
        .define(
            (x, y),
            select((x % 2).eq_(0), clamped.at((x, y)), clamped.at((x + 1, y))),
        )
        .unwrap();
    let upsampled = Func::new("upsampled");
    upsampled.define((x, y), upsampledx.at((x, y))).unwrap();
    clamped.compute_root();
    upsampled
        .split(y, y, "yi", 8)
        .reorder(("yi", y, x))
        .compute_root();
    upsampledx.compute_at(&upsampled, "yi");
    let image = Buffer::<f32>::from_fn(&[0, 0], &[N + 1, N], |c| (c[0] * 7 + c[1] * 131) as f32);
    let inputs = TestInputs::new().image(&input, image.clone());
    let run = check(&upsampled, &inputs, &[0, 0], &[N, N]);
    let AnyBuffer::F32(out) = &run.realization.buffers[0] else {
        panic!("upsampled is f32");
    };
    for yy in 0..N {
        for xx in 0..N {
            let want = image.get(&[if xx % 2 == 0 { xx } else { xx + 1 }, yy]);
            assert_eq!(out.get(&[xx, yy]), want, "at ({xx}, {yy})");
        }
    }
}
