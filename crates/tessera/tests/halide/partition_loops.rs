//! Halide's `test/correctness/partition_loops.cpp`: a loop must not be partitioned on a
//! condition that reads a Func allocated inside it (`h(x, y) = clamped(x + g(x, y, 0), y,
//! 2)` with `g(x, y, 0) = x` inlined into a select), checked against the input read at
//! `min(2x, W - 1)`; and (issue 7742) a PredicateStores split whose inner loop is fused
//! with y. Halide's 1024 x 1024 x 3 input is shrunk to 64 x 64 x 3 (its u8 values still
//! wrap); the second case, which Halide only realizes, is checked with its values.

use crate::lower_common::{check, TestInputs};
use tessera::lang::schedule::TailStrategy;
use tessera::prelude::*;

const W: i64 = 64;

#[test]
fn no_partitioning_on_a_func_allocated_inside_the_loop() {
    let input = ImageParam::new(Type::u8(), 3, "input");
    let data = Buffer::<u8>::from_fn(&[0, 0, 0], &[W, W, 3], |p| (p[0] + p[1] + p[2]) as u8);
    let (x, y, c) = (Var::new("x"), Var::new("y"), Var::new("c"));
    let clamped = repeat_edge(&input);
    let g = Func::new("g");
    g.define((x, y, c), x + y + c).unwrap();
    g.update((x, y, 0), Expr::from(x)).unwrap();
    let h = Func::new("h");
    h.define((x, y), clamped.at((x + g.at((x, y, 0)), y, 2)))
        .unwrap();
    let f = Func::new("f");
    f.define((x, y, c), select(h.at((x, y)).lt(x + y), x + y, y + c))
        .unwrap();
    f.compute_root();
    let output = Func::new("output");
    output
        .define((x, y, c), cast(Type::f32(), f.at((x, y, c))))
        .unwrap();
    let run = check(
        &output,
        &TestInputs::new().image(&input, data.clone()),
        &[0, 0, 0],
        &[W, W, 3],
    );
    let AnyBuffer::F32(out) = &run.realization.buffers[0] else {
        panic!("output is f32");
    };
    out.for_each_coord(|p| {
        let (x, y, c) = (p[0], p[1], p[2]);
        let read = i64::from(data.get(&[(2 * x).min(W - 1), y, 2]));
        let correct = if read < x + y { x + y } else { y + c };
        assert_eq!(out.get(p), correct as f32, "output{p:?}");
    });
}

#[test]
fn a_predicate_stores_split_fused_with_y() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x + y).unwrap();
    f.split_with_tail(x, "x_outer", "x_inner", 2, TailStrategy::PredicateStores)
        .fuse(y, "x_inner", "y_x_inner_fused");
    let run = check(&f, &TestInputs::new(), &[0, 0], &[100, 100]);
    crate::assert_i32_output(&run, 0, |p| p[0] + p[1]);
}
