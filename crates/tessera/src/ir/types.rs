//! Scalar and vector types: a code (bool, signed, unsigned, float), a bit width and a lane
//! count, as in Halide. Also the limits of each type, which constant folding, saturating casts
//! and interval analysis all share.

use std::fmt;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum TypeCode {
    Bool,
    Int,
    UInt,
    Float,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Type {
    pub code: TypeCode,
    pub bits: u8,
    pub lanes: u16,
}

impl Type {
    pub const fn new(code: TypeCode, bits: u8, lanes: u16) -> Type {
        Type { code, bits, lanes }
    }
    pub const fn bool_() -> Type {
        Type::new(TypeCode::Bool, 1, 1)
    }
    pub const fn int(bits: u8) -> Type {
        Type::new(TypeCode::Int, bits, 1)
    }
    pub const fn uint(bits: u8) -> Type {
        Type::new(TypeCode::UInt, bits, 1)
    }
    pub const fn float(bits: u8) -> Type {
        Type::new(TypeCode::Float, bits, 1)
    }
    pub const fn i8() -> Type {
        Type::int(8)
    }
    pub const fn i16() -> Type {
        Type::int(16)
    }
    pub const fn i32() -> Type {
        Type::int(32)
    }
    pub const fn i64() -> Type {
        Type::int(64)
    }
    pub const fn u8() -> Type {
        Type::uint(8)
    }
    pub const fn u16() -> Type {
        Type::uint(16)
    }
    pub const fn u32() -> Type {
        Type::uint(32)
    }
    pub const fn u64() -> Type {
        Type::uint(64)
    }
    pub const fn f32() -> Type {
        Type::float(32)
    }
    pub const fn f64() -> Type {
        Type::float(64)
    }

    /// Every scalar type a Func value or image element may have.
    pub const ALL_SCALARS: [Type; 11] = [
        Type::bool_(),
        Type::u8(),
        Type::u16(),
        Type::u32(),
        Type::u64(),
        Type::i8(),
        Type::i16(),
        Type::i32(),
        Type::i64(),
        Type::f32(),
        Type::f64(),
    ];

    pub const fn with_lanes(self, lanes: u16) -> Type {
        Type { lanes, ..self }
    }
    pub const fn element(self) -> Type {
        self.with_lanes(1)
    }
    pub const fn with_code(self, code: TypeCode) -> Type {
        Type { code, ..self }
    }
    pub const fn with_bits(self, bits: u8) -> Type {
        Type { bits, ..self }
    }
    pub fn is_bool(self) -> bool {
        self.code == TypeCode::Bool
    }
    pub fn is_int(self) -> bool {
        self.code == TypeCode::Int
    }
    pub fn is_uint(self) -> bool {
        self.code == TypeCode::UInt
    }
    pub fn is_float(self) -> bool {
        self.code == TypeCode::Float
    }
    /// Int or UInt (bool is not an integer type for arithmetic purposes).
    pub fn is_int_or_uint(self) -> bool {
        matches!(self.code, TypeCode::Int | TypeCode::UInt)
    }
    pub fn is_scalar(self) -> bool {
        self.lanes == 1
    }
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
            TypeCode::Float => {
                let mantissa = if self.bits == 32 { 24 } else { 53 };
                v.unsigned_abs() <= 1u128 << mantissa
            }
            _ => self.int_min() <= v && v <= self.int_max(),
        }
    }
    /// Whether every value of `other` is exactly representable in this type.
    pub fn can_represent_type(self, other: Type) -> bool {
        match (self.code, other.code) {
            (_, TypeCode::Bool) => true,
            (TypeCode::Float, TypeCode::Float) => self.bits >= other.bits,
            (TypeCode::Float, _) => {
                let mantissa = if self.bits == 32 { 24 } else { 53 };
                other.bits as u32 <= mantissa
            }
            (_, TypeCode::Float) => false,
            (TypeCode::Bool, _) => false,
            _ => self.int_min() <= other.int_min() && other.int_max() <= self.int_max(),
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
        assert_eq!(Type::f32().with_lanes(16).to_string(), "f32x16");
        assert_eq!(Type::bool_().bytes(), 1);
    }
}
