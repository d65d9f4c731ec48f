//! Halide's `test/correctness/bounds_of_monotonic_math.cpp`: the bounds of an index built
//! from monotonic float operations (`ceil(0.3 * ceil(0.4 * floor(22.5 x)))`) are tight: a
//! 10-point output needs the input's first 26 points. Halide infers the input's bounds and
//! checks its width; here the input given covers exactly those 26 points (so Tessera must need
//! no more) and the values are checked with plain Rust. The input is i32 where Halide's is
//! f32 (the type does not matter).

use crate::check_input_region;
use crate::lower_common::TestInputs;
use tessera::prelude::*;

#[test]
fn nested_ceil_and_floor() {
    let x = Var::new("x");
    let input = ImageParam::new(Type::i32(), 1, "input");
    let f = Func::new("f");
    let index = ceil(0.3f32 * ceil(0.4f32 * floor(x * 22.5f32)));
    f.define(x, input.at(cast_to::<i32>(index))).unwrap();
    check_input_region(&f, &input, TestInputs::new(), (0, 10), (0, 26), |x| {
        (0.3f32 * (0.4f32 * (x as f32 * 22.5f32).floor()).ceil()).ceil() as i64
    });
}
