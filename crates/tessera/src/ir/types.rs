//! Scalar and vector types: a code (bool, signed, unsigned, float), a bit width and a lane
//! count, as in Halide. Also the limits of each type, which constant folding, saturating casts
//! and interval analysis all share.

use std::fmt;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
/// The kind of a type's elements.
pub enum TypeCode {
    /// `bool`, stored as one byte.
    Bool,
    /// A signed integer.
    Int,
    /// An unsigned integer.
    UInt,
    /// An IEEE floating-point number (16, 32 or 64 bits).
    Float,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
/// A scalar or vector type: an element kind, its width in bits and a lane count.
pub struct Type {
    /// The kind of each element.
    pub code: TypeCode,
    /// The width of each element in bits (1 for `bool`).
    pub bits: u8,
    /// The number of lanes: 1 for a scalar.
    pub lanes: u16,
}

impl Type {
    /// The type of `lanes` elements of kind `code`, `bits` wide.
    pub const fn new(code: TypeCode, bits: u8, lanes: u16) -> Type {
        Type { code, bits, lanes }
    }
    /// Scalar `bool`.
    pub const fn bool_() -> Type {
        Type::new(TypeCode::Bool, 1, 1)
    }
    /// A scalar signed integer `bits` wide.
    pub const fn int(bits: u8) -> Type {
        Type::new(TypeCode::Int, bits, 1)
    }
    /// A scalar unsigned integer `bits` wide.
    pub const fn uint(bits: u8) -> Type {
        Type::new(TypeCode::UInt, bits, 1)
    }
    /// A scalar float `bits` wide.
    pub const fn float(bits: u8) -> Type {
        Type::new(TypeCode::Float, bits, 1)
    }
    /// Scalar `i8`.
    pub const fn i8() -> Type {
        Type::int(8)
    }
    /// Scalar `i16`.
    pub const fn i16() -> Type {
        Type::int(16)
    }
    /// Scalar `i32`.
    pub const fn i32() -> Type {
        Type::int(32)
    }
    /// Scalar `i64`.
    pub const fn i64() -> Type {
        Type::int(64)
    }
    /// Scalar `u8`.
    pub const fn u8() -> Type {
        Type::uint(8)
    }
    /// Scalar `u16`.
    pub const fn u16() -> Type {
        Type::uint(16)
    }
    /// Scalar `u32`.
    pub const fn u32() -> Type {
        Type::uint(32)
    }
    /// Scalar `u64`.
    pub const fn u64() -> Type {
        Type::uint(64)
    }
    /// Scalar `f16`, IEEE half precision (Halide's `Float(16)`).
    pub const fn f16() -> Type {
        Type::float(16)
    }
    /// Scalar `f32`.
    pub const fn f32() -> Type {
        Type::float(32)
    }
    /// Scalar `f64`.
    pub const fn f64() -> Type {
        Type::float(64)
    }

    /// Every scalar type a Func value or image element may have.
    pub const ALL_SCALARS: [Type; 12] = [
        Type::bool_(),
        Type::u8(),
        Type::u16(),
        Type::u32(),
        Type::u64(),
        Type::i8(),
        Type::i16(),
        Type::i32(),
        Type::i64(),
        Type::f16(),
        Type::f32(),
        Type::f64(),
    ];

    /// This type with `lanes` lanes.
    pub const fn with_lanes(self, lanes: u16) -> Type {
        Type { lanes, ..self }
    }
    /// The type of one lane.
    pub const fn element(self) -> Type {
        self.with_lanes(1)
    }
    /// This type with elements of kind `code`.
    pub const fn with_code(self, code: TypeCode) -> Type {
        Type { code, ..self }
    }
    /// This type with elements `bits` wide.
    pub const fn with_bits(self, bits: u8) -> Type {
        Type { bits, ..self }
    }
    /// Whether the elements are `bool`.
    pub fn is_bool(self) -> bool {
        self.code == TypeCode::Bool
    }
    /// Whether the elements are signed integers.
    pub fn is_int(self) -> bool {
        self.code == TypeCode::Int
    }
    /// Whether the elements are unsigned integers.
    pub fn is_uint(self) -> bool {
        self.code == TypeCode::UInt
    }
    /// Whether the elements are floats.
    pub fn is_float(self) -> bool {
        self.code == TypeCode::Float
    }
    /// Int or UInt (bool is not an integer type for arithmetic purposes).
    pub fn is_int_or_uint(self) -> bool {
        matches!(self.code, TypeCode::Int | TypeCode::UInt)
    }
    /// Whether the type has one lane.
    pub fn is_scalar(self) -> bool {
        self.lanes == 1
    }
    /// Whether the type has more than one lane.
    pub fn is_vector(self) -> bool {
        self.lanes > 1
    }
    /// Size in bytes of one element (bool is stored as one byte).
    pub const fn bytes(self) -> usize {
        (self.bits as usize).div_ceil(8)
    }

    /// Smallest value of an integer type, as i128 so every integer type fits.
    pub fn int_min(self) -> i128 {
        match self.code {
            TypeCode::Int => -(1i128 << (self.bits - 1)),
            _ => 0,
        }
    }
    /// Largest value of an integer (or bool) type.
    pub fn int_max(self) -> i128 {
        match self.code {
            TypeCode::Int => (1i128 << (self.bits - 1)) - 1,
            TypeCode::UInt | TypeCode::Bool => (1i128 << self.bits) - 1,
            TypeCode::Float => panic!("int_max of a float type"),
        }
    }
    /// Whether integer `v` is representable in this (integer or bool) type.
    pub fn can_represent_int(self, v: i128) -> bool {
        match self.code {
            TypeCode::Float => v.unsigned_abs() <= 1u128 << self.float_precision(),
            _ => self.int_min() <= v && v <= self.int_max(),
        }
    }
    /// Whether every value of `other` is exactly representable in this type.
    pub fn can_represent_type(self, other: Type) -> bool {
        match (self.code, other.code) {
            (_, TypeCode::Bool) => true,
            (TypeCode::Float, TypeCode::Float) => self.bits >= other.bits,
            (TypeCode::Float, _) => other.bits as u32 <= self.float_precision(),
            (_, TypeCode::Float) => false,
            (TypeCode::Bool, _) => false,
            _ => self.int_min() <= other.int_min() && other.int_max() <= self.int_max(),
        }
    }
    /// The bits of precision of a float type (its stored mantissa bits plus the implicit one).
    fn float_precision(self) -> u32 {
        match self.bits {
            16 => 11,
            32 => 24,
            _ => 53,
        }
    }
    /// The Rust-like name: `u8`, `i32`, `f32`, `bool`, with `xN` for vectors.
    pub fn scalar_name(self) -> String {
        match self.code {
            TypeCode::Bool => "bool".to_string(),
            TypeCode::Int => format!("i{}", self.bits),
            TypeCode::UInt => format!("u{}", self.bits),
            TypeCode::Float => format!("f{}", self.bits),
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.lanes == 1 {
            f.write_str(&self.scalar_name())
        } else {
            write!(f, "{}x{}", self.scalar_name(), self.lanes)
        }
    }
}

impl fmt::Debug for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_and_representability() {
        assert_eq!(Type::u8().int_max(), 255);
        assert_eq!(Type::i16().int_min(), -32768);
        assert!(Type::i32().can_represent_type(Type::u16()));
        assert!(!Type::i32().can_represent_type(Type::u32()));
        assert!(Type::f32().can_represent_type(Type::u16()));
        assert!(!Type::f32().can_represent_type(Type::i32()));
        assert!(Type::f16().can_represent_type(Type::u8()));
        assert!(!Type::f16().can_represent_type(Type::i16()));
        assert!(Type::f16().can_represent_int(2048));
        assert!(!Type::f16().can_represent_int(65504));
        assert!(Type::f32().can_represent_type(Type::f16()));
        assert_eq!(Type::f16().with_lanes(8).to_string(), "f16x8");
        assert_eq!(Type::f32().with_lanes(16).to_string(), "f32x16");
        assert_eq!(Type::bool_().bytes(), 1);
    }
}
