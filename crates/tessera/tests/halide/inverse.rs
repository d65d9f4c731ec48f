//! Halide's `test/correctness/inverse.cpp`: `fast_inverse` and `fast_inverse_sqrt` of
//! `v = 1.34x + 1.0142` at 10000 points, unvectorized (Halide's GPU case) and vectorized by
//! 2, 4 and 8, within Halide's tolerance of 13 mantissa bits (fewer than 8192 ulps) of
//! `1 / v` and `1 / sqrt(v)`; those, with the 1 in a Param as in Halide, exactly as in Rust.
//! (Halide's test prints mismatches without failing; this one fails.)

use crate::lower_common::{check, TestInputs};
use crate::{f32_output, ulps_apart};
use tessera::prelude::*;

const POINTS: i64 = 10000;

fn v(x: Var) -> Expr {
    x * 1.34f32 + 1.0142f32
}

fn v_in_rust(x: i64) -> f32 {
    x as f32 * 1.34 + 1.0142
}

/// `name(x) = value` over [0, points), vectorized by `lanes` (unvectorized for 1), with `p` = 1.
fn values(
    name: &str,
    (x, points): (Var, i64),
    value: Expr,
    lanes: i32,
    p: &Param<f32>,
) -> Vec<f32> {
    let f = Func::new(name);
    f.define(x, value).unwrap();
    if lanes > 1 {
        f.vectorize(x, lanes);
    }
    let run = check(&f, &TestInputs::new().param(p.bind(1.0)), &[0], &[points]);
    let out = f32_output(&run);
    (0..points).map(|i| out.get(&[i])).collect()
}

fn check_approximation(
    what: &str,
    approximate: fn(Expr) -> Expr,
    divisor: fn(Expr) -> Expr,
    exact: fn(f32) -> f32,
) {
    let x = Var::new("x");
    let p = Param::<f32>::new("p");
    let reference = values(
        &format!("{what}_p"),
        (x, POINTS),
        p.expr() / divisor(v(x)),
        1,
        &p,
    );
    for (i, &got) in reference.iter().enumerate() {
        assert_eq!(got, 1.0 / exact(v_in_rust(i as i64)), "p / v at {i}");
    }
    for lanes in [1, 2, 4, 8] {
        let name = format!("{what}_{lanes}");
        let out = values(&name, (x, POINTS), approximate(v(x)), lanes, &p);
        for (i, &got) in out.iter().enumerate() {
            let want = 1.0 / exact(v_in_rust(i as i64));
            assert!(
                ulps_apart(got, want) < 1 << 13,
                "{name}({i}) = {got} instead of {want}"
            );
        }
    }
}

#[test]
fn fast_inverse_of_v() {
    check_approximation("inverse", fast_inverse, |v| v, |v| v);
}

#[test]
fn fast_inverse_sqrt_of_v() {
    check_approximation("inverse_sqrt", fast_inverse_sqrt, sqrt, f32::sqrt);
}

/// Beyond Halide's test: over 2000 magnitudes from 1e-30 to 1e30 of both signs,
/// `fast_inverse` is within 1e-5 of `1 / x` and `fast_inverse_sqrt` (of the positive ones)
/// within 5e-6 of `1 / sqrt(x)`, as their documentation says; f64 arguments are refused.
#[test]
fn fast_inverses_over_a_wide_range() {
    let x = Var::new("x");
    let magnitude = |x: Expr| exp((x - 1000) * (30.0f32 * std::f32::consts::LN_10 / 1000.0));
    let p = Param::<f32>::new("p");
    let domain = (x, 2001);
    let positive = values(
        "wide_inverse",
        domain,
        fast_inverse(magnitude(x.expr())),
        8,
        &p,
    );
    let negative = values(
        "wide_neg",
        domain,
        fast_inverse(-magnitude(x.expr())),
        8,
        &p,
    );
    let root = values(
        "wide_isqrt",
        domain,
        fast_inverse_sqrt(magnitude(x.expr())),
        8,
        &p,
    );
    // The f32 arguments themselves, so the references take exactly them.
    let args = values("wide_arg", domain, magnitude(x.expr()), 1, &p);
    for (i, &arg) in args.iter().enumerate() {
        let a = f64::from(arg);
        for (got, want, tolerance) in [
            (positive[i], 1.0 / a, 1e-5),
            (negative[i], -1.0 / a, 1e-5),
            (root[i], 1.0 / a.sqrt(), 5e-6),
        ] {
            let error = (f64::from(got) / want - 1.0).abs();
            assert!(error <= tolerance, "at {a}: {got} instead of {want}");
        }
    }
    let f = Func::new("f64_inverse");
    let err = f
        .define(x, fast_inverse_sqrt(cast_to::<f64>(x)))
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("fast_inverse_sqrt needs an f32 argument"),
        "{err}"
    );
}
