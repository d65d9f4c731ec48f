//! Halide's `test/correctness/float16_t_image_type.cpp`: a 10 x 3 buffer of f16 — two bytes an
//! element, its box, a constant written and read back (bits 0x3400 for 0.25), also through
//! its raw storage — and, beyond Halide's host-side checks, the buffer through a pipeline as
//! an input and as an output, on the evaluator, the interpreter and native code.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn an_f16_buffer_holds_what_is_written() {
    assert_eq!(std::mem::size_of::<f16>(), 2);
    assert_eq!(Type::f16().bytes(), 2);
    let quarter = f16::from_f32(0.25);
    let mut simple = Buffer::<f16>::new(&[10, 3]);
    let dims = simple.dims();
    assert_eq!((dims.len(), dims[0].extent, dims[1].extent), (2, 10, 3));
    assert_eq!((dims[0].min, dims[1].min), (0, 0));
    for (x, y) in (0..3).flat_map(|y| (0..10).map(move |x| (x, y))) {
        simple.set(&[x, y], quarter);
    }
    for (x, y) in (0..3).flat_map(|y| (0..10).map(move |x| (x, y))) {
        assert_eq!(simple.get(&[x, y]), quarter);
        assert_eq!(simple.get(&[x, y]).to_bits(), 0x3400, "({x}, {y})");
    }
    // The raw storage: dense, x fastest, two bytes an element.
    let raw = simple.data();
    assert_eq!(raw.len(), 30);
    assert!(raw.iter().all(|v| v.to_bits() == 0x3400));
}

#[test]
fn an_f16_buffer_through_a_pipeline() {
    let input = ImageParam::new(Type::f16(), 2, "simple");
    let (x, y) = (Var::new("x"), Var::new("y"));
    // Each element plus its coordinates, in f16.
    let f = Func::new("f");
    f.define((x, y), input.at((x, y)) + cast_to::<f16>(x + 10 * y))
        .unwrap();
    f.vectorize(x, 8);
    let image = Buffer::from_fn(&[0, 0], &[10, 3], |_| f16::from_f32(0.25));
    let run = check(
        &f,
        &TestInputs::new().image(&input, image),
        &[0, 0],
        &[10, 3],
    );
    let out: Buffer<f16> = run.realization.buffers[0].clone().try_into().unwrap();
    for (x, y) in (0..3).flat_map(|y| (0..10).map(move |x| (x, y))) {
        let want = f16::from_f32(0.25 + (x + 10 * y) as f32);
        assert_eq!(out.get(&[x, y]).to_bits(), want.to_bits(), "({x}, {y})");
    }
}
