//! Halide's `test/correctness/storage_folding.cpp`: storage of a producer stored outside the
//! loop it is computed in is folded (kept modulo the rows one iteration needs) automatically
//! or by `fold_storage`. Halide checks the sizes its allocator is asked for, within 3
//! elements; here the interpreter reports the largest allocation of each Func, which must be
//! at most Halide's, and the values are checked with plain Rust and the evaluator. The cases
//! built on extern stages are not ported (Tessera has none); the one that bounds the output
//! by its own height uses the height given. Last, the folds of Halide's `async.cpp` whose
//! windows move backwards or vary in extent, without `async_`.

use crate::lower_common::{check, Checked, TestInputs};
use crate::r#async::{
    check_everywhere, downsample_by_1_5, downsample_by_1_5_value, single_variable_flipped,
    single_variable_flipped_value, varying_footprint, varying_footprint_value,
};
use tessera::prelude::*;

/// Halide's allowance: 3 elements.
const TOLERANCE: u64 = 3;

/// The output's width and height where Halide's are 1000 (the interpreter runs each case
/// several times); Halide's sizes are given for this width.
const N: i64 = 96;

fn run(output: &Func, extents: &[i64]) -> Checked {
    let mins = vec![0; extents.len()];
    check(output, &TestInputs::new(), &mins, extents)
}

/// The output's values against `expected(x, y)`.
fn assert_values(run: &Checked, w: i64, h: i64, expected: impl Fn(i64, i64) -> i64) {
    let AnyBuffer::I32(out) = &run.realization.buffers[0] else {
        panic!("the output is i32");
    };
    for y in 0..h {
        for x in 0..w {
            assert_eq!(out.get(&[x, y]) as i64, expected(x, y), "at ({x}, {y})");
        }
    }
}

fn assert_allocation(run: &Checked, func: &str, halide: u64) {
    let elements = run.allocation(func);
    assert!(
        elements <= halide + TOLERANCE,
        "{func} allocates {elements} elements, Halide {halide}"
    );
}

/// `g(x, y, c) = f(x - 1, y + 1, c) + f(x, y - 1, c)` with `f` stored at root and computed
/// per `x` of `g`.
fn producer_per_x() -> (Func, Func, Var) {
    let (x, y, c) = (Var::new("x"), Var::new("y"), Var::new("c"));
    let f = Func::new("f");
    f.define((x, y, c), Expr::from(x)).unwrap();
    let g = Func::new("g");
    g.define((x, y, c), f.at((x - 1, y + 1, c)) + f.at((x, y - 1, c)))
        .unwrap();
    f.store_root().compute_at(&g, x);
    (f, g, x)
}

#[test]
fn folds_y_and_c_of_a_producer_computed_per_x() {
    let (_, g, _) = producer_per_x();
    let run = run(&g, &[100, N, 3]);
    assert_allocation(&run, "f", 101 * 4);
}

#[test]
fn no_automatic_fold_with_a_producer_in_each_specialization() {
    // g vectorized where its output is wider than 4.
    let (_, g, x) = producer_per_x();
    g.specialize(g.output_extent(0).gt(4)).vectorize(x, 4);
    let run = run(&g, &[100, N, 3]);
    assert_allocation(&run, "f", 101 * (N as u64 + 2) * 3);
    let AnyBuffer::I32(out) = &run.realization.buffers[0] else {
        panic!("the output is i32");
    };
    for c in 0..3 {
        for y in 0..N {
            for x in 0..100 {
                assert_eq!(out.get(&[x, y, c]) as i64, 2 * x - 1, "at ({x}, {y}, {c})");
            }
        }
    }
}

#[test]
fn an_explicit_fold_with_a_producer_in_each_specialization() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), Expr::from(x)).unwrap();
    let g = Func::new("g");
    g.define((x, y), f.at((x - 1, y + 1)) + f.at((x, y - 1)))
        .unwrap();
    f.store_root().compute_at(&g, y).fold_storage(y, 3);
    g.specialize(g.output_extent(0).gt(4)).vectorize(x, 4);
    for width in [100, 3] {
        let run = run(&g, &[width, N]);
        assert_allocation(&run, "f", (width as u64 + 1) * 3);
        assert_values(&run, width, N, |x, _| 2 * x - 1);
    }
}

#[test]
fn a_non_overlapping_2x2_box_folds_to_a_constant_size() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let g = Func::new("g");
    g.define((x, y), x * y).unwrap();
    let f = Func::new("f");
    f.define((x, y), g.at((x * 2, y * 2)) + g.at((x * 2 + 1, y * 2 + 1)))
        .unwrap();
    g.compute_at(&f, x).store_root();
    let run = run(&f, &[100, 100]);
    // Halide: no heap allocation (a constant-size 2 x 2 block on the stack).
    assert_allocation(&run, "g", 4);
    assert_values(&run, 100, 100, |x, y| {
        (2 * x) * (2 * y) + (2 * x + 1) * (2 * y + 1)
    });
}

#[test]
fn a_stencil_in_x_and_two_rows_in_y_fold_to_a_constant_size() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let g = Func::new("g");
    g.define((x, y), x * y).unwrap();
    let f = Func::new("f");
    f.define((x, y), g.at((x, y * 2)) + g.at((x + 3, y * 2 + 1)))
        .unwrap();
    g.compute_at(&f, x).store_root();
    let run = run(&f, &[100, 100]);
    // Halide: no heap allocation; 4 columns of 2 rows.
    assert_allocation(&run, "g", 8);
    assert_values(&run, 100, 100, |x, y| x * (2 * y) + (x + 3) * (2 * y + 1));
}

#[test]
fn a_stencil_in_y_keeps_whole_rows() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let g = Func::new("g");
    g.define((x, y), x * y).unwrap();
    let f = Func::new("f");
    f.define((x, y), g.at((x * 2, y)) + g.at((x * 2 + 1, y + 3)))
        .unwrap();
    g.compute_at(&f, x).store_root();
    let run = run(&f, &[N, N]);
    assert_allocation(&run, "g", 2 * N as u64 * 4);
    assert_values(&run, N, N, |x, y| (2 * x) * y + (2 * x + 1) * (y + 3));
}

#[test]
fn a_split_output_folds_to_its_strip() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let g = Func::new("g");
    g.define((x, y), x * y).unwrap();
    let f = Func::new("f");
    f.define((x, y), g.at((x, y))).unwrap();
    // Halide bounds y to the output's height rounded down to a multiple of 8 (N is one).
    f.bound(y, 0, N as i32).split(y, "yo", "yi", 8);
    g.compute_at(&f, "yo").store_root();
    let run = run(&f, &[N, N]);
    assert_allocation(&run, "g", N as u64 * 8);
    assert_values(&run, N, N, |x, y| x * y);
}

#[test]
fn an_explicit_fold_by_three() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let g = Func::new("g");
    g.define((x, y), x * y).unwrap();
    let f = Func::new("f");
    f.define((x, y), g.at((x * 2, y)) + g.at((x * 2 + 1, y + 2)))
        .unwrap();
    g.compute_at(&f, x).store_root().fold_storage(y, 3);
    let run = run(&f, &[N, N]);
    assert_allocation(&run, "g", 2 * N as u64 * 3);
    assert_values(&run, N, N, |x, y| (2 * x) * y + (2 * x + 1) * (y + 2));
}

#[test]
fn upsampling_folds_to_two_rows() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let g = Func::new("g");
    g.define((x, y), x * y).unwrap();
    let f = Func::new("f");
    f.define((x, y), g.at((x, y / 2)) + g.at((x, y / 2 + 1)))
        .unwrap();
    g.compute_at(&f, x).store_root();
    let run = run(&f, &[N, N]);
    assert_allocation(&run, "g", N as u64 * 2);
    assert_values(&run, N, N, |x, y| x * (y / 2) + x * (y / 2 + 1));
}

#[test]
fn two_stages_of_upsampling_with_explicit_folds() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let h = Func::new("h");
    h.define((x, y), x * y).unwrap();
    let g = Func::new("g");
    g.define((x, y), h.at((x, y / 2)) + h.at((x, y / 2 + 1)))
        .unwrap();
    let f = Func::new("f");
    f.define((x, y), g.at((x, y / 2)) + g.at((x, y / 2 + 1)))
        .unwrap();
    h.compute_at(&f, y).store_root().fold_storage(y, 4);
    g.compute_at(&f, y).store_root().fold_storage(y, 2);
    let run = run(&f, &[N, N]);
    // Halide allocates one scalar more than the folded rows.
    assert_allocation(&run, "h", N as u64 * 4 + 1);
    assert_allocation(&run, "g", N as u64 * 2 + 1);
    let h_at = |x: i64, y: i64| x * y;
    let g_at = |x: i64, y: i64| h_at(x, y / 2) + h_at(x, y / 2 + 1);
    assert_values(&run, N, N, |x, y| g_at(x, y / 2) + g_at(x, y / 2 + 1));
}

/// Halide's explicit fold with an outer loop over channels (`interleave`: channels
/// innermost, in the loops and in storage).
fn fold_with_an_outer_loop(interleave: bool) {
    let (x, y, c) = (Var::new("x"), Var::new("y"), Var::new("c"));
    let f = Func::new("f");
    f.define((x, y, c), Expr::from(x)).unwrap();
    let g = Func::new("g");
    g.define((x, y, c), f.at((x - 1, y + 1, c)) + f.at((x, y - 1, c)))
        .unwrap();
    f.store_root().compute_at(&g, y).fold_storage(y, 3);
    if interleave {
        let order = [c, x, y];
        f.reorder(order).reorder_storage([c, x, y]);
        g.reorder(order).reorder_storage([c, x, y]);
    }
    let run = run(&g, &[100, N, 3]);
    let halide = if interleave { 101 * 3 * 3 } else { 101 * 3 };
    assert_allocation(&run, "f", halide);
}

#[test]
fn an_explicit_fold_with_an_outer_loop() {
    fold_with_an_outer_loop(false);
}

#[test]
fn an_explicit_fold_with_an_outer_loop_interleaved() {
    fold_with_an_outer_loop(true);
}

/// One of `async.rs`'s folds by 8, built without `async_`: its values against plain Rust on
/// the interpreter and the JIT, the interpreter's against the evaluator, and the producer's
/// storage exactly `folded` elements (8 rows, or points, of it).
fn check_fold_by_8(consumer: &Func, extents: &[i64], value: impl Fn(&[i64]) -> i64, folded: u64) {
    let run = run(consumer, extents);
    assert_eq!(
        run.allocation("producer"),
        folded,
        "the producer's allocation"
    );
    check_everywhere(consumer, extents, value);
}

#[test]
fn a_window_moving_backwards_folds() {
    let consumer = single_variable_flipped(false);
    check_fold_by_8(&consumer, &[16], single_variable_flipped_value, 8);
}

#[test]
fn a_window_of_varying_extent_folds() {
    // 130 columns (x - 1 to x + 1 over 128) of 8 rows, where the window spans 19 rows.
    let consumer = varying_footprint(false, false);
    let value = |p: &[i64]| varying_footprint_value(false, p);
    check_fold_by_8(&consumer, &[128, 128], value, 130 * 8);
}

#[test]
fn a_window_of_varying_extent_moving_backwards_folds() {
    let consumer = varying_footprint(true, false);
    let value = |p: &[i64]| varying_footprint_value(true, p);
    check_fold_by_8(&consumer, &[128, 128], value, 130 * 8);
}

#[test]
fn a_window_of_two_downsampled_rows_folds() {
    // 256 columns of 8 rows, where all of them span 386.
    let consumer = downsample_by_1_5(false);
    check_fold_by_8(&consumer, &[256, 256], downsample_by_1_5_value, 256 * 8);
}
