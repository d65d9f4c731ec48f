//! Halide's `test/correctness/lerp.cpp`: `lerp(zero, one, weight)` over grids of values and
//! weights of many type pairs, against `zero * (1 - w) + one * w` computed in f64 (integer
//! results rounded half away from zero; float results within a relative 2e-7 or 1e-4); a
//! constant lerp of a u32 agrees with the same lerp of a u16; and a vectorized lerp of casts
//! with a weight Param of 0 or 1 gives exactly one of its inputs.
//!
//! Halide also takes unsigned integer weights (scaled by the type's maximum) and bool values;
//! Tessera's `lerp` takes only float weights and no bools, so those type pairs are ignored.
//! Sizes are shrunk: the exhaustive 8-bit grids (256³) become 16 values of zero and one
//! spread over the type's range times 32 weights, the float grids 20³.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

/// One axis of the grid: `extent` values `(i + min) * scale + offset`.
#[derive(Clone, Copy)]
struct Axis {
    min: i32,
    extent: i32,
    offset: f64,
    scale: f64,
}

fn axis(min: i32, extent: i32, offset: f64, scale: f64) -> Axis {
    Axis {
        min,
        extent,
        offset,
        scale,
    }
}

/// The value of `axis` at `v` (a Var or an index), computed in i32 for integer types and in
/// f32 for float ones, then cast to `ty`.
fn axis_expr(ty: Type, a: Axis, v: Var) -> Expr {
    if ty.is_float() {
        cast(
            ty,
            (v + a.min) * (a.scale as f32) + Expr::from(a.offset as f32),
        )
    } else {
        cast(ty, (v + a.min) * (a.scale as i32) + (a.offset as i32))
    }
}

/// The value of `axis` at index `i`, as the pipeline computes it, in f64.
fn axis_value(ty: Type, a: Axis, i: i32) -> f64 {
    if ty.is_float() {
        f64::from((i + a.min) as f32 * a.scale as f32 + a.offset as f32)
    } else {
        let v = i64::from(i + a.min) * a.scale as i64 + a.offset as i64;
        // Wrap into the type, as the cast does.
        let bits = ty.bits as u32;
        let wrapped = v & ((1i64 << bits) - 1);
        if ty.is_int() && wrapped >= 1 << (bits - 1) {
            (wrapped - (1 << bits)) as f64
        } else {
            wrapped as f64
        }
    }
}

fn relatively_equal(a: f64, b: f64) -> bool {
    if a == b || (a - b).abs() < 1e-4 {
        return true;
    }
    let rel = if a.abs() > b.abs() {
        ((b - a) / a).abs()
    } else {
        ((b - a) / b).abs()
    };
    rel < 2e-7
}

/// Halide's `check_range` with a float weight: lerps of values of type `value_ty` over the
/// grid of `zero`, `one` and `weight` (f32), against f64 arithmetic.
fn check_range(value_ty: Type, zero: Axis, one: Axis, weight: Axis, name: &str) {
    let (z, o, w) = (
        Var::new("zero_val"),
        Var::new("one_val"),
        Var::new("weight"),
    );
    let f = Func::new("lerp_test");
    f.define(
        (z, o, w),
        lerp(
            axis_expr(value_ty, zero, z),
            axis_expr(value_ty, one, o),
            axis_expr(Type::f32(), weight, w),
        ),
    )
    .unwrap();
    let extents = [
        i64::from(zero.extent),
        i64::from(one.extent),
        i64::from(weight.extent),
    ];
    let run = check(&f, &TestInputs::new(), &[0, 0, 0], &extents);
    let out = &run.realization.buffers[0];
    for i in 0..zero.extent {
        for j in 0..one.extent {
            for k in 0..weight.extent {
                let zv = axis_value(value_ty, zero, i);
                let ov = axis_value(value_ty, one, j);
                let wv = axis_value(Type::f32(), weight, k);
                let mut full = zv * (1.0 - wv) + ov * wv;
                let want = if value_ty.is_float() {
                    f64::from(full as f32)
                } else {
                    full += if full < 0.0 { -0.5 } else { 0.5 };
                    full.trunc()
                };
                let got = out
                    .get_value(&[i64::from(i), i64::from(j), i64::from(k)])
                    .as_f64();
                let ok = if value_ty.is_float() {
                    relatively_equal(want, got)
                } else {
                    want == got
                };
                assert!(
                    ok,
                    "{name}: lerp({zv}, {ov}, {wv}) = {got}, expected {want} at ({i}, {j}, {k})"
                );
            }
        }
    }
}

#[test]
fn eight_bit_values_with_float_weights() {
    let w = axis(0, 32, 0.0, 8.0 / 255.0);
    check_range(
        Type::u8(),
        axis(0, 16, 0.0, 17.0),
        axis(0, 16, 0.0, 17.0),
        w,
        "<u8, f32>",
    );
    check_range(
        Type::i8(),
        axis(0, 16, -128.0, 17.0),
        axis(0, 16, -128.0, 17.0),
        w,
        "<i8, f32>",
    );
}

#[test]
fn sixteen_bit_values_with_float_weights() {
    check_range(
        Type::u16(),
        axis(0, 1, 0.0, 1.0),
        axis(65535, 1, 0.0, 1.0),
        axis(0, 257, 0.0, 255.0 / 65535.0),
        "<u16, f32>",
    );
}

#[test]
fn float_values_with_float_weights() {
    check_range(
        Type::f32(),
        axis(0, 20, 0.0, 0.05),
        axis(0, 20, 0.0, 0.05),
        axis(0, 20, 0.0, 0.05),
        "<f32, f32> 0 to 1",
    );
    check_range(
        Type::f32(),
        axis(0, 20, -5.0, 0.5),
        axis(0, 20, 0.0, 0.5),
        axis(0, 20, 0.0, 0.05),
        "<f32, f32> -5 to 5",
    );
}

#[test]
#[ignore = "no API: Tessera's lerp refuses integer weights (\"the weight of lerp must be a \
            float\"), which Halide scales by the weight type's maximum"]
fn integer_weights() {
    let (z, o, w) = (
        Var::new("zero_val"),
        Var::new("one_val"),
        Var::new("weight"),
    );
    let f = Func::new("lerp_test");
    // <u8, u8>: lerp(z, o, w) = z * (1 - w / 255) + o * w / 255, rounded.
    f.define(
        (z, o, w),
        lerp(
            cast_to::<u8>(z * 17),
            cast_to::<u8>(o * 17),
            cast_to::<u8>(w * 8),
        ),
    )
    .unwrap();
    let run = check(&f, &TestInputs::new(), &[0, 0, 0], &[16, 16, 32]);
    let out = &run.realization.buffers[0];
    for i in 0..16i64 {
        for j in 0..16i64 {
            for k in 0..32i64 {
                let wv = (k * 8) as f64 / 255.0;
                let want = ((i * 17) as f64 * (1.0 - wv) + (j * 17) as f64 * wv + 0.5).trunc();
                assert_eq!(out.get_value(&[i, j, k]).as_f64(), want, "({i}, {j}, {k})");
            }
        }
    }
}

#[test]
#[ignore = "no API: Tessera's lerp refuses bool values (\"lerp of bools\")"]
fn bool_values() {
    let (z, o) = (Var::new("zero_val"), Var::new("one_val"));
    let f = Func::new("lerp_test");
    f.define((z, o), lerp(z.eq_(1), o.eq_(1), 0.75f32)).unwrap();
    let run = check(&f, &TestInputs::new(), &[0, 0], &[2, 2]);
    let out = &run.realization.buffers[0];
    for i in 0..2i64 {
        for j in 0..2i64 {
            let want = (i as f64 * 0.25 + j as f64 * 0.75 + 0.5 >= 1.0) as u8 as f64;
            assert_eq!(out.get_value(&[i, j]).as_f64(), want, "({i}, {j})");
        }
    }
}

#[test]
fn a_constant_lerp_of_u32_agrees_with_u16() {
    let f32_ = Func::new("lerp_constants");
    f32_.define((), lerp(0, cast_to::<u32>(Expr::from(1023)), 0.5f32))
        .unwrap();
    let f16 = Func::new("lerp_u16");
    f16.define(
        (),
        cast_to::<u32>(lerp(0, cast_to::<u16>(Expr::from(1023)), 0.5f32)),
    )
    .unwrap();
    let a = check(&f32_, &TestInputs::new(), &[], &[]);
    let b = check(&f16, &TestInputs::new(), &[], &[]);
    let (a, b) = (
        a.realization.buffers[0].get_value(&[]),
        b.realization.buffers[0].get_value(&[]),
    );
    assert_eq!(a, b);
    // 1023 / 2 = 511.5, rounded to an integer either way.
    assert!(a.as_f64() == 511.0 || a.as_f64() == 512.0, "{a:?}");
}

#[test]
fn a_vectorized_lerp_of_casts_with_weights_zero_and_one() {
    let (ia, ib) = (
        ImageParam::new(Type::u8(), 2, "input_a"),
        ImageParam::new(Type::u8(), 2, "input_b"),
    );
    let a = Buffer::<u8>::from_fn(&[0, 0], &[16, 16], |c| ((c[0] << 4) + c[1]) as u8);
    let b = Buffer::<u8>::from_fn(&[0, 0], &[16, 16], |c| {
        (((15 - c[0]) << 4) + (15 - c[1])) as u8
    });
    let (x, y) = (Var::new("x"), Var::new("y"));
    let w = Param::<f32>::new("w");
    let f = Func::new("lerp_with_casts");
    f.define(
        (x, y),
        lerp(
            cast_to::<i32>(ia.at((x, y))),
            cast_to::<i32>(ib.at((x, y))),
            w.expr(),
        ),
    )
    .unwrap();
    f.vectorize(x, 4);
    for (weight, expected) in [(0.0f32, &a), (1.0, &b)] {
        let inputs = TestInputs::new()
            .image(&ia, a.clone())
            .image(&ib, b.clone())
            .param(w.bind(weight));
        let run = check(&f, &inputs, &[0, 0], &[16, 16]);
        let out = crate::i32_values(&run);
        for i in 0..16 {
            for j in 0..16 {
                assert_eq!(
                    out.get(&[i, j]),
                    i32::from(expected.get(&[i, j])),
                    "w = {weight} at ({i}, {j})"
                );
            }
        }
    }
}
