//! Halide's `test/correctness/unroll_dynamic_loop.cpp`: a producer computed per 8-point piece
//! of a `GuardWithIf` split, whose last piece (of a 23-point output) is shorter, is unrolled
//! over a loop whose extent is not a constant. Halide also asks for the producer on the stack
//! (`store_in(MemoryType::Stack)`); Tessera has no `store_in`, so that is left out. The input,
//! embedded in Halide's pipeline, is an ImageParam here.

use crate::lower_common::{check, TestInputs};
use tessera::lang::schedule::TailStrategy;
use tessera::prelude::*;

#[test]
fn a_producer_unrolled_over_a_guarded_piece() {
    let input = ImageParam::new(Type::f32(), 1, "in");
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, input.at(x) * 3.0f32).unwrap();
    let g = Func::new("g");
    g.define(x, f.at(x) * 2.0f32).unwrap();
    g.split_with_tail(x, "xo", "xi", 8, TailStrategy::GuardWithIf)
        .unroll_loop("xi");
    f.compute_at(&g, "xo").unroll_loop(x);
    let image = Buffer::<f32>::from_fn(&[0], &[100], |p| p[0] as f32 * 2.0);
    let run = check(&g, &TestInputs::new().image(&input, image), &[0], &[23]);
    let AnyBuffer::F32(out) = &run.realization.buffers[0] else {
        panic!("g is f32");
    };
    for i in 0..23 {
        assert_eq!(out.get(&[i]), (i * 2 * 3 * 2) as f32, "g({i})");
    }
}
