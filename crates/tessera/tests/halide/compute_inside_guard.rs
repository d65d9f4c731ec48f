//! Halide's `test/correctness/compute_inside_guard.cpp`: an intermediate computed inside a
//! GuardWithIf split of the output (by a factor that is not a constant: the output's width
//! / 8) needs exactly one value per iteration, and the input is needed only over the output,
//! not rounded up to a multiple of the factor. Halide realizes 123 points from a 123-point
//! input (and puts the intermediate in registers); here the intermediate's allocation must be
//! one element, the input given is exactly 123 points, and the values are checked with plain
//! Rust. `store_in(MemoryType::Register)` is left out (Tessera has no memory types). The
//! intermediate's unrolled loop has an extent of at most 1, which Tessera finds as Halide does.

use crate::lower_common::{check, TestInputs};
use tessera::lang::schedule::TailStrategy;
use tessera::prelude::*;

#[test]
fn an_intermediate_inside_the_guard() {
    let input = ImageParam::new(Type::u8(), 1, "input");
    let x = Var::new("x");
    let intermediate = Func::new("intermediate");
    intermediate.define(x, input.at(x)).unwrap();
    let output = Func::new("output");
    output.define(x, intermediate.at(x)).unwrap();
    output.compute_root().split_with_tail(
        x,
        "xo",
        "xi",
        output.output_extent(0) / 8,
        TailStrategy::GuardWithIf,
    );
    intermediate.compute_at(&output, "xi").unroll_loop(x);
    let image = Buffer::<u8>::from_fn(&[0], &[123], |c| (c[0] * 5 + 1) as u8);
    let run = check(
        &output,
        &TestInputs::new().image(&input, image.clone()),
        &[0],
        &[123],
    );
    let AnyBuffer::U8(out) = &run.realization.buffers[0] else {
        panic!("output is u8");
    };
    for i in 0..123 {
        assert_eq!(out.get(&[i]), image.get(&[i]), "at {i}");
    }
    let elements = run.allocation("intermediate");
    assert!(
        elements <= 1,
        "intermediate allocates {elements} elements, Halide 1"
    );
}
