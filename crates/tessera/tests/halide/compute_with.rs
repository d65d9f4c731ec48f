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
//! RDom writes rows past the region checked). A producer computed at a fused loop for
//! several fused stages is computed once per iteration for all of them (`rvar_bounds`'s
//! `input_c`, `multiple_outputs`'s `input`, `rgb_yuv420`'s `rgb`), as in Halide. Left out:
//! the other cases realizing several outputs at once (nested compute_with, the two mixed
//! tile factor cases, the five update stage cases, vectorize inlined, mismatching splits,
//! different arg number, two compute_at) and the GPU one. Sizes: 100 x
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
    // Computed once per tile for both sums, into one tile of storage (Halide's 64).
    assert_eq!(run.allocation("input_c"), 64);
    assert_eq!(run.stores("input_c"), 32 * 64);
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

/// Halide's `multiple_outputs`: `input = x + y + 1` computed per row of `f` for both
/// outputs, `f = 100 - input` (4 x 4) and `g = x + input` (6 x 6), g computed with f at y.
/// Halide's box for input's stores is `[0, 5]²`: each of its points once, computed per row
/// over what f and g need there.
#[test]
fn multiple_outputs() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let input = Func::new("input");
    input.define((x, y), x + y + 1).unwrap();
    let f = Func::new("f");
    f.define((x, y), 100 - input.at((x, y))).unwrap();
    let g = Func::new("g");
    g.define((x, y), x + input.at((x, y))).unwrap();
    input.compute_at(&f, y);
    g.compute_with(&f, y);
    let pipeline = Pipeline::with_outputs(&[&f, &g]);
    let boxes: [(&[i64], &[i64]); 2] = [(&[0, 0], &[4, 4]), (&[0, 0], &[6, 6])];
    let (out, stats) = crate::realize_outputs_counted(&Inputs::new(), &pipeline, &boxes);
    let out: Vec<Buffer<i32>> = (out.into_iter())
        .map(|b| b.into_typed::<i32>().expect("the outputs are i32"))
        .collect();
    crate::assert_image_2d(&out[0], |x, y| 100 - (x + y + 1));
    crate::assert_image_2d(&out[1], |x, y| x + (x + y + 1));
    let input_stores = stats.stores[&tessera::Symbol::new("input")];
    assert_eq!(
        input_stores,
        6 * 6,
        "input's stores (Halide: each point of [0, 5]² once)"
    );
    let elements = stats.allocation_elements[&tessera::Symbol::new("input")];
    assert!(
        elements <= 6,
        "input allocates {elements} elements (one row: 6)"
    );
}

/// The 8-bit random image of `rgb_yuv420`: `size` x `size` x 3.
fn random_rgb(size: i64) -> Buffer<i32> {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    Buffer::<i32>::from_fn(&[0, 0, 0], &[size, size, 3], |_| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 33) & 0xff) as i32
    })
}

/// The Funcs of `rgb_yuv420` reading `input`: `[y_part, u_part, v_part, rgb, rgb_x]`.
fn rgb_yuv420_funcs(input: &ImageParam) -> [Func; 5] {
    let (x, y, z) = (Var::new("x"), Var::new("y"), Var::new("z"));
    let clamped = tessera::lang::boundary::repeat_edge(input);
    let rgb_x = Func::new("rgb_x");
    rgb_x
        .define(
            (x, y, z),
            clamped.at((x - 1, y, z)) + 2 * clamped.at((x, y, z)) + clamped.at((x + 1, y, z)),
        )
        .unwrap();
    let rgb = Func::new("rgb");
    rgb.define(
        (x, y, z),
        (rgb_x.at((x, y - 1, z)) + 2 * rgb_x.at((x, y, z)) + rgb_x.at((x, y + 1, z))) / 16,
    )
    .unwrap();
    let y_part = Func::new("y_part");
    let channel = |c: i32| input.at((x, y, c));
    y_part
        .define(
            (x, y),
            ((66 * channel(0) + 129 * channel(1) + 25 * channel(2) + 128) >> 8) + 16,
        )
        .unwrap();
    let half = |c: i32| rgb.at((2 * x, 2 * y, c));
    let u_part = Func::new("u_part");
    u_part
        .define(
            (x, y),
            ((-38 * half(0) - 74 * half(1) + 112 * half(2) + 128) >> 8) + 128,
        )
        .unwrap();
    let v_part = Func::new("v_part");
    v_part
        .define(
            (x, y),
            ((112 * half(0) - 94 * half(1) - 18 * half(2) + 128) >> 8) + 128,
        )
        .unwrap();
    [y_part, u_part, v_part, rgb, rgb_x]
}

/// Halide's `rgb_yuv420`: y at full size, u and v at half size from a blurred rgb, the three
/// fused in their tiles' outer loops, rgb (and its x blur, folded in four rows) computed per
/// row of tiles for u and v. Halide's `v_part.compute_with(u_part, x)` is written
/// `v_part.compute_with(y_part, x)` (the same group: Tessera refuses chains of stages). Its
/// counts, here in stores per lane: at most five times the stores of the unfused pipeline.
#[test]
fn rgb_yuv420() {
    const HALF: i32 = 128;
    const SIZE: i64 = 2 * HALF as i64;
    let input = ImageParam::new(Type::i32(), 3, "input");
    let image = random_rgb(SIZE);
    let inputs = Inputs::new().image(&input, image.clone());
    let boxes: [(&[i64], &[i64]); 3] = [
        (&[0, 0], &[SIZE, SIZE]),
        (&[0, 0], &[SIZE / 2, SIZE / 2]),
        (&[0, 0], &[SIZE / 2, SIZE / 2]),
    ];
    let total = |stats: &tessera::InterpStats| stats.stores.values().sum::<u64>();

    let [y_part, u_part, v_part, ..] = rgb_yuv420_funcs(&input);
    for part in [&y_part, &u_part, &v_part] {
        part.vectorize("x", 8);
    }
    let reference = Pipeline::with_outputs(&[&y_part, &u_part, &v_part]);
    let (_, reference_stats) = crate::realize_outputs_counted(&inputs, &reference, &boxes);

    let [y_part, u_part, v_part, rgb, rgb_x] = rgb_yuv420_funcs(&input);
    y_part.tile_in_place("x", "y", "xi", "yi", 16, 2);
    y_part.unroll_loop("yi").vectorize("xi", 8);
    for part in [&u_part, &v_part] {
        part.tile_in_place("x", "y", "xi", "yi", 8, 1);
        part.vectorize_loop("xi");
        part.compute_with(&y_part, "x");
        part.bound("x", 0, HALF).bound("y", 0, HALF);
    }
    y_part.bound("x", 0, 2 * HALF).bound("y", 0, 2 * HALF);
    rgb.bound("z", 0, 3);
    rgb_x.fold_storage("y", 4);
    rgb_x.store_root();
    rgb_x.compute_at(&y_part, "y").vectorize("x", 8);
    rgb.compute_at(&y_part, "y").vectorize("x", 8);
    let pipeline = Pipeline::with_outputs(&[&y_part, &u_part, &v_part]);
    let (out, stats) = crate::realize_outputs_counted(&inputs, &pipeline, &boxes);

    let input_at = |x: i64, y: i64, c: i64| i64::from(image.get(&[x, y, c]));
    let clamped = |x: i64, y: i64, c: i64| input_at(x.clamp(0, SIZE - 1), y.clamp(0, SIZE - 1), c);
    let rgb_x_at =
        |x: i64, y: i64, c: i64| clamped(x - 1, y, c) + 2 * clamped(x, y, c) + clamped(x + 1, y, c);
    let rgb_at = |x: i64, y: i64, c: i64| {
        (rgb_x_at(x, y - 1, c) + 2 * rgb_x_at(x, y, c) + rgb_x_at(x, y + 1, c)).div_euclid(16)
    };
    let out: Vec<Buffer<i32>> = (out.into_iter())
        .map(|b| b.into_typed::<i32>().expect("the outputs are i32"))
        .collect();
    crate::assert_image_2d(&out[0], |x, y| {
        ((66 * input_at(x, y, 0) + 129 * input_at(x, y, 1) + 25 * input_at(x, y, 2) + 128) >> 8)
            + 16
    });
    let half = |x: i64, y: i64, c: i64| rgb_at(2 * x, 2 * y, c);
    crate::assert_image_2d(&out[1], |x, y| {
        ((-38 * half(x, y, 0) - 74 * half(x, y, 1) + 112 * half(x, y, 2) + 128) >> 8) + 128
    });
    crate::assert_image_2d(&out[2], |x, y| {
        ((112 * half(x, y, 0) - 94 * half(x, y, 1) - 18 * half(x, y, 2) + 128) >> 8) + 128
    });
    // rgb once per row of tiles for u and v together: the row both read, 3 channels.
    let rgb_stores = stats.stores[&tessera::Symbol::new("rgb")];
    assert_eq!(
        rgb_stores,
        (SIZE / 2) as u64 * SIZE as u64 * 3,
        "rgb's stores"
    );
    let (stores, reference_stores) = (total(&stats), total(&reference_stats));
    assert!(
        stores <= 5 * reference_stores,
        "{stores} stores, the unfused pipeline {reference_stores} (Halide: at most 5 times)"
    );
}
