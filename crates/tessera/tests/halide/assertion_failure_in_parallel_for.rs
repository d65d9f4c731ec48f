//! Halide's `test/correctness/assertion_failure_in_parallel_for.cpp`: a failed assertion
//! inside a parallel loop (h bounded to [0, 10) where a tile of the output, of a size given
//! by a Param, needs 11 points of it), after a heap allocation made in that loop, reports an
//! error instead of crashing or leaking. Halide catches the error with a custom error
//! handler; here realizing returns it, on the interpreter and natively. The same pipeline
//! with tiles of 10 runs, its values checked with plain Rust.

use crate::lower_common::{try_check, TestInputs};
use tessera::prelude::*;

/// `g(x, y) = h(x % split, y % split) + 1`, `h = f = x + y`, tiled by `split` and parallel
/// over the tile rows, f computed per tile row, h per tile and bounded to [0, 10).
fn pipeline() -> (Func, Param<i32>) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let split = Param::<i32>::new("split");
    let f = Func::new("f");
    f.define((x, y), x + y).unwrap();
    let h = Func::new("h");
    h.define((x, y), f.at((x, y))).unwrap();
    let g = Func::new("g");
    g.define((x, y), h.at((x % split.expr(), y % split.expr())) + 1)
        .unwrap();
    g.tile_in_place(x, y, "xi", "yi", split.expr(), split.expr())
        .parallel(y);
    f.compute_at(&g, y);
    h.compute_at(&g, x).bound(x, 0, 10);
    (g, split)
}

#[test]
fn a_failed_bound_inside_a_parallel_loop_is_an_error() {
    let (g, split) = pipeline();
    let inputs = TestInputs::new().param(split.bind(11));
    let result = try_check(&g, &inputs, &[0, 0], &[40, 40]);
    assert!(
        result.is_err(),
        "h needs 11 points in x but is bounded to 10"
    );
}

#[test]
fn the_same_pipeline_within_its_bound() {
    let (g, split) = pipeline();
    let inputs = TestInputs::new().param(split.bind(10));
    let run = try_check(&g, &inputs, &[0, 0], &[40, 40]).unwrap();
    let out = crate::i32_values(&run);
    for y in 0..40 {
        for x in 0..40 {
            assert_eq!(
                i64::from(out.get(&[x, y])),
                x % 10 + y % 10 + 1,
                "at ({x}, {y})"
            );
        }
    }
}
