//! Halide's `test/correctness/compute_with.cpp`: Funcs computed in the loops of another
//! (`compute_with`) after splits, fuses, vectorization, specialization and `compute_at`,
//! give the values of the unscheduled pipeline, and each Func stores and loads only within
//! its own region (Halide traces every store and load against a box). Here the values are
//! checked with plain Rust and the evaluator, every access of the run before flattening is
//! checked against its realized box, and each fused Func's allocation must be at most the
//! size of Halide's box.
//!
//! Tessera has no `LoopAlignStrategy` (the values do not depend on it): the schedules keep
//! everything else. `multiple_fuse_groups` runs at Halide's 200 x 200 (at 100 x 100 its
//! RDom writes rows past the region checked). In `rvar_bounds` the producers computed
//! at the fused loop are placed in the loops of each fused stage that uses them (`input_c`,
//! used by both, is computed once for each, where Halide computes it once). Left out: the cases realizing several outputs at once
//! (multiple outputs, rgb to yuv420, nested compute_with, the two mixed tile factor cases,
//! the five update stage cases, vectorize inlined, mismatching splits, different arg number,
//! two compute_at: no API for pipelines with several outputs) and the GPU one. Sizes: 100 x
//! 100 where Halide's are 200 x 200, 67 x 67 for its 167 x 167.

use crate::lower_common::{check, Checked, TestInputs};
use tessera::lang::schedule::TailStrategy;
use tessera::prelude::*;

const N: i64 = 100;

/// `f = x + y`, `g = x - y`, `h = f(x - 1, y + 1) + g(x + 2, y - 2)` (which is `2x + 4`).
fn f_g_h() -> (Func, Func, Func, Var, Var) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x + y).unwrap();
    let g = Func::new("g");
    g.define((x, y), x - y).unwrap();
    let h = Func::new("h");
    h.define((x, y), f.at((x - 1, y + 1)) + g.at((x + 2, y - 2)))
        .unwrap();
    (f, g, h, x, y)
}

/// The run of a 2-D output over `[0, w) x [0, h)`, its values against `expected`.
fn run_2d(
    out: &Func,
    inputs: &TestInputs,
    w: i64,
    h: i64,
    expected: impl Fn(i64, i64) -> i64,
) -> Checked {
    let run = check(out, inputs, &[0, 0], &[w, h]);
    let values = crate::i32_values(&run);
    for y in 0..h {
        for x in 0..w {
            assert_eq!(
                i64::from(values.get(&[x, y])),
                expected(x, y),
                "at ({x}, {y})"
            );
        }
    }
    run
}

/// Each of `funcs` is stored in at most `points` elements (the points of the box Halide
/// checks its stores and loads against).
fn assert_at_most(run: &Checked, funcs: &[&str], points: i64) {
    for f in funcs {
        let elements = run.allocation(f);
        assert!(
            elements <= points as u64,
            "{f} allocates {elements} elements, Halide's box {points}"
        );
    }
}

#[test]
fn split() {
    let (f, g, h, x, _) = f_g_h();
    f.compute_root();
    g.compute_root();
    f.split(x, "xo", "xi", 7);
    g.split(x, "xo", "xi", 7);
    g.compute_with(&f, "xo");
    let run = run_2d(&h, &TestInputs::new(), N, N, |x, _| 2 * x + 4);
    assert_at_most(&run, &["f", "g"], N * N);
}

#[test]
fn fuse() {
    const S: i64 = 20;
    let (x, y, z) = (Var::new("x"), Var::new("y"), Var::new("z"));
    let f = Func::new("f");
    f.define((x, y, z), x + y + z).unwrap();
    let g = Func::new("g");
    g.define((x, y, z), x - y + z).unwrap();
    let h = Func::new("h");
    h.define(
        (x, y, z),
        f.at((x + 2, y - 1, z + 3)) + g.at((x - 5, y - 6, z + 2)),
    )
    .unwrap();
    f.compute_root();
    g.compute_root();
    f.fuse(x, y, "t").parallel("t");
    g.fuse(x, y, "t").parallel("t");
    g.compute_with(&f, "t");
    let run = check(&h, &TestInputs::new(), &[0, 0, 0], &[S, S, S]);
    let values = crate::i32_values(&run);
    for zz in 0..S {
        for yy in 0..S {
            for xx in 0..S {
                let want = (xx + 2 + yy - 1 + zz + 3) + (xx - 5 - (yy - 6) + zz + 2);
                assert_eq!(
                    i64::from(values.get(&[xx, yy, zz])),
                    want,
                    "at ({xx}, {yy}, {zz})"
                );
            }
        }
    }
    assert_at_most(&run, &["f", "g"], S * S * S);
}

#[test]
fn multiple_fuse_groups() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x + y).unwrap();
    f.update((x, y), f.at((x, y)) + y).unwrap();
    let g = Func::new("g");
    g.define((x, y), 10).unwrap();
    g.update((x, y), g.at((x, y)) + (x - y)).unwrap();
    let h = Func::new("h");
    h.define((x, y), 0).unwrap();
    let r = RDom::named("r", [(0, 39), (50, 77)]);
    let (rx, ry) = (r.x().expr(), r.y().expr());
    let at_r = || (rx.clone(), ry.clone());
    h.update(at_r(), h.at(at_r()) - (rx.clone() + ry.clone()))
        .unwrap();
    h.update(at_r(), h.at(at_r()) + rx.clone() * rx.clone())
        .unwrap();
    h.update((x, y), h.at((x, y)) + f.at((x, y)) + g.at((x, y)))
        .unwrap();
    let p = Func::new("p");
    p.define((x, y), x + 2).unwrap();
    let q = Func::new("q");
    q.define((x, y), h.at((x, y)) + 2 + p.at((x, y))).unwrap();
    for func in [&f, &g, &h, &p] {
        func.compute_root();
    }
    p.fuse(x, y, "t").parallel("t");
    h.fuse(x, y, "t").parallel("t");
    h.compute_with(&p, "t");
    f.update_stage(0).compute_with(&g.pure_stage(), y);
    f.compute_with(&g, x);
    // Halide's size: at 100 x 100, h's region would reach past it to the rows r writes.
    const S: i64 = 200;
    let run = run_2d(&q, &TestInputs::new(), S, S, |x, y| {
        let in_r = (0..39).contains(&x) && (50..127).contains(&y);
        let h0 = if in_r { -(x + y) + x * x } else { 0 };
        h0 + (x + 2 * y) + (10 + x - y) + 2 + (x + 2)
    });
    assert_at_most(&run, &["f", "g", "h", "p"], S * S);
}

#[test]
fn fuse_compute_at() {
    const S: i64 = 67;
    let (f, g, h, x, y) = f_g_h();
    let p = Func::new("p");
    p.define((x, y), h.at((x, y)) + 2).unwrap();
    let q = Func::new("q");
    q.define((x, y), x * y).unwrap();
    let r = Func::new("r");
    r.define((x, y), p.at((x, y - 1)) + q.at((x - 1, y)))
        .unwrap();
    f.compute_at(&h, y);
    g.compute_at(&h, y);
    h.compute_at(&p, y);
    p.compute_root();
    q.compute_root();
    q.compute_with(&p, x);
    f.split(x, "xo", "xi", 8);
    g.split(x, "xo", "xi", 8);
    g.compute_with(&f, "xo");
    let run = run_2d(&r, &TestInputs::new(), S, S, |x, y| {
        (2 * x + 4 + 2) + (x - 1) * y
    });
    assert_at_most(&run, &["f", "g", "h", "p", "q"], S * S);
}

#[test]
fn double_split_fuse() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x + y).unwrap();
    let g = Func::new("g");
    g.define((x, y), Expr::from(2) + x - y).unwrap();
    let h = Func::new("h");
    h.define((x, y), f.at((x, y)) + g.at((x, y)) + 10).unwrap();
    for func in [&f, &g] {
        func.split_with_tail(x, "xo", "xi", 37, TailStrategy::GuardWithIf)
            .split_with_tail("xo", "xoo", "xoi", 5, TailStrategy::GuardWithIf)
            .fuse("xoi", "xi", "t")
            .compute_at(&h, y);
    }
    g.compute_with(&f, "t");
    let run = run_2d(&h, &TestInputs::new(), N, N, |x, _| 2 * x + 12);
    assert_at_most(&run, &["f", "g"], N * N);
}

#[test]
fn vectorize() {
    const S: i64 = 111;
    let (f, g, h, x, _) = f_g_h();
    f.compute_root();
    g.compute_root();
    for func in [&f, &g] {
        func.split(x, "xo", "xi", 8).vectorize_loop("xi");
    }
    g.compute_with(&f, "xi");
    let run = run_2d(&h, &TestInputs::new(), S, S, |x, _| 2 * x + 4);
    assert_at_most(&run, &["f", "g"], S * S);
}

#[test]
fn with_specialization() {
    let (f, g, h, x, y) = f_g_h();
    f.compute_root();
    g.compute_root();
    let tile = Param::<bool>::new("tile");
    f.specialize(tile.expr()).split(x, "xo", "xi", 7);
    g.compute_with(&f, y);
    let inputs = TestInputs::new().param(tile.bind(true));
    let run = run_2d(&h, &inputs, N, N, |x, _| 2 * x + 4);
    assert_at_most(&run, &["f", "g"], N * N);
}

#[test]
fn store_at_different_levels() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let producer1 = Func::new("producer1");
    producer1.define((x, y), x + y).unwrap();
    let producer2 = Func::new("producer2");
    producer2.define((x, y), 3 * x + 2 * y).unwrap();
    let consumer = Func::new("consumer");
    consumer
        .define(
            (x, y),
            producer1.at((x, y - 1))
                + producer1.at((x, y + 1))
                + producer2.at((x, y - 1))
                + producer2.at((x, y + 1)),
        )
        .unwrap();
    consumer.compute_root();
    producer1.compute_at(&consumer, y);
    producer2
        .store_root()
        .compute_at(&consumer, y)
        .compute_with(&producer1, y);
    consumer.bound(x, 0, 16).bound(y, 0, 16);
    run_2d(&consumer, &TestInputs::new(), 16, 16, |x, y| 8 * x + 6 * y);
}

#[test]

fn rvar_bounds() {
    let input = ImageParam::new(Type::i16(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let input_c = Func::new("input_c");
    input_c.define((x, y), input.at((x, y))).unwrap();
    let add_1 = Func::new("add_1");
    add_1.define((x, y), input_c.at((x, y)) + 1).unwrap();
    let mul_2 = Func::new("mul_2");
    mul_2.define((x, y), input_c.at((x, y)) * 2).unwrap();
    let r = RDom::named("r", [(0, 32), (0, 64)]);
    let sums: Vec<Func> = [("sum_1", &add_1), ("sum_2", &mul_2)]
        .into_iter()
        .map(|(name, term)| {
            let s = Func::new(name);
            s.define((), cast(Type::i16(), 0)).unwrap();
            s.update((), s.at(()) + term.at((r.x(), r.y()))).unwrap();
            s.update_stage(0).tile(
                r.x(),
                r.y(),
                "rxOuter",
                "ryOuter",
                "rxInner",
                "ryInner",
                8,
                8,
            );
            s.compute_root();
            s
        })
        .collect();
    let total_sum = Func::new("total_sum");
    total_sum
        .define((), sums[0].at(()) + sums[1].at(()))
        .unwrap();
    for func in [&add_1, &mul_2, &input_c] {
        func.compute_at(&sums[1], "rxOuter");
    }
    sums[0]
        .update_stage(0)
        .compute_with(&sums[1].update_stage(0), "rxOuter");
    total_sum.compute_root();
    let image = Buffer::<i16>::from_fn(&[0, 0], &[32, 64], |_| 1);
    let run = check(
        &total_sum,
        &TestInputs::new().image(&input, image),
        &[],
        &[],
    );
    let AnyBuffer::I16(out) = &run.realization.buffers[0] else {
        panic!("total_sum is i16");
    };
    assert_eq!(out.get(&[]), 8192);
    let elements = run.allocation("input_c");
    assert!(
        elements <= 64,
        "input_c allocates {elements} elements, Halide 64"
    );
}

#[test]
fn update_stage_rfactor() {
    let x = Var::new("x");
    let f0 = Func::new("f0");
    f0.define(x, x).unwrap();
    let f1 = Func::new("f1");
    f1.define(x, x).unwrap();
    let r = RDom::named("r", [(0, 100)]);
    let cost = Func::new("cost");
    cost.define((), 0).unwrap();
    cost.update((), cost.at(()) + f0.at(r.x())).unwrap();
    cost.update((), cost.at(()) + f1.at(r.x())).unwrap();
    f0.compute_root();
    f1.compute_root();
    // The two reductions moved into Funcs of their own, whose loops are then fused.
    let tmp1 = cost.update_stage(0).rfactor(&[]).unwrap();
    let tmp2 = cost.update_stage(1).rfactor(&[]).unwrap();
    tmp1.compute_root();
    tmp2.compute_root();
    tmp1.update_stage(0)
        .compute_with(&tmp2.update_stage(0), r.x());
    let run = check(&cost, &TestInputs::new(), &[], &[]);
    assert_eq!(crate::i32_values(&run).get(&[]), 9900);
    // One loop over r computes both partial sums.
    assert_eq!(run.stores(&tmp1.name().to_string()), 101);
    assert_eq!(run.stores(&tmp2.name().to_string()), 101);
}
