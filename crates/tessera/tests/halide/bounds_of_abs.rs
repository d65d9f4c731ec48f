//! Halide's `test/correctness/bounds_of_abs.cpp`: the bounds of `abs` — of an i8 (up to
//! 128), an i16 (up to 32768), a float converted from x, a reflecting boundary condition
//! `100 - |100 - x % 200|`, and `|1 / (x + 0.1)|` clamped to [-50, 50] (unbounded on one
//! side before the clamp) — give the region of an input indexed by them. Halide infers the
//! input's bounds for 12345 outputs from -1234 and checks them; here the input given covers
//! exactly that region (so Tessera must need no more) and the values are checked with plain
//! Rust.

use crate::check_input_region;
use crate::lower_common::TestInputs;
use tessera::prelude::*;

/// Halide's output: 12345 points from -1234.
const OUTPUT: (i64, i64) = (-1234, 12345);

fn indexed_by(index: impl Fn(Var) -> Expr, name: &str) -> (Func, ImageParam) {
    let input = ImageParam::new(Type::i32(), 1, "input");
    let x = Var::new("x");
    let f = Func::new(name);
    f.define(x, input.at(index(x))).unwrap();
    (f, input)
}

#[test]
fn abs_of_an_i8() {
    let (f, input) = indexed_by(|x| abs(cast(Type::i8(), x)), "f1");
    check_input_region(&f, &input, TestInputs::new(), OUTPUT, (0, 129), |x| {
        i64::from((x as i8).unsigned_abs())
    });
}

#[test]
fn abs_of_an_i16() {
    let (f, input) = indexed_by(|x| abs(cast(Type::i16(), x)), "f2");
    check_input_region(&f, &input, TestInputs::new(), OUTPUT, (0, 32769), |x| {
        i64::from((x as i16).unsigned_abs())
    });
}

#[test]
fn abs_of_a_float() {
    let (f, input) = indexed_by(|x| cast_to::<i32>(abs(cast_to::<f32>(x))), "f3");
    check_input_region(&f, &input, TestInputs::new(), OUTPUT, (0, 11111), |x| {
        (x as f32).abs() as i64
    });
}

#[test]
fn a_reflecting_boundary_condition() {
    let (f, input) = indexed_by(
        |x| Expr::from(100) - cast_to::<i32>(abs(Expr::from(100) - x % 200)),
        "f4",
    );
    check_input_region(&f, &input, TestInputs::new(), OUTPUT, (0, 101), |x| {
        100 - (100 - x.rem_euclid(200)).abs()
    });
}

#[test]
fn abs_unbounded_on_one_side_then_clamped() {
    let (f, input) = indexed_by(
        |x| cast_to::<i32>(clamp(abs(Expr::from(1.0f32) / (x + 0.1f32)), -50, 50)),
        "f5",
    );
    check_input_region(&f, &input, TestInputs::new(), OUTPUT, (0, 51), |x| {
        (1.0f32 / (x as f32 + 0.1f32)).abs().clamp(-50.0, 50.0) as i64
    });
}
