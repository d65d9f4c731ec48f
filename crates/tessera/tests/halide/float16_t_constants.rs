//! Halide's `test/correctness/float16_t_constants.cpp`, for its round-to-nearest-even cases:
//! the special constants (signed zeros, infinities, NaN) and 0.1, ±4091 and 0.3, which f16
//! cannot hold, made four ways in a pipeline — an f16 literal, a cast of an f32 and of an f64
//! literal, and casts of f32 and f64 Params, so native code converts too — each checked for
//! Halide's bits, and widened back to f32 and f64. Halide's directed rounding modes and
//! decimal strings are `float16_t`'s own (Tessera's constants always round to nearest even).

use crate::lower_common::{check, Checked, TestInputs};
use tessera::prelude::*;

/// The f16 bits of `v` as made each way: a literal, casts of f32 and f64 literals, casts of
/// f32 and f64 Params.
fn constructions(v: f64) -> Vec<u16> {
    let (p32, p64) = (Param::<f32>::new("p32"), Param::<f64>::new("p64"));
    let f = Func::new("constants");
    let made = vec![
        Expr::make_float(Type::f16(), v),
        cast_to::<f16>(Expr::from(v as f32)),
        cast_to::<f16>(Expr::from(v)),
        cast_to::<f16>(&p32),
        cast_to::<f16>(&p64),
    ];
    let count = made.len();
    f.define((), Tuple(made)).unwrap();
    let inputs = TestInputs::new()
        .param(p32.bind(v as f32))
        .param(p64.bind(v));
    let run = check(&f, &inputs, &[], &[]);
    (0..count)
        .map(|i| output::<f16>(&run, i).to_bits())
        .collect()
}

fn output<T: Scalar>(run: &Checked, index: usize) -> T
where
    Buffer<T>: TryFrom<AnyBuffer, Error = Error>,
{
    let b: Buffer<T> = run.realization.buffers[index].clone().try_into().unwrap();
    b.get(&[])
}

/// The f16 with bits `bits`, widened to f32 and f64 by a pipeline.
fn widened(bits: u16) -> (f32, f64) {
    let p = Param::<f16>::new("p");
    let f = Func::new("widened");
    f.define((), Tuple(vec![cast_to::<f32>(&p), cast_to::<f64>(&p)]))
        .unwrap();
    let run = check(
        &f,
        &TestInputs::new().param(p.bind(f16::from_bits(bits))),
        &[],
        &[],
    );
    (output::<f32>(&run, 0), output::<f64>(&run, 1))
}

/// Every construction of `v` gives `bits`.
fn assert_made_as(v: f64, bits: u16) {
    for (way, got) in constructions(v).into_iter().enumerate() {
        assert_eq!(
            got, bits,
            "{v} made the {way}th way is {got:#06x}, not {bits:#06x}"
        );
    }
}

#[test]
fn positive_zero() {
    assert_made_as(0.0, 0x0000);
    assert_eq!(f16::default().to_bits(), 0x0000);
    let (w32, w64) = widened(0x0000);
    assert!(w32 == 0.0 && w32.is_sign_positive() && w64 == 0.0 && w64.is_sign_positive());
}

#[test]
fn negative_zero() {
    assert_made_as(-0.0, 0x8000);
    let (w32, w64) = widened(0x8000);
    assert!(w32 == 0.0 && w32.is_sign_negative() && w64 == 0.0 && w64.is_sign_negative());
}

#[test]
fn positive_infinity() {
    assert_made_as(f64::INFINITY, 0x7c00);
    let (w32, w64) = widened(0x7c00);
    assert!(w32 == f32::INFINITY && w64 == f64::INFINITY);
}

#[test]
fn negative_infinity() {
    assert_made_as(f64::NEG_INFINITY, 0xfc00);
    let (w32, w64) = widened(0xfc00);
    assert!(w32 == f32::NEG_INFINITY && w64 == f64::NEG_INFINITY);
}

#[test]
fn nan() {
    for (way, bits) in constructions(f64::NAN).into_iter().enumerate() {
        assert_eq!(bits & 0x7c00, 0x7c00, "NaN made the {way}th way: exponent");
        assert!(bits & 0x03ff > 0, "NaN made the {way}th way: significand");
    }
    let (w32, w64) = widened(f16::NAN.to_bits());
    assert!(w32.is_nan() && w64.is_nan());
}

#[test]
fn point_one_rounds_down() {
    assert_made_as(0.1, 0x2e66);
    assert_eq!(widened(0x2e66).1, 0.0999755859375);
}

#[test]
fn four_thousand_and_ninety_one_rounds_up() {
    // A tie between 4090 and 4092 (f16 holds even integers there): to 4092, the even bits.
    assert_made_as(4091.0, 0x6bfe);
    assert_eq!(widened(0x6bfe), (4092.0, 4092.0));
}

#[test]
fn minus_four_thousand_and_ninety_one_rounds_down() {
    assert_made_as(-4091.0, 0xebfe);
    assert_eq!(widened(0xebfe), (-4092.0, -4092.0));
}

#[test]
fn point_three_rounds_up() {
    // Its round and sticky bits are both set.
    assert_made_as(0.3, 0x34cd);
    assert_eq!(widened(0x34cd).1, 0.300048828125);
}
