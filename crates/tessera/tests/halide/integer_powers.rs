//! Halide's `test/correctness/integer_powers.cpp`: `pow` with integer exponents, positive and
//! negative, in Taylor series of `sin(x)` (two factorizations) and of `exp(1/x)` (two
//! factorizations), over x in [0, 5) by steps of 1/256: the RMS error against `sin` and `exp`
//! must stay below 1e-4. As in Halide, the RMS is computed by a pipeline reducing over the
//! realized buffers; it is also computed in plain Rust against Rust's `sin` and `exp`.
//! Halide wraps `x / 256` in `strict_float` so it is not folded; Tessera has no
//! `strict_float` (and no fast-math rewriting to guard against), so it is left out.

use crate::lower_common::{check, Checked, TestInputs};
use tessera::prelude::*;

const N: i64 = 256 * 5;

fn f32_values(run: &Checked) -> &Buffer<f32> {
    match &run.realization.buffers[0] {
        AnyBuffer::F32(b) => b,
        _ => panic!("the output is f32"),
    }
}

fn inverse_factorial(k: i32) -> f32 {
    let mut y = 1f64;
    for i in 2..=k {
        y /= f64::from(i);
    }
    y as f32
}

/// `value` realized over `[0, N)`.
fn realize_1d(name: &str, value: Expr, x: Var) -> Buffer<f32> {
    let f = Func::new(name);
    f.define(x, value).unwrap();
    let run = check(&f, &TestInputs::new(), &[0], &[N]);
    f32_values(&run).clone()
}

/// `sqrt(sum((a(r) - b(r))^2))` over the buffers, computed by a pipeline.
fn rms_by_pipeline(a: &Buffer<f32>, b: &Buffer<f32>) -> f32 {
    let (ia, ib) = (
        ImageParam::new(Type::f32(), 1, "approx"),
        ImageParam::new(Type::f32(), 1, "exact"),
    );
    let r = RDom::new([(ib.min(0), ib.extent(0))]);
    let rms = Func::new("rms");
    rms.define((), sqrt(sum(pow(ia.at(r.x()) - ib.at(r.x()), 2))))
        .unwrap();
    let inputs = TestInputs::new()
        .image(&ia, a.clone())
        .image(&ib, b.clone());
    let run = check(&rms, &inputs, &[], &[]);
    f32_values(&run).get(&[])
}

/// The RMS difference of `approx` from `exact(x / 256)`, in f64.
fn rms_against(approx: &Buffer<f32>, exact: impl Fn(f64) -> f64) -> f64 {
    (0..N)
        .map(|i| {
            let d = f64::from(approx.get(&[i])) - exact(i as f64 / 256.0);
            d * d
        })
        .sum::<f64>()
        .sqrt()
}

#[test]
fn taylor_series_of_sin() {
    let x = Var::new("x");
    let xf = cast_to::<f32>(Expr::from(x)) / 256.0f32;
    let mut y1 = Expr::from(0.0f32);
    for k in 0..20 {
        y1 += pow(-1, k) * pow(xf.clone(), 1 + 2 * k) * inverse_factorial(1 + 2 * k);
    }
    let mut y2 = Expr::from(1.0f32);
    for k in (1..=20).rev() {
        y2 = 1 - (y2 * pow(xf.clone(), 2)) / (2 * k * (2 * k + 1));
    }
    let y2 = y2 * xf.clone();
    let approx_1 = realize_1d("approx_sin_1", y1, x);
    let approx_2 = realize_1d("approx_sin_2", y2, x);
    let exact = realize_1d("exact_sin", sin(xf), x);
    for (name, approx) in [("approx_sin_1", &approx_1), ("approx_sin_2", &approx_2)] {
        let by_pipeline = rms_by_pipeline(approx, &exact);
        assert!(by_pipeline <= 1e-4, "{name}: RMS error {by_pipeline}");
        let by_rust = rms_against(approx, f64::sin);
        assert!(
            by_rust <= 1e-4,
            "{name}: RMS error against Rust's sin {by_rust}"
        );
    }
    let exact_err = rms_against(&exact, f64::sin);
    assert!(exact_err <= 1e-4, "sin: RMS error {exact_err}");
}

#[test]
fn taylor_series_of_exp_of_an_inverse_negative_powers() {
    let x = Var::new("x");
    let xf = cast_to::<f32>(Expr::from(x)) / 256.0f32 + 1;
    let mut y1 = Expr::from(0.0f32);
    for k in 0..20 {
        y1 += pow(xf.clone(), -k) * inverse_factorial(k);
    }
    let mut y2 = Expr::from(0.0f32);
    for k in (1..=20).rev() {
        y2 = 1 + y2 / (k * xf.clone());
    }
    let approx_1 = realize_1d("approx_exp_1", y1, x);
    let approx_2 = realize_1d("approx_exp_2", y2, x);
    let exact = realize_1d("exact_exp", exp(1.0f32 / xf), x);
    let reference = |t: f64| (1.0 / (t + 1.0)).exp();
    for (name, approx) in [("approx_exp_1", &approx_1), ("approx_exp_2", &approx_2)] {
        let by_pipeline = rms_by_pipeline(approx, &exact);
        assert!(by_pipeline <= 1e-4, "{name}: RMS error {by_pipeline}");
        let by_rust = rms_against(approx, reference);
        assert!(
            by_rust <= 1e-4,
            "{name}: RMS error against Rust's exp {by_rust}"
        );
    }
    let exact_err = rms_against(&exact, reference);
    assert!(exact_err <= 1e-4, "exp: RMS error {exact_err}");
}
