//! Halide's `test/correctness/interleave_rgb.cpp`: 3-channel images of u8, u16 and u32
//! with channels innermost (`reorder(c, x, y)`, `bound(c, 0, 3)`, x vectorized by 16 with
//! the GuardWithIf tail, c unrolled): deinterleaving an input whose x stride is 3 or 4
//! (channels adjacent, a fourth padding channel skipped) into planar output, and
//! interleaving a computed input into an output of the same schedule. Every value is
//! checked against plain Rust.
//!
//! As Halide's, the interleave case constrains the output buffer's strides
//! (`output_buffer().dim(0).set_stride(x_stride)`, channel stride 1, 3 channels), realizes
//! into an interleaved buffer of `x_stride` channels cropped to 3 (on the evaluator, the
//! interpreter and checked native code), and checks the fourth, padding channel is left
//! untouched; the deinterleave cases constrain the input's strides the same way. GPU and HVX
//! schedules are left out. The 255x128 image is shrunk to 37x9.

use crate::lower_common::{check, check_in_place, TestInputs};
use tessera::lang::schedule::TailStrategy;
use tessera::prelude::*;

const W: i64 = 37;
const H: i64 = 9;

/// Channels innermost and unrolled, x vectorized by 16 with guarded tails.
fn schedule(f: &Func, x: Var, y: Var, c: Var) {
    f.reorder((c, x, y)).bound(c, 0, 3);
    f.split_with_tail(x, x, "xi", 16, TailStrategy::GuardWithIf)
        .vectorize_loop("xi")
        .unroll_loop(c);
}

/// A `W x H` buffer of `x_stride` interleaved channels filled with `fill`, cropped to the
/// first three channels (Halide's `make_interleaved` and `crop(2, 0, 3)`).
fn interleaved_buffer<T: Scalar>(
    x_stride: i64,
    mut fill: impl FnMut(i64, i64, i64) -> T,
) -> Buffer<T> {
    let mut data = Vec::new();
    for yy in 0..H {
        for xx in 0..W {
            for cc in 0..x_stride {
                data.push(fill(xx, yy, cc));
            }
        }
    }
    let dim = |extent, stride| Dim {
        min: 0,
        extent,
        stride,
    };
    let dims = vec![dim(W, x_stride), dim(H, x_stride * W), dim(3, 1)];
    Buffer::<T>::from_parts(data, dims).expect("an interleaved buffer")
}

fn test_interleave<T: Scalar>(x_stride: i64, wrap: fn(i64) -> T)
where
    Buffer<T>: Into<AnyBuffer> + TryFrom<AnyBuffer>,
{
    let (x, y, c) = (Var::new("x"), Var::new("y"), Var::new("c"));
    let input = Func::new("input");
    input
        .define((x, y, c), cast_to::<T>(x * 3 + y * 5 + c))
        .unwrap();
    let interleaved = Func::new("interleaved");
    interleaved.define((x, y, c), input.at((x, y, c))).unwrap();
    input.compute_root();
    schedule(&interleaved, x, y, c);
    interleaved
        .output_buffer()
        .dim(0)
        .set_stride(x_stride as i32)
        .dim(2)
        .set_stride(1)
        .set_extent(3);
    let padding = wrap(7);
    let out = interleaved_buffer(x_stride, |_, _, _| padding);
    let run = check_in_place(&interleaved, &TestInputs::new(), &[out.into()]);
    let Ok(out) = Buffer::<T>::try_from(run[0].clone()) else {
        panic!("the output keeps its type");
    };
    for yy in 0..H {
        for xx in 0..W {
            for cc in 0..x_stride {
                let want = if cc < 3 {
                    wrap(xx * 3 + yy * 5 + cc)
                } else {
                    padding
                };
                let got = out.data()[(yy * W * x_stride + xx * x_stride + cc) as usize];
                assert_eq!(
                    got, want,
                    "interleaved({xx}, {yy}, {cc}) of {x_stride} channels"
                );
            }
        }
    }
}

fn test_deinterleave<T: Scalar>(x_stride: i64, wrap: fn(i64) -> T)
where
    Buffer<T>: Into<AnyBuffer>,
{
    let (x, y, c) = (Var::new("x"), Var::new("y"), Var::new("c"));
    let input = ImageParam::new(T::TYPE, 3, "input");
    let deinterleaved = Func::new("deinterleaved");
    deinterleaved
        .define((x, y, c), input.at((x, y, c)))
        .unwrap();
    schedule(&deinterleaved, x, y, c);
    input.dim(0).set_stride(x_stride as i32);
    input.dim(2).set_min(0).set_extent(3).set_stride(1);
    let value = |xx: i64, yy: i64, cc: i64| wrap(xx * 7919 + yy * 104_729 + cc * 31 + 12_345);
    let buffer = interleaved_buffer(x_stride, value);
    let run = check(
        &deinterleaved,
        &TestInputs::new().image(&input, buffer),
        &[0, 0, 0],
        &[W, H, 3],
    );
    let out = &run.realization.buffers[0];
    for yy in 0..H {
        for xx in 0..W {
            for cc in 0..3 {
                let got = T::from_value(out.get_value(&[xx, yy, cc]));
                assert_eq!(got, value(xx, yy, cc), "deinterleaved({xx}, {yy}, {cc})");
            }
        }
    }
}

#[test]
fn interleaving_into_a_stride_3_output() {
    test_interleave::<u8>(3, |v| v as u8);
    test_interleave::<u16>(3, |v| v as u16);
    test_interleave::<u32>(3, |v| v as u32);
}

#[test]
fn interleaving_into_a_stride_4_output() {
    test_interleave::<u8>(4, |v| v as u8);
    test_interleave::<u16>(4, |v| v as u16);
    test_interleave::<u32>(4, |v| v as u32);
}

#[test]
fn deinterleaving_a_stride_3_input() {
    test_deinterleave::<u8>(3, |v| v as u8);
    test_deinterleave::<u16>(3, |v| v as u16);
    test_deinterleave::<u32>(3, |v| v as u32);
}

#[test]
fn deinterleaving_a_stride_4_input() {
    test_deinterleave::<u8>(4, |v| v as u8);
    test_deinterleave::<u16>(4, |v| v as u16);
    test_deinterleave::<u32>(4, |v| v as u32);
}
