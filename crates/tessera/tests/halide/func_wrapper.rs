//! Halide's `test/correctness/func_wrapper.cpp`: `f.in(g)` wrappers. Asking twice for the
//! wrapper of one consumer gives the same Func; each case checks the call graph of the
//! lowered code (which Funcs each Func's producer calls) and the output values: a root
//! wrapper; a wrapper made before the consumer's update exists (the update, scheduled
//! with a Param specialization, unrolled RDom splits and parallel vectorized splits, calls
//! the wrapper too); wrappers computed inside Funcs whose own schedules changed; wrappers
//! of wrappers; a wrapper used by an RDom predicate; and two wrappers folded into one
//! consumer's tiles.
//!
//! Also a wrapper shared by two of three outputs (`f.in({g1, g2})`), a global wrapper
//! (`f.in()`, Tessera's `f.in_all()`) tiled inside its consumer's tiles, and the global
//! wrapper of an output with updates. Where Halide's global wrapper serves exactly one
//! consumer (the custom-plus-global and RDom-predicate cases) it is written as that
//! consumer's wrapper; the multi-fold (two outputs) and lots-of-wrappers cases are not
//! ported yet. Output sizes are shrunk (200x200 and
//! 1024x1024 in Halide) to keep the tests fast.

use crate::call_graphs::{call_graph, graph, pipeline_call_graph, CallGraph};
use crate::lower_common::{check, Checked, TestInputs};
use crate::{assert_image_2d, i32_values, realize_outputs_2d};
use tessera::lang::stage::DimName;
use tessera::prelude::*;

fn expect_image(run: &Checked, w: i64, h: i64, reference: impl Fn(i64, i64) -> i64) {
    let out = i32_values(run);
    for y in 0..h {
        for x in 0..w {
            assert_eq!(out.get(&[x, y]) as i64, reference(x, y), "at ({x}, {y})");
        }
    }
}

fn realize(f: &Func, w: i64, h: i64) -> Checked {
    check(f, &TestInputs::new(), &[0, 0], &[w, h])
}

#[test]
fn asking_again_gives_the_same_wrapper() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x + y).unwrap();
    let g = Func::new("g");
    g.define((x, y), f.at((x, y))).unwrap();
    let wrapper = f.in_(&g);
    for _ in 0..5 {
        assert_eq!(f.in_(&g).name(), wrapper.name());
    }
}

#[test]
fn a_root_wrapper() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define(x, Expr::from(x)).unwrap();
    let g = Func::new("g");
    g.define((x, y), f.at(x)).unwrap();
    let wrapper = f.in_(&g);
    wrapper.compute_root();
    f.compute_root();
    let run = realize(&g, 40, 40);
    assert_eq!(
        call_graph(&run.lowered),
        graph! { g => [wrapper], wrapper => [f], f => [] },
        "the call graph"
    );
    expect_image(&run, 40, 40, |x, _| x);
}

/// `g(x, y) = f(x, y)` reading `f` through `redirect(&f, &g)` (a wrapper or a clone), made
/// before g's update exists; the update (specialized on a Param, its RDom split and unrolled,
/// its pure loops split, vectorized and parallel) reads `f` through it too. The lowered call
/// graph must be `expected(&f, &redirected, &g)`. Shared with `func_clone.rs`.
pub(crate) fn update_after_redirect(
    param_value: bool,
    redirect: impl Fn(&Func, &Func) -> Func,
    expected: impl Fn(&Func, &Func, &Func) -> CallGraph,
) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x + y).unwrap();
    let g = Func::new("g");
    g.define((x, y), f.at((x, y))).unwrap();
    let redirected = redirect(&f, &g);
    let r = RDom::new([(0, 100), (0, 100)]);
    r.where_(r.x().lt(r.y()));
    g.update(
        (r.x(), r.y()),
        g.at((r.x(), r.y())) + 2 * f.at((r.x(), r.y())),
    )
    .unwrap();
    let param = Param::<bool>::new("param");
    g.specialize(param.expr())
        .vectorize(x, 8)
        .unroll(x, 2)
        .split(x, x, "xi", 4)
        .parallel(x);
    g.update_stage(0)
        .split(r.x(), "rxo", "rxi", 2)
        .unroll(DimName::from("rxi"), 2);
    f.compute_root();
    redirected.compute_root();
    redirected
        .vectorize(x, 8)
        .unroll(x, 2)
        .split(x, x, "xi", 4)
        .parallel(x);
    let run = check(
        &g,
        &TestInputs::new().param(param.bind(param_value)),
        &[0, 0],
        &[120, 120],
    );
    assert_eq!(
        call_graph(&run.lowered),
        expected(&f, &redirected, &g),
        "the call graph"
    );
    expect_image(&run, 120, 120, |x, y| {
        if (0..100).contains(&x) && (0..100).contains(&y) && x < y {
            3 * (x + y)
        } else {
            x + y
        }
    });
}

#[test]
fn an_update_defined_after_the_wrapper_calls_it_specialized() {
    update_after_wrapper(true);
}

fn update_after_wrapper(param_value: bool) {
    update_after_redirect(
        param_value,
        |f, g| f.in_(g),
        |f, wrapper, g| {
            graph! { g => [wrapper, g], wrapper => [f], f => [] }
        },
    );
}

#[test]
fn an_update_defined_after_the_wrapper_calls_it_unspecialized() {
    update_after_wrapper(false);
}

/// Halide's global wrapper of `f` here serves only `result` (g has its own), so it is
/// written as `f.in_(&result)`.
#[test]
fn a_wrapper_for_each_consumer() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define(x, Expr::from(x)).unwrap();
    let g = Func::new("g");
    g.define((x, y), f.at(x)).unwrap();
    let result = Func::new("result");
    result.define((x, y), f.at(x) + g.at((x, y))).unwrap();
    let f_in_g = f.in_(&g);
    f_in_g.compute_at(&g, x);
    let f_wrapper = f.in_(&result);
    f_wrapper.compute_at(&result, y);
    f.compute_root();
    g.compute_at(&result, y);
    let run = realize(&result, 40, 40);
    assert_eq!(
        call_graph(&run.lowered),
        graph! { result => [g, f_wrapper], g => [f_in_g], f_wrapper => [f], f_in_g => [f], f => [] },
        "the call graph"
    );
    expect_image(&run, 40, 40, |x, _| 2 * x);
}

#[test]
fn wrappers_of_funcs_whose_schedules_changed() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let e = Func::new("e");
    e.define((x, y), x + y).unwrap();
    let f = Func::new("f");
    f.define((x, y), e.at((x, y))).unwrap();
    let g = Func::new("g");
    g.define((x, y), f.at((x, y))).unwrap();
    let h = Func::new("h");
    h.define((x, y), g.at((x, y))).unwrap();
    e.compute_root();
    f.compute_at(&g, y).vectorize(x, 8);
    g.compute_root();
    let e_in_f = e.in_(&f);
    let g_in_h = g.in_(&h);
    g_in_h.compute_root();
    g_in_h.compute_at(&h, y).vectorize(x, 8);
    e_in_f.compute_at(&f, y).split(x, "xo", "xi", 8);
    let run = realize(&h, 40, 40);
    assert_eq!(
        call_graph(&run.lowered),
        graph! { h => [g_in_h], g_in_h => [g], g => [f], f => [e_in_f], e_in_f => [e], e => [] },
        "the call graph"
    );
    expect_image(&run, 40, 40, |x, y| x + y);
}

#[test]
fn wrappers_of_wrappers() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let e = Func::new("e");
    e.define((x, y), x + y).unwrap();
    let f = Func::new("f");
    f.define((x, y), e.at((x, y))).unwrap();
    let g = Func::new("g");
    g.define((x, y), f.at((x, y)) + e.at((x, y))).unwrap();
    let f_in_g = f.in_(&g);
    f_in_g.compute_root();
    let f_in_f_in_g = f.in_(&f_in_g);
    f_in_f_in_g.compute_root();
    let h = Func::new("h");
    h.define((x, y), g.at((x, y)) + f.at((x, y)) + f_in_f_in_g.at((x, y)))
        .unwrap();
    e.compute_root();
    f.compute_root();
    g.compute_root();
    let f_in_h = f.in_(&h);
    f_in_h.compute_root();
    let g_in_h = g.in_(&h);
    g_in_h.compute_root();
    let run = realize(&h, 40, 40);
    assert_eq!(
        call_graph(&run.lowered),
        graph! { h => [f_in_h, g_in_h, f_in_f_in_g], f_in_h => [f], g_in_h => [g], g => [e, f_in_g], f_in_g => [f_in_f_in_g], f_in_f_in_g => [f], f => [e], e => [] },
        "the call graph"
    );
    expect_image(&run, 40, 40, |x, y| 4 * (x + y));
}

/// Halide's global wrapper of `h` serves only `g`, so it is written as `h.in_(&g)`.
#[test]
fn wrappers_read_by_an_rdom_predicate() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x + y).unwrap();
    let g = Func::new("g");
    g.define((x, y), 10).unwrap();
    let h = Func::new("h");
    h.define((x, y), 5).unwrap();
    let r = RDom::new([(0, 100), (0, 100)]);
    r.where_((f.at((r.x(), r.y())) + h.at((r.x(), r.y()))).lt(50));
    g.update((r.x(), r.y()), g.at((r.x(), r.y())) + h.at((r.x(), r.y())))
        .unwrap();
    let h_wrapper = h.in_(&g);
    h_wrapper
        .store_root()
        .compute_at(g.update_stage(0), r.y().name().as_str());
    let f_in_g = f.in_(&g);
    f_in_g.compute_at(g.update_stage(0), r.x().name().as_str());
    f.compute_root();
    h.compute_root();
    let run = realize(&g, 120, 120);
    assert_eq!(
        call_graph(&run.lowered),
        graph! { g => [g, f_in_g, h_wrapper], f_in_g => [f], f => [], h_wrapper => [h], h => [] },
        "the call graph"
    );
    expect_image(&run, 120, 120, |x, y| {
        if (0..100).contains(&x) && (0..100).contains(&y) && x + y + 5 < 50 {
            15
        } else {
            10
        }
    });
}

#[test]
fn two_wrappers_folded_into_the_consumers_tiles() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let input = Func::new("input");
    input.define((x, y), 2 * x + 3 * y).unwrap();
    input.compute_root();
    let output = Func::new("output");
    output.define((x, y), input.at((y, x))).unwrap();
    output.tile(x, y, x, y, "xi", "yi", 8, 8);
    let input_in_output = input.in_(&output);
    input_in_output
        .compute_at(&output, x)
        .vectorize_loop(x)
        .unroll_loop(y);
    let input_in_output_in_output = input_in_output.in_(&output);
    input_in_output_in_output
        .compute_at(&output, x)
        .unroll_loop(x)
        .unroll_loop(y);
    let run = realize(&output, 64, 64);
    assert_eq!(
        call_graph(&run.lowered),
        graph! { output => [input_in_output_in_output], input_in_output_in_output => [input_in_output], input_in_output => [input], input => [] },
        "the call graph"
    );
    expect_image(&run, 64, 64, |x, y| 3 * x + 2 * y);
}

#[test]
fn a_wrapper_shared_by_two_of_three_outputs() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define(x, Expr::from(x)).unwrap();
    let (g1, g2, g3) = (Func::new("g1"), Func::new("g2"), Func::new("g3"));
    for g in [&g1, &g2, &g3] {
        g.define((x, y), f.at(x)).unwrap();
    }
    f.compute_root();
    let f_wrapper = f.in_(&[&g1, &g2]);
    f_wrapper.compute_root();
    let pipeline = Pipeline::with_outputs(&[&g1, &g2, &g3]);
    assert_eq!(
        pipeline_call_graph(&pipeline),
        graph! { g1 => [f_wrapper], g2 => [f_wrapper], g3 => [f], f_wrapper => [f], f => [] },
        "the call graph"
    );
    for out in realize_outputs_2d(&Inputs::new(), &pipeline, 40) {
        assert_image_2d(&out, |x, _| x);
    }
}

#[test]
fn a_global_wrapper_tiled_inside_its_consumers_tiles() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (f, g, h) = (Func::new("f"), Func::new("g"), Func::new("h"));
    f.define((x, y), x + y).unwrap();
    g.define((x, y), f.at((x, y))).unwrap();
    h.define((x, y), g.at((x, y)) + f.at((x, y))).unwrap();
    let wrapper = f.in_all();
    f.compute_root();
    h.compute_root()
        .tile(x, y, x, y, "xi", "yi", 16, 16)
        .fuse(x, y, "t")
        .parallel("t");
    g.compute_at(&h, "yi");
    wrapper
        .compute_at(&h, "yi")
        .tile(x, y, x, y, "xi", "yi", 8, 8)
        .fuse("xi", "yi", "t")
        .vectorize("t", 4);
    let run = realize(&h, 72, 72);
    assert_eq!(
        call_graph(&run.lowered),
        graph! { h => [g, wrapper], g => [wrapper], wrapper => [f], f => [] },
        "the call graph"
    );
    expect_image(&run, 72, 72, |x, y| 2 * (x + y));
}

/// Halide's RDom covers the whole 32x32 output, and `g` is computed at every point of its
/// wrapper: 16x16 here.
#[test]
fn a_global_wrapper_of_an_output_with_updates() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let n = 16;
    let (f, g) = (Func::new("f"), Func::new("g"));
    f.define((x, y), x + y).unwrap();
    g.define((x, y), 10).unwrap();
    g.update((x, y), g.at((x, y)) + 2 * f.at((x, x))).unwrap();
    let r = RDom::new([(0, n as i32), (0, n as i32)]);
    g.update(
        (r.x(), r.y()),
        g.at((r.x(), r.y())) + 3 * f.at((r.y(), r.y())),
    )
    .unwrap();
    let wrapper = g.in_all();
    wrapper.compute_root();
    g.compute_at(&wrapper, x);
    f.compute_root();
    let run = realize(&wrapper, n, n);
    assert_eq!(
        call_graph(&run.lowered),
        graph! { g => [f, g], wrapper => [g], f => [] },
        "the call graph"
    );
    expect_image(&run, n, n, |x, y| 4 * x + 6 * y + 10);
}
