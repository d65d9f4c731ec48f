//! Halide's `test/correctness/sliding_window.cpp`: a producer stored outside a loop and
//! computed inside it computes each point once. Halide counts the producer's calls to an
//! extern function; here the interpreter counts the points each Func computes (all its
//! stages), and every run is compared with the evaluator. Tessera must compute at most what
//! Halide computes. Cases Tessera does not reach yet are ignored with what it computes today.

use crate::lower_common::{check, TestInputs};
use tessera::lang::stage::DimName;
use tessera::prelude::*;

/// Points computed by `producer` when `output` is realized over `[0, extents)`.
fn points(output: &Func, producer: &str, extents: &[i64]) -> u64 {
    let mins = vec![0; extents.len()];
    check(output, &TestInputs::new(), &mins, extents).provides(producer)
}

/// `f(x) = x * 3 + y`-like values: what the producer computes does not matter, only how often.
fn counter_1d(x: Var) -> Func {
    let f = Func::new("f");
    f.define(x, x * 3 + 1).unwrap();
    f
}

fn counter_2d(x: Var, y: Var) -> Func {
    let f = Func::new("f");
    f.define((x, y), x * 3 + y * 7).unwrap();
    f
}

#[test]
fn slides_when_specializing() {
    let x = Var::new("x");
    let f = counter_1d(x);
    let g = Func::new("g");
    g.define(x, f.at(x) + f.at(x - 1)).unwrap();
    f.store_root().compute_at(&g, x);
    g.specialize(g.output_min(0).eq_(0));
    assert!(points(&g, "f", &[100]) <= 101);
    // The other branch (an output starting at 5) slides too, and both are right.
    let run = check(&g, &TestInputs::new(), &[5], &[100]);
    assert!(run.provides("f") <= 101);
}

#[test]
fn two_producers_of_one_consumer() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, x * 2).unwrap();
    let g = Func::new("g");
    g.define(x, x * 2 + 1).unwrap();
    let h = Func::new("h");
    h.define(x, f.at(x) + f.at(x - 1) + g.at(x) + g.at(x - 1))
        .unwrap();
    f.store_root().compute_at(&h, x);
    g.store_root().compute_at(&h, x);
    let run = check(&h, &TestInputs::new(), &[0], &[100]);
    assert!(run.provides("f") + run.provides("g") <= 202);
}

#[test]
fn a_sequence_of_two_sliding_windows() {
    let x = Var::new("x");
    let f = counter_1d(x);
    let g = Func::new("g");
    g.define(x, f.at(x) + f.at(x - 1)).unwrap();
    let h = Func::new("h");
    h.define(x, g.at(x) + g.at(x - 1)).unwrap();
    f.store_root().compute_at(&h, x);
    g.store_root().compute_at(&h, x);
    let count = points(&h, "f", &[100]);
    assert!(count <= 102, "f computed {count} points");
}

#[test]
fn a_containing_stage() {
    let x = Var::new("x");
    let f = counter_1d(x);
    let g = Func::new("g");
    g.define(x, f.at(x) + f.at(x - 1)).unwrap();
    let h = Func::new("h");
    h.define(x, g.at(x)).unwrap();
    f.store_root().compute_at(&g, x);
    g.compute_at(&h, x);
    let count = points(&h, "f", &[100]);
    assert!(count <= 101, "f computed {count} points");
}

#[test]
fn an_inner_vectorized_dimension() {
    let (x, c) = (Var::new("x"), Var::new("c"));
    let f = Func::new("f");
    f.define((x, c), x * 5 + c).unwrap();
    let g = Func::new("g");
    g.define((x, c), f.at((x + 1, c)) - f.at((x, c))).unwrap();
    let h = Func::new("h");
    h.define((x, c), g.at((x, c))).unwrap();
    f.store_root()
        .compute_at(&h, x)
        .reorder_storage([c, x])
        .bound(c, 0, 4);
    f.reorder((c, x)).vectorize_loop(DimName(c.name()));
    g.compute_at(&h, x);
    h.reorder_storage([c, x]).bound(c, 0, 4);
    h.reorder((c, x)).vectorize_loop(DimName(c.name()));
    let count = points(&h, "f", &[100, 4]);
    assert!(count <= 404, "f computed {count} points");
}

#[test]
fn a_reduction_producer() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let r = RDom::new([(0, 100)]);
    let f = Func::new("f");
    f.define((x, y), Expr::from(0)).unwrap();
    f.update((r.x(), y), r.x() * 3 + y).unwrap();
    let g = Func::new("g");
    g.define((x, y), f.at((x, y)) + f.at((x, y - 1))).unwrap();
    f.store_root().compute_at(&g, y);
    // Halide counts the update's 100 x 11 points; its pure definition covers as many.
    let count = points(&g, "f", &[10, 10]);
    assert!(count <= 2 * 100 * 11, "f computed {count} points");
}

#[test]
fn sliding_over_two_dimensions_at_once() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = counter_2d(x, y);
    let g = Func::new("g");
    g.define((x, y), f.at((x - 1, y)) + f.at((x, y)) + f.at((x, y - 1)))
        .unwrap();
    f.store_root().compute_at(&g, x);
    let count = points(&g, "f", &[10, 10]);
    assert!(count <= 11 * 11, "f computed {count} points");
}

#[test]
fn no_diagonal_sliding() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = counter_2d(x, y);
    let g = Func::new("g");
    g.define(
        (x, y),
        f.at((x + y, x - y)) + f.at(((x - 2) + y, (x - 2) - y)) + f.at((x + (y - 2), x - (y - 2))),
    )
    .unwrap();
    f.store_root().compute_at(&g, x);
    let count = points(&g, "f", &[10, 10]);
    assert!(count <= 1500, "f computed {count} points");
}

#[test]
fn folds_the_example_of_func_h_to_a_constant_size() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x * y).unwrap();
    let g = Func::new("g");
    g.define(
        (x, y),
        f.at((x, y)) + f.at((x + 1, y)) + f.at((x, y + 1)) + f.at((x + 1, y + 1)),
    )
    .unwrap();
    f.store_at(&g, y).compute_at(&g, x);
    // Halide checks that f needs no heap allocation: its storage is folded to a constant
    // size (2 x 2).
    let run = check(&g, &TestInputs::new(), &[0, 0], &[10, 10]);
    assert!(
        run.allocation("f") <= 4,
        "f allocates {}",
        run.allocation("f")
    );
}

#[test]
fn a_fixed_footprint_is_computed_once() {
    let x = Var::new("x");
    let f = counter_1d(x);
    let g = Func::new("g");
    g.define(x, f.at(Expr::from(0)) + f.at(Expr::from(5)))
        .unwrap();
    f.store_root().compute_at(&g, x);
    let count = points(&g, "f", &[100]);
    assert!(count <= 6, "f computed {count} points");
}

#[test]
fn a_new_value_every_third_iteration() {
    let x = Var::new("x");
    let f = counter_1d(x);
    let g = Func::new("g");
    g.define(x, f.at(x / 3)).unwrap();
    f.store_root().compute_at(&g, x);
    let count = points(&g, "f", &[100]);
    assert!(count <= 34, "f computed {count} points");
}

#[test]
fn an_unrolled_producer() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, x * x + 1).unwrap();
    let g = Func::new("g");
    g.define(x, f.at(x) + f.at(x - 1)).unwrap();
    g.split(x, "xo", "xi", 10);
    f.store_root()
        .compute_at(&g, "xo")
        .unroll_loop(DimName(x.name()));
    let count = points(&g, "f", &[100]);
    assert!(count <= 101, "f computed {count} points");
}

#[test]
fn a_vectorized_producer_and_consumer() {
    let x = Var::new("x");
    let f = counter_1d(x);
    let g = Func::new("g");
    g.define(x, f.at(x + 1) + f.at(x - 1)).unwrap();
    f.store_root().compute_at(&g, x).vectorize(x, 4);
    g.vectorize(x, 4);
    // The test asks for 102 in Halide's sources; Halide 21 computes 104 (whole vectors).
    let count = points(&g, "f", &[100]);
    assert!(count <= 104, "f computed {count} points");
}

/// Halide's sequence of four stencils `f -> g -> h -> u -> v`, with the placements `place`
/// sets; Halide computes f over 14 x 14 points.
fn stencil_sequence(place: impl Fn(&Func, &Func, &Func, &Func, &Func)) -> u64 {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = counter_2d(x, y);
    let g = Func::new("g");
    g.define((x, y), f.at((x, y - 1)) + f.at((x, y + 1)))
        .unwrap();
    let h = Func::new("h");
    h.define((x, y), g.at((x - 1, y)) + g.at((x + 1, y)))
        .unwrap();
    let u = Func::new("u");
    u.define((x, y), h.at((x, y - 1)) + h.at((x, y + 1)))
        .unwrap();
    let v = Func::new("v");
    v.define((x, y), u.at((x - 1, y)) + u.at((x + 1, y)))
        .unwrap();
    place(&f, &g, &h, &u, &v);
    points(&v, "f", &[10, 10])
}

#[test]
fn a_sequence_of_stencils_computed_at_the_output() {
    let y = Var::new("y");
    let count = stencil_sequence(|f, g, h, u, v| {
        u.compute_at(v, y);
        h.store_root().compute_at(v, y);
        g.store_root().compute_at(v, y);
        f.store_root().compute_at(v, y);
    });
    assert!(count <= 14 * 14, "f computed {count} points");
}

#[test]
fn a_sequence_of_stencils_sliding_at_the_output() {
    let y = Var::new("y");
    let count = stencil_sequence(|f, g, h, u, v| {
        u.compute_at(v, y);
        h.store_root().compute_at(v, y);
        g.compute_at(h, y);
        f.store_root().compute_at(v, y);
    });
    assert!(count <= 14 * 14, "f computed {count} points");
}

/// Halide's test asks for 14 x 14 points here, but Halide 21 computes 504 (counted with
/// `trace_stores` through its Python bindings): `h` slides over `v`'s rows, and `f` over
/// `h`'s rows, starting afresh in each row of `v`. Tessera does the same and computes 448
/// (Halide computes whole extra warm-up rows).
#[test]
fn a_sequence_of_stencils_nested() {
    let y = Var::new("y");
    let count = stencil_sequence(|f, g, h, u, v| {
        u.compute_at(v, y);
        h.store_root().compute_at(u, y);
        g.compute_at(h, y);
        f.store_root().compute_at(g, y);
    });
    assert!(count <= 504, "f computed {count} points");
}

#[test]
fn a_warm_up_before_sliding() {
    let x = Var::new("x");
    let f = counter_1d(x);
    let g = Func::new("g");
    g.define(x, f.at(max(x, 3))).unwrap();
    f.store_root().compute_at(&g, x);
    let count = points(&g, "f", &[10]);
    assert!(count <= 7, "f computed {count} points");
}
