//! The functions of the embedded language that are not operators: min/max/clamp, select,
//! mux, casts, lerp and the math library, with Halide's argument conversions (integer arguments to
//! float-only functions become f32; `clamp` converts its bounds to the clamped value's type).

use super::operators::{
    binary_op, coerce, coerce_list, match_types, ExprOps, IntoOperand, Operand,
};
use super::scalar::Scalar;
use crate::ir::{BinaryOp, Expr, ExprKind, Intrinsic, Type};

fn invalid_in(e: &[&Expr]) -> Option<Expr> {
    e.iter()
        .find(|x| matches!(x.kind(), ExprKind::Invalid(_)))
        .map(|x| (*x).clone())
}

/// The smaller of `a` and `b` (Halide's `min`).
pub fn min(a: impl IntoOperand, b: impl IntoOperand) -> Expr {
    binary_op(BinaryOp::Min, a.into_operand(), b.into_operand())
}

/// The larger of `a` and `b` (Halide's `max`).
pub fn max(a: impl IntoOperand, b: impl IntoOperand) -> Expr {
    binary_op(BinaryOp::Max, a.into_operand(), b.into_operand())
}

/// `min(max(x, lo), hi)`, with `lo` and `hi` converted to the type of `x`.
pub fn clamp(x: impl Into<Expr>, lo: impl IntoOperand, hi: impl IntoOperand) -> Expr {
    let x = x.into();
    let ty = x.ty();
    let bound = |o: Operand| match o {
        Operand::Expr(e) if e.ty() != ty => cast(ty, e),
        other => coerce("clamp", Operand::Expr(x.clone()), other).1,
    };
    let (lo, hi) = (bound(lo.into_operand()), bound(hi.into_operand()));
    max(min(x, hi), lo)
}

/// `cond ? t : f`, evaluated lane by lane. The arms are coerced to one type.
pub fn select(cond: impl Into<Expr>, t: impl IntoOperand, f: impl IntoOperand) -> Expr {
    let cond = cond.into();
    let (t, f) = coerce("select", t.into_operand(), f.into_operand());
    if let Some(bad) = invalid_in(&[&cond, &t, &f]) {
        return bad;
    }
    if !cond.ty().is_bool() {
        return Expr::invalid(
            t.ty(),
            format!(
                "the condition of select must be a bool, not {} ({cond})",
                cond.ty()
            ),
        );
    }
    let lanes = cond.ty().lanes.max(t.ty().lanes);
    let widen = |e: Expr| {
        if e.ty().lanes == 1 && lanes > 1 {
            e.broadcast_to(lanes)
        } else {
            e
        }
    };
    let (cond, t, f) = (widen(cond), widen(t), widen(f));
    if cond.ty().lanes != t.ty().lanes {
        return Expr::invalid(
            t.ty(),
            "select's condition and values have different vector widths",
        );
    }
    Expr::select(cond, t, f)
}

/// A multi-way select: the value of the first case whose condition holds, else `default`.
pub fn select_cases(
    cases: impl IntoIterator<Item = (Expr, Expr)>,
    default: impl IntoOperand,
) -> Expr {
    let cases: Vec<(Expr, Expr)> = cases.into_iter().collect();
    let mut result = match default.into_operand() {
        Operand::Expr(e) => e,
        lit => {
            coerce(
                "select",
                Operand::Expr(cases.first().map_or(Expr::i32(0), |c| c.1.clone())),
                lit,
            )
            .1
        }
    };
    for (c, v) in cases.into_iter().rev() {
        result = select(c, v, result);
    }
    result
}

/// `values[index]`, and the last value for an index past the end or negative (Halide's `mux`),
/// e.g. `mux(c, [r, g, b])` packs three values into a channel dimension. The values are
/// coerced to one type as the arms of `select` are; literals take the type of the others.
pub fn mux<V: IntoOperand>(index: impl Into<Expr>, values: impl IntoIterator<Item = V>) -> Expr {
    let index = index.into();
    let values = coerce_list("mux", values.into_iter().map(V::into_operand).collect());
    let Some(last) = values.last() else {
        return Expr::invalid(Type::i32(), "mux needs at least one value");
    };
    let all: Vec<&Expr> = std::iter::once(&index).chain(&values).collect();
    if let Some(bad) = invalid_in(&all) {
        return bad;
    }
    if !index.ty().is_int_or_uint() {
        return Expr::invalid(
            last.ty(),
            format!(
                "the index of mux must be an integer, not {} ({index})",
                index.ty()
            ),
        );
    }
    // Positions the index's type cannot hold are unreachable: they fall to the last value.
    let reachable = values.len() - 1;
    (0..reachable)
        .rev()
        .filter(|&i| index.ty().can_represent_int(i as i128))
        .fold(last.clone(), |rest, i| {
            let is_i = binary_op(
                BinaryOp::Eq,
                Operand::Expr(index.clone()),
                Operand::Int(i as i64),
            );
            select(is_i, values[i].clone(), rest)
        })
}

/// Halide's `mux` of Tuples: the Tuple at `index` (the last for an index past the end or
/// negative), element by element. Every Tuple must have as many elements as the first.
pub fn mux_tuples(
    index: impl Into<Expr>,
    tuples: impl IntoIterator<Item = Vec<Expr>>,
) -> Vec<Expr> {
    let index = index.into();
    let tuples: Vec<Vec<Expr>> = tuples.into_iter().collect();
    let Some(first) = tuples.first() else {
        return vec![Expr::invalid(Type::i32(), "mux needs at least one Tuple")];
    };
    if let Some((i, t)) = tuples
        .iter()
        .enumerate()
        .find(|(_, t)| t.len() != first.len())
    {
        let msg = format!(
            "mux's Tuples differ in size: Tuple {i} has {} elements, Tuple 0 has {}",
            t.len(),
            first.len()
        );
        return vec![Expr::invalid(Type::i32(), msg)];
    }
    (0..first.len())
        .map(|e| mux(index.clone(), tuples.iter().map(|t| t[e].clone())))
        .collect()
}

/// Converts to `ty` (integers wrap; floats truncate toward zero and saturate; NaN gives 0).
pub fn cast(ty: Type, e: impl Into<Expr>) -> Expr {
    let e = e.into();
    if matches!(e.kind(), ExprKind::Invalid(_)) {
        return e;
    }
    Expr::cast(ty.with_lanes(e.ty().lanes), e)
}

/// `cast` to the IR type of a Rust scalar type: `cast_to::<u8>(e)`.
pub fn cast_to<T: Scalar>(e: impl Into<Expr>) -> Expr {
    cast(T::TYPE, e)
}

/// Converts to `ty`, clamping to its range first. A float type's range is [-inf, inf] (as
/// Halide's), so between float types this is a plain conversion.
pub fn saturating_cast(ty: Type, e: impl Into<Expr>) -> Expr {
    let e = e.into();
    let ty = ty.with_lanes(e.ty().lanes);
    if e.ty() == ty || matches!(e.kind(), ExprKind::Invalid(_)) {
        return e;
    }
    Expr::intrinsic(ty, Intrinsic::SaturatingCast, vec![e])
}

/// Reinterprets the bits of `e` as `ty` (which must have the same bit width).
pub fn reinterpret(ty: Type, e: impl Into<Expr>) -> Expr {
    let e = e.into();
    let ty = ty.with_lanes(e.ty().lanes);
    if ty.bits != e.ty().bits || ty.is_bool() || e.ty().is_bool() {
        return Expr::invalid(
            ty,
            format!("cannot reinterpret {} as {ty}: bit widths differ", e.ty()),
        );
    }
    Expr::intrinsic(ty, Intrinsic::Reinterpret, vec![e])
}

/// `|x|`. For signed integers the result is the unsigned type of the same width (so that
/// `abs(i8::MIN)` is representable), as in Halide.
pub fn abs(x: impl Into<Expr>) -> Expr {
    let x = x.into();
    let ty = x.ty();
    if ty.is_bool() {
        return Expr::invalid(ty, "abs of a bool");
    }
    let out = if ty.is_int() {
        ty.with_code(crate::ir::TypeCode::UInt)
    } else {
        ty
    };
    Expr::intrinsic(out, Intrinsic::Abs, vec![x])
}

/// `|a - b|` computed without overflow; unsigned result for integer operands.
pub fn absd(a: impl IntoOperand, b: impl IntoOperand) -> Expr {
    let (a, b) = coerce("absd", a.into_operand(), b.into_operand());
    if let Some(bad) = invalid_in(&[&a, &b]) {
        return bad;
    }
    let ty = a.ty();
    if ty.is_bool() {
        return Expr::invalid(ty, "absd of bools");
    }
    let out = if ty.is_int() {
        ty.with_code(crate::ir::TypeCode::UInt)
    } else {
        ty
    };
    Expr::intrinsic(out, Intrinsic::Absd, vec![a, b])
}

/// `a * (1 - w) + b * w`. The weight is a float, or an unsigned integer standing for
/// `w / max` of its type (Halide's fixed-point weights). Float operands take the weight
/// converted to their type; integer operands are blended and rounded to nearest (exactly, for
/// an integer weight); bool operands give `b` when the weight is above one half, else `a`.
pub fn lerp(a: impl IntoOperand, b: impl IntoOperand, w: impl IntoOperand) -> Expr {
    let (a, b) = coerce("lerp", a.into_operand(), b.into_operand());
    let w = match w.into_operand() {
        Operand::Expr(e) => e,
        Operand::Int(v) => Expr::f32(v as f32),
        Operand::Float(v) if a.ty().is_float() => Expr::make_float(a.ty().element(), v),
        Operand::Float(v) => Expr::f32(v as f32),
    };
    if let Some(bad) = invalid_in(&[&a, &b, &w]) {
        return bad;
    }
    let weight_ty = w.ty();
    if !weight_ty.is_float() && !weight_ty.is_uint() {
        return Expr::invalid(
            a.ty(),
            format!(
                "the weight of lerp must be a float or an unsigned integer, not {weight_ty} ({w})"
            ),
        );
    }
    if a.ty().is_bool() {
        let half = if weight_ty.is_float() {
            Operand::Float(0.5)
        } else {
            Operand::Int((weight_ty.int_max() / 2) as i64)
        };
        return select(binary_op(BinaryOp::Gt, Operand::Expr(w), half), b, a);
    }
    let w = if a.ty().is_float() {
        cast(a.ty().element(), float_weight(w))
    } else {
        w
    };
    let lanes = a.ty().lanes;
    let w = if w.ty().lanes == 1 && lanes > 1 {
        w.broadcast_to(lanes)
    } else {
        w
    };
    Expr::intrinsic(a.ty(), Intrinsic::Lerp, vec![a, b, w])
}

/// A lerp weight as a float: an unsigned integer weight `w` becomes `w / max`, computed as
/// Halide does (in f64 for 32-bit weights, in f32 otherwise).
fn float_weight(w: Expr) -> Expr {
    let weight_ty = w.ty();
    if weight_ty.is_float() {
        return w;
    }
    let float = if weight_ty.bits == 32 {
        Type::f64()
    } else {
        Type::f32()
    };
    cast(float, w) / Expr::make_float(float, weight_ty.int_max() as f64)
}

/// Converts an argument of a float-only math function: integers become f32.
fn float_arg(e: Expr) -> Expr {
    if e.ty().is_float() || matches!(e.kind(), ExprKind::Invalid(_)) {
        e
    } else {
        Expr::cast(Type::f32().with_lanes(e.ty().lanes), e)
    }
}

macro_rules! float_unary {
    ($($(#[$doc:meta])* $name:ident => $op:ident),* $(,)?) => {$(
        $(#[$doc])*
        pub fn $name(x: impl Into<Expr>) -> Expr {
            let x = float_arg(x.into());
            Expr::intrinsic(x.ty(), Intrinsic::$op, vec![x])
        }
    )*};
}

float_unary! {
    /// The square root (Halide's `sqrt`); an integer `x` is converted to f32 first, as by
    /// the other float functions.
    sqrt => Sqrt,
    /// e to the power `x`.
    exp => Exp,
    /// Natural logarithm.
    log => Log,
    /// The largest integer-valued float not above `x`.
    floor => Floor,
    /// The smallest integer-valued float not below `x`.
    ceil => Ceil,
    /// Rounds to the nearest integer, ties to even.
    round => Round,
    /// `x` rounded toward zero.
    trunc => Trunc,
    /// The sine of `x` radians.
    sin => Sin,
    /// The cosine of `x` radians.
    cos => Cos,
    /// The tangent of `x` radians.
    tan => Tan,
    /// The arcsine, in radians.
    asin => Asin,
    /// The arccosine, in radians.
    acos => Acos,
    /// The arctangent, in radians.
    atan => Atan,
    /// The hyperbolic sine.
    sinh => Sinh,
    /// The hyperbolic cosine.
    cosh => Cosh,
    /// The hyperbolic tangent.
    tanh => Tanh,
}

/// The float intrinsic `op` of two operands, integers converted to f32.
fn float_binary(name: &str, op: Intrinsic, a: Operand, b: Operand) -> Expr {
    let (a, b) = coerce(name, a, b);
    let (a, b) = match_types(name, float_arg(a), float_arg(b));
    if let Some(bad) = invalid_in(&[&a, &b]) {
        return bad;
    }
    Expr::intrinsic(a.ty(), op, vec![a, b])
}

/// The angle of the point `(b, a)` (Halide's `atan2(y, x)`), of floats.
pub fn atan2(a: impl IntoOperand, b: impl IntoOperand) -> Expr {
    float_binary(
        "atan2",
        Intrinsic::Atan2,
        a.into_operand(),
        b.into_operand(),
    )
}

/// `sqrt(a * a + b * b)`, of floats.
pub fn hypot(a: impl IntoOperand, b: impl IntoOperand) -> Expr {
    float_binary(
        "hypot",
        Intrinsic::Hypot,
        a.into_operand(),
        b.into_operand(),
    )
}

/// `a` raised to the power `b`. As in Halide, a constant integer exponent (an integer literal
/// or a signed integer constant) becomes multiplications in `a`'s own type, so `pow(x, 2)` of
/// a u64 stays u64, and a negative one is one divided by that product; any other exponent
/// makes both operands floats (integers become f32).
pub fn pow(a: impl IntoOperand, b: impl IntoOperand) -> Expr {
    let (a, b) = (a.into_operand(), b.into_operand());
    let exponent = match &b {
        Operand::Int(v) => Some(*v),
        Operand::Expr(e) if e.ty().is_int() => e.as_int_const().and_then(|v| i64::try_from(v).ok()),
        _ => None,
    };
    match (exponent, a) {
        (Some(p), Operand::Expr(base)) if invalid_in(&[&base]).is_none() => {
            raise_to_integer_power(base, p)
        }
        (Some(p), Operand::Int(base)) => raise_to_integer_power(Expr::i32(base as i32), p),
        (_, a) => float_binary("pow", Intrinsic::Pow, a, b),
    }
}

/// `base` multiplied by itself `p` times (by squaring), in `base`'s type; `1 / base^-p` for
/// a negative `p`.
fn raise_to_integer_power(base: Expr, p: i64) -> Expr {
    match p {
        0 => Expr::one(base.ty()),
        1 => base,
        p if p < 0 => match p.checked_neg() {
            Some(q) => Expr::one(base.ty()) / raise_to_integer_power(base, q),
            None => Expr::invalid(base.ty(), format!("pow exponent {p} is out of range")),
        },
        p => {
            let half = raise_to_integer_power(base.clone(), p / 2);
            let square = half.clone() * half;
            if p % 2 == 1 {
                square * base
            } else {
                square
            }
        }
    }
}

/// `sin(x)` of an f32 by polynomials (Halide's `fast_sin`): within 1e-6 of `sin` for |x| up
/// to a few thousand, and much cheaper, as it calls no library function.
pub fn fast_sin(x: impl Into<Expr>) -> Expr {
    sin_by_quadrant("fast_sin", x.into(), 0)
}

/// `cos(x)` of an f32 by polynomials (Halide's `fast_cos`), as accurate as `fast_sin`.
pub fn fast_cos(x: impl Into<Expr>) -> Expr {
    sin_by_quadrant("fast_cos", x.into(), 1)
}

/// `sin(x + shift · π/2)`: x reduced to `r` in [0, π/2) in quadrant `k`, then sin r, cos r,
/// -sin r or -cos r by the quadrant. On [0, π/2) the Taylor series stopped after r^11 (sin)
/// and r^12 (cos) are within 4e-8 of the functions.
fn sin_by_quadrant(name: &str, x: Expr, shift: i32) -> Expr {
    let x = match f32_arg(name, x) {
        Ok(x) => x,
        Err(invalid) => return invalid,
    };
    let half_pi = std::f32::consts::FRAC_PI_2;
    let k = floor(x.clone() / half_pi);
    let r = x - k.clone() * half_pi;
    let quadrant = (cast(Type::i32().with_lanes(k.ty().lanes), k) + shift) % 4;
    let r2 = r.clone() * r.clone();
    // 1/(2n+1)! and 1/(2n)! with alternating signs.
    let sin_r = r * horner(
        &r2,
        &[
            1.0,
            -1.0 / 6.0,
            1.0 / 120.0,
            -1.0 / 5040.0,
            1.0 / 362880.0,
            -1.0 / 39916800.0,
        ],
    );
    let cos_r = horner(
        &r2,
        &[
            1.0,
            -0.5,
            1.0 / 24.0,
            -1.0 / 720.0,
            1.0 / 40320.0,
            -1.0 / 3628800.0,
            1.0 / 479001600.0,
        ],
    );
    mux(quadrant, [sin_r.clone(), cos_r.clone(), -sin_r, -cos_r])
}

/// The argument of an f32-only approximation `name` (integers converted to f32 first), or
/// the Invalid expression to return: the approximations are fitted to f32's precision.
fn f32_arg(name: &str, x: Expr) -> std::result::Result<Expr, Expr> {
    let x = float_arg(x);
    if matches!(x.kind(), ExprKind::Invalid(_)) {
        return Err(x);
    }
    if x.ty().element() != Type::f32() {
        return Err(Expr::invalid(
            x.ty(),
            format!("{name} needs an f32 argument, not {}", x.ty()),
        ));
    }
    Ok(x)
}

/// `c0 + c1 t + c2 t² + ...` in f32, by Horner's rule.
fn horner(t: &Expr, coefficients: &[f64]) -> Expr {
    coefficients
        .iter()
        .rev()
        .fold(Expr::from(0.0f32), |acc, &c| acc * t.clone() + c as f32)
}

/// The error function `2/√π ∫₀ˣ e^(-t²) dt` of an f32 (Halide's `erf`), within a few ulps:
/// by its Taylor series (to x^23) for |x| < 1, and above by
/// `1 - erfc(|x|)`, with `erfc` by Numerical Recipes' Chebyshev fit
/// `t · exp(-x² + P(t))`, `t = 1 / (1 + |x|/2)` (relative error below 1.2e-7); odd in x.
pub fn erf(x: impl Into<Expr>) -> Expr {
    let x = match f32_arg("erf", x.into()) {
        Ok(x) => x,
        Err(invalid) => return invalid,
    };
    let a = abs(x.clone());
    let a2 = a.clone() * a.clone();
    // 2/√π · (-1)^n / (n! (2n + 1)): the series is within 1e-9 at |x| = 1.
    let taylor_coefficients: Vec<f64> = (0..12)
        .scan(1.0f64, |factorial, n| {
            if n > 0 {
                *factorial *= f64::from(n);
            }
            let sign = if n % 2 == 0 { 1.0 } else { -1.0 };
            Some(sign * std::f64::consts::FRAC_2_SQRT_PI / (*factorial * f64::from(2 * n + 1)))
        })
        .collect();
    let near_zero = a.clone() * horner(&a2, &taylor_coefficients);
    let t = Expr::from(1.0f32) / (a.clone() * 0.5f32 + 1.0f32);
    let chebyshev = horner(
        &t,
        &[
            -1.265_512_23,
            1.000_023_68,
            0.374_091_96,
            0.096_784_18,
            -0.186_288_06,
            0.278_868_07,
            -1.135_203_98,
            1.488_515_87,
            -0.822_152_23,
            0.170_872_77,
        ],
    );
    let erfc = t * exp(chebyshev - a2);
    let magnitude = select(a.lt(1.0f32), near_zero, Expr::from(1.0f32) - erfc);
    select(x.lt(0.0f32), -magnitude.clone(), magnitude)
}

/// An approximation of `1 / x` for an f32 (Halide's `fast_inverse`) that divides nothing:
/// an estimate from the bits of `x` refined by two Newton steps, within 1e-5 relative error
/// (x86's `rcpps`, which Halide uses there, is within 4e-4) for normal `x` of either sign.
pub fn fast_inverse(x: impl Into<Expr>) -> Expr {
    let x = match f32_arg("fast_inverse", x.into()) {
        Ok(x) => x,
        Err(invalid) => return invalid,
    };
    // Subtracting the bits from this constant negates the exponent and roughly inverts
    // the mantissa: within 12% of 1/x (the sign bit wraps through).
    let y = bits_estimate(&x, 0x7EF3_11C3, |bits| bits);
    let step = |y: Expr| y.clone() * (Expr::from(2.0f32) - x.clone() * y);
    step(step(y))
}

/// An approximation of `1 / sqrt(x)` for a positive f32 (Halide's `fast_inverse_sqrt`),
/// with no square root or division: an estimate from the bits of `x` refined by two Newton
/// steps, within 5e-6 relative error.
pub fn fast_inverse_sqrt(x: impl Into<Expr>) -> Expr {
    let x = match f32_arg("fast_inverse_sqrt", x.into()) {
        Ok(x) => x,
        Err(invalid) => return invalid,
    };
    // Halving the bits halves the exponent: within 3.5% of 1/sqrt(x).
    let y = bits_estimate(&x, 0x5F37_5A86, |bits| bits >> 1);
    let half_x = x * 0.5f32;
    let step = |y: Expr| y.clone() * (Expr::from(1.5f32) - half_x.clone() * y.clone() * y);
    step(step(y))
}

/// The f32 whose bits are `magic - shape(bits of x)`, in wrapping u32 arithmetic.
fn bits_estimate(x: &Expr, magic: u32, shape: impl Fn(Expr) -> Expr) -> Expr {
    let bits_ty = Type::u32().with_lanes(x.ty().lanes);
    let bits = reinterpret(bits_ty, x.clone());
    let magic = Expr::u64_const(bits_ty, u64::from(magic));
    reinterpret(x.ty(), magic - shape(bits))
}

macro_rules! float_predicate {
    ($($(#[$doc:meta])* $name:ident => $op:ident),* $(,)?) => {$(
        $(#[$doc])*
        pub fn $name(x: impl Into<Expr>) -> Expr {
            let x = float_arg(x.into());
            Expr::intrinsic(Type::bool_().with_lanes(x.ty().lanes), Intrinsic::$op, vec![x])
        }
    )*};
}

float_predicate! {
    /// Whether the float `x` is NaN (Halide's `is_nan`).
    is_nan => IsNan,
    /// Whether the float `x` is +∞ or −∞ (Halide's `is_inf`).
    is_inf => IsInf,
    /// Whether the float `x` is neither NaN nor infinite (Halide's `is_finite`).
    is_finite => IsFinite,
}

macro_rules! bit_count {
    ($($(#[$doc:meta])* $name:ident => $op:ident),* $(,)?) => {$(
        $(#[$doc])*
        pub fn $name(x: impl Into<Expr>) -> Expr {
            let x = x.into();
            if !x.ty().is_int_or_uint() {
                return Expr::invalid(x.ty(), format!("{} needs an integer operand, not {}", stringify!($name), x.ty()));
            }
            Expr::intrinsic(x.ty(), Intrinsic::$op, vec![x])
        }
    )*};
}

bit_count! {
    /// The number of set bits of the integer `x` (Halide's `popcount`).
    popcount => PopCount,
    /// The number of zero bits above the highest set bit of `x` (Halide's
    /// `count_leading_zeros`).
    count_leading_zeros => CountLeadingZeros,
    /// The number of zero bits below the lowest set bit of `x` (Halide's
    /// `count_trailing_zeros`).
    count_trailing_zeros => CountTrailingZeros,
}

/// Marks a condition as usually true (a hint for loop partitioning; the value is unchanged).
pub fn likely(x: impl Into<Expr>) -> Expr {
    let x = x.into();
    Expr::intrinsic(x.ty(), Intrinsic::Likely, vec![x])
}

/// `likely`, heeded only by a loop with no loop inside it.
pub fn likely_if_innermost(x: impl Into<Expr>) -> Expr {
    let x = x.into();
    Expr::intrinsic(x.ty(), Intrinsic::LikelyIfInnermost, vec![x])
}
