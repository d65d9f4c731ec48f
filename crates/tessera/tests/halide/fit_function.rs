//! Halide's `test/correctness/fit_function.cpp`: gradient descent, with derivatives from
//! Halide's automatic differentiation (`propagate_adjoints`), fits an odd polynomial of 8
//! terms (Horner's method, an update over a flipped reduction domain) to `sin` on [0, π/2],
//! starting from its Taylor series: after 10000 steps the mean squared relative error is at
//! most 1e-10 and below the initial one.
//!
//! Tessera has no automatic differentiation (nor pipelines with two outputs, which Halide
//! realizes the error and the new coefficients with): the case is kept as an ignored test,
//! the forward pass written out, and the values it gives before any step checked.

use crate::lower_common::{check, TestInputs};
use crate::missing_api;
use std::f64::consts::FRAC_PI_2;
use tessera::prelude::*;

const TERMS: usize = 8;
const SAMPLES: i32 = 1000;

#[test]
#[ignore = "no API for automatic differentiation (propagate_adjoints)"]
fn gradient_descent_fits_sin() {
    let coeffs = ImageParam::new(Type::f64(), 1, "coeffs");
    let (order, samples) = (Param::<i32>::new("order"), Param::<i32>::new("samples"));
    let (x, y) = (Var::new("x"), Var::new("y"));
    let fx = (x / cast_to::<f64>(samples.expr())) * FRAC_PI_2;
    let r = RDom::named("r", [(Expr::from(0), order.expr())]);
    let r_flipped = order.expr() - 1 - r.x();
    let approx_sin = Func::new("approx_sin");
    approx_sin.define((x, y), cast_to::<f64>(0)).unwrap();
    approx_sin
        .update(
            (x, r_flipped.clone()),
            (approx_sin.at((x, r_flipped.clone() + 1)) * fx.clone() + coeffs.at(r_flipped))
                * fx.clone(),
        )
        .unwrap();
    let exact_sin = Func::new("exact_sin");
    exact_sin.define(x, sin(fx)).unwrap();
    let err = Func::new("err");
    let rel = (approx_sin.at((x, Expr::from(0))) - exact_sin.at(x)) / exact_sin.at(x);
    err.define(x, rel.clone() * rel).unwrap();
    let d = RDom::named("d", [(Expr::from(1), samples.expr() - 1)]);
    let average_err = Func::new("average_err");
    average_err
        .define((), sum(err.at(d.x())) / cast_to::<f64>(samples.expr()))
        .unwrap();
    err.compute_root().vectorize(x, 4);
    approx_sin.compute_root().vectorize(x, 4);
    approx_sin.update_stage(0).vectorize(x, 4);
    exact_sin.compute_root().vectorize(x, 4);
    average_err.compute_root();
    // The Taylor series of sin about zero.
    let mut c = [0.0f64; TERMS];
    c[0] = 1.0;
    for i in 1..TERMS {
        c[i] = -c[i - 1] / ((i * 2 * (i * 2 + 1)) as f64);
    }
    let inputs = TestInputs::new()
        .image(
            &coeffs,
            Buffer::<f64>::from_fn(&[0], &[TERMS as i64], |p| c[p[0] as usize]),
        )
        .param(order.bind(TERMS as i32))
        .param(samples.bind(SAMPLES));
    let run = check(&average_err, &inputs, &[], &[]);
    let AnyBuffer::F64(e) = &run.realization.buffers[0] else {
        panic!("average_err is f64");
    };
    let expected: f64 = (1..SAMPLES)
        .map(|i| {
            let t = f64::from(i) / f64::from(SAMPLES) * FRAC_PI_2;
            let approx = c.iter().rev().fold(0.0, |acc, k| (acc * t + k) * t);
            ((approx - t.sin()) / t.sin()).powi(2)
        })
        .sum::<f64>()
        / f64::from(SAMPLES);
    assert!(
        (e.get(&[]) - expected).abs() <= 1e-12 * expected.max(1e-30),
        "initial error"
    );
    missing_api("propagate_adjoints(average_err), and the 10000 steps of gradient descent");
}
