//! Halide's `min_extent.cpp`: an image's `min` and `extent` reach the pipeline even when none
//! of its pixels is read. `f(x) = select(x < in.left, -10, select(x > in.right, 10, 1)) * x`
//! on an input covering [4, 8] and an output covering [1, 10].

use crate::i32_values;
use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn an_image_read_only_through_its_bounds() {
    let input = ImageParam::new(Type::i32(), 1, "in");
    let x = Var::new("x");
    let factor = select(x.lt(input.min(0)), -10, select(x.gt(input.max(0)), 10, 1));
    let f = Func::new("f");
    f.define(x, factor * x).unwrap();
    let image = Buffer::<i32>::from_fn(&[4], &[5], |_| 0);
    let run = check(&f, &TestInputs::new().image(&input, image), &[1], &[10]);
    let expected = [-10, -20, -30, 4, 5, 6, 7, 8, 90, 100];
    let out = i32_values(&run);
    for (i, e) in expected.iter().enumerate() {
        assert_eq!(out.get(&[i as i64 + 1]), *e, "at {}", i + 1);
    }
}
