//! Halide's `test/correctness/mul_div_mod.cpp`: integer multiplication, division and modulo
//! on pseudo-random images salted with each type's extremes (and the extremes in the top
//! left corner), scalar and vectorized by 2, 4, 8 and 16: products of u8/u16/u32/i8/i16/i32
//! in their own type, widened (u8→u16, u16→u32, i8→i16, i16→i32) and mixed (u16·u32,
//! i16·i32, u16·i32), each wrapping like plain Rust's; quotient and remainder as a Tuple for
//! every type, which must be Euclidean (`q·b + r = a`, `0 ≤ r < |b|`; b ≠ 0 and no
//! `MIN / -1`); and the float modulo of f32 images, against `a - b·floor(a / b)`.
//!
//! Halide also compares each result with its simplifier's constant folding of the same
//! operation (an internal API with no Tessera counterpart; the checks against the evaluator
//! cover the interpreter and native code instead). The 1024x1024 images are shrunk to
//! 24x24. GPU and Hexagon schedules are left out.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

const W: i64 = 24;
const H: i64 = 24;
const SALT_RATE: u64 = 50;

/// Poor pseudo-random bits for point (i, j) of image `unique`.
fn ubits(unique: u64, i: i64, j: i64) -> u64 {
    let mut b = unique
        .wrapping_mul(275_604_541)
        .wrapping_add(i as u64)
        .wrapping_mul(982_451_653)
        .wrapping_add(j as u64)
        .wrapping_mul(776_531_491);
    for m in [573_259_391u64, 373_587_883, 982_451_653, 275_604_541] {
        b = (b ^ (b >> 32)).wrapping_mul(m);
    }
    b
}

fn range(ty: Type) -> (i128, i128) {
    let bits = ty.bits as u32;
    if ty.is_int() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// `v` wrapped to `ty`'s width (sign-extended for signed types).
fn wrap(v: i128, ty: Type) -> i128 {
    let bits = ty.bits as u32;
    let m = v & ((1i128 << bits) - 1);
    if ty.is_int() && m >= 1i128 << (bits - 1) {
        m - (1i128 << bits)
    } else {
        m
    }
}

fn to_value(v: i128, ty: Type) -> Value {
    if ty.is_int() {
        Value::Int(v as i64)
    } else {
        Value::UInt(v as u64)
    }
}

fn from_value(v: Value) -> i128 {
    match v {
        Value::Int(i) => i as i128,
        Value::UInt(u) => u as i128,
        other => panic!("an integer, not {other:?}"),
    }
}

/// An image of `ty` over W x H: random values in the type's range, one in 50 replaced by
/// the minimum or maximum, and the corners `min max / min max` (odd `unique`) or
/// `min max / max min` (even).
fn image_values(ty: Type, unique: u64) -> Vec<Vec<i128>> {
    let (min, max) = range(ty);
    let mut v = vec![vec![0i128; H as usize]; W as usize];
    for (i, col) in v.iter_mut().enumerate() {
        for (j, p) in col.iter_mut().enumerate() {
            *p = wrap(ubits(unique, i as i64, j as i64) as i128, ty);
            let salt = ubits(unique | 0x100, i as i64, j as i64);
            if salt.is_multiple_of(SALT_RATE) {
                *p = if salt & 0x100_0000 != 0 { max } else { min };
            }
        }
    }
    v[0][0] = min;
    v[1][0] = max;
    v[0][1] = if unique & 1 == 1 { min } else { max };
    v[1][1] = if unique & 1 == 1 { max } else { min };
    v
}

fn to_buffer(values: &[Vec<i128>], ty: Type) -> AnyBuffer {
    let mut b = AnyBuffer::with_mins(ty, &[0, 0], &[W, H]).unwrap();
    for (i, col) in values.iter().enumerate() {
        for (j, &v) in col.iter().enumerate() {
            b.set_value(&[i as i64, j as i64], to_value(v, ty));
        }
    }
    b
}

fn mul(t1: Type, t2: Type, rt: Type, vector_width: i32) {
    let (a, b) = (image_values(t1, 1), image_values(t2, 2));
    let (ia, ib) = (ImageParam::new(t1, 2, "a"), ImageParam::new(t2, 2, "b"));
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), cast(rt, ia.at((x, y))) * cast(rt, ib.at((x, y))))
        .unwrap();
    if vector_width > 1 {
        f.vectorize(x, vector_width);
    }
    let inputs = TestInputs::new()
        .image(&ia, to_buffer(&a, t1))
        .image(&ib, to_buffer(&b, t2));
    let run = check(&f, &inputs, &[0, 0], &[W, H]);
    let out = &run.realization.buffers[0];
    for i in 0..W as usize {
        for j in 0..H as usize {
            let want = wrap(wrap(a[i][j], rt) * wrap(b[i][j], rt), rt);
            let got = from_value(out.get_value(&[i as i64, j as i64]));
            assert_eq!(
                got, want,
                "{t1} {} * {t2} {} as {rt} (vector width {vector_width})",
                a[i][j], b[i][j]
            );
        }
    }
}

fn div_mod(t: Type, vector_width: i32) {
    let (min, _) = range(t);
    let (mut a, mut b) = (image_values(t, 1), image_values(t, 2));
    for i in 0..W as usize {
        for j in 0..H as usize {
            if b[i][j] == 0 {
                b[i][j] = 1;
            }
            if t.is_int() && a[i][j] == min && b[i][j] == -1 {
                a[i][j] += 1;
            }
        }
    }
    let (ia, ib) = (ImageParam::new(t, 2, "a"), ImageParam::new(t, 2, "b"));
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define(
        (x, y),
        Tuple(vec![
            ia.at((x, y)) / ib.at((x, y)),
            ia.at((x, y)) % ib.at((x, y)),
        ]),
    )
    .unwrap();
    if vector_width > 1 {
        f.vectorize(x, vector_width);
    }
    let inputs = TestInputs::new()
        .image(&ia, to_buffer(&a, t))
        .image(&ib, to_buffer(&b, t));
    let run = check(&f, &inputs, &[0, 0], &[W, H]);
    let (q, r) = (&run.realization.buffers[0], &run.realization.buffers[1]);
    for i in 0..W as usize {
        for j in 0..H as usize {
            let p = [i as i64, j as i64];
            let (qi, ri) = (from_value(q.get_value(&p)), from_value(r.get_value(&p)));
            let (ai, bi) = (a[i][j], b[i][j]);
            let what = format!("{t} {ai} / {bi} = {qi} rem {ri} (vector width {vector_width})");
            assert_eq!(qi * bi + ri, ai, "{what}");
            assert!(0 <= ri && ri < bi.abs(), "{what}");
            assert_eq!((qi, ri), (ai.div_euclid(bi), ai.rem_euclid(bi)), "{what}");
        }
    }
}

fn test_mul(vector_width: i32) {
    let (u8_, u16_, u32_) = (Type::u8(), Type::u16(), Type::u32());
    let (i8_, i16_, i32_) = (Type::i8(), Type::i16(), Type::i32());
    for t in [u8_, u16_, u32_, i8_, i16_, i32_] {
        mul(t, t, t, vector_width);
    }
    for (t, wide) in [(u8_, u16_), (u16_, u32_), (i8_, i16_), (i16_, i32_)] {
        mul(t, t, wide, vector_width);
    }
    mul(u16_, u32_, u32_, vector_width);
    mul(i16_, i32_, i32_, vector_width);
    mul(u16_, i32_, i32_, vector_width);
}

fn test_div_mod(vector_width: i32) {
    for t in [
        Type::u8(),
        Type::u16(),
        Type::u32(),
        Type::i8(),
        Type::i16(),
        Type::i32(),
    ] {
        div_mod(t, vector_width);
    }
}

#[test]
fn multiplication_scalar() {
    test_mul(1);
}

#[test]
fn multiplication_vectorized_by_2() {
    test_mul(2);
}

#[test]
fn multiplication_vectorized_by_4() {
    test_mul(4);
}

#[test]
fn multiplication_vectorized_by_8() {
    test_mul(8);
}

#[test]
fn multiplication_vectorized_by_16() {
    test_mul(16);
}

#[test]
fn division_and_modulo_scalar() {
    test_div_mod(1);
}

#[test]
fn division_and_modulo_vectorized_by_2() {
    test_div_mod(2);
}

#[test]
fn division_and_modulo_vectorized_by_4() {
    test_div_mod(4);
}

#[test]
fn division_and_modulo_vectorized_by_8() {
    test_div_mod(8);
}

#[test]
fn division_and_modulo_vectorized_by_16() {
    test_div_mod(16);
}

#[test]
fn float_modulo() {
    let value = |unique: u64, i: i64, j: i64| -> f32 {
        let salt = ubits(unique | 0x100, i, j);
        if salt.is_multiple_of(SALT_RATE) {
            return if salt & 0x100_0000 != 0 { 1.0 } else { 0.0 };
        }
        ((ubits(unique, i, j) as f64 / u64::MAX as f64) * 2.0 - 1.0) as f32
    };
    let a = Buffer::<f32>::from_fn(&[0, 0], &[W, H], |c| value(1, c[0], c[1]));
    let b = Buffer::<f32>::from_fn(&[0, 0], &[W, H], |c| {
        let v = value(2, c[0], c[1]);
        if v == 0.0 {
            1.0
        } else {
            v
        }
    });
    let (ia, ib) = (
        ImageParam::new(Type::f32(), 2, "a"),
        ImageParam::new(Type::f32(), 2, "b"),
    );
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), ia.at((x, y)) % ib.at((x, y))).unwrap();
    let inputs = TestInputs::new()
        .image(&ia, a.clone())
        .image(&ib, b.clone());
    let run = check(&f, &inputs, &[0, 0], &[W, H]);
    let AnyBuffer::F32(out) = &run.realization.buffers[0] else {
        panic!("f is f32");
    };
    for j in 0..H {
        for i in 0..W {
            let (av, bv) = (a.get(&[i, j]), b.get(&[i, j]));
            let want = av - bv * (av / bv).floor();
            let got = out.get(&[i, j]);
            assert!(
                (got - want).abs() <= 1e-6,
                "{av} % {bv} = {got}, not {want}"
            );
        }
    }
}
