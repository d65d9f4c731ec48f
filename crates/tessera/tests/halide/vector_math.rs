//! Halide's `test/correctness/vector_math.cpp`: vectorized arithmetic of every type at its
//! native width (f32 x 4 and x 8, f64 x 2, u8 and i8 x 16, u16 and i16 x 8, u32 and i32 x
//! 4) on random inputs in [1, 65) (minus 10 for signed types): add, subtract, multiply
//! (wrapping for integers), select, a clamped gather, a vectorization across rows (stride of
//! the image's width), a clamped scatter, clamp, `hypot` (within 1e-4), division by a
//! clamped divisor and by each constant 2..15 (rounding down for integers; floats within
//! 1e-4, doubles 1e-5), an interleaving select, a reversal, a shifted load, `abs`, `absd` and,
//! for i16, the sums and differences of widened products (`pmaddwd`). Each is checked
//! against plain Rust.
//!
//! Left out: `lerp` (ported in full in `lerp.rs`); the f32 transcendentals, whose errors
//! Halide only prints, and `fast_log`/`fast_exp`/`fast_pow` (Tessera has none); float16 and
//! bfloat16 (Tessera has no such types). 128 x 16 points instead of 320 x 16.

use crate::lower_common::{check, seeded_rng, TestInputs};
use rand::Rng;
use tessera::prelude::*;

const W: i64 = 128;
const H: i64 = 16;

/// A scalar type under test, with Halide's arithmetic on it.
trait Num: Scalar + Copy + PartialOrd + std::fmt::Debug {
    fn ty() -> Type;
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
    fn add(self, b: Self) -> Self;
    fn sub(self, b: Self) -> Self;
    fn mul(self, b: Self) -> Self;
    /// Halide's division: rounding down for integers.
    fn div(self, b: Self) -> Self;
    fn buffer(b: Buffer<Self>) -> AnyBuffer;
}

macro_rules! int_num {
    ($($t:ty => $ty:ident),*) => {$(
        impl Num for $t {
            fn ty() -> Type { Type::$ty() }
            fn from_f64(v: f64) -> Self { v as $t }
            fn to_f64(self) -> f64 { self as f64 }
            fn add(self, b: Self) -> Self { self.wrapping_add(b) }
            fn sub(self, b: Self) -> Self { self.wrapping_sub(b) }
            fn mul(self, b: Self) -> Self { self.wrapping_mul(b) }
            fn div(self, b: Self) -> Self { self.div_euclid(b) }
            fn buffer(b: Buffer<Self>) -> AnyBuffer { b.into() }
        }
    )*};
}
int_num!(u8 => u8, i8 => i8, u16 => u16, i16 => i16, u32 => u32, i32 => i32);

macro_rules! float_num {
    ($($t:ty => $ty:ident),*) => {$(
        impl Num for $t {
            fn ty() -> Type { Type::$ty() }
            fn from_f64(v: f64) -> Self { v as $t }
            fn to_f64(self) -> f64 { self as f64 }
            fn add(self, b: Self) -> Self { self + b }
            fn sub(self, b: Self) -> Self { self - b }
            fn mul(self, b: Self) -> Self { self * b }
            fn div(self, b: Self) -> Self { self / b }
            fn buffer(b: Buffer<Self>) -> AnyBuffer { b.into() }
        }
    )*};
}
float_num!(f32 => f32, f64 => f64);

struct Case<T: Num> {
    input: ImageParam,
    data: Buffer<T>,
    inputs: TestInputs,
    lanes: i32,
    x: Var,
    y: Var,
}

impl<T: Num> Case<T> {
    fn new(lanes: i32) -> Case<T> {
        let mut rng = seeded_rng("vector_math", 320);
        let signed = T::from_f64(-1.0) < T::from_f64(0.0);
        let data = Buffer::<T>::from_fn(&[0, 0], &[W + 16, H + 16], |_| {
            let v = T::from_f64(f64::from(rng.random_range(0..1024)) * 0.0625 + 1.0);
            if signed {
                v.sub(T::from_f64(10.0))
            } else {
                v
            }
        });
        let input = ImageParam::new(T::ty(), 2, "input");
        let inputs = TestInputs::new().image(&input, T::buffer(data.clone()));
        Case {
            input,
            data,
            inputs,
            lanes,
            x: Var::new("x"),
            y: Var::new("y"),
        }
    }
    fn at(&self, x: impl Into<Expr>, y: impl Into<Expr>) -> Expr {
        self.input.at((x.into(), y.into()))
    }
    fn v(&self, x: i64, y: i64) -> T {
        self.data.get(&[x, y])
    }
    fn c(&self, v: i32) -> Expr {
        cast(T::ty(), v)
    }
    /// Realizes `value` over W x H (vectorized over `vectorized` unless it is None) and
    /// checks it against `want` within `tolerance`.
    fn check(
        &self,
        what: &str,
        value: Expr,
        vectorized: Option<Var>,
        tolerance: f64,
        want: impl Fn(i64, i64) -> f64,
    ) {
        let (x, y) = (self.x, self.y);
        let f = Func::new("f");
        f.define((x, y), value).unwrap();
        if let Some(v) = vectorized {
            f.vectorize(v, self.lanes);
        }
        let run = check(&f, &self.inputs, &[0, 0], &[W, H]);
        let out = &run.realization.buffers[0];
        for yy in 0..H {
            for xx in 0..W {
                let (got, want) = (out.get_value(&[xx, yy]).as_f64(), want(xx, yy));
                assert!(
                    (got - want).abs() <= tolerance,
                    "{} x {}: {what} at ({xx}, {yy}) is {got}, expected {want}",
                    T::ty(),
                    self.lanes
                );
            }
        }
    }
}

fn vector_math<T: Num>(lanes: i32) {
    let k = Case::<T>::new(lanes);
    let (x, y) = (k.x, k.y);
    let vx = Some(x);
    let exact = 0.0;
    let div_tolerance = if T::ty() == Type::f32() {
        1e-4
    } else if T::ty() == Type::f64() {
        1e-5
    } else {
        0.0
    };
    k.check("add", k.at(x, y) + k.at(x + 1, y), vx, exact, |x, y| {
        k.v(x, y).add(k.v(x + 1, y)).to_f64()
    });
    k.check("sub", k.at(x, y) - k.at(x + 1, y), vx, exact, |x, y| {
        k.v(x, y).sub(k.v(x + 1, y)).to_f64()
    });
    k.check("mul", k.at(x, y) * k.at(x + 1, y), vx, exact, |x, y| {
        k.v(x, y).mul(k.v(x + 1, y)).to_f64()
    });
    k.check(
        "select",
        select(
            k.at(x, y).gt(k.at(x + 1, y)),
            k.at(x + 2, y),
            k.at(x + 3, y),
        ),
        vx,
        exact,
        |x, y| {
            let pick = if k.v(x, y) > k.v(x + 1, y) { 2 } else { 3 };
            k.v(x + pick, y).to_f64()
        },
    );
    let xc = clamp(cast_to::<i32>(k.at(x, y)), 0, W as i32 - 1);
    let yc = clamp(cast_to::<i32>(k.at(x + 1, y)), 0, H as i32 - 1);
    k.check("gather", k.at(xc, yc), vx, exact, |x, y| {
        let xc = (k.v(x, y).to_f64() as i64).clamp(0, W - 1);
        let yc = (k.v(x + 1, y).to_f64() as i64).clamp(0, H - 1);
        k.v(xc, yc).to_f64()
    });
    k.check(
        "vectorized across rows",
        k.at(x, y) * k.c(2),
        Some(y),
        exact,
        |x, y| k.v(x, y).mul(T::from_f64(2.0)).to_f64(),
    );
    {
        let f6 = Func::new("f6");
        f6.define((x, y), 0).unwrap();
        f6.update((x.expr(), clamp(x * x, 0, H as i32 - 1)), 1)
            .unwrap();
        f6.update_stage(0).vectorize(x, lanes);
        let run = check(&f6, &k.inputs, &[0, 0], &[W, H]);
        let out = crate::i32_values(&run);
        for xx in 0..W {
            let row = (xx * xx).clamp(0, H - 1);
            for yy in 0..H {
                assert_eq!(
                    out.get(&[xx, yy]),
                    i32::from(yy == row),
                    "scatter at ({xx}, {yy})"
                );
            }
        }
    }
    k.check(
        "clamp",
        clamp(k.at(x, y), k.c(10), k.c(20)),
        vx,
        exact,
        |x, y| k.v(x, y).to_f64().clamp(10.0, 20.0),
    );
    k.check(
        "hypot",
        hypot(1.1f32, cast_to::<f32>(k.at(x, y))),
        vx,
        1e-4,
        |x, y| f64::from(1.1f32.hypot(k.v(x, y).to_f64() as f32)),
    );
    k.check(
        "divide",
        k.at(x, y) / clamp(k.at(x + 1, y), k.c(1), k.c(3)),
        vx,
        div_tolerance,
        |x, y| {
            let d = T::from_f64(k.v(x + 1, y).to_f64().clamp(1.0, 3.0));
            k.v(x, y).div(d).to_f64()
        },
    );
    for c in 2..16 {
        k.check(
            &format!("divide by {c}"),
            k.at(x, y) / k.c(c),
            vx,
            div_tolerance,
            |x, y| k.v(x, y).div(T::from_f64(f64::from(c))).to_f64(),
        );
    }
    k.check(
        "interleave",
        select((x % 2).eq_(0), k.at(x / 2, y), k.at(x / 2, y + 1)),
        vx,
        exact,
        |x, y| k.v(x / 2, y + x % 2).to_f64(),
    );
    k.check(
        "reverse",
        k.at(W as i32 - 1 - x, H as i32 - 1 - y),
        vx,
        exact,
        |x, y| k.v(W - 1 - x, H - 1 - y).to_f64(),
    );
    k.check("unaligned load", k.at(x + 3, y), vx, exact, |x, y| {
        k.v(x + 3, y).to_f64()
    });
    if !T::ty().is_uint() {
        k.check(
            "abs",
            cast(T::ty(), abs(k.at(x, y))),
            None,
            exact,
            |x, y| k.v(x, y).to_f64().abs(),
        );
    }
    k.check(
        "absd",
        absd(k.at(x, y), k.at(x + 1, y)),
        vx,
        exact,
        |x, y| {
            let (a, b) = (k.v(x, y), k.v(x + 1, y));
            if a > b { a.sub(b) } else { b.sub(a) }.to_f64()
        },
    );
    if T::ty() == Type::i16() {
        let wide = |e: Expr| cast_to::<i32>(e);
        let product =
            |x: i64, y: i64, dy: i64| k.v(x, y + dy).to_f64() * k.v(x, y + dy + 2).to_f64();
        k.check(
            "pmaddwd",
            wide(k.at(x, y)) * k.at(x, y + 2) + wide(k.at(x, y + 1)) * k.at(x, y + 3),
            vx,
            exact,
            |x, y| product(x, y, 0) + product(x, y, 1),
        );
        k.check(
            "pmsubwd",
            wide(k.at(x, y)) * k.at(x, y + 2) - wide(k.at(x, y + 1)) * k.at(x, y + 3),
            vx,
            exact,
            |x, y| product(x, y, 0) - product(x, y, 1),
        );
    }
}

#[test]
fn f32_by_4_and_8() {
    vector_math::<f32>(4);
    vector_math::<f32>(8);
}

#[test]
fn f64_by_2() {
    vector_math::<f64>(2);
}

#[test]
fn u8_and_i8_by_16() {
    vector_math::<u8>(16);
    vector_math::<i8>(16);
}

#[test]
fn u16_and_i16_by_8() {
    vector_math::<u16>(8);
    vector_math::<i16>(8);
}

#[test]
fn u32_and_i32_by_4() {
    vector_math::<u32>(4);
    vector_math::<i32>(4);
}
