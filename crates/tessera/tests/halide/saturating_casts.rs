//! Halide's `test/correctness/saturating_casts.cpp`: `saturating_cast` from each of the ten
//! integer and float types to each of them, of 0, 1, -1, the source type's extremes
//! (infinities for floats) and the target type's extremes converted to the source type
//! (clamped where a float does not fit), against a clamp in Rust (float sources clamp from
//! below, then saturate at the top; float targets take the value). Halide's concise casts
//! from integer sources are checked too: the plain ones wrap (`as`), the `_sat` ones are
//! `saturating_cast`. Halide realizes one pipeline per pair; here one per source type
//! computes a Tuple of every cast, reading the target type's test values from its own row
//! of the input. The casts of f64 to f32 are a separate, ignored case: Tessera clamps them
//! to f32's finite range where Halide keeps infinities.

use crate::lower_common::{check, same_bits, TestInputs};
use tessera::prelude::*;

const TYPES: [Type; 10] = [
    Type::i8(),
    Type::u8(),
    Type::i16(),
    Type::u16(),
    Type::i32(),
    Type::u32(),
    Type::i64(),
    Type::u64(),
    Type::f32(),
    Type::f64(),
];

/// A value of any of the types, exactly.
#[derive(Clone, Copy, Debug)]
enum Num {
    I(i128),
    F(f64),
}

/// `n` converted to `ty` as C++ does, with float-to-integer conversions clamped first
/// (Halide's `safe_numeric_cast`): integers wrap, floats round to the nearest.
fn convert(n: Num, ty: Type) -> Num {
    match (n, ty.is_float()) {
        (Num::I(v), false) => {
            let bits = u32::from(ty.bits);
            let m = v.rem_euclid(1i128 << bits);
            Num::I(if ty.is_int() && m >= 1i128 << (bits - 1) {
                m - (1i128 << bits)
            } else {
                m
            })
        }
        (Num::F(x), false) => {
            let clamped = x.clamp(ty.int_min() as f64, ty.int_max() as f64);
            Num::I((clamped as i128).clamp(ty.int_min(), ty.int_max()))
        }
        (Num::I(v), true) => Num::F(if ty.bits == 32 {
            f64::from(v as f32)
        } else {
            v as f64
        }),
        (Num::F(x), true) => Num::F(if ty.bits == 32 {
            f64::from(x as f32)
        } else {
            x
        }),
    }
}

/// Halide's expected `saturating_cast<target>(n)`.
fn saturate(n: Num, target: Type) -> Num {
    if target.is_float() {
        return convert(n, target);
    }
    let (lo, hi) = (target.int_min(), target.int_max());
    match n {
        Num::I(v) => Num::I(v.clamp(lo, hi)),
        Num::F(x) => {
            let bounded = x.max(lo as f64);
            Num::I(if bounded >= hi as f64 {
                hi
            } else {
                bounded as i128
            })
        }
    }
}

fn value(n: Num, ty: Type) -> Value {
    match n {
        Num::I(v) if ty.is_int() => Value::Int(v as i64),
        Num::I(v) => Value::UInt(v as u64),
        Num::F(x) if ty.bits == 32 => Value::F32(x as f32),
        Num::F(x) => Value::F64(x),
    }
}

/// The extremes of `ty` (infinities for floats).
fn extremes(ty: Type) -> (Num, Num) {
    if ty.is_float() {
        (Num::F(f64::NEG_INFINITY), Num::F(f64::INFINITY))
    } else {
        (Num::I(ty.int_min()), Num::I(ty.int_max()))
    }
}

/// Halide's seven test values of a cast from `source` to `target`, in `source`.
fn test_values(source: Type, target: Type) -> [Num; 7] {
    let one = |v: i128| {
        if source.is_float() {
            Num::F(v as f64)
        } else {
            convert(Num::I(v), source)
        }
    };
    let (source_min, source_max) = extremes(source);
    let (target_min, target_max) = extremes(target);
    [
        one(0),
        one(1),
        one(-1),
        source_max,
        source_min,
        convert(target_min, source),
        convert(target_max, source),
    ]
}

/// The casts from `source`, the results to the target types `checked` picks checked.
fn casts_from(source: Type, checked: impl Fn(Type) -> bool) {
    let input = ImageParam::new(source, 2, "in");
    let mut data = AnyBuffer::with_mins(source, &[0, 0], &[7, TYPES.len() as i64]).unwrap();
    for (row, &target) in TYPES.iter().enumerate() {
        for (i, n) in test_values(source, target).into_iter().enumerate() {
            data.set_value(&[i as i64, row as i64], value(n, source));
        }
    }
    let x = Var::new("x");
    let row = |k: usize| input.at((x, k as i32));
    // Every saturating cast, then (integer sources) the plain casts to integer types.
    let mut values: Vec<Expr> = (0..TYPES.len())
        .map(|k| saturating_cast(TYPES[k], row(k)))
        .collect();
    let integer_targets = if source.is_float() { 0 } else { 8 };
    values.extend((0..integer_targets).map(|k| cast(TYPES[k], row(k))));
    let f = Func::new("f");
    f.define(x, Tuple(values)).unwrap();
    let run = check(&f, &TestInputs::new().image(&input, data), &[0], &[7]);
    for (v, out) in run.realization.buffers.iter().enumerate() {
        let (target, saturating) = if v < TYPES.len() {
            (TYPES[v], true)
        } else {
            (TYPES[v - TYPES.len()], false)
        };
        if !checked(target) {
            continue;
        }
        for (i, n) in test_values(source, target).into_iter().enumerate() {
            let n = convert(n, source);
            let expected = if saturating {
                saturate(n, target)
            } else {
                convert(n, target)
            };
            let got = out.get_value(&[i as i64]);
            assert!(
                same_bits(got, value(expected, target)),
                "{source} -> {target} (saturating: {saturating}) of {n:?}: {got:?}, expected {expected:?}"
            );
        }
    }
}

macro_rules! sources {
    ($($name:ident: $ty:expr;)*) => {
        $(
            #[test]
            fn $name() {
                casts_from($ty, |_| true);
            }
        )*
    };
}

sources! {
    from_i8: Type::i8();
    from_u8: Type::u8();
    from_i16: Type::i16();
    from_u16: Type::u16();
    from_i32: Type::i32();
    from_u32: Type::u32();
    from_i64: Type::i64();
    from_u64: Type::u64();
    from_f32: Type::f32();
}

#[test]
fn from_f64_to_all_but_f32() {
    casts_from(Type::f64(), |t| t != Type::f32());
}

#[test]
fn from_f64_to_f32() {
    casts_from(Type::f64(), |t| t == Type::f32());
}
