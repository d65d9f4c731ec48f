//! Halide's `test/correctness/partition_loops_bug.cpp`: a 3 x 3 box sum of a 4 x 4 f64 image
//! of ones, padded with the constant 100, must give the same values with the output
//! vectorized along y by 4 as without. Here both are also checked against the sum in Rust.
//! Halide constrains the input's and the output's bounds to [0, 4)²; Tessera has no such
//! constraints, and the output is realized over exactly that box.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

fn box_sum(vectorize: bool) -> Buffer<f64> {
    let input = ImageParam::new(Type::f64(), 2, "input");
    let padded = constant_exterior(&input, 100.0f64).unwrap();
    let rk = RDom::new([(-1, 3), (-1, 3)]);
    let (x, y) = (Var::new("x"), Var::new("y"));
    let output = Func::new("output");
    output
        .define((x, y), sum(padded.at((x + rk.x(), y + rk.y()))))
        .unwrap();
    if vectorize {
        output.vectorize(y, 4);
    }
    let ones = Buffer::<f64>::from_fn(&[0, 0], &[4, 4], |_| 1.0);
    let run = check(
        &output,
        &TestInputs::new().image(&input, ones),
        &[0, 0],
        &[4, 4],
    );
    match &run.realization.buffers[0] {
        AnyBuffer::F64(b) => b.clone(),
        _ => panic!("output is f64"),
    }
}

#[test]
fn a_vectorized_box_sum_of_a_padded_image() {
    let (vectorized, scalar) = (box_sum(true), box_sum(false));
    scalar.for_each_coord(|p| {
        let inside = |v: i64| (v - 1..=v + 1).filter(|i| (0..4).contains(i)).count() as f64;
        let ones = inside(p[0]) * inside(p[1]);
        assert_eq!(scalar.get(p), ones + (9.0 - ones) * 100.0, "output{p:?}");
        assert_eq!(vectorized.get(p), scalar.get(p), "vectorized output{p:?}");
    });
}
