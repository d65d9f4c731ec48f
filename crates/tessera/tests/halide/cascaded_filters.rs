//! Halide's `test/correctness/cascaded_filters.cpp`: thirty two-tap averages in a chain,
//! `S(k)(x) = (S(k-1)(x) + S(k-1)(x + 1)) / divisor`, every stage stored at the root and
//! computed per x of the last, which is specialized ten times on the value of `divisor`.
//! With `divisor = 2`, the averages of `sin(10 x) + 1` over 10 outputs are within 0.01 of 1
//! in all (Halide's check); each output is also compared with the same chain in plain Rust
//! f32, and each stage computes at most the 40 - k points the output needs (sliding).
//! Halide's full size (30 stages, 10 specializations) passes but takes about 6 to 10 s, most
//! of it LLVM compiling the checked native code (lowering 0.7 s), so it is kept as an ignored
//! test; the suite runs 30 stages unspecialized and 6 stages with the 10 specializations.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

fn chain(stage_count: usize, specializations: i32) {
    let x = Var::new("x");
    let divisor = Param::<i32>::new("divisor");
    let input = ImageParam::new(Type::f32(), 1, "input");
    let image = Buffer::<f32>::from_fn(&[0], &[1000], |p| ((10 * p[0]) as f32).sin() + 1.0);
    let first = Func::new("S0");
    first.define(x, input.at(x)).unwrap();
    let mut stages = vec![first];
    for i in 1..=stage_count {
        let previous = stages.last().unwrap();
        let blurry = Func::new(&format!("S{i}"));
        blurry
            .define(x, (previous.at(x) + previous.at(x + 1)) / divisor.expr())
            .unwrap();
        stages.push(blurry);
    }
    let last = stages.last().unwrap();
    for stage in &stages[..stage_count] {
        stage.store_root().compute_at(last, x);
    }
    for i in 1..=specializations {
        last.specialize(divisor.expr().eq_(i));
    }
    let run = check(
        last,
        &TestInputs::new()
            .image(&input, image.clone())
            .param(divisor.bind(2)),
        &[0],
        &[10],
    );
    let AnyBuffer::F32(out) = &run.realization.buffers[0] else {
        panic!("the last stage is f32");
    };
    let mut reference: Vec<f32> = (0..10 + stage_count as i64)
        .map(|i| image.get(&[i]))
        .collect();
    for _ in 0..stage_count {
        reference = reference.windows(2).map(|w| (w[0] + w[1]) / 2.0).collect();
    }
    let mut err = 0.0f32;
    for (i, want) in reference.iter().enumerate() {
        let got = out.get(&[i as i64]);
        assert!(
            (got - want).abs() <= 1e-5,
            "S{stage_count}({i}) = {got}, not {want}"
        );
        err += (got - 1.0).abs();
    }
    assert!(err <= 0.01, "error {err}");
    for (k, stage) in stages[..stage_count].iter().enumerate() {
        let points = run.provides(stage.name().as_str());
        let needed = (10 + stage_count - k) as u64;
        assert!(
            points <= needed,
            "{} computed {points} points, not {needed}",
            stage.name()
        );
    }
}

#[test]
fn thirty_averages_sliding() {
    chain(30, 0);
}

#[test]
fn six_averages_with_ten_specializations() {
    chain(6, 10);
}

#[test]
#[ignore = "slow: about 6 to 10 s in the test profile (2026-11-28, was 18 to 30 s), most in LLVM compiling the checked native code of 300 loops (0.6 MB of IR); lowering takes 0.7 s"]
fn thirty_averages_with_ten_specializations() {
    chain(30, 10);
}
