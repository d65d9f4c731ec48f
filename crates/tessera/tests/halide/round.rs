//! Halide's `test/correctness/round.cpp`: `round` (to nearest, ties to even), `floor`, `ceil`
//! and `trunc` of f32 and f64 inputs — halves, values just below a half, signed zeros, and
//! integers at the edge of the types' precision — scalar and vectorized by 2, 4 and 8.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

type Unary = fn(Expr) -> Expr;

fn run_all<T: Scalar + Copy + PartialEq + std::fmt::Debug>(
    ty: Type,
    input: &[T],
    cases: &[(&str, Unary, &[T])],
) where
    Buffer<T>: Into<AnyBuffer>,
{
    let n = input.len() as i64;
    let data = Buffer::<T>::from_fn(&[0], &[n], |c| input[c[0] as usize]);
    for (name, op, expected) in cases {
        for width in [1, 2, 4, 8] {
            let image = ImageParam::new(ty, 1, "input");
            let x = Var::new("x");
            let f = Func::new("f");
            f.define(x, op(image.at(x))).unwrap();
            if width > 1 {
                f.vectorize(x, width);
            }
            let run = check(
                &f,
                &TestInputs::new().image(&image, data.clone()),
                &[0],
                &[n],
            );
            let out = &run.realization.buffers[0];
            for i in 0..n {
                let got = T::from_value(out.get_value(&[i]));
                assert_eq!(
                    got, expected[i as usize],
                    "{name}({:?}) x {width}",
                    input[i as usize]
                );
            }
        }
    }
}

#[test]
fn f32_rounding() {
    let input: [f32; 22] = [
        -2.6,
        -2.5,
        -2.3,
        -1.5,
        -1.0,
        -0.5,
        -0.49999997,
        -0.2,
        -0.0,
        2.6,
        2.5,
        2.3,
        1.5,
        1.0,
        0.5,
        0.49999997,
        0.2,
        0.0,
        8388609.0,
        -8388609.0,
        16777216.0,
        -16777218.0,
    ];
    let big = [8388609.0, -8388609.0, 16777216.0, -16777218.0];
    let with_big = |small: [f32; 18]| -> Vec<f32> { small.iter().chain(&big).copied().collect() };
    let round_r = with_big([
        -3.0, -2.0, -2.0, -2.0, -1.0, -0.0, -0.0, -0.0, -0.0, 3.0, 2.0, 2.0, 2.0, 1.0, 0.0, 0.0,
        0.0, 0.0,
    ]);
    let floor_r = with_big([
        -3.0, -3.0, -3.0, -2.0, -1.0, -1.0, -1.0, -1.0, -0.0, 2.0, 2.0, 2.0, 1.0, 1.0, 0.0, 0.0,
        0.0, 0.0,
    ]);
    let ceil_r = with_big([
        -2.0, -2.0, -2.0, -1.0, -1.0, -0.0, -0.0, -0.0, -0.0, 3.0, 3.0, 3.0, 2.0, 1.0, 1.0, 1.0,
        1.0, 0.0,
    ]);
    let trunc_r = with_big([
        -2.0, -2.0, -2.0, -1.0, -1.0, -0.0, -0.0, -0.0, -0.0, 2.0, 2.0, 2.0, 1.0, 1.0, 0.0, 0.0,
        0.0, 0.0,
    ]);
    run_all::<f32>(
        Type::f32(),
        &input,
        &[
            ("round", |e| round(e), &round_r),
            ("floor", |e| floor(e), &floor_r),
            ("ceil", |e| ceil(e), &ceil_r),
            ("trunc", |e| trunc(e), &trunc_r),
        ],
    );
}

#[test]
fn f64_rounding() {
    let input: [f64; 24] = [
        -2.6,
        -2.5,
        -2.3,
        -1.5,
        -1.0,
        -0.5,
        -0.49999999999999994,
        -0.2,
        -0.0,
        2.6,
        2.5,
        2.3,
        1.5,
        1.0,
        0.5,
        0.49999999999999994,
        0.2,
        0.0,
        8388609.0,
        -8388610.0,
        16777216.0,
        -16777218.0,
        4503599627370497.0,
        -4503599627370497.0,
    ];
    let big = [
        8388609.0,
        -8388610.0,
        16777216.0,
        -16777218.0,
        4503599627370497.0,
        -4503599627370497.0,
    ];
    let with_big = |small: [f64; 18]| -> Vec<f64> { small.iter().chain(&big).copied().collect() };
    let round_r = with_big([
        -3.0, -2.0, -2.0, -2.0, -1.0, -0.0, -0.0, -0.0, -0.0, 3.0, 2.0, 2.0, 2.0, 1.0, 0.0, 0.0,
        0.0, 0.0,
    ]);
    let floor_r = with_big([
        -3.0, -3.0, -3.0, -2.0, -1.0, -1.0, -1.0, -1.0, -0.0, 2.0, 2.0, 2.0, 1.0, 1.0, 0.0, 0.0,
        0.0, 0.0,
    ]);
    let ceil_r = with_big([
        -2.0, -2.0, -2.0, -1.0, -1.0, -0.0, -0.0, -0.0, -0.0, 3.0, 3.0, 3.0, 2.0, 1.0, 1.0, 1.0,
        1.0, 0.0,
    ]);
    let trunc_r = with_big([
        -2.0, -2.0, -2.0, -1.0, -1.0, -0.0, -0.0, -0.0, -0.0, 2.0, 2.0, 2.0, 1.0, 1.0, 0.0, 0.0,
        0.0, 0.0,
    ]);
    run_all::<f64>(
        Type::f64(),
        &input,
        &[
            ("round", |e| round(e), &round_r),
            ("floor", |e| floor(e), &floor_r),
            ("ceil", |e| ceil(e), &ceil_r),
            ("trunc", |e| trunc(e), &trunc_r),
        ],
    );
}
