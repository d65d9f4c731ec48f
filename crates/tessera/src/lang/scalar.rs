//! `Scalar`: the Rust element types a Func value, Param or Buffer may have, and their mapping
//! to IR types and runtime values.

use crate::error::{Error, Result};
use crate::eval::value::Value;
use crate::ir::{Symbol, Type};

/// A Rust type that is a Tessera element type: a buffer element, a parameter or a
/// literal (`bool`, `u8` to `u64`, `i8` to `i64`, `half::f16`, `f32`, `f64`).
pub trait Scalar: Copy + Default + PartialEq + std::fmt::Debug + Send + Sync + 'static {
    /// The Tessera type of `Self`.
    const TYPE: Type;
    /// The value as an evaluator [`Value`].
    fn to_value(self) -> Value;
    /// Converts a value of exactly this type back (panics on a kind mismatch: internal bug).
    fn from_value(v: Value) -> Self;
}

macro_rules! int_scalar {
    ($t:ty, $ty:expr, $variant:ident, $wide:ty) => {
        impl Scalar for $t {
            const TYPE: Type = $ty;
            fn to_value(self) -> Value {
                Value::$variant(self as $wide)
            }
            fn from_value(v: Value) -> Self {
                match v {
                    Value::$variant(x) => x as $t,
                    other => panic!(
                        "internal error: expected {} value, got {other:?}",
                        stringify!($t)
                    ),
                }
            }
        }
    };
}

int_scalar!(u8, Type::u8(), UInt, u64);
int_scalar!(u16, Type::u16(), UInt, u64);
int_scalar!(u32, Type::u32(), UInt, u64);
int_scalar!(u64, Type::u64(), UInt, u64);
int_scalar!(i8, Type::i8(), Int, i64);
int_scalar!(i16, Type::i16(), Int, i64);
int_scalar!(i32, Type::i32(), Int, i64);
int_scalar!(i64, Type::i64(), Int, i64);

impl Scalar for half::f16 {
    const TYPE: Type = Type::f16();
    fn to_value(self) -> Value {
        Value::F16(self)
    }
    fn from_value(v: Value) -> Self {
        match v {
            Value::F16(x) => x,
            other => panic!("internal error: expected f16 value, got {other:?}"),
        }
    }
}

impl Scalar for f32 {
    const TYPE: Type = Type::f32();
    fn to_value(self) -> Value {
        Value::F32(self)
    }
    fn from_value(v: Value) -> Self {
        match v {
            Value::F32(x) => x,
            other => panic!("internal error: expected f32 value, got {other:?}"),
        }
    }
}

impl Scalar for f64 {
    const TYPE: Type = Type::f64();
    fn to_value(self) -> Value {
        Value::F64(self)
    }
    fn from_value(v: Value) -> Self {
        match v {
            Value::F64(x) => x,
            other => panic!("internal error: expected f64 value, got {other:?}"),
        }
    }
}

impl Scalar for bool {
    const TYPE: Type = Type::bool_();
    fn to_value(self) -> Value {
        Value::Bool(self)
    }
    fn from_value(v: Value) -> Self {
        match v {
            Value::Bool(x) => x,
            other => panic!("internal error: expected bool value, got {other:?}"),
        }
    }
}

/// An error naming `func` unless its values (`types`, one per Tuple element) are a single
/// value of type `T`, so that it can be realized as a `Buffer<T>`.
pub(crate) fn check_realized_type<T: Scalar>(func: Symbol, types: &[Type]) -> Result<()> {
    if types == [T::TYPE] {
        return Ok(());
    }
    let types: Vec<String> = types.iter().map(|t| t.to_string()).collect();
    Err(Error::Type(format!(
        "Func {func} has the value type ({}), so it cannot be realized as a buffer of {}",
        types.join(", "),
        T::TYPE
    )))
}
