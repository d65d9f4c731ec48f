//! Halide's `test/correctness/multipass_constraints.cpp`: constraints on an input's bounds
//! that depend on its other dimension and on the output's size, and a constraint on the
//! output's min and extent that depends on its own extent, resolved by a bounds query
//! (`infer_input_bounds`) over a 7 x 8 output at (2, 2): the input must be [-4, 30) x
//! [1, 11), the output [0, 24) x [2, 10): the output is written in whole vectors of 4, and
//! each wider output asks for one more column until the extent reaches 22, rounded up to 24.
//!
//! Beyond Halide's check, the pipeline is run over the bounds found, and its values checked
//! with plain Rust.

use crate::lower_common::{check, TestInputs};
use tessera::lang::schedule::TailStrategy;
use tessera::pipeline::{Inputs, Pipeline};
use tessera::prelude::*;

#[test]
fn constraints_resolved_by_a_bounds_query() {
    let input = ImageParam::new(Type::f32(), 2, "in");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let out = Func::new("out");
    out.define((x, y), input.at((x + 1, y + 1)) + input.at((x - 1, y - 1)))
        .unwrap();
    out.update((x, y), out.at((x, y)) + 3.0f32).unwrap();
    // Halide's default tail for an update's pure Var is RoundUp, which Tessera refuses in
    // updates (it guards them); the pure definition rounds up instead, so the output is
    // written in whole vectors of 4 as in Halide.
    out.vectorize_with_tail(x, 4, TailStrategy::RoundUp);
    out.update_stage(0).vectorize(x, 4);
    let o = out.output_buffer();
    input.dim(0).set_bounds(
        input.dim(1).min() - 5,
        input.dim(1).extent() + o.dim(0).extent(),
    );
    o.dim(0).set_bounds(
        0,
        select(
            o.dim(0).extent().lt(22),
            o.dim(0).extent() + 1,
            o.dim(0).extent(),
        ),
    );
    let pipeline = Pipeline::new(&out);
    let bounds = pipeline
        .infer_input_bounds(&Inputs::new(), &[2, 2], &[7, 8])
        .unwrap();
    let found = bounds.input(&input).expect("in is not given");
    assert_eq!(
        (found.mins.as_slice(), found.extents.as_slice()),
        (&[-4, 1][..], &[34, 10][..])
    );
    assert_eq!(
        (
            bounds.output_mins.as_slice(),
            bounds.output_extents.as_slice()
        ),
        (&[0, 2][..], &[24, 8][..])
    );

    let image = Buffer::<f32>::from_fn(&found.mins, &found.extents, |p| (p[0] * 7 + p[1]) as f32);
    let run = check(
        &out,
        &TestInputs::new().image(&input, image),
        &bounds.output_mins,
        &bounds.output_extents,
    );
    let AnyBuffer::F32(result) = &run.realization.buffers[0] else {
        panic!("out is f32");
    };
    let value = |x: i64, y: i64| (x * 7 + y) as f32;
    result.for_each_coord(|p| {
        let (x, y) = (p[0], p[1]);
        assert_eq!(
            result.get(p),
            value(x + 1, y + 1) + value(x - 1, y - 1) + 3.0,
            "out{p:?}"
        );
    });
}
