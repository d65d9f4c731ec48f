//! Halide's bounds-inference tests: `bounds_inference.cpp` (a chain of stencils computed at
//! root), `bounds_inference_chunk.cpp` (a diagonal stencil computed per row of its
//! consumer), `bounds_inference_complex.cpp` (random DAGs of Funcs reading each other at
//! clamped data-dependent rows) and `bound.cpp` (`Func::bound` on a channel dimension).
//! Each checks Halide's values with plain Rust, and every run against the evaluator.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

/// The i32 values of `output` over `[0, extents)` (checked against the evaluator).
fn realize_i32(output: &Func, extents: &[i64]) -> Buffer<i32> {
    let mins = vec![0; extents.len()];
    let run = check(output, &TestInputs::new(), &mins, extents);
    match &run.realization.buffers[0] {
        AnyBuffer::I32(b) => b.clone(),
        other => panic!("{} is {:?}, not i32", output.name(), other.ty()),
    }
}

#[test]
fn bounds_inference() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let h = Func::new("h");
    h.define(x, Expr::from(x)).unwrap();
    let g = Func::new("g");
    g.define(x, h.at(x - 1) + h.at(x + 1)).unwrap();
    let f = Func::new("f");
    f.define((x, y), (g.at(x - 1) + g.at(x + 1)) + y).unwrap();
    h.compute_root();
    g.compute_root();
    let out = realize_i32(&f, &[32, 32]);
    for yy in 0..32 {
        for xx in 0..32 {
            assert_eq!(out.get(&[xx, yy]) as i64, xx * 4 + yy, "at ({xx}, {yy})");
        }
    }
}

#[test]
fn bounds_inference_chunk() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let h = Func::new("h");
    h.define((x, y), x + y).unwrap();
    let g = Func::new("g");
    g.define((x, y), (h.at((x - 1, y - 1)) + h.at((x + 1, y + 1))) / 2)
        .unwrap();
    let f = Func::new("f");
    f.define((x, y), (g.at((x - 1, y - 1)) + g.at((x + 1, y + 1))) / 2)
        .unwrap();
    h.compute_root();
    g.compute_at(&f, y);
    let out = realize_i32(&f, &[32, 32]);
    for yy in 0..32 {
        for xx in 0..32 {
            assert_eq!(out.get(&[xx, yy]) as i64, xx + yy, "at ({xx}, {yy})");
        }
    }
}

/// Halide draws its DAGs with `rand()` seeded 0; these are drawn from a fixed seed per DAG.
#[test]
fn bounds_inference_complex() {
    const K: usize = 8;
    for seed in 0..8u64 {
        let mut rng = SmallRng::seed_from_u64(seed);
        let (x, y) = (Var::new("x"), Var::new("y"));
        let mut f: Vec<Func> = (0..K).map(|i| Func::new(&format!("f{i}"))).collect();
        f[0].define((x, y), x + y).unwrap();
        f[1].define((x, y), x * y).unwrap();
        for i in 2..K {
            let (j1, j2, j3) = (
                rng.random_range(0..i),
                rng.random_range(0..i),
                rng.random_range(0..i),
            );
            let row = clamp(f[j3].at((x + 1, y - 1)), 0, 7);
            let value = f[j1].at((x - 1, y - 1)) + f[j2].at((x + 1, row));
            f[i].define((x, y), value).unwrap();
            if rng.random_bool(0.5) {
                f[i].compute_root().vectorize(x, 4);
            }
        }
        let last = f.pop().expect("K Funcs");
        // Only that it computes, as in Halide; `check` compares it with the evaluator.
        realize_i32(&last, &[32, 32]);
    }
}

#[test]
fn bound() {
    let (x, y, c) = (Var::new("x"), Var::new("y"), Var::new("c"));
    let f = Func::new("f");
    f.define((x, y), max(x, y)).unwrap();
    let g = Func::new("g");
    g.define((x, y, c), f.at((x, y)) * c).unwrap();
    g.bound(c, 0, 3);
    let imf = realize_i32(&f, &[32, 32]);
    let img = realize_i32(&g, &[32, 32, 3]);
    for i in 0..32 {
        for j in 0..32 {
            assert_eq!(imf.get(&[i, j]) as i64, i.max(j));
            for ch in 0..3 {
                assert_eq!(img.get(&[i, j, ch]) as i64, ch * i.max(j));
            }
        }
    }
}
