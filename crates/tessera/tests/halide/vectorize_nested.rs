//! Halide's `test/correctness/vectorize_nested.cpp`: two nested vectorized loops — tiles of
//! 8x4 with both tile dimensions vectorized, under RoundUp, GuardWithIf and Predicate tails
//! (over sizes that are and are not multiples of the tile), with a Func with an update
//! inlined into them, with a serial loop inside the vectorized ones, with a producer computed
//! inside a vectorized loop (and vectorized itself), and with all four loops of a tiling
//! vectorized. Values are checked against the formula (and the interpreter and the evaluator
//! against native code). Left out: the check that a lowering pass sees no scalarized x loop
//! (it inspects Halide's internal loop names through a custom lowering pass).

use crate::lower_common::{check, Checked, TestInputs};
use tessera::lang::schedule::TailStrategy;
use tessera::prelude::*;

/// Halide's `tile(x, y, x, y, xi, yi, fx, fy, tail)`, with both inner loops vectorized.
fn vectorized_tiles(f: &Func, x: Var, y: Var, fx: i32, fy: i32, tail: TailStrategy) {
    f.split_with_tail(x, x, "xi", fx, tail)
        .split_with_tail(y, y, "yi", fy, tail)
        .reorder(("xi", "yi", x, y))
        .vectorize_loop("xi")
        .vectorize_loop("yi");
}

fn check_2d(run: &Checked, want: impl Fn(i64, i64) -> i64) {
    let out = crate::i32_values(run);
    out.for_each_coord(|p| assert_eq!(out.get(p) as i64, want(p[0], p[1]), "{p:?}"));
}

fn simple(w: i64, h: i64, tail: TailStrategy) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), 3 * x + y).unwrap();
    f.compute_root();
    vectorized_tiles(&f, x, y, 8, 4, tail);
    let run = check(&f, &TestInputs::new(), &[0, 0], &[w, h]);
    check_2d(&run, |x, y| 3 * x + y);
}

#[test]
fn tiles_rounded_up() {
    simple(32, 24, TailStrategy::RoundUp);
}

#[test]
fn tiles_guarded() {
    simple(33, 22, TailStrategy::GuardWithIf);
}

#[test]
fn tiles_predicated() {
    simple(33, 22, TailStrategy::Predicate);
}

#[test]
fn an_inlined_func_with_an_update() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let r = RDom::new([(0, 10)]);
    let inlined = Func::new("inlined");
    inlined.define(x, x).unwrap();
    inlined.update(x, inlined.at(x) + r.x()).unwrap();
    let f = Func::new("f");
    f.define((x, y), inlined.at(x) + 2 * y).unwrap();
    f.compute_root();
    vectorized_tiles(&f, x, y, 8, 4, TailStrategy::GuardWithIf);
    let run = check(&f, &TestInputs::new(), &[0, 0], &[33, 22]);
    check_2d(&run, |x, y| x + 2 * y + 45);
}

#[test]
fn a_serial_loop_inside_the_vectorized_ones() {
    let (x, y, c) = (Var::new("x"), Var::new("y"), Var::new("c"));
    let f = Func::new("f");
    f.define((x, y, c), 3 * x + y + 7 * c).unwrap();
    f.compute_root()
        .split_with_tail(x, x, "xi", 8, TailStrategy::GuardWithIf)
        .split_with_tail(y, y, "yi", 4, TailStrategy::GuardWithIf)
        .reorder((c, "xi", "yi", x, y))
        .vectorize_loop("xi")
        .vectorize_loop("yi");
    let run = check(&f, &TestInputs::new(), &[0, 0, 0], &[33, 22, 3]);
    let out = crate::i32_values(&run);
    out.for_each_coord(|p| assert_eq!(out.get(p) as i64, 3 * p[0] + p[1] + 7 * p[2], "{p:?}"));
}

fn stencil_producer() -> (Var, Var, Func, Func) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (f, g) = (Func::new("f"), Func::new("g"));
    f.define((x, y), 3 * x + y).unwrap();
    g.define((x, y), f.at((x, y)) + f.at((x + 1, y))).unwrap();
    (x, y, f, g)
}

#[test]
fn a_vectorized_producer_computed_inside_a_vectorized_loop() {
    let (x, _, f, g) = stencil_producer();
    g.split(x, x, "xi", 8).vectorize_loop("xi");
    f.compute_at(&g, "xi").vectorize_loop(x);
    let run = check(&g, &TestInputs::new(), &[0, 0], &[16, 16]);
    check_2d(&run, |x, y| 6 * x + 3 + 2 * y);
}

#[test]
fn a_producer_computed_inside_two_nested_vectorized_loops() {
    let (x, _, f, g) = stencil_producer();
    g.split_with_tail(x, x, "xi", 8, TailStrategy::GuardWithIf)
        .split_with_tail("xi", "xi", "xii", 2, TailStrategy::GuardWithIf)
        .vectorize_loop("xi")
        .vectorize_loop("xii");
    f.compute_at(&g, "xii").vectorize_loop(x);
    let run = check(&g, &TestInputs::new(), &[0, 0], &[35, 17]);
    check_2d(&run, |x, y| 6 * x + 3 + 2 * y);
}

#[test]
fn all_four_loops_of_a_tiling_vectorized() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), 3 * x + y).unwrap();
    f.compute_root()
        .split_with_tail(x, x, "xi", 4, TailStrategy::GuardWithIf)
        .split_with_tail(y, y, "yi", 2, TailStrategy::GuardWithIf)
        .reorder(("xi", "yi", x, y))
        .vectorize_loop(x)
        .vectorize_loop(y)
        .vectorize_loop("xi")
        .vectorize_loop("yi");
    f.bound(x, 0, 12).bound(y, 0, 10);
    let run = check(&f, &TestInputs::new(), &[0, 0], &[12, 10]);
    check_2d(&run, |x, y| 3 * x + y);
}
