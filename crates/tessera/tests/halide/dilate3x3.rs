//! Halide's `test/correctness/dilate3x3.cpp`: a 3 x 3 dilation (maximum) of a u8 image with
//! `repeat_edge` computed at the root, as a horizontal then a vertical three-way max, the
//! output vectorized by the natural u8 vector width (16 and 32 are tried), checked on the
//! interior against plain Rust at Halide's size (128 x 48). Halide's GPU and HVX schedules
//! are left out.

use crate::lower_common::{check, u8_image, TestInputs};
use tessera::prelude::*;

const W: i64 = 128;
const H: i64 = 48;

#[test]
fn a_vectorized_dilation() {
    let image = u8_image(&[0, 0], &[W, H], 0, 255, 3);
    for width in [16, 32] {
        let input_image = ImageParam::new(Type::u8(), 2, "in");
        let x = Var::new("x");
        let input = repeat_edge(&input_image);
        input.compute_root();
        let dilate = crate::max_filter_3x3(&input, "dilate3x3");
        dilate.vectorize(x, width);
        let run = check(
            &dilate,
            &TestInputs::new().image(&input_image, image.clone()),
            &[0, 0],
            &[W, H],
        );
        let AnyBuffer::U8(out) = &run.realization.buffers[0] else {
            panic!("dilate3x3 is u8");
        };
        for yy in 1..H - 1 {
            for xx in 1..W - 1 {
                let mut correct = 0u8;
                for dy in -1..=1 {
                    for dx in -1..=1 {
                        correct = correct.max(image.get(&[xx + dx, yy + dy]));
                    }
                }
                assert_eq!(out.get(&[xx, yy]), correct, "({xx}, {yy}), width {width}");
            }
        }
    }
}
