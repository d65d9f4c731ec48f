//! Halide's `test/correctness/non_vector_aligned_embeded_buffer.cpp`: a 4-element buffer
//! whose data starts one element into its allocation (not vector aligned), read by a Func
//! vectorized by 4 whose output starts at 0; Halide checks only that it runs. Here the
//! input is an ImageParam (Tessera has no buffers embedded in a pipeline) and the values
//! are checked. The misalignment itself cannot be reproduced: a Tessera buffer's data
//! always starts at its first element, and the native code makes no alignment assumption
//! about input data.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn a_vectorized_read_of_a_four_element_input() {
    let foo = Buffer::<i32>::from_fn(&[0], &[4], |p| 10 + p[0] as i32);
    let input = ImageParam::new(Type::i32(), 1, "foo");
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, input.at(x)).unwrap();
    f.vectorize(x, 4);
    let run = check(&f, &TestInputs::new().image(&input, foo), &[0], &[4]);
    crate::assert_i32_output(&run, 0, |p| 10 + p[0]);
}
