//! Halide's `test/correctness/input_image_bounds_check.cpp`: reading an input image outside
//! its bounds is an error the pipeline reports, not a silent out-of-bounds read: `f(x) =
//! in(x) * 2` over 23 points of a 19-point image fails; a compute-root producer vectorized
//! by 4 and read over 18 points of the same image does not (vectorizing must not widen the
//! region read past the image); and a vectorized-by-4 read of a 3-point image over 4 points
//! fails. Halide catches the error with a custom JIT error handler; here the lowered
//! pipeline's runs (interpreter and bounds-checked native code) return the error, and the passing case is
//! checked value by value.

use crate::lower_common::{check, Checked, TestInputs};
use tessera::codegen::jit::compile_jit;
use tessera::codegen::target::Target;
use tessera::ir::Symbol;
use tessera::lower::LowerOptions;
use tessera::pipeline::{run_interp, signature, Pipeline};
use tessera::prelude::*;

/// The errors of running `output` over `[0, extent)` on the interpreter and as native code
/// (the definition-level evaluator is not asked: it rejects the read by itself).
fn run_errors(output: &Func, inputs: &TestInputs, extent: i64) -> (String, String) {
    let lowered = Pipeline::new(output)
        .lower(&LowerOptions::default())
        .expect("the pipeline lowers");
    let pipeline_inputs = inputs.pipeline_inputs();
    let interp = run_interp(
        &lowered,
        &lowered.stmt,
        &pipeline_inputs,
        &[0],
        &[extent],
        0,
    )
    .expect_err("the interpreter reports the out-of-bounds read")
    .to_string();
    let target = Target::host().with_bounds_checks(true);
    // SAFETY: the target is in checked mode, so every load and store is checked.
    let compiled = unsafe { compile_jit(&lowered.stmt, &signature(&lowered), &target) }
        .expect("the pipeline compiles");
    let ty = output.output_type().expect("a defined output");
    let mut out = AnyBuffer::with_mins(ty, &[0], &[extent]).expect("output buffer");
    let images: Vec<(Symbol, &AnyBuffer)> = pipeline_inputs
        .images()
        .iter()
        .map(|(n, b)| (*n, b))
        .collect();
    let native = compiled
        .run(&mut [&mut out], &images, pipeline_inputs.params())
        .expect_err("the native code reports the out-of-bounds read")
        .to_string();
    (interp, native)
}

fn ramp_image(n: i64) -> Buffer<f32> {
    Buffer::<f32>::from_fn(&[0], &[n], |c| c[0] as f32)
}

fn f32_values(run: &Checked) -> &Buffer<f32> {
    match &run.realization.buffers[0] {
        AnyBuffer::F32(b) => b,
        _ => panic!("the output is f32"),
    }
}

#[test]
fn reading_past_the_end_of_the_input_fails() {
    let input = ImageParam::new(Type::f32(), 1, "input");
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, input.at(x) * 2.0f32).unwrap();
    let errors = run_errors(&f, &TestInputs::new().image(&input, ramp_image(19)), 23);
    for e in [&errors.0, &errors.1] {
        assert!(e.contains("needs dimension 0"), "{e}");
    }
}

#[test]
fn a_vectorized_producer_reads_no_further_than_needed() {
    let input = ImageParam::new(Type::f32(), 1, "input");
    let x = Var::new("x");
    let g = Func::new("g");
    g.define(x, input.at(x) * 2.0f32).unwrap();
    let h = Func::new("h");
    h.define(x, g.at(x)).unwrap();
    g.compute_root().vectorize(x, 4);
    let run = check(
        &h,
        &TestInputs::new().image(&input, ramp_image(19)),
        &[0],
        &[18],
    );
    let out = f32_values(&run);
    for i in 0..18 {
        assert_eq!(out.get(&[i]), 2.0 * i as f32, "h({i})");
    }
}

#[test]
fn an_input_narrower_than_the_vector_fails() {
    let input = ImageParam::new(Type::f32(), 1, "small_input");
    let x = Var::new("x");
    let i = Func::new("i");
    i.define(x, input.at(x)).unwrap();
    i.vectorize(x, 4);
    let errors = run_errors(&i, &TestInputs::new().image(&input, ramp_image(3)), 4);
    for e in [&errors.0, &errors.1] {
        assert!(e.contains("needs dimension 0"), "{e}");
    }
}
