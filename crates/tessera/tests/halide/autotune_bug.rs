//! Halide's `test/correctness/autotune_bug.cpp`: a schedule found by an autotuner that used
//! to crash — a clamped input stored transposed and computed at root, a split blur computed
//! per row of a consumer that iterates x inside y reversed. Halide only checks that it runs
//! on a 16 x 16 output (with the input's bounds inferred); here the input covers what the
//! clamps read and the values are checked with plain Rust.

use crate::lower_common::{check, u16_image, TestInputs};
use tessera::prelude::*;

#[test]
fn blur_of_a_transposed_clamped_input() {
    const N: i64 = 16;
    let in_img = ImageParam::new(Type::u16(), 2, "in_img");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let input = Func::new("input");
    input
        .define(
            (x, y),
            in_img.at((
                clamp(x, 1, in_img.width() - 1),
                clamp(y, 1, in_img.height()) - 1,
            )),
        )
        .unwrap();
    let blur_x = Func::new("blur_x");
    blur_x
        .define(
            (x, y),
            (input.at((x, y)) + input.at((x + 1, y)) + input.at((x + 2, y))) / 3,
        )
        .unwrap();
    let blur_y = Func::new("blur_y");
    blur_y
        .define(
            (x, y),
            (blur_x.at((x, y)) + blur_x.at((x, y + 1)) + blur_x.at((x, y + 2))) / 3,
        )
        .unwrap();
    input.reorder_storage([y, x]).compute_root();
    blur_x.split(x, x, "_x2", 4).compute_at(&blur_y, y);
    blur_y.reorder((y, x));
    // Halide infers the input's bounds for a 16 x 16 output: x in [1, 16], y in [0, 16].
    let (w, h) = (N + 1, N + 1);
    let image = u16_image(&[0, 0], &[w, h], 5);
    let inputs = TestInputs::new().image(&in_img, image.clone());
    let run = check(&blur_y, &inputs, &[0, 0], &[N, N]);
    let AnyBuffer::U16(out) = &run.realization.buffers[0] else {
        panic!("blur_y is u16");
    };
    let input_at = |x: i64, y: i64| image.get(&[x.clamp(1, w - 1), y.clamp(1, h) - 1]);
    let blur_x_at = |x: i64, y: i64| (input_at(x, y) + input_at(x + 1, y) + input_at(x + 2, y)) / 3;
    for yy in 0..N {
        for xx in 0..N {
            let want = (blur_x_at(xx, yy) + blur_x_at(xx, yy + 1) + blur_x_at(xx, yy + 2)) / 3;
            assert_eq!(out.get(&[xx, yy]), want, "at ({xx}, {yy})");
        }
    }
}
