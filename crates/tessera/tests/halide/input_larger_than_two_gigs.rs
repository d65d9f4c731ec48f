//! Halide's `input_larger_than_two_gigs.cpp`: an input of 4096 x 4096 x 256 u8 (2^32
//! elements) whose outer strides are 0, so 4096 bytes hold it, read at its two corners.
//! Halide refuses it without `Target::LargeBuffers` because it counts 2^32 elements;
//! Tessera's limit is on offsets, not counts, and this buffer's elements lie at most 4095
//! from the first, so both targets read it. The case Halide's second half stands for, an
//! input whose offsets pass 2^31 - 1, follows: refused by a target without large buffers,
//! naming the input, and read exactly with them — natively, on the interpreter (which picks
//! large buffers by itself) and on the evaluator. Its data is a zeroed allocation, whose
//! untouched pages take no memory.

use tessera::prelude::*;

/// `u64(input(0, 0, 0) + input(w - 1, h - 1, d - 1))`, Halide's `grand_total`.
fn grand_total(input: &ImageParam) -> Func {
    let f = Func::new("grand_total");
    let last = |d| input.extent(d) - 1;
    f.define(
        (),
        cast_to::<u64>(input.at((0, 0, 0)) + input.at((last(0), last(1), last(2)))),
    )
    .unwrap();
    f
}

fn dim(extent: i64, stride: i64) -> Dim {
    Dim {
        min: 0,
        extent,
        stride,
    }
}

/// Halide's `grand_total` of an input of 4096 x 4096 x 256 whose outer strides are 0, for
/// `target`, against the two corners read in plain Rust.
fn check_both_corners(target: &Target) {
    let data: Vec<u8> = (0..4096).map(|i| (i * 7 % 251) as u8).collect();
    let expected = u64::from(data[0].wrapping_add(data[4095]));
    let buffer = Buffer::from_parts(data, vec![dim(4096, 1), dim(4096, 0), dim(256, 0)]).unwrap();
    let input = ImageParam::new(Type::u8(), 3, "input");
    let f = grand_total(&input);
    let compiled = Pipeline::new(&f).compile_jit(target).unwrap();
    let inputs = Inputs::new().image(&input, buffer);
    let out: Buffer<u64> = compiled.realize_as(&inputs, &[], &[]).unwrap();
    assert_eq!(out.get(&[]), expected, "{target}");
}

#[test]
fn both_corners_with_large_buffers() {
    check_both_corners(&Target::host().with_large_buffers(true));
}

#[test]
fn both_corners_without_large_buffers() {
    // Halide fails here, counting 2^32 elements; every offset fits in 32 bits.
    check_both_corners(&Target::host());
}

/// Rows of 4096 u8, `rows` of them `row_stride` apart: the last row starts past 2^31.
const ROW_STRIDE: i64 = 1 << 30;
const ROWS: i64 = 3;

fn input_past_2_pow_31() -> Buffer<u8> {
    let len = ((ROWS - 1) * ROW_STRIDE + 4096) as usize;
    let mut b = Buffer::from_parts(vec![0u8; len], vec![dim(4096, 1), dim(ROWS, ROW_STRIDE)])
        .expect("a buffer whose rows lie 2^30 apart");
    for y in 0..ROWS {
        for x in 0..4096 {
            b.set(&[x, y], pixel(x, y));
        }
    }
    b
}

/// The input's value at `(x, y)`.
fn pixel(x: i64, y: i64) -> u8 {
    ((x * 3 + y * 101) % 256) as u8
}

/// `out(x, y) = input(x, y) * 2 + y`, vectorized, rows in parallel.
fn doubled(input: &ImageParam) -> Func {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let out = Func::new("out");
    out.define(
        (x, y),
        input.at((x, y)) * cast_to::<u8>(2) + cast_to::<u8>(y),
    )
    .unwrap();
    out.vectorize(x, 16).parallel(y);
    out
}

fn check_doubled(out: &Buffer<u8>, runner: &str) {
    for y in 0..ROWS {
        for x in 0..4096 {
            let expected = pixel(x, y).wrapping_mul(2).wrapping_add(y as u8);
            assert_eq!(out.get(&[x, y]), expected, "{runner} at ({x}, {y})");
        }
    }
}

#[test]
fn an_input_whose_offsets_pass_2_pow_31_is_refused_without_large_buffers() {
    let input = ImageParam::new(Type::u8(), 2, "input");
    let inputs = Inputs::new().image(&input, input_past_2_pow_31());
    let compiled = Pipeline::new(&doubled(&input))
        .compile_jit(&Target::host())
        .unwrap();
    let message = compiled
        .realize_as::<u8>(&inputs, &[0, 0], &[4096, ROWS])
        .expect_err("32-bit indices cannot reach the last row")
        .to_string();
    assert!(
        message.contains("buffer input spans") && message.contains("2^31 - 1"),
        "{message}"
    );
}

#[test]
fn an_input_whose_offsets_pass_2_pow_31_natively_with_large_buffers() {
    let input = ImageParam::new(Type::u8(), 2, "input");
    let inputs = Inputs::new().image(&input, input_past_2_pow_31());
    let target = Target::host().with_large_buffers(true);
    let compiled = Pipeline::new(&doubled(&input))
        .compile_jit(&target)
        .unwrap();
    let out: Buffer<u8> = compiled
        .realize_as(&inputs, &[0, 0], &[4096, ROWS])
        .unwrap();
    check_doubled(&out, "native");
}

#[test]
fn an_input_whose_offsets_pass_2_pow_31_on_the_interpreter() {
    // The interpreter picks large buffers by itself.
    let input = ImageParam::new(Type::u8(), 2, "input");
    let inputs = Inputs::new().image(&input, input_past_2_pow_31());
    let run = Pipeline::new(&doubled(&input))
        .realize_interp(&inputs, &[0, 0], &[4096, ROWS])
        .unwrap();
    let out: Buffer<u8> = run
        .buffers
        .into_iter()
        .next()
        .unwrap()
        .into_typed()
        .unwrap();
    check_doubled(&out, "interpreter");
}

#[test]
fn an_input_whose_offsets_pass_2_pow_31_on_the_evaluator() {
    let input = ImageParam::new(Type::u8(), 2, "input");
    let out: Buffer<u8> = Evaluator::new()
        .with_input(&input, input_past_2_pow_31())
        .realize_as(&doubled(&input), &[0, 0], &[4096, ROWS])
        .unwrap();
    check_doubled(&out, "evaluator");
}
