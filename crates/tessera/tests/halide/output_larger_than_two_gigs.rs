//! Halide's `output_larger_than_two_gigs.cpp`: a pipeline writing an output of 4096 x 4096
//! x 256 u8 (2^32 elements) whose outer strides are 0, so 4096 bytes hold it; with
//! `Target::LargeBuffers` Halide writes it and finds 42 at both corners, without it Halide
//! refuses it. Tessera writes an output whose elements overlap only from serial code (as
//! here: parallel strips of it would race). What it stands for, an output whose offsets
//! pass 2^31 - 1, follows: written exactly, every element checked, with large buffers, and
//! refused, naming the output, without them. Its data is a zeroed allocation, whose
//! untouched pages take no memory.

use tessera::prelude::*;

fn dim(extent: i64, stride: i64) -> Dim {
    Dim {
        min: 0,
        extent,
        stride,
    }
}

#[test]
fn an_output_of_2_pow_32_elements_in_4096_bytes() {
    let (x, y, z) = (Var::new("x"), Var::new("y"), Var::new("z"));
    let f = Func::new("identity_uint8");
    f.define((x, y, z), cast_to::<u8>(42)).unwrap();
    let output = Buffer::from_parts(
        vec![99u8; 4096],
        vec![dim(4096, 1), dim(4096, 0), dim(256, 0)],
    );
    let mut outputs = [AnyBuffer::from(output.unwrap())];
    let target = Target::host().with_large_buffers(true);
    let compiled = Pipeline::new(&f).compile_jit(&target).unwrap();
    compiled.realize_into(&Inputs::new(), &mut outputs).unwrap();
    let [output] = outputs;
    let output: Buffer<u8> = output.into_typed().unwrap();
    assert_eq!(output.get(&[0, 0, 0]), 42);
    assert_eq!(output.get(&[4095, 4095, 255]), 42);
}

/// Planes of 4096 x 2 u8, the rows 2^29 apart, the planes 2^30: the last plane starts at
/// 2^31.
const PLANES: i64 = 3;

fn value(x: i64, y: i64, z: i64) -> u8 {
    ((x + y * 7 + z * 13) % 256) as u8
}

/// An output of `PLANES` planes whose last starts at 2^31, zeroed, and the Func writing it,
/// vectorized, planes in parallel.
fn output_past_2_pow_31() -> (AnyBuffer, Func) {
    let dims = vec![dim(4096, 1), dim(2, 1 << 29), dim(PLANES, 1 << 30)];
    let len = ((PLANES - 1) * (1 << 30) + (1 << 29) + 4096) as usize;
    let buffer = Buffer::from_parts(vec![0u8; len], dims).unwrap();
    let (x, y, z) = (Var::new("x"), Var::new("y"), Var::new("z"));
    let f = Func::new("identity_uint8");
    f.define((x, y, z), cast_to::<u8>(x + y * 7 + z * 13))
        .unwrap();
    f.vectorize(x, 16).parallel(z);
    (buffer.into(), f)
}

#[test]
fn an_output_whose_offsets_pass_2_pow_31_is_refused_without_large_buffers() {
    let (buffer, f) = output_past_2_pow_31();
    let compiled = Pipeline::new(&f).compile_jit(&Target::host()).unwrap();
    let message = compiled
        .realize_into(&Inputs::new(), &mut [buffer])
        .expect_err("32-bit indices cannot reach the last plane")
        .to_string();
    assert!(
        message.contains("buffer identity_uint8 spans") && message.contains("2^31 - 1"),
        "{message}"
    );
}

#[test]
fn an_output_whose_offsets_pass_2_pow_31_with_large_buffers() {
    let (buffer, f) = output_past_2_pow_31();
    let target = Target::host().with_large_buffers(true);
    let compiled = Pipeline::new(&f).compile_jit(&target).unwrap();
    let mut outputs = [buffer];
    compiled.realize_into(&Inputs::new(), &mut outputs).unwrap();
    let [output] = outputs;
    let output: Buffer<u8> = output.into_typed().unwrap();
    let mut expected_sum = 0u64;
    for z in 0..PLANES {
        for y in 0..2 {
            for x in 0..4096 {
                assert_eq!(output.get(&[x, y, z]), value(x, y, z), "at ({x}, {y}, {z})");
                expected_sum += u64::from(value(x, y, z));
            }
        }
    }
    // Nothing was written anywhere else.
    let sum: u64 = output.data().iter().map(|&v| u64::from(v)).sum();
    assert_eq!(sum, expected_sum);
}
