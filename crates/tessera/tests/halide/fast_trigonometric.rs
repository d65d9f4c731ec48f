//! Halide's `test/correctness/fast_trigonometric.cpp`: `fast_sin` and `fast_cos`,
//! vectorized by 8, over 1000 angles spanning [-2π, 2π], within 1e-5 of `sin` and `cos`.

use crate::realize;
use std::f32::consts::PI;
use tessera::prelude::*;

#[test]
fn fast_sin_and_cos() {
    let x = Var::new("x");
    let t = x / 1000.0f32;
    let two_pi = 2.0 * PI;
    let angle = t.clone() * -two_pi + (Expr::from(1.0f32) - t) * two_pi;
    for (name, f, exact) in [
        ("sin_f", fast_sin(angle.clone()), f32::sin as fn(f32) -> f32),
        ("cos_f", fast_cos(angle), f32::cos),
    ] {
        let out = vectorized_values(name, x, f, 8, 1000);
        for i in 0..1000 {
            let alpha = i as f32 / 1000.0;
            let angle = -two_pi * alpha + (1.0 - alpha) * two_pi;
            let (got, want) = (out.get(&[i]), exact(angle));
            assert!(
                (got - want).abs() <= 1e-5,
                "{name}({i}) = {got} instead of {want}"
            );
        }
    }
}

/// The f32 values of `name(x) = value` over [0, points), vectorized by `lanes`.
fn vectorized_values(name: &str, x: Var, value: Expr, lanes: i32, points: i64) -> Buffer<f32> {
    let func = Func::new(name);
    func.define(x, value).unwrap();
    func.vectorize(x, lanes);
    let run = realize(&func, &[points]);
    match &run.realization.buffers[0] {
        AnyBuffer::F32(out) => out.clone(),
        other => panic!("{name} is f32, not {}", other.ty()),
    }
}

/// Beyond Halide's test: 4001 angles over [-100, 100] against `sin` and `cos` in f64 (the
/// reduction by π/2 in f32 loses about |x| · 1e-7), and an f64 argument refused.
#[test]
fn fast_sin_and_cos_over_a_wider_range() {
    let x = Var::new("x");
    let angle = (x - 2000) / 20.0f32;
    for (name, f, exact) in [
        ("sin_w", fast_sin(angle.clone()), f64::sin as fn(f64) -> f64),
        ("cos_w", fast_cos(angle), f64::cos),
    ] {
        let out = vectorized_values(name, x, f, 16, 4001);
        for i in 0..4001 {
            let angle = (i as f32 - 2000.0) / 20.0;
            let (got, want) = (out.get(&[i]), exact(f64::from(angle)));
            assert!(
                (f64::from(got) - want).abs() <= 2e-5,
                "{name}({angle}) = {got} instead of {want}"
            );
        }
    }
    let f = Func::new("f64_sin");
    let err = f.define(x, fast_sin(cast_to::<f64>(x))).unwrap_err();
    assert!(
        err.to_string().contains("fast_sin needs an f32 argument"),
        "{err}"
    );
}
