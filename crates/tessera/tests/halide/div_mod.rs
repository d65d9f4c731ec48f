//! Halide's `test/correctness/div_mod.cpp`: integer division and modulo of two images of
//! pseudo-random values of each integer type (u8, u16, u32, i8, i16, i32), with the type's
//! extremes in the top-left corner and salted through the images, and floating-point modulo
//! of f32 values in [-1, 1]. Integer division is Euclidean (the remainder is never negative;
//! Halide's current definition), floating-point modulo is `a - b * floor(a / b)`. As in
//! Halide's test, zero divisors are replaced by 1 and `MIN / -1` is avoided; and the
//! simplifier folds constant divisions to the same values. Halide's images are 2048 x 2048
//! (simplifier checks on 32 x 2048); here both use 64 x 64, unscheduled and vectorized by 8.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;
use tessera::simplify::simplify;

const W: i64 = 64;
const H: i64 = 64;

/// A mixed 64-bit hash of `(unique, i, j)` (splitmix64 rounds).
fn hash(unique: u64, i: i64, j: i64) -> u64 {
    let mut z = unique
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add((i as u64) << 32 | (j as u64 & 0xffff_ffff));
    for _ in 0..3 {
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
    }
    z
}

/// The range of an integer type.
fn limits(ty: Type) -> (i64, i64) {
    let bits = ty.bits as u32;
    if ty.is_uint() {
        (0, ((1u64 << bits) - 1) as i64)
    } else {
        (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
    }
}

fn value(ty: Type, v: i64) -> Value {
    if ty.is_uint() {
        Value::UInt(v as u64)
    } else {
        Value::Int(v)
    }
}

fn as_i64(v: Value) -> i64 {
    match v {
        Value::Int(v) => v,
        Value::UInt(v) => v as i64,
        other => panic!("not an integer: {other:?}"),
    }
}

/// Values of `ty` over W x H: random, salted with the extremes one time in 50, and the
/// extremes in the 2 x 2 corner (`min max / min max` or `min max / max min`).
fn int_image(ty: Type, unique: u64) -> Vec<i64> {
    let (lo, hi) = limits(ty);
    let span = (hi - lo) as u64 + 1;
    let mut data = vec![0i64; (W * H) as usize];
    for j in 0..H {
        for i in 0..W {
            let salt = hash(unique | 0x100, i, j);
            let v = if salt.is_multiple_of(50) {
                if salt & 0x100_0000 != 0 {
                    hi
                } else {
                    lo
                }
            } else {
                lo + (hash(unique, i, j) % span) as i64
            };
            data[(i + j * W) as usize] = v;
        }
    }
    data[0] = lo;
    data[1] = hi;
    data[W as usize] = if unique & 1 == 1 { lo } else { hi };
    data[W as usize + 1] = if unique & 1 == 1 { hi } else { lo };
    data
}

fn to_buffer(ty: Type, data: &[i64]) -> AnyBuffer {
    let mut b = AnyBuffer::with_mins(ty, &[0, 0], &[W, H]).unwrap();
    for j in 0..H {
        for i in 0..W {
            b.set_value(&[i, j], value(ty, data[(i + j * W) as usize]));
        }
    }
    b
}

/// The dividend and divisor images of `ty`, with zero divisors made 1 and `MIN / -1` made
/// `(MIN + 1) / -1`.
fn operands(ty: Type) -> (Vec<i64>, Vec<i64>) {
    let (lo, _) = limits(ty);
    let mut a = int_image(ty, 1);
    let mut b = int_image(ty, 2);
    for (a, b) in a.iter_mut().zip(b.iter_mut()) {
        if *b == 0 {
            *b = 1;
        }
        if ty.is_int() && *a == lo && *b == -1 {
            *a += 1;
        }
    }
    (a, b)
}

/// Realizes `a op b` over the images of `ty` and checks it against `reference`.
fn check_op(
    ty: Type,
    op: &str,
    combine: fn(Expr, Expr) -> Expr,
    reference: fn(i64, i64) -> i64,
    vector: Option<i32>,
) {
    let (a, b) = operands(ty);
    let (pa, pb) = (ImageParam::new(ty, 2, "a"), ImageParam::new(ty, 2, "b"));
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), combine(pa.at((x, y)), pb.at((x, y))))
        .unwrap();
    if let Some(w) = vector {
        f.vectorize(x, w);
    }
    let inputs = TestInputs::new()
        .image(&pa, to_buffer(ty, &a))
        .image(&pb, to_buffer(ty, &b));
    let run = check(&f, &inputs, &[0, 0], &[W, H]);
    let out = &run.realization.buffers[0];
    for j in 0..H {
        for i in 0..W {
            let k = (i + j * W) as usize;
            let want = reference(a[k], b[k]);
            let got = as_i64(out.get_value(&[i, j]));
            assert_eq!(
                got, want,
                "{ty}: {} {op} {} (vector {vector:?})",
                a[k], b[k]
            );
        }
    }
}

/// The simplifier folds `a op b` of constants of `ty` to the reference, over the first 32
/// columns.
fn check_folding(ty: Type, combine: fn(Expr, Expr) -> Expr, reference: fn(i64, i64) -> i64) {
    let (a, b) = operands(ty);
    for k in 0..(32 * H) as usize {
        let e = combine(Expr::make_const(ty, a[k]), Expr::make_const(ty, b[k]));
        let folded = simplify(&e);
        let got = Value::from_const(&folded)
            .unwrap_or_else(|| panic!("simplify({e}) is {folded}, not a constant"));
        assert_eq!(as_i64(got), reference(a[k], b[k]), "simplify({e})");
    }
}

fn int_types() -> [Type; 6] {
    [
        Type::u8(),
        Type::u16(),
        Type::u32(),
        Type::i8(),
        Type::i16(),
        Type::i32(),
    ]
}

#[test]
fn integer_division_is_euclidean() {
    for ty in int_types() {
        for vector in [None, Some(8)] {
            check_op(ty, "/", |a, b| a / b, |a, b| a.div_euclid(b), vector);
        }
        check_folding(ty, |a, b| a / b, |a, b| a.div_euclid(b));
    }
}

#[test]
fn integer_modulo_is_never_negative() {
    for ty in int_types() {
        for vector in [None, Some(8)] {
            check_op(ty, "%", |a, b| a % b, |a, b| a.rem_euclid(b), vector);
        }
        check_folding(ty, |a, b| a % b, |a, b| a.rem_euclid(b));
    }
}

#[test]
fn float_modulo() {
    let image = |unique: u64| -> Buffer<f32> {
        let mut b = Buffer::from_fn(&[0, 0], &[W, H], |p| {
            let (i, j) = (p[0], p[1]);
            let salt = hash(unique | 0x100, i, j);
            if salt.is_multiple_of(50) {
                if salt & 0x100_0000 != 0 {
                    1.0
                } else {
                    0.0
                }
            } else {
                (hash(unique, i, j) as f64 / u64::MAX as f64 * 2.0 - 1.0) as f32
            }
        });
        b.set(&[0, 0], 0.0);
        b.set(&[1, 0], 1.0);
        b.set(&[0, 1], if unique & 1 == 1 { 0.0 } else { 1.0 });
        b.set(&[1, 1], if unique & 1 == 1 { 1.0 } else { 0.0 });
        b
    };
    let a = image(1);
    let mut b = image(2);
    for j in 0..H {
        for i in 0..W {
            if b.get(&[i, j]) == 0.0 {
                b.set(&[i, j], 1.0);
            }
        }
    }
    let (pa, pb) = (
        ImageParam::new(Type::f32(), 2, "a"),
        ImageParam::new(Type::f32(), 2, "b"),
    );
    let (x, y) = (Var::new("x"), Var::new("y"));
    for vector in [None, Some(8)] {
        let f = Func::new("f");
        f.define((x, y), pa.at((x, y)) % pb.at((x, y))).unwrap();
        if let Some(w) = vector {
            f.vectorize(x, w);
        }
        let inputs = TestInputs::new()
            .image(&pa, a.clone())
            .image(&pb, b.clone());
        let run = check(&f, &inputs, &[0, 0], &[W, H]);
        let AnyBuffer::F32(out) = &run.realization.buffers[0] else {
            panic!("f is f32");
        };
        for j in 0..H {
            for i in 0..W {
                let (va, vb) = (a.get(&[i, j]), b.get(&[i, j]));
                let want = (va as f64 - vb as f64 * (va as f64 / vb as f64).floor()) as f32;
                let got = out.get(&[i, j]);
                assert!(
                    (got - want).abs() <= 1e-6,
                    "{va} % {vb} = {got}, not {want} (vector {vector:?})"
                );
                // The simplifier folds the same constants to the value computed at run time.
                let folded = simplify(&(Expr::f32(va) % Expr::f32(vb)));
                let Some(Value::F32(c)) = Value::from_const(&folded) else {
                    panic!("simplify({va} % {vb}) is {folded}");
                };
                assert!(
                    (c - got).abs() <= 1e-6,
                    "simplify({va} % {vb}) = {c}, run: {got}"
                );
            }
        }
    }
}
