//! Halide's `test/correctness/param_map.cpp`: one pipeline realized with different bindings
//! of its Params and image (Halide's `ParamMap`, which overrides some and keeps the values
//! set before for the others; here every run binds all of them): `f(x, y) = img(x, y) +
//! u8(p_int / p_float)` with (42, 1.0, in1), (22, 2.0, in2), (12, 1.0, in1) and (16, 1.0,
//! in2). Halide then queries the input bounds a 20 x 20 output needs through a ParamMap;
//! Tessera has no bounds query, so that case is ignored.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn one_pipeline_realized_with_different_bindings() {
    let p_int = Param::<i32>::new("p_int");
    let p_float = Param::<f32>::new("p_float");
    let p_img = ImageParam::new(Type::u8(), 2, "p_img");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define(
        (x, y),
        p_img.at((x, y)) + cast(Type::u8(), p_int.expr() / p_float.expr()),
    )
    .unwrap();
    let in1 = Buffer::<u8>::from_fn(&[0, 0], &[10, 10], |p| (p[0] + p[1] * 10) as u8);
    let in2 = Buffer::<u8>::from_fn(&[0, 0], &[10, 10], |p| (p[0] * 10 + p[1]) as u8);
    let runs = [
        (42, 1.0, &in1, 42),
        (22, 2.0, &in2, 11),
        (12, 1.0, &in1, 12),
        (16, 1.0, &in2, 16),
    ];
    for (int_value, float_value, image, added) in runs {
        let inputs = TestInputs::new()
            .param(p_int.bind(int_value))
            .param(p_float.bind(float_value))
            .image(&p_img, image.clone());
        let run = check(&f, &inputs, &[0, 0], &[10, 10]);
        let AnyBuffer::U8(out) = &run.realization.buffers[0] else {
            panic!("f is u8");
        };
        out.for_each_coord(|p| assert_eq!(out.get(p), image.get(p) + added, "f{p:?}"));
    }
}

#[test]
#[ignore = "no API to query the input bounds a realization needs (infer_input_bounds)"]
fn the_input_bounds_of_a_larger_output() {
    unimplemented!(
        "f.infer_input_bounds(20, 20) with p_img bound to an empty buffer gives it 20 x 20"
    );
}
