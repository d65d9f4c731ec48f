//! Halide's tests of placements and loop splits: `split_store_compute.cpp` (storage at root,
//! computation per row), `chunk.cpp` (a producer per tile) and `compute_at_split_rvar.cpp`
//! (a producer computed inside the loops of a split, reordered, unrolled or fused RVar).
//! Halide's `compute_at_split_rvar` counts calls with an impure extern whose values depend
//! on the order of evaluation; here the producer's points are counted by the interpreter
//! and its values are pure, checked with plain Rust.

use crate::{i32_values, realize};
use tessera::lang::stage::DimName;
use tessera::prelude::*;

#[test]
fn split_store_compute() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), max(x, y)).unwrap();
    let g = Func::new("g");
    g.define((x, y), f.at((x, y)) * 17).unwrap();
    let h = Func::new("h");
    h.define(
        (x, y),
        g.at((x, y - 1)) + g.at((x - 1, y)) + g.at((x, y)) + g.at((x + 1, y)) + g.at((x, y + 1)),
    )
    .unwrap();
    g.store_root().compute_at(&h, y);
    f.compute_root();
    let run = realize(&h, &[32, 32]);
    let out = i32_values(&run);
    for i in 0..32i64 {
        for j in 0..32i64 {
            let correct =
                17 * ((i - 1).max(j) + (i + 1).max(j) + i.max(j) + i.max(j - 1) + i.max(j + 1));
            assert_eq!(out.get(&[i, j]) as i64, correct, "at ({i}, {j})");
        }
    }
}

#[test]
fn chunk() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), cast_to::<f32>(Expr::from(x))).unwrap();
    let g = Func::new("g");
    g.define((x, y), f.at((x + 1, y)) + f.at((x - 1, y)))
        .unwrap();
    g.tile(x, y, "xo", "yo", "xi", "yi", 8, 8);
    f.compute_at(&g, "xo");
    let run = realize(&g, &[32, 32]);
    let AnyBuffer::F32(out) = &run.realization.buffers[0] else {
        panic!("g is f32");
    };
    for i in 0..32 {
        for j in 0..32 {
            assert_eq!(out.get(&[i, j]), 2.0 * i as f32, "at ({i}, {j})");
        }
    }
}

/// `g(x) = 0; g(r) = f(r)` over `r` in `[0, n)`, scheduled by `schedule` (given g's update
/// and f); f's values and how many points f computes (once each) are checked.
fn split_rvar_case(n: i32, schedule: impl Fn(&Func, &Func, DimName)) {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, x * 3 + 1).unwrap();
    let g = Func::new("g");
    g.define(x, Expr::from(0)).unwrap();
    let r = RDom::new([(0, n)]);
    g.update(r.x(), f.at(r.x())).unwrap();
    schedule(&g, &f, DimName(r.x().name()));
    let run = realize(&g, &[n as i64]);
    let out = i32_values(&run);
    for i in 0..n as i64 {
        assert_eq!(out.get(&[i]) as i64, i * 3 + 1, "at {i}");
    }
    assert_eq!(run.provides("f"), n as u64, "f computed once per point");
}

#[test]
fn compute_at_the_inner_loop_of_a_split_rvar() {
    split_rvar_case(10, |g, f, r| {
        g.update_stage(0).split(r, "ro", "ri", 2);
        f.compute_at(g.update_stage(0), "ri");
    });
}

#[test]
fn compute_at_the_outer_loop_of_a_split_rvar_unrolled() {
    split_rvar_case(10, |g, f, r| {
        g.update_stage(0).split(r, "ro", "ri", 2);
        f.compute_at(g.update_stage(0), "ro").unroll_loop("x");
    });
}

#[test]
fn compute_at_the_unrolled_inner_loop_of_a_split_rvar() {
    split_rvar_case(10, |g, f, r| {
        g.update_stage(0).split(r, "ro", "ri", 2).unroll_loop("ri");
        f.compute_at(g.update_stage(0), "ri");
    });
}

#[test]
fn compute_at_a_split_rvar_reordered() {
    split_rvar_case(10, |g, f, r| {
        g.update_stage(0)
            .split(r, "ro", "ri", 2)
            .reorder(["ro", "ri"]);
        f.compute_at(g.update_stage(0), "ro");
    });
}

#[test]
fn compute_at_a_fused_rvar() {
    split_rvar_case(20, |g, f, r| {
        g.update_stage(0)
            .split(r, "ro", "ri", 4)
            .split("ri", "rio", "rii", 2)
            .fuse("rio", "ro", "fused");
        f.compute_at(g.update_stage(0), "fused");
    });
}
