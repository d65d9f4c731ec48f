//! Halide's `test/correctness/out_constraint.cpp`: an input constrained to [0, 10)
//! (`input.dim(0).set_bounds(0, 10)`) and an output constrained to the input's bounds, or
//! an update over an RDom spanning the input, compile to a single loop of constant min 0
//! and extent 10 (checked by a custom lowering pass), and copy or store 42.
//!
//! The values are checked here (the output realized over the input's 10 points). Tessera
//! has no buffer-bound constraints, so the loop-shape check is kept ignored.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

const SIZE: i64 = 10;

fn u8_values(run: &crate::lower_common::Checked) -> &Buffer<u8> {
    match &run.realization.buffers[0] {
        AnyBuffer::U8(b) => b,
        _ => panic!("the output is u8"),
    }
}

#[test]
fn a_copy_of_the_input() {
    let input = ImageParam::new(Type::u8(), 1, "input");
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, input.at(x)).unwrap();
    let inputs = TestInputs::new().image(&input, Buffer::<u8>::from_fn(&[0], &[SIZE], |_| 42));
    let run = check(&f, &inputs, &[0], &[SIZE]);
    let out = u8_values(&run);
    out.for_each_coord(|p| assert_eq!(out.get(p), 42, "f{p:?}"));
}

#[test]
fn an_update_over_the_input_domain() {
    let input = ImageParam::new(Type::u8(), 1, "input");
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, undef::<u8>()).unwrap();
    let r = RDom::new([(input.min(0), input.extent(0))]);
    f.update(r.x(), cast(Type::u8(), 42)).unwrap();
    let inputs = TestInputs::new().image(&input, Buffer::<u8>::new(&[SIZE]));
    let run = check(&f, &inputs, &[0], &[SIZE]);
    let out = u8_values(&run);
    out.for_each_coord(|p| assert_eq!(out.get(p), 42, "f{p:?}"));
}

#[test]
#[ignore = "no API to constrain an input's or the output's bounds (input.dim(0).set_bounds(0, 10), output_buffer().dim(0).set_bounds(...)): the loops keep symbolic bounds"]
fn constrained_bounds_give_one_constant_loop() {
    unimplemented!(
        "with input.dim(0).set_bounds(0, 10) and the output bounded by the input, the lowered \
         code of both cases is one loop for(x, 0, 10)"
    );
}
