//! Halide's `test/correctness/sliding_over_guard_with_if.cpp`: a producer stored per outer
//! loop of a `GuardWithIf` split of its consumer's rows and computed per inner row (folded
//! to 4 rows) slides over the rows of each 64-row strip. Halide counts the producer's calls
//! for a 100 x 100 output: the output plus the stencil's margin plus a little recompute at
//! the split boundary, (100 + 2 + 2) x 100; here the interpreter's count of points computed
//! must be at most that, and the values are checked. Halide's second case, with
//! `TailStrategy::None` (no tail code at all, the caller promising the extent divides), is
//! left out: Tessera has no such strategy, and its nearest, `RoundUp`, computes whole
//! 64-row strips (13,200 points), as Halide's `RoundUp` would.

use crate::lower_common::{check, TestInputs};
use tessera::lang::schedule::TailStrategy;
use tessera::prelude::*;

fn slide_over(tail: TailStrategy) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let expensive = Func::new("expensive");
    expensive.define((x, y), x * 3 + y).unwrap();
    let dst = Func::new("dst");
    dst.define(
        (x, y),
        expensive.at((x, y - 1)) + expensive.at((x, y)) + expensive.at((x, y + 1)),
    )
    .unwrap();
    dst.compute_root().split_with_tail(y, "yo", y, 64, tail);
    expensive
        .compute_at(&dst, y)
        .store_at(&dst, "yo")
        .fold_storage(y, 4);
    let run = check(&dst, &TestInputs::new(), &[0, 0], &[100, 100]);
    let out = crate::i32_values(&run);
    for yy in 0..100 {
        for xx in 0..100 {
            assert_eq!(
                i64::from(out.get(&[xx, yy])),
                9 * xx + 3 * yy,
                "at ({xx}, {yy})"
            );
        }
    }
    let count = run.provides("expensive");
    let halide = (100 + 2 + 2) * 100;
    assert!(
        count <= halide,
        "{tail:?}: expensive computed {count} points, Halide {halide}"
    );
}

#[test]
fn slides_over_a_guard_with_if_split() {
    slide_over(TailStrategy::GuardWithIf);
}
