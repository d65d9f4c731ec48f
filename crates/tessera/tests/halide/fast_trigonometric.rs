//! Halide's `test/correctness/fast_trigonometric.cpp`: `fast_sin` and `fast_cos`,
//! vectorized by 8, over 1000 angles spanning [-2π, 2π], within 1e-5 of `sin` and `cos`.
//!
//! Tessera has no `fast_sin` or `fast_cos`: the case is kept as an ignored test (written
//! with `sin` and `cos` where Halide calls the fast forms).

use crate::{missing_api, realize};
use std::f32::consts::PI;
use tessera::prelude::*;

#[test]
#[ignore = "no API for fast_sin, fast_cos"]
fn fast_sin_and_cos() {
    let x = Var::new("x");
    let t = x / 1000.0f32;
    let two_pi = 2.0 * PI;
    let angle = t.clone() * -two_pi + (Expr::from(1.0f32) - t) * two_pi;
    missing_api("fast_sin, fast_cos");
    for (name, f, exact) in [
        ("sin_f", sin(angle.clone()), f32::sin as fn(f32) -> f32),
        ("cos_f", cos(angle), f32::cos),
    ] {
        let func = Func::new(name);
        func.define(x, f).unwrap();
        func.vectorize(x, 8);
        let run = realize(&func, &[1000]);
        let AnyBuffer::F32(out) = &run.realization.buffers[0] else {
            panic!("{name} is f32");
        };
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
