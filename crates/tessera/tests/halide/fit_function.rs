//! Halide's `test/correctness/fit_function.cpp`: gradient descent, with derivatives from
//! automatic differentiation (`propagate_adjoints`), fits an odd polynomial of 8 terms
//! (Horner's method, an update over a flipped reduction domain that keeps its intermediate
//! values) to `sin` on [0, π/2], starting from its Taylor series: a two-output pipeline
//! computes the mean squared relative error and the coefficients one step of descent
//! gives, and after 10000 steps the error must be at most 1e-10 and below the initial one.
//!
//! The derivative Funcs are scheduled as Halide's test does (each computed at root and
//! vectorized by 4 over a pure Var). The steps run natively; the first step's values (the
//! error and the new coefficients) are checked first on the evaluator, the interpreter and
//! the JIT, and the initial error against a plain-Rust evaluation of the Taylor series.

use crate::lower_common::{check, TestInputs};
use std::f64::consts::FRAC_PI_2;
use tessera::ir::ExprKind;
use tessera::prelude::*;

const TERMS: usize = 8;
const SAMPLES: i32 = 1000;
const STEPS: usize = 10000;

#[test]
fn gradient_descent_fits_sin() {
    let coeffs = ImageParam::new(Type::f64(), 1, "coeffs");
    let learning_rate = Param::<f64>::new("learning_rate");
    let (order, samples) = (Param::<i32>::new("order"), Param::<i32>::new("samples"));
    let (x, y) = (Var::new("x"), Var::new("y"));
    let fx = (x / cast_to::<f64>(samples.expr())) * FRAC_PI_2;
    let r = RDom::named("r", [(Expr::from(0), order.expr())]);
    let r_flipped = order.expr() - 1 - r.x();
    let approx_sin = Func::new("approx_sin");
    approx_sin.define((x, y), cast_to::<f64>(0)).unwrap();
    approx_sin
        .update(
            (x.expr(), r_flipped.clone()),
            (approx_sin.at((x.expr(), r_flipped.clone() + 1)) * fx.clone() + coeffs.at(r_flipped))
                * fx.clone(),
        )
        .unwrap();
    let exact_sin = Func::new("exact_sin");
    exact_sin.define(x, sin(fx)).unwrap();
    let err = Func::new("err");
    let rel = (approx_sin.at((x.expr(), Expr::from(0))) - exact_sin.at(x)) / exact_sin.at(x);
    err.define(x, pow(rel, 2)).unwrap();
    let d = RDom::named("d", [(Expr::from(1), samples.expr() - 1)]);
    let average_err = Func::new("average_err");
    average_err
        .define((), sum(err.at(d.x())) / cast_to::<f64>(samples.expr()))
        .unwrap();
    let d_err_d = propagate_adjoints(&average_err).unwrap();
    let new_coeffs = Func::new("new_coeffs");
    new_coeffs
        .define(
            x,
            coeffs.at(x) - learning_rate.expr() * d_err_d.image(&coeffs).unwrap().at(x),
        )
        .unwrap();

    err.compute_root().vectorize(x, 4);
    new_coeffs.compute_root().vectorize(x, 4);
    approx_sin.compute_root().vectorize(x, 4);
    approx_sin.update_stage(0).vectorize(x, 4);
    exact_sin.compute_root().vectorize(x, 4);
    average_err.compute_root();
    // Halide's quick-and-dirty schedule of the derivative Funcs: each at root, vectorized
    // over its first Var, and each update over a pure Var it has.
    let derivatives = [approx_sin.clone(), err.clone()]
        .iter()
        .flat_map(|f| d_err_d.funcs(f))
        .chain([d_err_d.image(&coeffs).unwrap()])
        .collect::<Vec<_>>();
    for df in &derivatives {
        let args = df.args();
        df.compute_root().vectorize(args[0], 4);
        let update_vars: Vec<Option<Var>> = df
            .function()
            .read()
            .updates
            .iter()
            .map(|update| {
                update.args.iter().find_map(|a| match a.kind() {
                    ExprKind::Var(v) => args.iter().find(|p| p.name() == *v).copied(),
                    _ => None,
                })
            })
            .collect();
        for (i, pure) in update_vars.into_iter().enumerate() {
            if let Some(v) = pure {
                df.update_stage(i).vectorize(v, 4);
            }
        }
    }

    // The Taylor series of sin about zero.
    let mut c = [0.0f64; TERMS];
    c[0] = 1.0;
    for i in 1..TERMS {
        c[i] = -c[i - 1] / ((i * 2 * (i * 2 + 1)) as f64);
    }
    let inputs_for = |c: &[f64; TERMS]| {
        TestInputs::new()
            .image(
                &coeffs,
                Buffer::<f64>::from_fn(&[0], &[TERMS as i64], |p| c[p[0] as usize]),
            )
            .param(order.bind(TERMS as i32))
            .param(samples.bind(SAMPLES))
            .param(learning_rate.bind(0.00001))
    };

    // The first step on every backend, and the initial error against plain Rust.
    let first = inputs_for(&c);
    let initial = check(&average_err, &first, &[], &[]).realization.buffers[0]
        .get_value(&[])
        .as_f64();
    let expected: f64 = (1..SAMPLES)
        .map(|i| {
            let t = f64::from(i) / f64::from(SAMPLES) * FRAC_PI_2;
            let approx = c.iter().rev().fold(0.0, |acc, k| (acc * t + k) * t);
            ((approx - t.sin()) / t.sin()).powi(2)
        })
        .sum::<f64>()
        / f64::from(SAMPLES);
    assert!(
        (initial - expected).abs() <= 1e-12 * expected.max(1e-30),
        "initial error {initial}, expected {expected}"
    );
    check(&new_coeffs, &first, &[0], &[TERMS as i64]);

    let pipeline = Pipeline::with_outputs(&[&average_err, &new_coeffs]);
    let compiled = pipeline.compile_jit(&Target::host()).unwrap();
    let mut error = initial;
    for _ in 0..=STEPS {
        let outputs = compiled
            .realize_each(
                &inputs_for(&c).pipeline_inputs(),
                &[(&[], &[]), (&[0], &[TERMS as i64])],
            )
            .unwrap();
        error = outputs[0].get_value(&[]).as_f64();
        for (i, k) in c.iter_mut().enumerate() {
            *k = outputs[1].get_value(&[i as i64]).as_f64();
        }
    }
    assert!(
        error <= 1e-10 && error < initial,
        "did not converge: error {error} after {STEPS} steps, initially {initial}"
    );
}
