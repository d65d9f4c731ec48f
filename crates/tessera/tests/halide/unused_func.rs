//! Halide's `test/correctness/unused_func.cpp`: a root Func used only under `select` of a
//! Func that is always false (`false_func() = cast<bool>(0)`) simplifies away, and the
//! pipeline compiles even though the input's bounds depended on it. Halide's test only
//! compiles it; here it is run too, with an image covering the output (the values are
//! `input(0, 0)` everywhere), and with an image of one point (all that is read).

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

fn run_with_image(extent: i64) {
    let input = ImageParam::new(Type::f32(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let filtered = Func::new("filtered");
    filtered.define((x, y), input.at((x, y))).unwrap();
    filtered.compute_root();
    let false_func = Func::new("false_func");
    false_func.define((), cast_to::<bool>(0)).unwrap();
    let result = Func::new("result");
    result
        .define(
            (x, y),
            select(false_func.at(()), filtered.at((x, y)), input.at((0, 0))),
        )
        .unwrap();
    let image = Buffer::<f32>::from_fn(&[0, 0], &[extent, extent], |p| {
        (p[0] + 10 * p[1]) as f32 + 0.5
    });
    let run = check(
        &result,
        &TestInputs::new().image(&input, image),
        &[0, 0],
        &[8, 8],
    );
    let AnyBuffer::F32(out) = &run.realization.buffers[0] else {
        panic!("result is f32");
    };
    for yy in 0..8 {
        for xx in 0..8 {
            assert_eq!(out.get(&[xx, yy]), 0.5, "at ({xx}, {yy})");
        }
    }
}

#[test]
fn a_func_under_a_false_select_with_a_covering_image() {
    run_with_image(8);
}

#[test]
fn a_func_under_a_false_select_with_a_one_point_image() {
    run_with_image(1);
}
