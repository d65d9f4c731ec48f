//! Halide's `test/correctness/oddly_sized_output.cpp`: an 87x93 output (a multiple of neither
//! the vector width nor the row split) vectorized by 4, unrolled by 2, and split into
//! parallel strips of 16 rows; every pixel must be twice the input's.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn an_output_of_odd_size_vectorized_unrolled_and_parallel() {
    let input = ImageParam::new(Type::i32(), 2, "input");
    let data = Buffer::<i32>::from_fn(&[0, 0], &[87, 93], |c| {
        ((c[0] * 7919 + c[1] * 104_729) % 1000 - 500) as i32
    });
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), input.at((x, y)) * 2).unwrap();
    f.vectorize(x, 4).unroll(x, 2);
    f.split(y, y, "yi", 16).parallel(y);
    let run = check(
        &f,
        &TestInputs::new().image(&input, data.clone()),
        &[0, 0],
        &[87, 93],
    );
    let out = crate::i32_values(&run);
    for yy in 0..93 {
        for xx in 0..87 {
            assert_eq!(out.get(&[xx, yy]), data.get(&[xx, yy]) * 2, "({xx}, {yy})");
        }
    }
}
