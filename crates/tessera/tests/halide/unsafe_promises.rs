//! Halide's `test/correctness/unsafe_promises.cpp`: `unsafe_promise_clamped(e, lo, hi)`
//! lets bounds inference take `e` in `[lo, hi]` without a clamp: a lookup table of 1024
//! entries indexed by 10-bit data in u16, and the bounds Halide infers for a table indexed by
//! u8 data promised at most 99 ([0, 100)) or at least 10 ([10, 256)). Tessera has no
//! `infer_input_bounds`: each case runs the lookup with a table of exactly the bounds Halide
//! infers, which the input checks of every backend accept only if no more is required.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

/// `f(x) = lut(unsafe_promise_clamped(in(x), lo, hi))` over [0, n) with `data` and a table
/// over `[lut_min, lut_min + lut_n)`.
fn lookup<T: Scalar>(
    ty: Type,
    data: Buffer<T>,
    (lo, hi): (Option<i32>, Option<i32>),
    lut_min: i64,
    lut_n: i64,
) -> Vec<f32>
where
    AnyBuffer: From<Buffer<T>>,
{
    let input = ImageParam::new(ty, 1, "in");
    let lut = ImageParam::new(Type::f32(), 1, "lut");
    let x = Var::new("x");
    let f = Func::new("f");
    // SAFETY: every test's data lies inside its promise, and `check` compiles with
    // `with_bounds_checks(true)`, so a broken promise would be reported, not read past `lut`.
    let index =
        unsafe { unsafe_promise_clamped(input.at(x), lo.map(Expr::from), hi.map(Expr::from)) };
    f.define(x, lut.at(cast_to::<i32>(index))).unwrap();
    let n = data.width();
    let table = Buffer::<f32>::from_fn(&[lut_min], &[lut_n], |p| {
        (2.0 * std::f32::consts::PI * p[0] as f32 / 1024.0).sin()
    });
    let inputs = TestInputs::new().image(&input, data).image(&lut, table);
    let run = check(&f, &inputs, &[0], &[n]);
    let AnyBuffer::F32(out) = &run.realization.buffers[0] else {
        panic!("f is f32");
    };
    (0..n).map(|i| out.get(&[i])).collect()
}

#[test]
fn ten_bit_data_in_u16_indexes_a_1024_entry_table() {
    let data = Buffer::<u16>::from_fn(&[0], &[100], |p| (p[0] * 10) as u16);
    let got = lookup(Type::u16(), data, (Some(0), Some(1023)), 0, 1024);
    for (i, v) in got.iter().enumerate() {
        let want = (2.0 * std::f32::consts::PI * (i * 10) as f32 / 1024.0).sin();
        assert_eq!(*v, want, "f({i})");
    }
}

#[test]
fn a_promised_maximum_bounds_the_table() {
    let data = Buffer::<u8>::from_fn(&[0], &[10], |p| (p[0] * 9) as u8);
    lookup(Type::u8(), data, (None, Some(99)), 0, 100);
}

#[test]
fn a_promised_minimum_bounds_the_table() {
    let data = Buffer::<u8>::from_fn(&[0], &[10], |p| (p[0] * 9 + 10) as u8);
    lookup(Type::u8(), data, (Some(10), None), 10, 246);
}
