//! Float contraction (`Target::float_contraction`): off by default, float arithmetic is
//! rounded step by step exactly as the evaluator does it; on, multiplies feeding adds are
//! fused into multiply-adds (on FMA hardware), and results stay within rounding of the
//! evaluator's.

use tessera::codegen::{emit_assembly, Target};
use tessera::lower::LowerOptions;
use tessera::pipeline::{signature, Inputs, Pipeline};
use tessera::prelude::*;

/// `out(x) = in(x) * in(x + 1) + in(x + 2) * 0.5`, vectorized.
fn multiply_add() -> (ImageParam, Func) {
    let input = ImageParam::new(Type::f32(), 1, "input");
    let x = Var::new("x");
    let out = Func::new("out");
    out.define(x, input.at(x) * input.at(x + 1) + input.at(x + 2) * 0.5f32)
        .unwrap();
    out.vectorize(x, 8);
    (input, out)
}

fn fma_target(contract: bool) -> Target {
    Target::x86_64("haswell", "+avx,+avx2,+fma").with_float_contraction(contract)
}

fn fused_instructions(contract: bool) -> usize {
    let (_, out) = multiply_add();
    let lowered = Pipeline::new(&out).lower(&LowerOptions::default()).unwrap();
    let asm = emit_assembly(
        &lowered.stmt,
        &signature(&lowered),
        &fma_target(contract),
        "f",
    )
    .unwrap();
    asm.lines()
        .filter(|l| l.trim_start().starts_with("vfmadd"))
        .count()
}

#[test]
fn multiply_adds_are_fused_only_when_allowed() {
    assert_eq!(fused_instructions(false), 0);
    assert!(fused_instructions(true) > 0);
    assert!(!Target::host().float_contraction);
}

#[test]
fn fused_results_stay_within_rounding_of_the_evaluator() {
    let (input, out) = multiply_add();
    let image = Buffer::<f32>::from_fn(&[0], &[66], |c| (c[0] as f32 * 0.37).sin() * 3.0 + 0.1);
    let expected = Evaluator::new()
        .with_input(&input, image.clone())
        .realize(&out, &[0], &[64])
        .unwrap();
    let [AnyBuffer::F32(expected)] = expected.as_slice() else {
        panic!("an f32 output")
    };
    let inputs = Inputs::new().image(&input, image);
    for contract in [false, true] {
        let target = Target::host().with_float_contraction(contract);
        let compiled = Pipeline::new(&out).compile_jit(&target).unwrap();
        let actual = compiled.realize(&inputs, &[0], &[64]).unwrap();
        let [AnyBuffer::F32(actual)] = actual.as_slice() else {
            panic!("an f32 output")
        };
        for (a, e) in actual.data().iter().zip(expected.data()) {
            if contract {
                assert!((a - e).abs() <= 1e-6 * e.abs().max(1.0), "{a} vs {e}");
            } else {
                assert_eq!(a.to_bits(), e.to_bits(), "{a} vs {e}");
            }
        }
    }
}
