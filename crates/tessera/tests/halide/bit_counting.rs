//! Halide's `test/correctness/bit_counting.cpp`: `popcount`, `count_leading_zeros` and
//! `count_trailing_zeros` of u16 and u32 images (small values, values near the type's maximum
//! and random ones), vectorized by 16, against bit-by-bit loops. As in Halide, the counts of
//! zeros of 0 are not checked against the reference (Halide leaves them undefined; the
//! evaluator comparison inside `check` still covers them). Halide's HVX schedule is left out.

use crate::lower_common::{check, seeded_rng, Checked, TestInputs};
use rand::Rng;
use tessera::prelude::*;

fn output<T: Scalar>(run: &Checked) -> Buffer<T>
where
    Buffer<T>: TryFrom<AnyBuffer, Error = Error>,
{
    run.realization.buffers[0].clone().try_into().unwrap()
}

/// The bits of one of the tested types, as u32, with its width.
trait Bits: Scalar + Into<u32> {
    const BITS: u32;
    fn truncate(v: u32) -> Self;
}
impl Bits for u16 {
    const BITS: u32 = 16;
    fn truncate(v: u32) -> u16 {
        v as u16
    }
}
impl Bits for u32 {
    const BITS: u32 = 32;
    fn truncate(v: u32) -> u32 {
        v
    }
}

fn ref_popcount(v: u32, bits: u32) -> u32 {
    (0..bits).filter(|b| v >> b & 1 == 1).count() as u32
}

fn ref_trailing(v: u32, bits: u32) -> u32 {
    (0..bits).find(|b| v >> b & 1 == 1).unwrap_or(0)
}

fn ref_leading(v: u32, bits: u32) -> u32 {
    (0..bits)
        .find(|b| v >> (bits - 1 - b) & 1 == 1)
        .unwrap_or(0)
}

fn input_image<T: Bits>(seed: u64) -> Buffer<T> {
    let mut rng = seeded_rng("bit_counting", seed);
    Buffer::from_fn(&[0], &[256], |p| {
        let i = p[0] as u32;
        T::truncate(if i < 16 {
            i
        } else if i < 32 {
            0xffff_ffff - i
        } else {
            rng.random::<u32>()
        })
    })
}

/// A counting function's name, its Tessera form and its reference `(value, bits) -> count`.
type Case = (&'static str, fn(Expr) -> Expr, fn(u32, u32) -> u32);

fn test_counts<T>(seed: u64)
where
    T: Bits,
    Buffer<T>: TryFrom<AnyBuffer, Error = Error> + Into<AnyBuffer>,
{
    let bits = T::BITS;
    let input = ImageParam::new(T::TYPE, 1, "input");
    let image = input_image::<T>(seed);
    let x = Var::new("x");
    let cases: [Case; 3] = [
        ("popcount", |e| popcount(e), ref_popcount),
        (
            "count_leading_zeros",
            |e| count_leading_zeros(e),
            ref_leading,
        ),
        (
            "count_trailing_zeros",
            |e| count_trailing_zeros(e),
            ref_trailing,
        ),
    ];
    for (name, op, reference) in cases {
        let f = Func::new(&format!("{name}_test"));
        f.define(x, op(input.at(x))).unwrap();
        f.vectorize(x, 16);
        let run = check(
            &f,
            &TestInputs::new().image(&input, image.clone()),
            &[0],
            &[256],
        );
        let out = output::<T>(&run);
        for i in 0..256 {
            let v: u32 = image.get(&[i]).into();
            if v == 0 && name != "popcount" {
                continue;
            }
            let got: u32 = out.get(&[i]).into();
            assert_eq!(got, reference(v, bits), "{name}({v:#x}) as u{bits}");
        }
    }
}

#[test]
fn u16_counts() {
    test_counts::<u16>(16);
}

#[test]
fn u32_counts() {
    test_counts::<u32>(32);
}
