//! Halide's `test/correctness/float16_t_comparison.cpp`: the bits of f16 constants and the
//! six comparisons of f16 values — ordinary numbers, a negative one, NaN (never equal to
//! itself), signed zeros (equal) and infinities — computed by a pipeline (vectorized by 8,
//! on the evaluator, the interpreter and native code) and checked against Rust's comparisons
//! of the values widened to f32, and against what Halide's test asserts.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

/// The outcomes of `==`, `!=`, `<`, `<=`, `>`, `>=` of each pair, from a pipeline.
fn compare_in_pipeline(pairs: &[(f16, f16)]) -> Vec<[bool; 6]> {
    // The pairs repeated over two vectors: a vector of 8 needs 8 points.
    let n = 16;
    let pairs: Vec<(f16, f16)> = pairs.iter().copied().cycle().take(n as usize).collect();
    let image =
        |pick: fn(&(f16, f16)) -> f16| Buffer::from_fn(&[0], &[n], |c| pick(&pairs[c[0] as usize]));
    let (a, b) = (
        ImageParam::new(Type::f16(), 1, "a"),
        ImageParam::new(Type::f16(), 1, "b"),
    );
    let x = Var::new("x");
    let comparisons = [
        a.at(x).eq_(b.at(x)),
        a.at(x).ne_(b.at(x)),
        a.at(x).lt(b.at(x)),
        a.at(x).le(b.at(x)),
        a.at(x).gt(b.at(x)),
        a.at(x).ge(b.at(x)),
    ];
    // One bit per comparison.
    let mask = comparisons
        .into_iter()
        .enumerate()
        .map(|(i, c)| select(c, 1 << i, 0))
        .reduce(|sum, bit| sum + bit)
        .unwrap();
    let outcomes = Func::new("outcomes");
    outcomes.define(x, mask).unwrap();
    outcomes.vectorize(x, 8);
    let inputs = TestInputs::new()
        .image(&a, image(|p| p.0))
        .image(&b, image(|p| p.1));
    let run = check(&outcomes, &inputs, &[0], &[n]);
    let out: Buffer<i32> = run.realization.buffers[0].clone().try_into().unwrap();
    let outcomes: Vec<[bool; 6]> = (0..n)
        .map(|i| std::array::from_fn(|bit| out.get(&[i]) & (1 << bit) != 0))
        .collect();
    for (&(x, y), got) in pairs.iter().zip(&outcomes) {
        let (x, y) = (x.to_f32(), y.to_f32());
        let want = [x == y, x != y, x < y, x <= y, x > y, x >= y];
        assert_eq!(*got, want, "comparisons of {x} and {y}");
    }
    outcomes
}

const EQ: usize = 0;
const NE: usize = 1;
const LT: usize = 2;
const LE: usize = 3;
const GT: usize = 4;
const GE: usize = 5;

/// The bits of an f16 constant computed by a pipeline.
fn constant_bits(v: f64) -> u16 {
    let f = Func::new("constant");
    f.define((), Expr::make_float(Type::f16(), v)).unwrap();
    let run = check(&f, &TestInputs::new(), &[], &[]);
    let out: Buffer<f16> = run.realization.buffers[0].clone().try_into().unwrap();
    out.get(&[]).to_bits()
}

#[test]
fn bit_patterns_of_one_and_one_and_a_quarter() {
    assert_eq!(constant_bits(1.0), 0x3c00);
    assert_eq!(constant_bits(1.25), 0x3d00);
}

#[test]
fn ordinary_numbers_compare() {
    let (one, one_and_a_quarter) = (f16::from_f32(1.0), f16::from_f32(1.25));
    let r = compare_in_pipeline(&[
        (one, one_and_a_quarter),
        (one_and_a_quarter, one),
        (one, one),
    ]);
    assert!(!r[0][EQ] && r[0][NE] && r[0][LT] && r[0][LE]);
    assert!(r[1][GT] && r[1][GE]);
    assert!(r[2][GE] && r[2][EQ]);
}

#[test]
fn a_negative_number_compares() {
    let (one, minus_one) = (f16::from_f32(1.0), -f16::from_f32(1.0));
    let r = compare_in_pipeline(&[(minus_one, one), (one, minus_one)]);
    assert!(r[0][LT] && r[1][GT]);
}

#[test]
fn nan_is_never_equal_to_itself() {
    let r = compare_in_pipeline(&[(f16::NAN, f16::NAN)]);
    assert!(r[0][NE] && !r[0][EQ]);
}

#[test]
fn signed_zeros_are_equal() {
    let r = compare_in_pipeline(&[(f16::ZERO, f16::NEG_ZERO)]);
    assert!(r[0][EQ]);
}

#[test]
fn infinities_compare() {
    let (one, minus_one) = (f16::from_f32(1.0), -f16::from_f32(1.0));
    let (inf, minus_inf) = (f16::INFINITY, f16::NEG_INFINITY);
    let r = compare_in_pipeline(&[
        (inf, minus_inf),
        (minus_inf, inf),
        (one, inf),
        (minus_one, inf),
        (one, minus_inf),
        (minus_one, minus_inf),
    ]);
    assert!(r[0][GT] && r[1][LT] && r[2][LT] && r[3][LT] && r[4][GT] && r[5][GT]);
}
