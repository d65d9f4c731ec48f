//! Halide's `test/correctness/gather.cpp`: a lookup in a 256 x 32 table at coordinates loaded
//! from two rows of an image (clamped into the table), through a copy of the table, for u16,
//! i16, u32 and i32. Halide schedules it only for HVX (vector gathers from VTCM memory); on
//! other targets it runs unscheduled, as here. A CPU analogue of the HVX schedule (table
//! copy at the root, lookups per row of the output, rows split and parallel, x vectorized)
//! is checked too; VTCM placement is left out. Coordinates are random in the type (so
//! negative ones and ones past the table occur for the clamps to handle).

use crate::lower_common::{check, seeded_rng, TestInputs};
use rand::Rng;
use tessera::prelude::*;

const W_IMG: i64 = 128;
const H_IMG: i64 = 8;
const W_LUT: i64 = 256;
const H_LUT: i64 = 32;

fn test_type(ty: Type, scheduled: bool) {
    let mut rng = seeded_rng("gather", 5);
    let (lo, hi) = if ty.is_uint() {
        (0i64, (1i64 << ty.bits) - 1)
    } else {
        (-(1i64 << (ty.bits - 1)), (1i64 << (ty.bits - 1)) - 1)
    };
    let mut random = |m: i64| -> i64 {
        // Random in the type, then C's `%` (truncating) by the table size.
        let v = rng.random_range(lo..=hi);
        if m > 0 {
            v % m
        } else {
            v
        }
    };
    let mut input_buf = AnyBuffer::with_mins(ty, &[0, 0], &[W_IMG, 2]).unwrap();
    let mut lut_buf = AnyBuffer::with_mins(ty, &[0, 0], &[W_LUT, H_LUT]).unwrap();
    let value = |v: i64| {
        if ty.is_uint() {
            Value::UInt(v as u64)
        } else {
            Value::Int(v)
        }
    };
    for xx in 0..W_IMG {
        input_buf.set_value(&[xx, 0], value(random(W_LUT)));
        input_buf.set_value(&[xx, 1], value(random(H_LUT)));
    }
    for yy in 0..H_LUT {
        for xx in 0..W_LUT {
            lut_buf.set_value(&[xx, yy], value(random(0)));
        }
    }
    let input = ImageParam::new(ty, 2, "input");
    let lut = ImageParam::new(ty, 2, "lut");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let x_coord = clamp(cast_to::<i32>(input.at((x, 0))), 0, W_LUT as i32 - 1);
    let y_coord = clamp(cast_to::<i32>(input.at((x, 1))), 0, H_LUT as i32 - 1);
    let lut_copy = Func::new("lut_vtcm");
    lut_copy.define((x, y), lut.at((x, y))).unwrap();
    let output_copy = Func::new("output_vtcm");
    output_copy
        .define((x, y), lut_copy.at((x_coord, y_coord)))
        .unwrap();
    let output = Func::new("output");
    output.define((x, y), output_copy.at((x, y))).unwrap();
    if scheduled {
        lut_copy.compute_root().vectorize(x, 16);
        output_copy.compute_at(&output, y).vectorize(x, 16);
        output
            .split(y, y, "yi", (H_IMG / 2) as i32)
            .parallel(y)
            .vectorize(x, 16);
    }
    let run = check(
        &output,
        &TestInputs::new()
            .image(&input, input_buf.clone())
            .image(&lut, lut_buf.clone()),
        &[0, 0],
        &[W_IMG, H_IMG],
    );
    let out = &run.realization.buffers[0];
    let as_i64 = |v: Value| match v {
        Value::Int(v) => v,
        Value::UInt(v) => v as i64,
        other => panic!("{other:?}"),
    };
    for yy in 0..H_IMG {
        for xx in 0..W_IMG {
            let xc = as_i64(input_buf.get_value(&[xx, 0])).clamp(0, W_LUT - 1);
            let yc = as_i64(input_buf.get_value(&[xx, 1])).clamp(0, H_LUT - 1);
            assert_eq!(
                out.get_value(&[xx, yy]),
                lut_buf.get_value(&[xc, yc]),
                "{ty} output({xx}, {yy}), scheduled: {scheduled}"
            );
        }
    }
}

#[test]
fn lookups_unscheduled() {
    for ty in [Type::u16(), Type::i16(), Type::u32(), Type::i32()] {
        test_type(ty, false);
    }
}

#[test]
fn lookups_vectorized_and_parallel() {
    for ty in [Type::u16(), Type::i16(), Type::u32(), Type::i32()] {
        test_type(ty, true);
    }
}
