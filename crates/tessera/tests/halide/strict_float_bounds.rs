//! Halide's `test/correctness/strict_float_bounds.cpp`: an image read at `x + cast<int>(p)`
//! for a float Param `p` is bounded (bounds inference must not find the read unbounded); with
//! `p = 0` a one-point image gives its value. Halide compiles with `strict_float`; Tessera has
//! none and never relaxes float arithmetic, so the case runs as is.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn a_read_offset_by_a_float_param_is_bounded() {
    let input = ImageParam::new(Type::f32(), 1, "input");
    let f_param = Param::<f32>::new("f_param");
    let x = Var::new("x");
    let output = Func::new("output");
    output
        .define(x, input.at(x + cast_to::<i32>(f_param.expr())))
        .unwrap();
    let image = Buffer::<f32>::from_fn(&[0], &[1], |_| 2.5);
    let inputs = TestInputs::new()
        .image(&input, image)
        .param(f_param.bind(0.0));
    let run = check(&output, &inputs, &[0], &[1]);
    let AnyBuffer::F32(out) = &run.realization.buffers[0] else {
        panic!("output is f32");
    };
    assert_eq!(out.get(&[0]), 2.5);
}
