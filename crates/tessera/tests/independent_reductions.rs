//! Reduction loops the race check proves independent — each coordinate an injective affine
//! function of the RVar, reads only of points no other iteration stores — run in parallel at
//! 2 threads and as vector lanes, natively, and must compute what plain Rust loops compute;
//! loops it cannot prove independent are refused with an error naming the Func and the RVar.

mod lower_common;

use lower_common::schedule_error;
use tessera::codegen::Target;
use tessera::pipeline::{Inputs, Pipeline};
use tessera::prelude::*;

/// `f` over `[0, extents)` natively at 2 threads, as i64 values indexed `[x][y]`.
fn at_two_threads(f: &Func, extents: [i64; 2]) -> Vec<Vec<i64>> {
    let mut compiled = Pipeline::new(f)
        .compile_jit(&Target::host())
        .unwrap_or_else(|e| panic!("{}: {e}", f.name()));
    compiled.set_threads(2).expect("a pool of 2 threads");
    let out = compiled
        .realize(&Inputs::new(), &[0, 0], &extents)
        .expect("runs");
    (0..extents[0])
        .map(|x| {
            (0..extents[1])
                .map(|y| out[0].get_value(&[x, y]).as_f64() as i64)
                .collect()
        })
        .collect()
}

fn assert_mentions(msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(msg.contains(p), "the message does not mention {p:?}: {msg}");
    }
}

/// `f(x, y) = x + y`, then `f(4r + 1, y) = 3 f(4r + 1, y) + f(4r, y) + r` over r in [0, 40):
/// each iteration reads its own point and one no iteration stores.
fn strided_update() -> (Func, RDom) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let r = RDom::named("r", [(0, 40)]);
    let f = Func::new("f");
    f.define((x, y), x + y).unwrap();
    let at = || (r.x() * 4 + 1, Expr::from(y));
    f.update(
        at(),
        f.at(at()) * 3 + f.at((r.x() * 4, Expr::from(y))) + r.x(),
    )
    .unwrap();
    (f, r)
}

fn strided_reference() -> Vec<Vec<i64>> {
    let mut f: Vec<Vec<i64>> = (0..170).map(|x| (0..3).map(|y| x + y).collect()).collect();
    // Each column y is updated alone, so the order of y and r does not matter.
    for r in 0..40 {
        let below = f[4 * r].clone();
        for (v, b) in f[4 * r + 1].iter_mut().zip(&below) {
            *v = 3 * *v + b + r as i64;
        }
    }
    f
}

#[test]
fn a_strided_update_runs_in_parallel_and_as_vector_lanes() {
    let (f, r) = strided_update();
    f.update_stage(0)
        .split(r.x(), "ro", "ri", 8)
        .parallel("ro")
        .vectorize("ri", 4);
    assert_eq!(at_two_threads(&f, [170, 3]), strided_reference());
}

#[test]
fn a_strided_update_parallel_over_its_rvar_alone() {
    let (f, r) = strided_update();
    f.update_stage(0).parallel(r.x());
    assert_eq!(at_two_threads(&f, [170, 3]), strided_reference());
}

/// `g(r.x, 2 r.y + 1) += r.x * r.y` over a 6 x 5 domain, its two reduction loops fused
/// into one parallel loop: each coordinate is injective in its own RVar.
#[test]
fn fused_reduction_loops_each_injective_run_in_parallel() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let r = RDom::named("r", [(0, 6), (0, 5)]);
    let g = Func::new("g");
    g.define((x, y), x * 10 + y).unwrap();
    let at = || (r.x(), r.y() * 2 + 1);
    g.update(at(), g.at(at()) + r.x() * r.y()).unwrap();
    g.update_stage(0).fuse(r.x(), r.y(), "rt").parallel("rt");
    let mut want: Vec<Vec<i64>> = (0..6)
        .map(|x| (0..11).map(|y| x * 10 + y).collect())
        .collect();
    for ry in 0..5 {
        for (rx, column) in want.iter_mut().enumerate() {
            column[2 * ry + 1] += (rx * ry) as i64;
        }
    }
    assert_eq!(at_two_threads(&g, [6, 11]), want);
}

/// `f(x) = x` with one update over `r` in [0, 8) storing at `lhs` the value `value`, made
/// parallel over `r.x`.
fn parallel_update(
    lhs: impl Fn(&RDom, &Func) -> Expr,
    value: impl Fn(&RDom, &Func) -> Expr,
) -> Func {
    let x = Var::new("x");
    let r = RDom::named("r", [(0, 8), (0, 2)]);
    let f = Func::new("f");
    f.define(x, x).unwrap();
    f.update(lhs(&r, &f), value(&r, &f)).unwrap();
    f.update_stage(0).parallel(r.x());
    f
}

#[test]
fn updates_that_may_collide_are_refused_naming_the_func_and_rvar() {
    let refused = [
        // Two values of r share r / 2.
        (
            parallel_update(|r, _| r.x() / 2, |r, _| Expr::from(r.x())),
            "store",
        ),
        // A data-dependent coordinate.
        (
            parallel_update(|r, f| clamp(f.at(r.x()), 0, 7), |r, _| Expr::from(r.x())),
            "store",
        ),
        // r + r.y: another value of r.x with another r.y stores to the same point.
        (
            parallel_update(|r, _| r.x() + r.y(), |_, _| Expr::from(1)),
            "store",
        ),
        // Each iteration reads the point the previous one stores.
        (
            parallel_update(|r, _| Expr::from(r.x()), |r, f| f.at(r.x() - 1) + 1),
            "reads f(",
        ),
    ];
    for (f, why) in refused {
        let msg = schedule_error(&f);
        assert_mentions(
            &msg,
            &["f.update(0).parallel(r.x)", "r.x", why, "keep it serial"],
        );
    }
}

/// Fusing r.y into the parallel loop makes its iterations differ in r.y too, which the
/// coordinate `r.x` does not tell apart.
#[test]
fn a_fused_loop_is_refused_for_the_rvar_no_coordinate_separates() {
    let x = Var::new("x");
    let r = RDom::named("r", [(0, 8), (0, 2)]);
    let f = Func::new("f");
    f.define(x, x).unwrap();
    f.update(r.x(), f.at(r.x()) + r.y()).unwrap();
    f.update_stage(0).fuse(r.x(), r.y(), "rt").parallel("rt");
    let msg = schedule_error(&f);
    assert_mentions(&msg, &["f.update(0).parallel(rt)", "two values of r.y"]);
}

/// `4 r` wraps around 32 bits after 2^30 values, which an extent unknown until the run allows.
#[test]
fn a_multiple_that_may_wrap_needs_a_known_extent() {
    let x = Var::new("x");
    let n = Param::<i32>::new("n");
    let r = RDom::named("r", [(Expr::from(0), n.expr())]);
    let f = Func::new("f");
    f.define(x, x).unwrap();
    f.update(r.x() * 4, 0).unwrap();
    f.update_stage(0).vectorize(r.x(), 4);
    let msg = schedule_error(&f);
    assert_mentions(&msg, &["f.update(0)", "two values of r.x"]);
}
