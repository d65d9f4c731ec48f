//! Halide's `test/correctness/bounds_inference_outer_split.cpp` (Halide issue #1618): a
//! producer computed per row of a consumer whose x loop is split and unrolled must be
//! allocated 5 complete lines (512 × 5 = 2560 elements), not more. Halide's output is
//! 512 × 512; here 512 × 16 (the size of one row's allocation does not depend on the
//! height), and the values are checked against the input.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn an_outer_split_does_not_overdimension_a_producer() {
    let input = ImageParam::new(Type::i16(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let input_cpy = Func::new("input_cpy");
    input_cpy.define((x, y), input.at((x, y))).unwrap();
    let input_cpy_2 = Func::new("input_cpy_2");
    input_cpy_2.define((x, y), input_cpy.at((x, y))).unwrap();
    let sum_stage = Func::new("sum_stage");
    sum_stage
        .define(
            (x, y),
            (1..5).fold(input_cpy_2.at((x, y - 4)), |acc, k| {
                acc + input_cpy_2.at((x, y - (4 - k)))
            }),
        )
        .unwrap();
    let sum_stage_cpy = Func::new("sum_stage_cpy");
    sum_stage_cpy.define((x, y), sum_stage.at((x, y))).unwrap();
    let out = Func::new("sum_stage_cpy_2");
    out.define((x, y), sum_stage_cpy.at((x, y))).unwrap();
    out.bound(x, 0, 512).bound(y, 0, 16);
    input_cpy.compute_at(&sum_stage_cpy, y);
    input_cpy_2
        .compute_at(&sum_stage_cpy, "xout")
        .split(x, "xout", "xin", 32)
        .unroll("xout", 4);
    sum_stage_cpy
        .compute_at(&out, y)
        .split(x, "xout", "xin", 32)
        .unroll("xout", 4);
    let image = Buffer::<i16>::from_fn(&[0, -4], &[512, 20], |c| {
        ((c[0] * 7 + c[1] * 3) % 100) as i16
    });
    let inputs = TestInputs::new().image(&input, image.clone());
    let run = check(&out, &inputs, &[0, 0], &[512, 16]);
    let AnyBuffer::I16(values) = &run.realization.buffers[0] else {
        panic!("the output is i16");
    };
    for yy in 0..16 {
        for xx in 0..512 {
            let want: i64 = (0..5).map(|k| image.get(&[xx, yy - 4 + k]) as i64).sum();
            assert_eq!(values.get(&[xx, yy]) as i64, want, "at ({xx}, {yy})");
        }
    }
    let elements = run.allocation("input_cpy");
    assert!(
        elements <= 512 * 5,
        "input_cpy allocates {elements} elements, Halide 2560"
    );
}
