//! Halide's `test/correctness/out_constraint.cpp`: an input constrained to [0, 10)
//! (`input.dim(0).set_bounds(0, 10)`) and an output constrained to the input's bounds, or
//! an update over an RDom spanning the input, compile to a single loop of constant min 0
//! and extent 10 (checked by a custom lowering pass), and copy or store 42.
//!
//! The values are checked here (the output realized over the input's 10 points), and the
//! lowered loop nest of each case is checked to hold exactly one loop, of min 0 and extent 10.

use crate::lower_common::{check, walk_stmts, TestInputs};
use tessera::ir::{Stmt, StmtKind};
use tessera::pipeline::Pipeline;
use tessera::prelude::*;

const SIZE: i64 = 10;

fn u8_values(run: &crate::lower_common::Checked) -> &Buffer<u8> {
    match &run.realization.buffers[0] {
        AnyBuffer::U8(b) => b,
        _ => panic!("the output is u8"),
    }
}

/// An input constrained to [0, 10).
fn constrained_input() -> ImageParam {
    let input = ImageParam::new(Type::u8(), 1, "input");
    input.dim(0).set_bounds(0, SIZE as i32);
    input
}

/// Halide's custom lowering pass: the loop nest is one loop `for (x, 0, 10)`.
fn assert_one_constant_loop(f: &Func) {
    let lowered = Pipeline::new(f).lower_to_string().unwrap();
    let stmt: Stmt = Pipeline::new(f).lower(&Default::default()).unwrap().stmt;
    let mut loops = Vec::new();
    walk_stmts(&stmt, &mut |s| {
        if let StmtKind::For { min, extent, .. } = s.kind() {
            loops.push((min.as_int_const(), extent.as_int_const()));
        }
    });
    assert_eq!(loops, [(Some(0), Some(SIZE as i128))], "{lowered}");
}

#[test]
fn a_copy_of_the_input() {
    let input = constrained_input();
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, input.at(x)).unwrap();
    // The output has the input's bounds.
    f.output_buffer()
        .dim(0)
        .set_bounds(input.dim(0).min(), input.dim(0).extent());
    assert_one_constant_loop(&f);
    let inputs = TestInputs::new().image(&input, Buffer::<u8>::from_fn(&[0], &[SIZE], |_| 42));
    let run = check(&f, &inputs, &[0], &[SIZE]);
    let out = u8_values(&run);
    out.for_each_coord(|p| assert_eq!(out.get(p), 42, "f{p:?}"));
}

/// `f(r) = 42` over an RDom spanning the input, which is read only through its bounds.
fn update_over_the_input_domain() -> (Func, ImageParam) {
    let input = constrained_input();
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, undef::<u8>()).unwrap();
    let r = RDom::new([(input.min(0), input.extent(0))]);
    f.update(r.x(), cast(Type::u8(), 42)).unwrap();
    (f, input)
}

#[test]
fn an_update_over_the_constrained_input_domain_is_one_constant_loop() {
    assert_one_constant_loop(&update_over_the_input_domain().0);
}

#[test]
fn an_update_over_the_input_domain() {
    let (f, input) = update_over_the_input_domain();
    let inputs = TestInputs::new().image(&input, Buffer::<u8>::new(&[SIZE]));
    let run = check(&f, &inputs, &[0], &[SIZE]);
    let out = u8_values(&run);
    out.for_each_coord(|p| assert_eq!(out.get(p), 42, "f{p:?}"));
}
