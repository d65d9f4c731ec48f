//! Halide's `test/correctness/tuple_reduction.cpp`: Tuple-valued Funcs whose updates read both
//! elements of the previous value at once (an update is atomic: `f = (f[1] * 2, f[0] * 2)`
//! swaps and doubles), ten swapping updates incrementing both, and ten updates each reading
//! only one element. Halide's test moves stages between CPU and GPU (or HVX); those schedules
//! are left out, so each case runs with the default schedule. 64x64 instead of 1024x1024.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

const N: i64 = 64;

#[test]
fn an_update_swapping_and_doubling_the_elements() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), vec![x + y, x - y]).unwrap();
    f.update(
        (x, y),
        vec![f.value_at((x, y), 1) * 2, f.value_at((x, y), 0) * 2],
    )
    .unwrap();
    let run = check(&f, &TestInputs::new(), &[0, 0], &[N, N]);
    crate::assert_outputs_2d(&run, N, |x, y| vec![(x - y) * 2, (x + y) * 2]);
}

#[test]
fn ten_updates_swapping_and_incrementing() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), vec![x + y, x - y]).unwrap();
    for _ in 0..10 {
        f.update(
            (x, y),
            vec![f.value_at((x, y), 1) + 1, f.value_at((x, y), 0) + 1],
        )
        .unwrap();
    }
    let run = check(&f, &TestInputs::new(), &[0, 0], &[N, N]);
    crate::assert_outputs_2d(&run, N, |x, y| vec![x + y + 10, x - y + 10]);
}

#[test]
fn ten_updates_each_reading_one_element() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), vec![x + y - 1000, x - y + 1000]).unwrap();
    for _ in 0..10 {
        f.update(
            (x, y),
            vec![f.value_at((x, y), 1) - 1, f.value_at((x, y), 1) + 1],
        )
        .unwrap();
    }
    let run = check(&f, &TestInputs::new(), &[0, 0], &[N, N]);
    crate::assert_outputs_2d(&run, N, |x, y| vec![x - y + 1000 + 8, x - y + 1000 + 10]);
}
