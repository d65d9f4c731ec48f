//! Halide's `test/correctness/atomics.cpp` (the CPU part): a histogram whose update is
//! `atomic()` and parallel over its reduction domain — an atomic add, and an update
//! `hist(i) = max(hist(i) + 1, 100)` that needs a compare-and-swap loop — for every integer
//! and float type, checked against plain Rust (integer counts wrap in their type). Halide runs
//! each 100 or 1000 times to provoke races; the interpreter runs each pipeline under several
//! parallel orders.
//!
//! float16 and the GPU backends are left out.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

/// `im(x) = x² % bins`, and `hist(im(r)) = update(hist(im(r)))` over `r` in [0, size),
/// parallel over r.
fn parallel_histogram(ty: Type, size: i32, bins: i32, update: impl Fn(Expr) -> Expr) -> Func {
    let x = Var::new("x");
    let im = Func::new("im");
    im.define(x, (x * x) % bins).unwrap();
    let r = RDom::named("r", [(0, size)]);
    let hist = Func::new("hist");
    hist.define(x, cast(ty, 0)).unwrap();
    let bin = im.at(r.x());
    hist.update(bin.clone(), update(hist.at(bin))).unwrap();
    hist.compute_root();
    hist.update_stage(0).atomic().parallel(r.x());
    hist
}

/// `v` as a value of `ty` (integers wrap), in f64.
fn in_type(ty: Type, v: i64) -> f64 {
    if ty.is_float() {
        return v as f64;
    }
    let bits = u32::from(ty.bits);
    let wrapped = if bits == 64 {
        v
    } else {
        v & ((1i64 << bits) - 1)
    };
    if ty.is_int() && bits < 64 && wrapped >= 1 << (bits - 1) {
        (wrapped - (1 << bits)) as f64
    } else {
        wrapped as f64
    }
}

fn assert_histogram(hist: &Func, ty: Type, expected: &[f64]) {
    let run = check(hist, &TestInputs::new(), &[0], &[expected.len() as i64]);
    let out = &run.realization.buffers[0];
    for (i, &want) in expected.iter().enumerate() {
        let got = out.get_value(&[i as i64]).as_f64();
        assert_eq!(got, want, "{ty}: bin {i}");
    }
}

/// The histogram of `x² % bins` over [0, size), each bin updated by `update` in type `ty`.
fn expected_histogram(ty: Type, size: i64, bins: i64, update: impl Fn(f64) -> f64) -> Vec<f64> {
    let mut hist = vec![0.0; bins as usize];
    for i in 0..size {
        let bin = ((i * i) % bins) as usize;
        let v = update(hist[bin] + 1.0);
        hist[bin] = if ty.is_float() {
            v
        } else {
            in_type(ty, v as i64)
        };
    }
    hist
}

const TYPES: [Type; 10] = [
    Type::u8(),
    Type::i8(),
    Type::u16(),
    Type::i16(),
    Type::u32(),
    Type::i32(),
    Type::f32(),
    Type::u64(),
    Type::i64(),
    Type::f64(),
];

#[test]
fn parallel_histogram_with_atomic_adds() {
    let (size, bins) = (10000, 7);
    for ty in TYPES {
        let expected = expected_histogram(ty, size.into(), bins.into(), |v| v);
        let hist = parallel_histogram(ty, size, bins, |h| h.clone() + cast(ty, 1));
        assert_histogram(&hist, ty, &expected);
    }
}

#[test]
fn parallel_update_needing_compare_and_swap() {
    let (size, bins) = (1000, 13);
    for ty in TYPES {
        // The sum wraps before the max is taken.
        let expected = expected_histogram(ty, size.into(), bins.into(), |v| {
            let wrapped = if ty.is_float() {
                v
            } else {
                in_type(ty, v as i64)
            };
            wrapped.max(100.0)
        });
        let hist = parallel_histogram(ty, size, bins, |h| max(h + cast(ty, 1), cast(ty, 100)));
        assert_histogram(&hist, ty, &expected);
    }
}
