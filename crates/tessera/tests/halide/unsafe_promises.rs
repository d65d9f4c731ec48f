//! Halide's `test/correctness/unsafe_promises.cpp`: `unsafe_promise_clamped(e, lo, hi)`
//! lets bounds inference take `e` in `[lo, hi]` without a clamp: a lookup table of 1024
//! entries indexed by 10-bit data in u16, and the bounds Halide infers for a table indexed by
//! u8 data promised at most 99 ([0, 100)) or at least 10 ([10, 256)). Tessera has no
//! `unsafe_promise_clamped` (nor `infer_input_bounds`): each case runs the lookup without the
//! promise, with the table Halide's bounds give, and is ignored with what Tessera requires.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

/// `f(x) = lut(in(x))` over [0, n) with `data` and a table over `[lut_min, lut_min + lut_n)`.
fn lookup<T: Scalar>(ty: Type, data: Buffer<T>, lut_min: i64, lut_n: i64) -> Vec<f32>
where
    AnyBuffer: From<Buffer<T>>,
{
    let input = ImageParam::new(ty, 1, "in");
    let lut = ImageParam::new(Type::f32(), 1, "lut");
    let x = Var::new("x");
    let f = Func::new("f");
    // Halide: lut(unsafe_promise_clamped(in(x), lo, hi)).
    f.define(x, lut.at(cast_to::<i32>(input.at(x)))).unwrap();
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
#[ignore = "no unsafe_promise_clamped: the u16 index needs lut over [0, 65535], not the 1024 entries given"]
fn ten_bit_data_in_u16_indexes_a_1024_entry_table() {
    let data = Buffer::<u16>::from_fn(&[0], &[100], |p| (p[0] * 10) as u16);
    let got = lookup(Type::u16(), data, 0, 1024);
    for (i, v) in got.iter().enumerate() {
        let want = (2.0 * std::f32::consts::PI * (i * 10) as f32 / 1024.0).sin();
        assert_eq!(*v, want, "f({i})");
    }
}

#[test]
#[ignore = "no unsafe_promise_clamped: the u8 index needs lut over [0, 255], not Halide's inferred [0, 100)"]
fn a_promised_maximum_bounds_the_table() {
    let data = Buffer::<u8>::from_fn(&[0], &[10], |p| (p[0] * 9) as u8);
    lookup(Type::u8(), data, 0, 100);
}

#[test]
#[ignore = "no unsafe_promise_clamped: the u8 index needs lut over [0, 255], not Halide's inferred [10, 256)"]
fn a_promised_minimum_bounds_the_table() {
    let data = Buffer::<u8>::from_fn(&[0], &[10], |p| (p[0] * 9 + 10) as u8);
    lookup(Type::u8(), data, 10, 246);
}
