//! The semantics of every scalar operation, in one place: integer division and modulo round
//! toward −∞ (Euclidean; the remainder is never negative), division by zero gives 0,
//! fixed-width integers wrap, float→int casts truncate and saturate (NaN → 0), float math is
//! IEEE in the operand's own precision (16-bit floats, as in Halide, compute each operation
//! in f32 and round the result to nearest even: for +, −, ×, ÷ and √ that is the correctly
//! rounded f16 result, since f32 has more than twice f16's precision plus two bits). Constant folding, the evaluator, the interpreter and
//! the tests all call these functions, so they cannot disagree; the native backend is tested
//! against them.

use std::fmt;

use half::f16;

use crate::ir::expr::{sign_extend, zero_extend, FloatBits};
use crate::ir::float16::f16_from_f64;
use crate::ir::{BinaryOp, Expr, ExprKind, Intrinsic, Type, TypeCode, UnaryOp};

/// One scalar value. Integers are kept sign- (Int) or zero- (UInt) extended from their type's
/// width, so equal values of one type are equal `Value`s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// A boolean.
    Bool(bool),
    /// A signed integer of any width, sign-extended.
    Int(i64),
    /// An unsigned integer of any width, zero-extended.
    UInt(u64),
    /// A 16-bit IEEE float (Halide's `float16_t`).
    F16(f16),
    /// A 32-bit float.
    F32(f32),
    /// A 64-bit float.
    F64(f64),
}

/// A value as messages and command lines show it: the shortest text that parses back to it
/// (`true`, `-3`, `0.1`).
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::UInt(u) => write!(f, "{u}"),
            Value::F16(x) => write!(f, "{x}"),
            Value::F32(x) => write!(f, "{x}"),
            Value::F64(x) => write!(f, "{x}"),
        }
    }
}

impl Value {
    /// The value of a scalar constant expression.
    pub fn from_const(e: &Expr) -> Option<Value> {
        let ty = e.ty();
        match e.kind() {
            ExprKind::IntImm(v) => Some(Value::Int(*v)),
            ExprKind::UIntImm(v) if ty.is_bool() => Some(Value::Bool(*v != 0)),
            ExprKind::UIntImm(v) => Some(Value::UInt(*v)),
            ExprKind::FloatImm(v) if ty.bits == 16 => Some(Value::F16(f16_from_f64(v.0))),
            ExprKind::FloatImm(v) if ty.bits == 32 => Some(Value::F32(v.0 as f32)),
            ExprKind::FloatImm(v) => Some(Value::F64(v.0)),
            _ => None,
        }
    }

    /// A constant expression of (scalar) type `ty` holding this value.
    pub fn to_expr(self, ty: Type) -> Expr {
        let kind = match self {
            Value::Bool(b) => ExprKind::UIntImm(b as u64),
            Value::Int(v) => ExprKind::IntImm(v),
            Value::UInt(v) => ExprKind::UIntImm(v),
            Value::F16(v) => ExprKind::FloatImm(FloatBits(v.to_f64())),
            Value::F32(v) => ExprKind::FloatImm(FloatBits(v as f64)),
            Value::F64(v) => ExprKind::FloatImm(FloatBits(v)),
        };
        Expr::new(ty.element(), kind)
    }

    /// The zero of a type.
    pub fn zero(ty: Type) -> Value {
        cast(Value::Int(0), Type::i64(), ty)
    }

    /// The value as an exact integer, for integer and bool values.
    pub fn as_i128(self) -> Option<i128> {
        match self {
            Value::Bool(b) => Some(b as i128),
            Value::Int(v) => Some(v as i128),
            Value::UInt(v) => Some(v as i128),
            _ => None,
        }
    }

    /// The value as an f64 (exact for every type but 64-bit integers).
    pub fn as_f64(self) -> f64 {
        match self {
            Value::Bool(b) => b as u8 as f64,
            Value::Int(v) => v as f64,
            Value::UInt(v) => v as f64,
            Value::F16(v) => v.to_f64(),
            Value::F32(v) => v as f64,
            Value::F64(v) => v,
        }
    }

    /// Truthiness of a bool value.
    pub fn is_true(self) -> bool {
        match self {
            Value::Bool(b) => b,
            other => other.as_f64() != 0.0,
        }
    }

    /// Bitwise identity (so NaN equals NaN and -0.0 differs from 0.0): "bit for bit".
    pub fn bits_eq(self, other: Value) -> bool {
        match (self, other) {
            (Value::F16(a), Value::F16(b)) => a.to_bits() == b.to_bits(),
            (Value::F32(a), Value::F32(b)) => a.to_bits() == b.to_bits(),
            (Value::F64(a), Value::F64(b)) => a.to_bits() == b.to_bits(),
            (a, b) => a == b,
        }
    }

    /// The raw bits, zero-extended to 64.
    pub fn to_bits(self) -> u64 {
        match self {
            Value::Bool(b) => b as u64,
            Value::Int(v) => v as u64,
            Value::UInt(v) => v,
            Value::F16(v) => v.to_bits() as u64,
            Value::F32(v) => v.to_bits() as u64,
            Value::F64(v) => v.to_bits(),
        }
    }

    /// The value of type `ty` with the given raw bits.
    pub fn from_bits(bits: u64, ty: Type) -> Value {
        match ty.code {
            TypeCode::Bool => Value::Bool(bits & 1 != 0),
            TypeCode::Int => Value::Int(sign_extend(bits, ty.bits)),
            TypeCode::UInt => Value::UInt(zero_extend(bits, ty.bits)),
            TypeCode::Float if ty.bits == 16 => Value::F16(f16::from_bits(bits as u16)),
            TypeCode::Float if ty.bits == 32 => Value::F32(f32::from_bits(bits as u32)),
            TypeCode::Float => Value::F64(f64::from_bits(bits)),
        }
    }
}

/// An integer (as i128) wrapped into integer type `ty`.
fn wrap_int(v: i128, ty: Type) -> Value {
    match ty.code {
        TypeCode::Bool => Value::Bool(v & 1 != 0),
        TypeCode::Int => Value::Int(sign_extend(v as u64, ty.bits)),
        TypeCode::UInt => Value::UInt(zero_extend(v as u64, ty.bits)),
        TypeCode::Float => float_value(v as f64, ty),
    }
}

/// `v` rounded to nearest even in float type `ty` (past the largest finite value to an
/// infinity; NaN stays NaN).
fn float_value(v: f64, ty: Type) -> Value {
    match ty.bits {
        16 => Value::F16(f16_from_f64(v)),
        32 => Value::F32(v as f32),
        _ => Value::F64(v),
    }
}

/// An f32 result of an f16 operation, rounded back to f16 as Halide does.
fn half(x: f32) -> Value {
    Value::F16(f16::from_f32(x))
}

/// Converts `v` (of type `from`) to type `to`: integers wrap, floats round to nearest, floats
/// convert to integers by truncation with saturation (NaN gives 0), anything to bool is `!= 0`.
pub fn cast(v: Value, from: Type, to: Type) -> Value {
    let _ = from;
    match (v, to.code) {
        (_, TypeCode::Bool) => Value::Bool(match v {
            Value::F16(_) | Value::F32(_) | Value::F64(_) => v.as_f64() != 0.0,
            other => other.as_i128() != Some(0),
        }),
        // Every f16 and f32 is exact in f64, so one rounding from f64 is the only one.
        (Value::F16(_) | Value::F32(_) | Value::F64(_), TypeCode::Float) => {
            float_value(v.as_f64(), to)
        }
        // 64-bit integers round straight to f32 (through f64 they could round twice); one
        // that f64 rounds is far past f16's range, an infinity either way.
        (Value::Int(i), TypeCode::Float) if to.bits == 32 => Value::F32(i as f32),
        (Value::UInt(u), TypeCode::Float) if to.bits == 32 => Value::F32(u as f32),
        (Value::Int(i), TypeCode::Float) => float_value(i as f64, to),
        (Value::UInt(u), TypeCode::Float) => float_value(u as f64, to),
        (Value::Bool(b), TypeCode::Float) => float_value(b as u8 as f64, to),
        (Value::F16(_) | Value::F32(_) | Value::F64(_), _) => {
            let f = v.as_f64();
            if f.is_nan() {
                return wrap_int(0, to);
            }
            let t = f.trunc();
            let (lo, hi) = (to.int_min(), to.int_max());
            let i = if t <= lo as f64 {
                lo
            } else if t >= hi as f64 {
                hi
            } else {
                t as i128
            };
            wrap_int(i, to)
        }
        (other, _) => wrap_int(other.as_i128().unwrap(), to),
    }
}

/// Halide's `saturating_cast`: clamps into the range of `to` before converting.
pub fn saturating_cast(v: Value, from: Type, to: Type) -> Value {
    match (from.code, to.code) {
        // A float type's range is [-inf, inf] (as Halide's): a narrowing float conversion
        // rounds past the largest finite value to an infinity, as a plain cast does.
        (_, TypeCode::Float) | (TypeCode::Float, _) => cast(v, from, to),
        (_, TypeCode::Bool) => cast(v, from, to),
        _ => {
            let i = v.as_i128().unwrap();
            wrap_int(i.clamp(to.int_min(), to.int_max()), to)
        }
    }
}

/// `a op b` where both operands have type `ty` (the result is bool for comparisons).
pub fn binary(op: BinaryOp, a: Value, b: Value, ty: Type) -> Value {
    use BinaryOp::*;
    match (a, b) {
        (Value::F16(x), Value::F16(y)) => {
            let (x, y) = (x.to_f32(), y.to_f32());
            let round = |v: f32| f16::from_f32(v).to_f32();
            match op {
                Add => half(x + y),
                Sub => half(x - y),
                Mul => half(x * y),
                Div => half(x / y),
                // Each step rounded to f16, as the native code's half-precision steps are.
                Mod => half(x - round(y * round(x / y).floor())),
                Min => half(if x < y { x } else { y }),
                Max => half(if x > y { x } else { y }),
                _ => compare_or_invalid(op, x as f64, y as f64),
            }
        }
        (Value::F32(x), Value::F32(y)) => match op {
            Add => Value::F32(x + y),
            Sub => Value::F32(x - y),
            Mul => Value::F32(x * y),
            Div => Value::F32(x / y),
            Mod => Value::F32(x - y * (x / y).floor()),
            Min => Value::F32(if x < y { x } else { y }),
            Max => Value::F32(if x > y { x } else { y }),
            _ => compare_or_invalid(op, x as f64, y as f64),
        },
        (Value::F64(x), Value::F64(y)) => match op {
            Add => Value::F64(x + y),
            Sub => Value::F64(x - y),
            Mul => Value::F64(x * y),
            Div => Value::F64(x / y),
            Mod => Value::F64(x - y * (x / y).floor()),
            Min => Value::F64(if x < y { x } else { y }),
            Max => Value::F64(if x > y { x } else { y }),
            _ => compare_or_invalid(op, x, y),
        },
        (Value::Bool(x), Value::Bool(y)) => match op {
            And | BitAnd | Min => Value::Bool(x && y),
            Or | BitOr | Max => Value::Bool(x || y),
            BitXor | Ne => Value::Bool(x != y),
            Eq => Value::Bool(x == y),
            Lt => Value::Bool(!x & y),
            Le => Value::Bool(x <= y),
            Gt => Value::Bool(x & !y),
            Ge => Value::Bool(x >= y),
            Add | Sub => Value::Bool(x ^ y),
            Mul => Value::Bool(x && y),
            Div => Value::Bool(x && y),
            Mod => Value::Bool(false),
            Shl => Value::Bool(x && !y),
            Shr => Value::Bool(x && !y),
        },
        (Value::Int(x), Value::Int(y)) => int_binary(op, x as i128, y as i128, ty, true),
        (Value::UInt(x), Value::UInt(y)) => int_binary(op, x as i128, y as i128, ty, false),
        _ => panic!("internal error: operands of {op:?} have different kinds: {a:?}, {b:?}"),
    }
}

fn compare_or_invalid(op: BinaryOp, x: f64, y: f64) -> Value {
    use BinaryOp::*;
    Value::Bool(match op {
        Eq => x == y,
        Ne => x != y,
        Lt => x < y,
        Le => x <= y,
        Gt => x > y,
        Ge => x >= y,
        _ => panic!("internal error: {op:?} on floats"),
    })
}

fn int_binary(op: BinaryOp, x: i128, y: i128, ty: Type, signed: bool) -> Value {
    use BinaryOp::*;
    let bits = ty.bits as i128;
    let r = match op {
        Add => x + y,
        Sub => x - y,
        Mul => x.wrapping_mul(y),
        Div => {
            if y == 0 {
                0
            } else {
                x.div_euclid(y)
            }
        }
        Mod => {
            if y == 0 {
                0
            } else {
                x.rem_euclid(y)
            }
        }
        Min => x.min(y),
        Max => x.max(y),
        BitAnd => x & y,
        BitOr => x | y,
        BitXor => x ^ y,
        Shl | Shr => {
            // A negative (signed) amount shifts the other way; amounts of the full width or
            // more shift everything out.
            let left = (op == Shl) == (y >= 0);
            let amount = y.unsigned_abs().min(bits as u128) as u32;
            if left {
                if amount as i128 >= bits {
                    0
                } else {
                    x << amount
                }
            } else if amount as i128 >= bits {
                if signed && x < 0 {
                    -1
                } else {
                    0
                }
            } else {
                x >> amount
            }
        }
        Eq => return Value::Bool(x == y),
        Ne => return Value::Bool(x != y),
        Lt => return Value::Bool(x < y),
        Le => return Value::Bool(x <= y),
        Gt => return Value::Bool(x > y),
        Ge => return Value::Bool(x >= y),
        And | Or => panic!("internal error: logical {op:?} on integers"),
    };
    wrap_int(r, ty)
}

/// Whether `a op b` overflows for a signed 32- or 64-bit type: the results the simplifier and
/// bounds analysis are allowed to assume never happen (see `ExprEval::signed_overflow`).
pub fn signed_overflow(op: BinaryOp, a: Value, b: Value, ty: Type) -> bool {
    if !(ty.is_int() && ty.bits >= 32) {
        return false;
    }
    let (Some(x), Some(y)) = (a.as_i128(), b.as_i128()) else {
        return false;
    };
    let exact = match op {
        BinaryOp::Add => x + y,
        BinaryOp::Sub => x - y,
        BinaryOp::Mul => x * y,
        BinaryOp::Div if y != 0 => x.div_euclid(y),
        _ => return false,
    };
    !ty.can_represent_int(exact)
}

/// `op a` for an operand of type `ty`.
pub fn unary(op: UnaryOp, a: Value, ty: Type) -> Value {
    match (op, a) {
        (UnaryOp::Neg, Value::F16(x)) => Value::F16(-x),
        (UnaryOp::Neg, Value::F32(x)) => Value::F32(-x),
        (UnaryOp::Neg, Value::F64(x)) => Value::F64(-x),
        (UnaryOp::Neg, v) => wrap_int(-v.as_i128().unwrap(), ty),
        (UnaryOp::Not, v) => Value::Bool(!v.is_true()),
        (UnaryOp::BitNot, Value::Bool(b)) => Value::Bool(!b),
        (UnaryOp::BitNot, v) => wrap_int(!v.as_i128().unwrap(), ty),
    }
}

macro_rules! float_fn {
    ($v:expr, $f:ident) => {
        match $v {
            Value::F16(x) => half(x.to_f32().$f()),
            Value::F32(x) => Value::F32(x.$f()),
            Value::F64(x) => Value::F64(x.$f()),
            other => panic!("internal error: float intrinsic on {other:?}"),
        }
    };
}

macro_rules! float_fn2 {
    ($a:expr, $b:expr, $f:ident) => {
        match ($a, $b) {
            (Value::F16(x), Value::F16(y)) => half(x.to_f32().$f(y.to_f32())),
            (Value::F32(x), Value::F32(y)) => Value::F32(x.$f(y)),
            (Value::F64(x), Value::F64(y)) => Value::F64(x.$f(y)),
            other => panic!("internal error: float intrinsic on {other:?}"),
        }
    };
}

/// The value of intrinsic `op` applied to `args` (of types `arg_types`), producing `result`.
pub fn intrinsic(op: Intrinsic, args: &[Value], arg_types: &[Type], result: Type) -> Value {
    use Intrinsic::*;
    let a = args[0];
    match op {
        Abs => match a {
            Value::F16(x) => half(x.to_f32().abs()),
            Value::F32(x) => Value::F32(x.abs()),
            Value::F64(x) => Value::F64(x.abs()),
            v => wrap_int(v.as_i128().unwrap().abs(), result),
        },
        Absd => match (a, args[1]) {
            (Value::F16(x), Value::F16(y)) => half((x.to_f32() - y.to_f32()).abs()),
            (Value::F32(x), Value::F32(y)) => Value::F32((x - y).abs()),
            (Value::F64(x), Value::F64(y)) => Value::F64((x - y).abs()),
            (x, y) => wrap_int((x.as_i128().unwrap() - y.as_i128().unwrap()).abs(), result),
        },
        Sqrt => float_fn!(a, sqrt),
        Exp => float_fn!(a, exp),
        Log => float_fn!(a, ln),
        Pow => float_fn2!(a, args[1], powf),
        Floor => float_fn!(a, floor),
        Ceil => float_fn!(a, ceil),
        Round => float_fn!(a, round_ties_even),
        Trunc => float_fn!(a, trunc),
        Sin => float_fn!(a, sin),
        Cos => float_fn!(a, cos),
        Tan => float_fn!(a, tan),
        Asin => float_fn!(a, asin),
        Acos => float_fn!(a, acos),
        Atan => float_fn!(a, atan),
        Atan2 => float_fn2!(a, args[1], atan2),
        Sinh => float_fn!(a, sinh),
        Cosh => float_fn!(a, cosh),
        Tanh => float_fn!(a, tanh),
        Hypot => float_fn2!(a, args[1], hypot),
        IsNan => Value::Bool(a.as_f64().is_nan()),
        IsInf => Value::Bool(a.as_f64().is_infinite()),
        IsFinite => Value::Bool(a.as_f64().is_finite()),
        SaturatingCast => saturating_cast(a, arg_types[0], result),
        Lerp => lerp(a, args[1], args[2], arg_types[0], arg_types[2]),
        // Bit counts see only the argument's own bits (a negative i8 is 8 bits, not a
        // sign-extended 64).
        PopCount | CountLeadingZeros | CountTrailingZeros => {
            let bits = arg_types[0].bits as u32;
            let own = zero_extend(a.to_bits(), arg_types[0].bits);
            let count = match op {
                PopCount => own.count_ones(),
                CountLeadingZeros => own.leading_zeros() - (64 - bits),
                _ => own.trailing_zeros().min(bits),
            };
            wrap_int(count as i128, result)
        }
        Reinterpret => Value::from_bits(a.to_bits(), result),
        Likely | LikelyIfInnermost | PromiseClamped | MemoizeTag => a,
        // The condition is checked by `eval::expr`, which can fail.
        Require { .. } => args[1],
        // The printing is `eval::expr`'s.
        Print { .. } => args[1],
        Random => unreachable!("internal error: random is replaced by definitions"),
        // Without a cache (where values are computed from expressions, not by compiled
        // code) every production misses, so it computes, and storing does nothing.
        MemoizeLookup { .. } => Value::Bool(false),
        MemoizeStore { .. } => Value::Bool(true),
        Interleave => unreachable!("internal error: interleave is not lane-wise (eval::expr)"),
        Undef => unreachable!("internal error: undef has no value (eval::expr reports it)"),
    }
}

/// `a * (1 - w) + b * w`. For float operands this is computed in the operands' type; for
/// integer operands with a float weight it is computed in f64 and rounded to nearest, then
/// saturated into the operand type; an unsigned integer weight is `lerp_by_integer_weight`.
fn lerp(a: Value, b: Value, w: Value, ty: Type, weight_ty: Type) -> Value {
    if weight_ty.is_uint() {
        return lerp_by_integer_weight(a, b, w, ty, weight_ty);
    }
    match (a, b) {
        (Value::F16(x), Value::F16(y)) => {
            // Each step rounded to f16, as the native code's half-precision steps are.
            let round = |v: f32| f16::from_f32(v).to_f32();
            let (x, y, w) = (x.to_f32(), y.to_f32(), f16_from_f64(w.as_f64()).to_f32());
            half(round(x * round(1.0 - w)) + round(y * w))
        }
        (Value::F32(x), Value::F32(y)) => {
            let w = w.as_f64() as f32;
            Value::F32(x * (1.0 - w) + y * w)
        }
        (Value::F64(x), Value::F64(y)) => {
            let w = w.as_f64();
            Value::F64(x * (1.0 - w) + y * w)
        }
        (x, y) => {
            let w = w.as_f64();
            let r = (x.as_f64() * (1.0 - w) + y.as_f64() * w).round_ties_even();
            saturating_cast(Value::F64(r), Type::f64(), ty)
        }
    }
}

/// Halide's lerp of integers by an unsigned integer weight `w`, which stands for
/// `w / max(weight type)`: the weight is rescaled to the operands' width (rounded down), the
/// operands are offset into the unsigned range (signed ones by −min) and blended exactly, and
/// the blend `a * (max - w) + b * w` is divided by `max` rounding to nearest (`max` is odd,
/// so there are no ties), which keeps the result between `a` and `b`.
fn lerp_by_integer_weight(a: Value, b: Value, w: Value, ty: Type, weight_ty: Type) -> Value {
    let integer = |v: Value| {
        v.as_i128()
            .expect("internal error: integer lerp of a non-integer")
    };
    // Every product below is of two values of at most 64 bits: it fits in u128.
    let max = ty.with_code(TypeCode::UInt).int_max() as u128;
    let w = integer(w) as u128 * max / weight_ty.int_max() as u128;
    let offset = -ty.int_min();
    let (a, b) = ((integer(a) + offset) as u128, (integer(b) + offset) as u128);
    let blend = a * (max - w) + b * w;
    let rounded = (blend + max / 2) / max;
    wrap_int(rounded as i128 - offset, ty)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i(v: i64) -> Value {
        Value::Int(v)
    }

    #[test]
    fn values_show_as_the_shortest_text_that_parses_back() {
        assert_eq!(Value::Bool(true).to_string(), "true");
        assert_eq!(i(-3).to_string(), "-3");
        assert_eq!(Value::UInt(u64::MAX).to_string(), "18446744073709551615");
        for x in [0.1f32, -2.5, 1e-7, f32::MAX] {
            assert_eq!(Value::F32(x).to_string().parse::<f32>(), Ok(x));
        }
        for x in [0.1f64, -1e300, 3.0] {
            assert_eq!(Value::F64(x).to_string().parse::<f64>(), Ok(x));
        }
        assert_eq!(Value::F64(3.0).to_string(), "3");
    }

    #[test]
    fn division_rounds_toward_negative_infinity_and_modulo_is_never_negative() {
        let t = Type::i32();
        assert_eq!(binary(BinaryOp::Div, i(7), i(2), t), i(3));
        assert_eq!(binary(BinaryOp::Div, i(-7), i(2), t), i(-4));
        assert_eq!(binary(BinaryOp::Mod, i(-7), i(2), t), i(1));
        assert_eq!(binary(BinaryOp::Div, i(-7), i(-2), t), i(4));
        assert_eq!(binary(BinaryOp::Mod, i(-7), i(-2), t), i(1));
        assert_eq!(binary(BinaryOp::Mod, i(7), i(-2), t), i(1));
        assert_eq!(binary(BinaryOp::Div, i(7), i(0), t), i(0));
        assert_eq!(binary(BinaryOp::Mod, i(7), i(0), t), i(0));
        assert_eq!(
            binary(BinaryOp::Div, i(i32::MIN as i64), i(-1), t),
            i(i32::MIN as i64)
        );
    }

    #[test]
    fn fixed_width_integers_wrap() {
        assert_eq!(
            binary(BinaryOp::Add, Value::UInt(250), Value::UInt(10), Type::u8()),
            Value::UInt(4)
        );
        assert_eq!(binary(BinaryOp::Mul, i(100), i(3), Type::i8()), i(44));
        assert_eq!(unary(UnaryOp::Neg, i(-128), Type::i8()), i(-128));
        assert_eq!(cast(i(-1), Type::i32(), Type::u16()), Value::UInt(65535));
        assert_eq!(cast(Value::UInt(300), Type::u16(), Type::i8()), i(44));
    }

    #[test]
    fn float_to_int_truncates_and_saturates() {
        assert_eq!(cast(Value::F32(-2.7), Type::f32(), Type::i32()), i(-2));
        assert_eq!(
            cast(Value::F32(1e20), Type::f32(), Type::i32()),
            i(i32::MAX as i64)
        );
        assert_eq!(
            cast(Value::F32(f32::NAN), Type::f32(), Type::u8()),
            Value::UInt(0)
        );
        assert_eq!(
            cast(Value::F64(-5.0), Type::f64(), Type::u8()),
            Value::UInt(0)
        );
    }

    #[test]
    fn a_saturating_float_narrowing_keeps_infinities() {
        let narrow = |v: f64| saturating_cast(Value::F64(v), Type::f64(), Type::f32());
        assert_eq!(narrow(f64::INFINITY), Value::F32(f32::INFINITY));
        assert_eq!(narrow(f64::MAX), Value::F32(f32::INFINITY));
        assert_eq!(narrow(-1e39), Value::F32(f32::NEG_INFINITY));
        assert_eq!(narrow(1.5), Value::F32(1.5));
    }

    #[test]
    fn saturating_casts_clamp() {
        assert_eq!(
            saturating_cast(i(300), Type::i32(), Type::u8()),
            Value::UInt(255)
        );
        assert_eq!(
            saturating_cast(i(-3), Type::i32(), Type::u8()),
            Value::UInt(0)
        );
        assert_eq!(
            saturating_cast(Value::UInt(u64::MAX), Type::u64(), Type::i64()),
            i(i64::MAX)
        );
    }

    #[test]
    fn bit_counts_see_only_the_arguments_own_bits() {
        let count = |op, v: i64, ty: Type| intrinsic(op, &[i(v)], &[ty], ty);
        // Plain Rust on the narrow types is the reference.
        for v in [-128i64, -1, -2, 0, 1, 64, 127] {
            let b = v as i8;
            assert_eq!(
                count(Intrinsic::PopCount, v, Type::i8()),
                i(b.count_ones() as i64)
            );
            let clz = count(Intrinsic::CountLeadingZeros, v, Type::i8());
            assert_eq!(clz, i(b.leading_zeros() as i64));
            let ctz = count(Intrinsic::CountTrailingZeros, v, Type::i8());
            assert_eq!(ctz, i(b.trailing_zeros() as i64));
            let h = v as i16;
            let clz16 = count(Intrinsic::CountLeadingZeros, v, Type::i16());
            assert_eq!(clz16, i(h.leading_zeros() as i64));
        }
    }

    #[test]
    fn shifts_by_negative_or_large_amounts() {
        let t = Type::i32();
        assert_eq!(binary(BinaryOp::Shl, i(1), i(-1), t), i(0));
        assert_eq!(binary(BinaryOp::Shr, i(-8), i(40), t), i(-1));
        assert_eq!(binary(BinaryOp::Shl, i(3), i(2), t), i(12));
        assert_eq!(
            binary(BinaryOp::Shr, Value::UInt(0x80), Value::UInt(7), Type::u8()),
            Value::UInt(1)
        );
    }

    #[test]
    fn float_semantics() {
        assert_eq!(
            binary(
                BinaryOp::Mod,
                Value::F32(-1.5),
                Value::F32(1.0),
                Type::f32()
            ),
            Value::F32(0.5)
        );
        let r = intrinsic(
            Intrinsic::Round,
            &[Value::F32(2.5)],
            &[Type::f32()],
            Type::f32(),
        );
        assert_eq!(r, Value::F32(2.0));
        let r = intrinsic(
            Intrinsic::Round,
            &[Value::F32(3.5)],
            &[Type::f32()],
            Type::f32(),
        );
        assert_eq!(r, Value::F32(4.0));
        // min/max pick the second operand when the comparison fails (NaN).
        let m = binary(
            BinaryOp::Min,
            Value::F32(f32::NAN),
            Value::F32(1.0),
            Type::f32(),
        );
        assert_eq!(m, Value::F32(1.0));
        let abs = intrinsic(Intrinsic::Abs, &[i(-128)], &[Type::i8()], Type::u8());
        assert_eq!(abs, Value::UInt(128));
    }

    fn h(v: f64) -> Value {
        Value::F16(f16_from_f64(v))
    }

    #[test]
    fn f16_arithmetic_is_the_correctly_rounded_result() {
        use rand::{rngs::SmallRng, Rng, SeedableRng};
        // Sums, differences and products of two f16s are exact in f64, so one rounding of the
        // f64 result is the reference; a quotient rounds to f64's 53 bits first, which cannot
        // change its rounding to f16 (53 >= 2 * 11 + 2).
        let mut rng = SmallRng::seed_from_u64(16);
        for _ in 0..20_000 {
            let (a, b) = (f16::from_bits(rng.random()), f16::from_bits(rng.random()));
            let (x, y) = (a.to_f64(), b.to_f64());
            for (op, exact) in [
                (BinaryOp::Add, x + y),
                (BinaryOp::Sub, x - y),
                (BinaryOp::Mul, x * y),
                (BinaryOp::Div, x / y),
            ] {
                let got = binary(op, Value::F16(a), Value::F16(b), Type::f16());
                let want = h(exact);
                let both_nan = exact.is_nan() && got.as_f64().is_nan();
                assert!(
                    got.bits_eq(want) || both_nan,
                    "{a} {op:?} {b}: {got:?}, not {want:?}"
                );
            }
        }
    }

    #[test]
    fn f16_comparisons_min_max_and_modulo() {
        let (one, two) = (h(1.0), h(2.0));
        assert_eq!(
            binary(BinaryOp::Lt, one, two, Type::f16()),
            Value::Bool(true)
        );
        assert_eq!(
            binary(BinaryOp::Eq, h(0.0), h(-0.0), Type::f16()),
            Value::Bool(true)
        );
        let nan = h(f64::NAN);
        assert_eq!(
            binary(BinaryOp::Eq, nan, nan, Type::f16()),
            Value::Bool(false)
        );
        assert_eq!(
            binary(BinaryOp::Ne, nan, nan, Type::f16()),
            Value::Bool(true)
        );
        assert_eq!(binary(BinaryOp::Max, one, two, Type::f16()), two);
        // As for f32: the second operand when the comparison fails (NaN).
        assert_eq!(binary(BinaryOp::Min, nan, one, Type::f16()), one);
        assert_eq!(binary(BinaryOp::Mod, h(-1.5), one, Type::f16()), h(0.5));
        assert_eq!(binary(BinaryOp::Mod, h(7.0), h(-2.0), Type::f16()), h(-1.0));
        assert_eq!(unary(UnaryOp::Neg, h(0.0), Type::f16()).to_bits(), 0x8000);
    }

    #[test]
    fn f16_math_is_computed_in_f32_and_rounded_back() {
        let f16_of = |op, v: f32| {
            intrinsic(
                op,
                &[Value::F16(f16::from_f32(v))],
                &[Type::f16()],
                Type::f16(),
            )
        };
        for v in [0.1f32, 0.5, 1.0, 2.5, 7.75, 100.0] {
            let x = f16::from_f32(v).to_f32();
            assert_eq!(
                f16_of(Intrinsic::Exp, v),
                Value::F16(f16::from_f32(x.exp()))
            );
            assert_eq!(
                f16_of(Intrinsic::Sin, v),
                Value::F16(f16::from_f32(x.sin()))
            );
            assert_eq!(
                f16_of(Intrinsic::Sqrt, v),
                Value::F16(f16::from_f32(x.sqrt()))
            );
            assert_eq!(
                f16_of(Intrinsic::Round, v),
                Value::F16(f16::from_f32(x.round_ties_even()))
            );
        }
        // exp(12) is past f16's range.
        assert_eq!(f16_of(Intrinsic::Exp, 12.0), Value::F16(f16::INFINITY));
        let abs = intrinsic(Intrinsic::Abs, &[h(-0.0)], &[Type::f16()], Type::f16());
        assert_eq!(abs.to_bits(), 0);
    }

    #[test]
    fn casts_to_f16_round_to_nearest_even_and_overflow_to_infinity() {
        let to_f16 = |v: Value, from: Type| cast(v, from, Type::f16());
        let u = |v: u64| to_f16(Value::UInt(v), Type::u16());
        assert_eq!(u(65504), h(65504.0));
        assert_eq!(u(65519), h(65504.0));
        // The tie above the largest f16 (odd bits 0x7bff) goes to the infinity.
        assert_eq!(u(65520), h(f64::INFINITY));
        // Above 2048 f16 holds even integers only: ties to the multiple of 4.
        assert_eq!(u(2049), h(2048.0));
        assert_eq!(u(2051), h(2052.0));
        assert_eq!(to_f16(i(-70000), Type::i32()), h(f64::NEG_INFINITY));
        assert_eq!(to_f16(i(i64::MIN), Type::i64()), h(f64::NEG_INFINITY));
        // Subnormals: 2^-24 is the smallest; half of it ties to zero, 1.5 of it to 2^-23.
        let f = |v: f32| to_f16(Value::F32(v), Type::f32()).to_bits();
        assert_eq!(f(2f32.powi(-24)), 0x0001);
        assert_eq!(f(2f32.powi(-25)), 0x0000);
        assert_eq!(f(1.5 * 2f32.powi(-24)), 0x0002);
        assert_eq!(f(-1e-9), 0x8000);
        assert_eq!(f(f32::INFINITY), 0x7c00);
        assert!(to_f16(Value::F32(f32::NAN), Type::f32()).as_f64().is_nan());
        // From f64 without rounding twice: just above a tie rounds up.
        let above_tie = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
        assert_eq!(
            to_f16(Value::F64(above_tie), Type::f64()),
            h(1.0 + 2f64.powi(-10))
        );
        assert_eq!(to_f16(Value::Bool(true), Type::bool_()), h(1.0));
    }

    #[test]
    fn casts_from_f16_widen_exactly_and_truncate_with_saturation() {
        let from = |v: f64, to: Type| cast(h(v), Type::f16(), to);
        for bits in [0x0001u16, 0x3555, 0x7bff, 0xfc00, 0x8000] {
            let x = f16::from_bits(bits);
            let v = Value::F16(x);
            assert!(cast(v, Type::f16(), Type::f32()).bits_eq(Value::F32(x.to_f32())));
            assert!(cast(v, Type::f16(), Type::f64()).bits_eq(Value::F64(x.to_f64())));
        }
        assert!(cast(h(f64::NAN), Type::f16(), Type::f32())
            .as_f64()
            .is_nan());
        assert_eq!(from(-2.75, Type::i32()), i(-2));
        assert_eq!(from(65504.0, Type::u16()), Value::UInt(65504));
        assert_eq!(from(300.5, Type::u8()), Value::UInt(255));
        assert_eq!(from(-1.5, Type::u8()), Value::UInt(0));
        assert_eq!(from(f64::INFINITY, Type::i64()), i(i64::MAX));
        assert_eq!(from(f64::NEG_INFINITY, Type::i32()), i(i32::MIN as i64));
        assert_eq!(from(f64::NAN, Type::u16()), Value::UInt(0));
        assert_eq!(from(0.5, Type::bool_()), Value::Bool(true));
        assert_eq!(from(-0.0, Type::bool_()), Value::Bool(false));
    }

    #[test]
    fn f16_values_as_constants_bits_and_text() {
        let v = h(0.1);
        assert_eq!(v.to_bits(), 0x2e66);
        assert_eq!(Value::from_bits(0x2e66, Type::f16()), v);
        assert_eq!(Value::from_const(&v.to_expr(Type::f16())), Some(v));
        assert_eq!(
            v.to_string().parse::<f32>().map(f16::from_f32),
            Ok(f16::from_bits(0x2e66))
        );
        assert_eq!(Value::zero(Type::f16()).to_bits(), 0);
    }

    #[test]
    fn integer_weighted_lerp_of_bytes_is_halides_fixed_point_arithmetic() {
        let lerp_u8 = |a: u64, b: u64, w: u64| {
            let (a, b, w) = (Value::UInt(a), Value::UInt(b), Value::UInt(w));
            lerp(a, b, w, Type::u8(), Type::u8())
        };
        // Halide's lowering: the blend plus 128, divided by 255 as `(x + (x >> 8)) >> 8`;
        // and the blend in f64 rounded half up (no ties: 255 is odd).
        for (a, b, w) in (0..256u64)
            .flat_map(|a| (0..256).map(move |b| (a, b)))
            .flat_map(|(a, b)| (0..256).step_by(5).map(move |w| (a, b, w)))
        {
            let x = a * (255 - w) + b * w + 128;
            let want = (x + (x >> 8)) >> 8;
            assert_eq!(lerp_u8(a, b, w), Value::UInt(want), "lerp({a}, {b}, {w})");
            let exact = (a as f64 * (255 - w) as f64 + b as f64 * w as f64) / 255.0;
            assert_eq!(want, (exact + 0.5).floor() as u64);
        }
    }

    #[test]
    fn integer_weights_are_rescaled_to_the_operands_width() {
        let at = |a: Value, b: Value, w: u64, ty: Type, weight_ty: Type| {
            lerp(a, b, Value::UInt(w), ty, weight_ty)
        };
        let u = Value::UInt;
        // A weight's maximum is one whatever its width; its zero is zero.
        for weight_ty in [Type::u8(), Type::u16(), Type::u32(), Type::u64()] {
            let max = weight_ty.int_max() as u64;
            for ty in [Type::u8(), Type::u16(), Type::u32(), Type::u64()] {
                let top = u(ty.int_max() as u64);
                assert_eq!(
                    at(u(0), top, max, ty, weight_ty),
                    top,
                    "{ty} by {weight_ty}"
                );
                assert_eq!(at(u(0), top, 0, ty, weight_ty), u(0), "{ty} by {weight_ty}");
            }
        }
        // A u8 weight w is w * 257 in 16 bits; a u16 weight w is w / 257 (rounded down) in 8.
        assert_eq!(at(u(0), u(65535), 100, Type::u16(), Type::u8()), u(25700));
        assert_eq!(at(u(0), u(255), 25956, Type::u8(), Type::u16()), u(100));
        // Signed operands: the midpoint of the whole i8 range by 128/255 rounds up to 0.
        let i = Value::Int;
        assert_eq!(at(i(-128), i(127), 128, Type::i8(), Type::u8()), i(0));
        assert_eq!(at(i(-128), i(127), 127, Type::i8(), Type::u8()), i(-1));
        assert_eq!(
            at(i(i64::MIN), i(i64::MAX), u64::MAX, Type::i64(), Type::u64()),
            i(i64::MAX)
        );
    }
}
