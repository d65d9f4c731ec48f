//! Halide's `test/correctness/simplified_away_embedded_image.cpp`: a Func reading an image
//! only in `input(x, y) - input(x, y)`, which simplifies to zero and leaves the image unused,
//! still compiles and runs. Halide embeds the image in the pipeline; Tessera binds it as an
//! ImageParam. Halide's image is uninitialized and its test checks no value; here it holds
//! finite values, so the output is checked to be zero.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn an_image_simplified_away() {
    let input = ImageParam::new(Type::f32(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let foo = Func::new("foo");
    foo.define((x, y), input.at((x, y)) - input.at((x, y)))
        .unwrap();
    let image = Buffer::<f32>::from_fn(&[0, 0], &[32, 32], |p| (p[0] * 3 - p[1]) as f32 * 0.5);
    let run = check(
        &foo,
        &TestInputs::new().image(&input, image),
        &[0, 0],
        &[32, 32],
    );
    let AnyBuffer::F32(out) = &run.realization.buffers[0] else {
        panic!("foo is f32");
    };
    for y in 0..32 {
        for x in 0..32 {
            assert_eq!(out.get(&[x, y]), 0.0, "at ({x}, {y})");
        }
    }
}
