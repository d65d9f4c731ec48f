//! Halide's `test/correctness/parallel_rvar.cpp`: updates whose reduction variables are
//! parallel (tiled and fused, unrolled, split by 4), vectorized and unrolled — every one
//! safe because no iteration reads or writes what another writes — must match the same
//! Func unscheduled. Here the reference is plain Rust, over Halide's 20 x 20 check window.

use crate::realize;
use tessera::prelude::*;

/// `f(x, y) = x + y` with Halide's four updates.
fn updated(name: &str) -> (Func, RDom, RDom) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let r = RDom::new([(0, 12), (0, 10)]);
    let r2 = RDom::new([(0, 12)]);
    let f = Func::new(name);
    f.define((x, y), x + y).unwrap();
    let at = || (r.x(), r.y());
    f.update(at(), f.at(at()) + 1).unwrap();
    f.update(at(), f.at(at()) + f.at((r.x() + 20, r.y())))
        .unwrap();
    let odd = || (r2.x() * 2 + 1, 0);
    f.update(odd(), f.at(odd()) + f.at((r2.x() * 2, 0)))
        .unwrap();
    f.update((r2.x(), 0), f.at((r2.x(), 0)) + f.at((r2.x() - 1, 1)))
        .unwrap();
    (f, r, r2)
}

fn reference() -> Vec<Vec<i64>> {
    // Wide enough for every read: x up to 31, y up to 9.
    let mut f: Vec<Vec<i64>> = (0..32).map(|x| (0..20).map(|y| x + y).collect()).collect();
    for x in 0..12 {
        let right = f[x + 20].clone();
        for (y, v) in f[x].iter_mut().enumerate().take(10) {
            *v += 1 + right[y];
        }
    }
    for r in 0..12 {
        f[2 * r + 1][0] += f[2 * r][0];
    }
    for r in 0..12usize {
        // r - 1 = -1 reads f(-1, 1) = 0.
        let left = if r == 0 { 0 } else { f[r - 1][1] };
        f[r][0] += left;
    }
    f
}

#[test]
fn parallel_and_vectorized_reduction_variables() {
    let (f, r, r2) = updated("f");
    f.update_stage(0)
        .tile(r.x(), r.y(), "rxo", "ryo", "rxi", "ryi", 4, 2)
        .fuse("rxo", "ryo", "rt")
        .parallel("rt");
    f.update_stage(1)
        .parallel(r.x())
        .parallel(r.y())
        .unroll(r.y(), 2);
    f.update_stage(2).vectorize(r2.x(), 4).unroll_loop(r2.x());
    f.update_stage(3)
        .split(r2.x(), "r2o", "r2i", 4)
        .parallel("r2o");
    let expected = reference();
    let run = realize(&f, &[20, 20]);
    crate::assert_i32_output(&run, 0, |p| expected[p[0] as usize][p[1] as usize]);
}
