//! Halide's `test/correctness/half_native_interleave.cpp` (Halide issue 1582): widening
//! operations (u8 input cast to i16, times 2, plus 2, minus 2) vectorized by the natural
//! vector width of u8, so their operands are half-width vectors. Values checked with plain
//! Rust over 256 points, as Halide does. The HVX schedule is left out; the width is 16 (SSE's
//! natural u8 vector).

use crate::lower_common::{check, u8_image, TestInputs};
use tessera::prelude::*;

/// A widening operation on the i16 input, and its value in plain Rust.
type Op = fn(Expr) -> Expr;
type Exact = fn(i16) -> i16;

#[test]
fn widening_ops_at_the_natural_vector_width() {
    const W: i64 = 256;
    let input = ImageParam::new(Type::u8(), 1, "input");
    let image = u8_image(&[0], &[W], 0, 255, 11);
    let x = Var::new("x");
    let input_16 = Func::new("input_16");
    input_16.define(x, cast(Type::i16(), input.at(x))).unwrap();
    let ops: [(&str, Op, Exact); 3] = [
        ("product", |e| e * 2, |v| v * 2),
        ("sum", |e| e + 2, |v| v + 2),
        ("difference", |e| e - 2, |v| v - 2),
    ];
    for (name, op, value) in ops {
        let f = Func::new(name);
        f.define(x, op(input_16.at(x))).unwrap();
        f.vectorize(x, 16);
        let run = check(
            &f,
            &TestInputs::new().image(&input, image.clone()),
            &[0],
            &[W],
        );
        let AnyBuffer::I16(out) = &run.realization.buffers[0] else {
            panic!("{name} is i16");
        };
        for i in 1..W - 1 {
            assert_eq!(
                out.get(&[i]),
                value(i16::from(image.get(&[i]))),
                "{name} at {i}"
            );
        }
    }
}
