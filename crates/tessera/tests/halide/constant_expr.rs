//! Halide's `test/correctness/constant_expr.cpp`: a constant of every scalar type (bool,
//! u8..u64, i8..i64, f32, f64) keeps its type and round-trips its value — zero, one, the
//! type's lowest, smallest and largest values, and int64/uint64/double edge cases whose two
//! 32-bit halves differ. Halide checks `scalar_to_constant_expr`/`scalar_from_constant_expr`;
//! here the constant is built with `Expr`'s constructors, read back with `as_int_const` /
//! `as_float_const`, and also realized as a zero-dimensional Func whose output must hold it.

use crate::realize;
use tessera::prelude::*;

/// A constant of `T`'s type holding `v`.
trait Constant: Scalar {
    fn constant(self) -> Expr;
    /// The constant's value read back from the expression.
    fn read_back(e: &Expr) -> Option<Self>;
}

macro_rules! int_constant {
    ($($t:ty),*) => {$(
        impl Constant for $t {
            fn constant(self) -> Expr {
                if <$t>::TYPE.is_int() {
                    Expr::make_const(<$t>::TYPE, self as i64)
                } else {
                    Expr::u64_const(<$t>::TYPE, self as u64)
                }
            }
            fn read_back(e: &Expr) -> Option<$t> {
                e.as_int_const().and_then(|v| <$t>::try_from(v).ok())
            }
        }
    )*};
}
int_constant!(u8, u16, u32, u64, i8, i16, i32, i64);

impl Constant for bool {
    fn constant(self) -> Expr {
        Expr::bool_(self)
    }
    fn read_back(e: &Expr) -> Option<bool> {
        e.as_int_const().map(|v| v != 0)
    }
}

impl Constant for f32 {
    fn constant(self) -> Expr {
        Expr::f32(self)
    }
    fn read_back(e: &Expr) -> Option<f32> {
        e.as_float_const().map(|v| v as f32)
    }
}

impl Constant for f64 {
    fn constant(self) -> Expr {
        Expr::f64(self)
    }
    fn read_back(e: &Expr) -> Option<f64> {
        e.as_float_const()
    }
}

fn round_trip<T: Constant>(value: T) {
    let e = value.constant();
    assert_eq!(
        e.ty(),
        T::TYPE,
        "the constant {value:?} has type {}",
        e.ty()
    );
    assert_eq!(
        T::read_back(&e),
        Some(value),
        "{} constant {value:?} does not round-trip",
        T::TYPE
    );
    let f = Func::new("f");
    f.define((), e).unwrap();
    let run = realize(&f, &[]);
    let out = &run.realization.buffers[0];
    assert_eq!(
        out.ty(),
        T::TYPE,
        "the Func of {value:?} has the wrong type"
    );
    assert_eq!(
        T::from_value(out.get_value(&[])),
        value,
        "{} constant realized",
        T::TYPE
    );
}

/// 0, 1, the lowest value, the smallest (positive, for floats) value, and the largest.
fn range<T: Constant>(zero: T, one: T, lowest: T, min: T, max: T) {
    for v in [zero, one, lowest, min, max] {
        round_trip(v);
    }
}

#[test]
fn zero_one_and_the_limits_of_every_type() {
    range(false, true, false, false, true);
    range(0u8, 1, u8::MIN, u8::MIN, u8::MAX);
    range(0u16, 1, u16::MIN, u16::MIN, u16::MAX);
    range(0u32, 1, u32::MIN, u32::MIN, u32::MAX);
    range(0i8, 1, i8::MIN, i8::MIN, i8::MAX);
    range(0i16, 1, i16::MIN, i16::MIN, i16::MAX);
    range(0i32, 1, i32::MIN, i32::MIN, i32::MAX);
    range(0i64, 1, i64::MIN, i64::MIN, i64::MAX);
    range(0u64, 1, u64::MIN, u64::MIN, u64::MAX);
    range(0f32, 1.0, f32::MIN, f32::MIN_POSITIVE, f32::MAX);
    range(0f64, 1.0, f64::MIN, f64::MIN_POSITIVE, f64::MAX);
}

/// 64-bit values whose high and low 32-bit halves differ in sign bits and carries.
const WIDE_EDGES: [u64; 13] = [
    0xffff_ffff_ffff_ffc0, // -64
    0x0000_0000_7fff_ffff,
    0x0000_0000_8000_0000,
    0x0000_0000_8000_0001,
    0x0000_0000_ffff_ffff,
    0x0000_0001_ffff_ffff,
    0x7fff_ffff_0000_0000,
    0x7fff_ffff_8000_0000,
    0xffff_ffff_8000_0000,
    0xffff_ffff_0000_0001,
    0x7fff_ffff_ffff_ffff,
    0x8000_0000_0000_0000,
    0x8000_0000_0000_0001,
];

#[test]
fn sixty_four_bit_integers_whose_halves_differ() {
    for bits in WIDE_EDGES {
        round_trip(bits as i64);
        round_trip(bits);
    }
}

#[test]
// Halide's own truncated pi, not the constant.
#[allow(clippy::approx_constant)]
fn float_and_double_edge_values() {
    round_trip(3.141592f32);
    round_trip(3.40282e38f32);
    round_trip(std::f64::consts::PI);
    round_trip(1.79769e308f64);
    round_trip(-1.79769e308f64);
}
