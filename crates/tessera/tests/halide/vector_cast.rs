//! Halide's `test/correctness/vector_cast.cpp`: `cast<B>(input(x, y))` for every pair of the
//! types f32, f64, u8, u16, u32, i8, i16 and i32, vectorized by 1, 2, 4, ..., 64 lanes,
//! against the same conversion in plain Rust. The inputs are `(rand() & 0xffff) / 512`
//! converted to the source type (in [0, 128), so every conversion is in range). One test per
//! source type; 128 x 1 points instead of 1024 x 1 (two vectors of the widest width).

use crate::lower_common::{check, seeded_rng, TestInputs};
use rand::Rng;
use tessera::prelude::*;

const W: i64 = 128;

const TYPES: [fn() -> Type; 8] = [
    Type::f32,
    Type::f64,
    Type::u8,
    Type::u16,
    Type::u32,
    Type::i8,
    Type::i16,
    Type::i32,
];

/// A 1-row buffer of type `ty` holding `values` (each exactly representable in `ty`).
fn typed_buffer(ty: Type, values: &[f64]) -> AnyBuffer {
    macro_rules! of {
        ($t:ty) => {
            Buffer::<$t>::from_fn(&[0, 0], &[W, 1], |p| values[p[0] as usize] as $t).into()
        };
    }
    match (ty.is_float(), ty.is_int(), ty.bits) {
        (true, _, 32) => of!(f32),
        (true, _, 64) => of!(f64),
        (false, false, 8) => of!(u8),
        (false, false, 16) => of!(u16),
        (false, false, 32) => of!(u32),
        (false, true, 8) => of!(i8),
        (false, true, 16) => of!(i16),
        (false, true, 32) => of!(i32),
        _ => panic!("untested type {ty}"),
    }
}

fn casts_from(src: Type) {
    let mut rng = seeded_rng("vector_cast", 1024);
    // Halide's (A)((rand() & 0xffff) / 512.0): integer types keep the whole part.
    let values: Vec<f64> = (0..W)
        .map(|_| {
            let v = f64::from(rng.random::<u16>()) / 512.0;
            if src.is_float() {
                v
            } else {
                v.trunc()
            }
        })
        .collect();
    let input = ImageParam::new(src, 2, "input");
    let inputs = TestInputs::new().image(&input, typed_buffer(src, &values));
    for dst in TYPES.map(|t| t()) {
        for lanes in [1, 2, 4, 8, 16, 32, 64] {
            let (x, y) = (Var::new("x"), Var::new("y"));
            let f = Func::new("f");
            f.define((x, y), cast(dst, input.at((x, y)))).unwrap();
            if lanes > 1 {
                f.vectorize(x, lanes);
            }
            let run = check(&f, &inputs, &[0, 0], &[W, 1]);
            let out = &run.realization.buffers[0];
            assert_eq!(out.ty(), dst);
            for (i, &v) in values.iter().enumerate() {
                // Every value is exact in every float type (at most 16 significant bits).
                let want = if dst.is_float() { v } else { v.trunc() };
                let got = out.get_value(&[i as i64, 0]).as_f64();
                assert_eq!(got, want, "{src} x {lanes} -> {dst} at {i}: {v}");
            }
        }
    }
}

#[test]
fn from_f32() {
    casts_from(Type::f32());
}

#[test]
fn from_f64() {
    casts_from(Type::f64());
}

#[test]
fn from_u8() {
    casts_from(Type::u8());
}

#[test]
fn from_u16() {
    casts_from(Type::u16());
}

#[test]
fn from_u32() {
    casts_from(Type::u32());
}

#[test]
fn from_i8() {
    casts_from(Type::i8());
}

#[test]
fn from_i16() {
    casts_from(Type::i16());
}

#[test]
fn from_i32() {
    casts_from(Type::i32());
}
