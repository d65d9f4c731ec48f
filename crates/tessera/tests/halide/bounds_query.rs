//! Halide's `test/correctness/bounds_query.cpp`: an input needed by one pipeline
//! (`second(x, y) = tmp(x - 1, y - 1) + tmp(x + 3, y + 1)`) is sized by a bounds query
//! (1028 x 1026 for a 1024 x 1024 output), filled by a second pipeline (`first = x + y`)
//! over that box, and the result matches the two fused into one Func. Here the box is the
//! one Halide infers, so Tessera must need no more; the output is 64 x 64 instead of
//! 1024 x 1024.

use crate::i32_values;
use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn an_input_sized_by_a_bounds_query_and_filled_by_another_pipeline() {
    const N: i64 = 64;
    let (x, y) = (Var::new("x"), Var::new("y"));
    let first = Func::new("first");
    first.define((x, y), x + y).unwrap();
    let tmp = ImageParam::new(Type::i32(), 2, "tmp");
    let second = Func::new("second");
    second
        .define((x, y), tmp.at((x - 1, y - 1)) + tmp.at((x + 3, y + 1)))
        .unwrap();
    // The box Halide infers: [-1, N + 3) x [-1, N + 1).
    let (mins, extents) = ([-1, -1], [N + 4, N + 2]);
    let filled = check(&first, &TestInputs::new(), &mins, &extents);
    let b = i32_values(&filled).clone();
    let out = check(&second, &TestInputs::new().image(&tmp, b), &[0, 0], &[N, N]);
    let first_and_second = Func::new("first_and_second");
    first_and_second
        .define((x, y), first.at((x - 1, y - 1)) + first.at((x + 3, y + 1)))
        .unwrap();
    let reference = check(&first_and_second, &TestInputs::new(), &[0, 0], &[N, N]);
    let (out, reference) = (i32_values(&out), i32_values(&reference));
    for yy in 0..N {
        for xx in 0..N {
            assert_eq!(
                out.get(&[xx, yy]),
                reference.get(&[xx, yy]),
                "at ({xx}, {yy})"
            );
            assert_eq!(i64::from(out.get(&[xx, yy])), 2 * xx + 2 * yy + 2);
        }
    }
}
