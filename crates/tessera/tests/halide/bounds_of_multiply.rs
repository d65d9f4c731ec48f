//! Halide's `test/correctness/bounds_of_multiply.cpp` (Halide issue 3070): an input read at
//! `clamp(x, 0, bound * 2 - 1)` with `bound` an i32 or an i16 Param of 5 needs only the
//! input's 10 points for a 200-point output (the bounds of the multiply must not overflow
//! the narrow type into an unbounded region). Halide only checks that it runs; here the
//! values are checked with plain Rust too.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

fn clamped_by_a_multiple<T: Scalar>(bound: Param<T>, value: T) {
    let input = ImageParam::new(Type::u8(), 1, "in");
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, input.at(clamp(x, 0, bound.expr() * 2 - 1)))
        .unwrap();
    let image = Buffer::<u8>::from_fn(&[0], &[10], |c| (c[0] * 7 + 3) as u8);
    let inputs = TestInputs::new()
        .image(&input, image.clone())
        .param(bound.bind(value));
    let run = check(&f, &inputs, &[0], &[200]);
    let AnyBuffer::U8(out) = &run.realization.buffers[0] else {
        panic!("f is u8");
    };
    for i in 0..200 {
        assert_eq!(out.get(&[i]), image.get(&[i.min(9)]), "at {i}");
    }
}

#[test]
fn an_i32_bound() {
    clamped_by_a_multiple(Param::<i32>::new("bound"), 5);
}

#[test]
fn an_i16_bound() {
    clamped_by_a_multiple(Param::<i16>::new("bound"), 5);
}
