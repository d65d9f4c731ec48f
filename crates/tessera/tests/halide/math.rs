//! Halide's `test/correctness/math.cpp`: the math functions reach the target and agree
//! with C's (here Rust's) on a sweep of inputs, within a relative error of 5e-7 or an
//! absolute error of 1e-4: `abs`, `sqrt`, `sin`, `cos`, `tan`, `asin`, `acos`, `atan`,
//! `atan2`, `sinh`, `cosh`, `tanh`, `round`, `exp`, `log`, `floor`, `ceil`, `trunc` and
//! `pow` in f32 and f64; `abs` of i8/i16/i32 (an unsigned result); and `absd` of floats and
//! of every 8- to 32-bit integer type (an unsigned result for integers). Each sweep is 256
//! evenly spaced points (converted to the type by truncation), one per output point.
//!
//! Tessera has no `asinh`, `acosh` or `atanh`, so those sweeps are left out. Halide rounds
//! ties away from zero through C's `round` in its reference but to even in the pipeline;
//! `round` is checked against ties-to-even. GPU schedules are left out.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

const STEPS: i64 = 256;

fn to_value(v: f64, ty: Type) -> Value {
    if ty == Type::f32() {
        Value::F32(v as f32)
    } else if ty == Type::f64() {
        Value::F64(v)
    } else if ty.is_int() {
        Value::Int(v as i64)
    } else {
        Value::UInt(v as u64)
    }
}

fn from_value(v: Value) -> f64 {
    v.as_f64()
}

/// The sweep `start + i (end - start) / steps` in the type (truncated like a C cast).
fn sweep(start: f64, end: f64, i: i64, ty: Type) -> f64 {
    from_value(to_value(
        start + i as f64 * (end - start) / STEPS as f64,
        ty,
    ))
}

fn relatively_equal(want: f64, got: f64) -> bool {
    if want == got || (got - want).abs() < 1e-4 {
        return true;
    }
    let rel = if want.abs() > got.abs() {
        ((got - want) / want).abs()
    } else {
        ((got - want) / got).abs()
    };
    rel < 5e-7
}

/// `op(input(x))` over a sweep of `ty`, against `reference` of each input.
fn check_1(
    what: &str,
    ty: Type,
    op: fn(Expr) -> Expr,
    reference: &dyn Fn(f64) -> f64,
    (start, end): (f64, f64),
) {
    let input = ImageParam::new(ty, 1, "input");
    let x = Var::new("x");
    let f = Func::new("test");
    f.define(x, op(input.at(x))).unwrap();
    let mut data = AnyBuffer::with_mins(ty, &[0], &[STEPS]).unwrap();
    for i in 0..STEPS {
        data.set_value(&[i], to_value(sweep(start, end, i, ty), ty));
    }
    let run = check(&f, &TestInputs::new().image(&input, data), &[0], &[STEPS]);
    let out = &run.realization.buffers[0];
    for i in 0..STEPS {
        let a = sweep(start, end, i, ty);
        let (want, got) = (reference(a), from_value(out.get_value(&[i])));
        assert!(
            relatively_equal(want, got),
            "{what}({a}) in {ty}: {got}, not {want}"
        );
    }
}

/// `op(input(0, x), input(1, x))` over two sweeps of `ty`, against `reference`.
fn check_2(
    what: &str,
    ty: Type,
    op: fn(Expr, Expr) -> Expr,
    reference: &dyn Fn(f64, f64) -> f64,
    (s1, e1): (f64, f64),
    (s2, e2): (f64, f64),
) {
    let input = ImageParam::new(ty, 2, "input");
    let x = Var::new("x");
    let f = Func::new("test");
    f.define(
        x,
        op(
            input.at((Expr::from(0), Expr::from(x))),
            input.at((Expr::from(1), Expr::from(x))),
        ),
    )
    .unwrap();
    let mut data = AnyBuffer::with_mins(ty, &[0, 0], &[2, STEPS]).unwrap();
    for i in 0..STEPS {
        data.set_value(&[0, i], to_value(sweep(s1, e1, i, ty), ty));
        data.set_value(&[1, i], to_value(sweep(s2, e2, i, ty), ty));
    }
    let run = check(&f, &TestInputs::new().image(&input, data), &[0], &[STEPS]);
    let out = &run.realization.buffers[0];
    for i in 0..STEPS {
        let (a, b) = (sweep(s1, e1, i, ty), sweep(s2, e2, i, ty));
        let (want, got) = (reference(a, b), from_value(out.get_value(&[i])));
        assert!(
            relatively_equal(want, got),
            "{what}({a}, {b}) in {ty}: {got}, not {want}"
        );
    }
}

/// `check_1` in f32 (reference computed in f32) and in f64.
macro_rules! float_1 {
    ($name:ident, $op:expr, $range:expr) => {
        check_1(
            stringify!($name),
            Type::f32(),
            $op,
            &|a| (a as f32).$name() as f64,
            $range,
        );
        check_1(stringify!($name), Type::f64(), $op, &|a| a.$name(), $range);
    };
}

macro_rules! float_2 {
    ($name:ident, $op:expr, $r1:expr, $r2:expr) => {
        check_2(
            stringify!($name),
            Type::f32(),
            $op,
            &|a, b| (a as f32).$name(b as f32) as f64,
            $r1,
            $r2,
        );
        check_2(
            stringify!($name),
            Type::f64(),
            $op,
            &|a, b| a.$name(b),
            $r1,
            $r2,
        );
    };
}

/// Halide's sweep bound, five times a truncated pi.
#[allow(clippy::approx_constant)]
const PI5: f64 = 5.0 * 3.1415;

#[test]
fn abs_and_sqrt() {
    float_1!(abs, abs, (-1000.0, 1000.0));
    float_1!(sqrt, sqrt, (0.0, 1_000_000.0));
    float_1!(abs, abs, (-25.0, 25.0));
}

#[test]
fn trigonometry() {
    float_1!(sin, sin, (-PI5, PI5));
    float_1!(cos, cos, (-PI5, PI5));
    float_1!(tan, tan, (-PI5, PI5));
    float_1!(asin, asin, (-1.0, 1.0));
    float_1!(acos, acos, (-1.0, 1.0));
    float_1!(atan, atan, (-256.0, 100.0));
    float_2!(atan2, atan2, (-20.0, 20.0), (-2.0, 2.001));
}

#[test]
fn hyperbolic_functions() {
    float_1!(sinh, sinh, (-PI5, PI5));
    float_1!(cosh, cosh, (0.0, 1.0));
    float_1!(tanh, tanh, (-PI5, PI5));
}

#[test]
fn exponentials_and_rounding() {
    float_1!(round_ties_even, round, (-15.0, 15.0));
    float_1!(exp, exp, (0.0, 20.0));
    float_1!(ln, log, (1.0, 1_000_000.0));
    float_1!(floor, floor, (-25.0, 25.0));
    float_1!(ceil, ceil, (-25.0, 25.0));
    float_1!(trunc, trunc, (-25.0, 25.0));
    float_2!(powf, pow, (0.1, 20.0), (0.1, 2.0));
}

#[test]
fn abs_of_signed_integers() {
    for (ty, max) in [
        (Type::i8(), i8::MAX as f64),
        (Type::i16(), i16::MAX as f64),
        (Type::i32(), i32::MAX as f64),
    ] {
        check_1("abs", ty, abs, &|a| a.abs(), (-max, max));
    }
}

#[test]
fn absd_of_floats_and_integers() {
    let absd_ref = |a: f64, b: f64| (a - b).abs();
    check_2(
        "absd",
        Type::f32(),
        absd,
        &|a, b| (a as f32 - b as f32).abs() as f64,
        (-25.0, 25.0),
        (-25.0, 25.0),
    );
    check_2(
        "absd",
        Type::f64(),
        absd,
        &absd_ref,
        (-25.0, 25.0),
        (-25.0, 25.0),
    );
    for (ty, min, max) in [
        (Type::i8(), i8::MIN as f64, i8::MAX as f64),
        (Type::i16(), i16::MIN as f64, i16::MAX as f64),
        (Type::i32(), i32::MIN as f64, i32::MAX as f64),
        (Type::u8(), 0.0, u8::MAX as f64),
        (Type::u16(), 0.0, u16::MAX as f64),
        (Type::u32(), 0.0, u32::MAX as f64),
    ] {
        check_2("absd", ty, absd, &absd_ref, (min, max), (min, max));
    }
}
