//! Halide's `test/correctness/isnan.cpp`: `is_nan`, `is_inf` and `is_finite` of f32 values,
//! vectorized by 8 over a 16x16 output, both for values computed in the pipeline
//! (`sqrt(x - y)`, and `(x - 8) / (y - 8)`, which is infinite on the row y = 8 and NaN at
//! (8, 8)) and for the same values handed in as an input image. Halide wraps the computed
//! case in `strict_float` because it otherwise compiles with fast math; Tessera has no fast
//! math (and no `strict_float`), so the expressions are used as they are.

use crate::lower_common::{check, Checked, TestInputs};
use tessera::prelude::*;

const W: i64 = 16;
const H: i64 = 16;

fn f32_values(run: &Checked) -> &Buffer<f32> {
    match &run.realization.buffers[0] {
        AnyBuffer::F32(b) => b,
        _ => panic!("the output is f32"),
    }
}

fn sqrt_of_difference(x: i64, y: i64) -> f32 {
    ((x - y) as f32).sqrt()
}

fn centered_ratio(x: i64, y: i64) -> f32 {
    (x - W / 2) as f32 / (y - H / 2) as f32
}

/// `select(test(value), if_true, if_false)` over 16x16, vectorized by 8: computed in the
/// pipeline from `computed`, or read from an image holding `reference`'s values.
fn run_predicate(
    test: fn(Expr) -> Expr,
    computed: Expr,
    reference: fn(i64, i64) -> f32,
    if_true: f32,
    if_false: f32,
    from_image: bool,
) -> Checked {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let input = ImageParam::new(Type::f32(), 2, "in");
    let value = if from_image {
        input.at((x, y))
    } else {
        computed
    };
    let f = Func::new("f");
    f.define((x, y), select(test(value), if_true, if_false))
        .unwrap();
    f.vectorize(x, 8);
    let mut inputs = TestInputs::new();
    if from_image {
        let data = Buffer::<f32>::from_fn(&[0, 0], &[W, H], |c| reference(c[0], c[1]));
        inputs = inputs.image(&input, data);
    }
    check(&f, &inputs, &[0, 0], &[W, H])
}

fn check_nans(from_image: bool) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let run = run_predicate(
        is_nan,
        sqrt(x - y),
        sqrt_of_difference,
        0.0,
        1.0,
        from_image,
    );
    let out = f32_values(&run);
    for yy in 0..H {
        for xx in 0..W {
            let want = if xx - yy < 0 { 0.0 } else { 1.0 };
            assert_eq!(out.get(&[xx, yy]), want, "sqrt({xx} - {yy})");
        }
    }
}

fn check_ratio(test: fn(Expr) -> Expr, reference: fn(f32) -> bool, from_image: bool) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let e = cast_to::<f32>(x - (W / 2) as i32) / cast_to::<f32>(y - (H / 2) as i32);
    let run = run_predicate(test, e, centered_ratio, 1.0, 0.0, from_image);
    let out = f32_values(&run);
    for yy in 0..H {
        for xx in 0..W {
            let e = centered_ratio(xx, yy);
            let want = if reference(e) { 1.0 } else { 0.0 };
            assert_eq!(out.get(&[xx, yy]), want, "({xx} - 8) / ({yy} - 8) = {e}");
        }
    }
}

#[test]
fn is_nan_of_computed_values() {
    check_nans(false);
}

#[test]
fn is_nan_of_an_input_image() {
    check_nans(true);
}

#[test]
fn is_inf_of_computed_values() {
    check_ratio(is_inf, f32::is_infinite, false);
}

#[test]
fn is_inf_of_an_input_image() {
    check_ratio(is_inf, f32::is_infinite, true);
}

#[test]
fn is_finite_of_computed_values() {
    check_ratio(is_finite, f32::is_finite, false);
}

#[test]
fn is_finite_of_an_input_image() {
    check_ratio(is_finite, f32::is_finite, true);
}
