//! Halide's `test/correctness/lerp.cpp`: `lerp(zero, one, weight)` over grids of values and
//! weights of many type pairs, against `zero * (1 - w) + one * w` computed in f64 (integer
//! results rounded half away from zero; float results within a relative 2e-7 or 1e-4); a
//! constant lerp of a u32 agrees with the same lerp of a u16; and a vectorized lerp of casts
//! with a weight Param of 0 or 1 gives exactly one of its inputs. Unsigned integer weights
//! stand for `w / max` of their type; bool values pick `one` when the weight is above one half.
//!
//! Sizes are shrunk: the exhaustive 8-bit grids (256³) become 16 values of zero and one
//! spread over the type's range times 32 weights, the 16-bit ranges (65536 values) 256 values
//! spread over them, the float grids 20³.

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

/// Halide's `check_range`: lerps of values of type `value_ty` over the grid of `zero`, `one`
/// and `weight` (of type `weight_ty`, an integer one standing for `w / max`), against f64
/// arithmetic.
fn check_range(value_ty: Type, weight_ty: Type, zero: Axis, one: Axis, weight: Axis, name: &str) {
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
            axis_expr(weight_ty, weight, w),
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
    let weight_scale = if weight_ty.is_float() {
        1.0
    } else {
        weight_ty.int_max() as f64
    };
    for i in 0..zero.extent {
        for j in 0..one.extent {
            for k in 0..weight.extent {
                let zv = axis_value(value_ty, zero, i);
                let ov = axis_value(value_ty, one, j);
                let wv = axis_value(weight_ty, weight, k) / weight_scale;
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

/// The 8-bit grids: u8 and i8 values spread over their ranges, by `weight` of `weight_ty`.
fn check_eight_bit_values(weight_ty: Type, weight: Axis) {
    for (value_ty, offset) in [(Type::u8(), 0.0), (Type::i8(), -128.0)] {
        let values = axis(0, 16, offset, 17.0);
        let name = format!("<{value_ty}, {weight_ty}>");
        check_range(value_ty, weight_ty, values, values, weight, &name);
    }
}

#[test]
fn eight_bit_values_with_float_weights() {
    check_eight_bit_values(Type::f32(), axis(0, 32, 0.0, 8.0 / 255.0));
}

#[test]
fn sixteen_bit_values_with_float_weights() {
    check_range(
        Type::u16(),
        Type::f32(),
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
        Type::f32(),
        axis(0, 20, 0.0, 0.05),
        axis(0, 20, 0.0, 0.05),
        axis(0, 20, 0.0, 0.05),
        "<f32, f32> 0 to 1",
    );
    check_range(
        Type::f32(),
        Type::f32(),
        axis(0, 20, -5.0, 0.5),
        axis(0, 20, 0.0, 0.5),
        axis(0, 20, 0.0, 0.05),
        "<f32, f32> -5 to 5",
    );
}

#[test]
fn eight_bit_values_with_integer_weights() {
    check_eight_bit_values(Type::u8(), axis(0, 32, 0.0, 8.0));
}

#[test]
fn sixteen_bit_values_with_sixteen_bit_weights() {
    let every_start = axis(0, 256, 0.0, 257.0);
    let (zero, top, w) = (
        axis(0, 1, 0.0, 1.0),
        axis(65535, 1, 0.0, 1.0),
        axis(0, 257, 255.0, 1.0),
    );
    check_range(
        Type::u16(),
        Type::u16(),
        every_start,
        top,
        w,
        "<u16, u16> zero starts",
    );
    check_range(
        Type::u16(),
        Type::u16(),
        top,
        every_start,
        w,
        "<u16, u16> one starts",
    );
    check_range(
        Type::i16(),
        Type::u16(),
        axis(0, 256, -32768.0, 257.0),
        zero,
        axis(0, 257, 0.0, 255.0),
        "<i16, u16> zero starts",
    );
}

#[test]
fn weights_narrower_and_wider_than_the_values() {
    let (zero, top16, top32) = (
        axis(0, 1, 0.0, 1.0),
        axis(65535, 1, 0.0, 1.0),
        axis(i32::MIN, 1, 0.0, 1.0),
    );
    let cases = [
        (Type::u16(), Type::u8(), top16, axis(0, 255, 1.0, 1.0)),
        (Type::u16(), Type::u32(), top16, WEIGHTS_NEAR_HALF_OF_U32),
        (Type::u32(), Type::u8(), top32, axis(0, 255, 0.0, 1.0)),
        (Type::u32(), Type::u16(), top32, axis(0, 65535, 0.0, 1.0)),
    ];
    for (value_ty, weight_ty, one, weight) in cases {
        let name = format!("<{value_ty}, {weight_ty}>");
        check_range(value_ty, weight_ty, zero, one, weight, &name);
    }
}

/// u32 weights just above 2^31, whose rescaling to 16 bits (a division by 65537, rounding
/// down) is exact.
const WEIGHTS_NEAR_HALF_OF_U32: Axis = Axis {
    min: i32::MIN,
    extent: 257,
    offset: 255.0 * 65535.0,
    scale: 1.0,
};

#[test]
fn float_values_with_integer_weights() {
    let (zero, one) = (axis(0, 20, -5.0, 0.5), axis(0, 20, 0.0, 0.5));
    let weights = [
        (Type::u8(), axis(0, 255, 0.0, 1.0)),
        (Type::u16(), axis(0, 255, 0.0, 257.0)),
        (Type::u32(), WEIGHTS_NEAR_HALF_OF_U32),
    ];
    for (weight_ty, weight) in weights {
        let name = format!("<f32, {weight_ty}>");
        check_range(Type::f32(), weight_ty, zero, one, weight, &name);
    }
}

#[test]
fn bool_values_with_integer_weights() {
    let bit = axis(0, 2, 0.0, 1.0);
    check_range(
        Type::bool_(),
        Type::u8(),
        bit,
        bit,
        axis(0, 256, 0.0, 1.0),
        "<bool, u8>",
    );
}

#[test]
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
