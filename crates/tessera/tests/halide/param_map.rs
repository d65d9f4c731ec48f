//! Halide's `test/correctness/param_map.cpp`: one pipeline realized with different bindings
//! of its Params and image (Halide's `ParamMap`, which overrides some and keeps the values
//! set before for the others; here every run binds all of them): `f(x, y) = img(x, y) +
//! u8(p_int / p_float)` with (42, 1.0, in1), (22, 2.0, in2), (12, 1.0, in1) and (16, 1.0,
//! in2). Halide then queries the input bounds a 20 x 20 output needs through a ParamMap
//! (`Pipeline::infer_input_bounds`, with the image left out of the inputs).

use crate::lower_common::{check, TestInputs};
use tessera::pipeline::{Inputs, Pipeline};
use tessera::prelude::*;

/// `f(x, y) = p_img(x, y) + u8(p_int / p_float)`.
fn added_to_image() -> (Func, Param<i32>, Param<f32>, ImageParam) {
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
    (f, p_int, p_float, p_img)
}

#[test]
fn one_pipeline_realized_with_different_bindings() {
    let (f, p_int, p_float, p_img) = added_to_image();
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
fn the_input_bounds_of_a_larger_output() {
    let (f, p_int, p_float, p_img) = added_to_image();
    let inputs = Inputs::new().param(p_int.bind(42)).param(p_float.bind(1.0));
    let pipeline = Pipeline::new(&f);
    let bounds = pipeline
        .infer_input_bounds(&inputs, &[0, 0], &[20, 20])
        .unwrap();
    let found = bounds.input(&p_img).expect("p_img is not given");
    assert_eq!(found.extents, [20, 20]);
    assert_eq!(found.mins, [0, 0]);
    // The image given before keeps its bounds: a query proposes bounds only for the images
    // it is not given.
    let in1 = Buffer::<u8>::new(&[10, 10]);
    let given = inputs.clone().image(&p_img, in1);
    let with_in1 = pipeline
        .infer_input_bounds(&given, &[0, 0], &[20, 20])
        .unwrap();
    assert!(with_in1.inputs.is_empty(), "{with_in1:?}");
    // The buffers allocated over the bounds found serve a run of the larger output.
    let zeroed = pipeline
        .infer_input_buffers(inputs, &[0, 0], &[20, 20], |b| b.zeroed())
        .unwrap();
    let run = pipeline
        .realize_interp(&zeroed, &[0, 0], &[20, 20])
        .unwrap();
    let AnyBuffer::U8(out) = &run.buffers[0] else {
        panic!("f is u8");
    };
    out.for_each_coord(|p| assert_eq!(out.get(p), 42, "f{p:?}"));
}
