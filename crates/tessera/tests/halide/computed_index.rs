//! Halide's `test/correctness/computed_index.cpp`: a coordinate loaded from one image,
//! `f(x, y) = in2(x, y, clamp(in1(x, y), 0, 9))`. Halide's test only realizes it (over
//! uninitialized images, 256 x 256); this fills the images and checks every value, over
//! 64 x 64 to keep the test fast.

use crate::lower_common::{check, u8_image, TestInputs};
use tessera::prelude::*;

#[test]
fn a_coordinate_loaded_from_an_image() {
    let in1 = ImageParam::new(Type::u8(), 2, "in1");
    let in2 = ImageParam::new(Type::u8(), 3, "in2");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), in2.at((x, y, clamp(in1.at((x, y)), 0, 9))))
        .unwrap();
    // Indices up to 20, so that the clamp matters.
    let image1 = u8_image(&[0, 0], &[64, 64], 0, 20, 1);
    let image2 = u8_image(&[0, 0, 0], &[64, 64, 10], 0, 255, 2);
    let run = check(
        &f,
        &TestInputs::new()
            .image(&in1, image1.clone())
            .image(&in2, image2.clone()),
        &[0, 0],
        &[64, 64],
    );
    let AnyBuffer::U8(out) = &run.realization.buffers[0] else {
        panic!("f is u8");
    };
    for yy in 0..64 {
        for xx in 0..64 {
            let c = image1.get(&[xx, yy]).min(9) as i64;
            assert_eq!(
                out.get(&[xx, yy]),
                image2.get(&[xx, yy, c]),
                "f({xx}, {yy})"
            );
        }
    }
}
