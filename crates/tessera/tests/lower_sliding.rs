//! Sliding windows and storage folding (Halide's sliding_window, sliding_backwards,
//! sliding_reduction, sliding_window_cascade, storage_folding): with storage outside a serial
//! loop and computation inside it, every point of the producer is computed exactly once
//! (counted by the interpreter), storage folds to the power of two covering the rows one
//! iteration needs (or to the factor `fold_storage` asks for, when it is proven to hold them),
//! and results equal the evaluator. A window moving backwards slides down and folds; where the
//! window cannot slide (a parallel loop) results are still right.

mod lower_common;

use lower_common::{check, TestInputs};
use tessera::lang::schedule::TailStrategy;
use tessera::prelude::*;

/// `f(x, y) = x * 7 + y * y`, `out(x, y) = Σ_{k in taps} f(x, y + k)`.
fn vertical(taps: &[i32]) -> (Func, Func, Var, Var) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x * 7 + y * y).unwrap();
    let out = Func::new("out");
    let value = taps
        .iter()
        .map(|&k| f.at((x, y + k)))
        .reduce(|a, b| a + b)
        .expect("at least one tap");
    out.define((x, y), value).unwrap();
    (f, out, x, y)
}

const W: i64 = 9;
const H: i64 = 20;

#[test]
fn each_point_computed_once_with_folded_storage() {
    // Window heights 1..=5 fold to 1, 2, 4, 4, 8 rows.
    let windows: [(&[i32], u64); 5] = [
        (&[0], 1),
        (&[0, 1], 2),
        (&[-1, 0, 1], 4),
        (&[-2, 1], 4),
        (&[0, 2, 4], 8),
    ];
    for (taps, rows) in windows {
        let (f, out, _, y) = vertical(taps);
        f.store_root().compute_at(&out, y);
        let run = check(&out, &TestInputs::new(), &[-3, -5], &[W, H]);
        let height = (taps.iter().max().unwrap() - taps.iter().min().unwrap()) as i64 + 1;
        assert_eq!(
            run.stores("f"),
            (W * (H + height - 1)) as u64,
            "taps {taps:?}"
        );
        assert_eq!(run.allocation("f"), W as u64 * rows, "taps {taps:?}");
    }
}

#[test]
fn sliding_inside_an_outer_loop() {
    // Storage per strip of 5 rows: each strip computes its 7 rows of f once.
    let (f, out, x, y) = vertical(&[-1, 0, 1]);
    out.split(y, "yo", "yi", 5).vectorize(x, 4);
    f.store_at(&out, "yo")
        .compute_at(&out, "yi")
        .vectorize(x, 4);
    let run = check(&out, &TestInputs::new(), &[0, 0], &[W, H]);
    // The vectors of 4 over 9 columns store 12 lanes per row.
    assert_eq!(run.stores("f"), 4 * 7 * 12);
    assert_eq!(run.allocations("f"), 4);
}

#[test]
fn sibling_windows_stored_at_one_loop_both_fold() {
    // Two producers stored per strip and computed per row (harris's Ix and Iy): the first
    // one's storage surrounds the second's, and each still folds to the rows a row needs.
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (f, g) = (Func::new("f"), Func::new("g"));
    f.define((x, y), x * 3 + y).unwrap();
    g.define((x, y), x - y * 5).unwrap();
    let out = Func::new("out");
    out.define(
        (x, y),
        f.at((x, y - 1)) + g.at((x, y)) * f.at((x, y + 1)) + g.at((x, y + 1)),
    )
    .unwrap();
    out.split(y, "yo", "yi", 8);
    for producer in [&f, &g] {
        producer.store_at(&out, "yo").compute_at(&out, "yi");
    }
    let run = check(&out, &TestInputs::new(), &[0, 0], &[W, H]);
    assert_eq!(run.allocation("f"), W as u64 * 4);
    assert_eq!(run.allocation("g"), W as u64 * 2);
}

#[test]
fn cascade_of_sliding_windows() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x + y * 3).unwrap();
    let g = Func::new("g");
    g.define((x, y), f.at((x, y - 1)) + f.at((x, y + 1)))
        .unwrap();
    let h = Func::new("h");
    h.define((x, y), g.at((x, y - 1)) * g.at((x, y + 1)))
        .unwrap();
    f.store_root().compute_at(&h, y);
    g.store_root().compute_at(&h, y);
    let run = check(&h, &TestInputs::new(), &[0, 0], &[W, H]);
    assert_eq!(run.stores("g"), (W * (H + 2)) as u64);
    assert_eq!(run.stores("f"), (W * (H + 4)) as u64);
    assert_eq!(run.allocation("g"), (W * 4) as u64);
    // f's storage holds g's: it folds too, to the 5 rows (y - 2 ..= y + 2) one row of h
    // needs, rounded up to 8.
    assert_eq!(run.allocation("f"), (W * 8) as u64);
}

/// Halide's sliding_window_cascade, 24 deep: `f_i(x) = f_{i-1}(x - 1) + f_{i-1}(min(x + 1,
/// 20))`, each stored at root and computed per x of the output. Each let of the regions reads
/// its consumer's twice, so expanding them into one another (as sliding once did to prove
/// them monotonic) doubled at every level: lowering this took minutes. Every Func still
/// computes each point of its region once.
#[test]
fn a_deep_cascade_slides_every_level() {
    const DEPTH: usize = 24;
    let x = Var::new("x");
    let mut levels = vec![Func::new("c0")];
    levels[0].define(x, x).unwrap();
    for i in 1..DEPTH {
        let f = Func::new(&format!("c{i}"));
        let below = &levels[i - 1];
        f.define(x, below.at(x - 1) + below.at(min(x + 1, 20)))
            .unwrap();
        levels.push(f);
    }
    let out = Func::new("cascade_out");
    out.define(x, levels[DEPTH - 1].at(x)).unwrap();
    for f in &levels {
        f.store_root().compute_at(&out, x);
    }
    out.bound(x, 0, 10);
    let run = check(&out, &TestInputs::new(), &[0], &[10]);
    // The region of each level, from the output's [0, 9] down.
    let (mut lo, mut hi) = (0i64, 9i64);
    for i in (0..DEPTH).rev() {
        assert_eq!(
            run.provides(&format!("c{i}")),
            (hi - lo + 1) as u64,
            "c{i} over [{lo}, {hi}]"
        );
        (lo, hi) = (lo - 1, (hi - 1).max((hi + 1).min(20)));
    }
}

#[test]
fn sliding_along_x_with_y_outside() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x * 3 - y).unwrap();
    let out = Func::new("out");
    out.define((x, y), f.at((x - 1, y)) + f.at((x + 1, y)) * 2)
        .unwrap();
    f.store_at(&out, y).compute_at(&out, x);
    let run = check(&out, &TestInputs::new(), &[-4, 2], &[W, 3]);
    assert_eq!(run.stores("f"), 3 * (W + 2) as u64);
    assert_eq!(run.allocation("f"), 4);
}

#[test]
fn sliding_backwards_but_not_in_parallel() {
    // out reads f at -y: as y increases the window moves backwards, and slides down: each
    // row of f is computed once, and its storage folds to the 2 rows of the window.
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x - y * 5).unwrap();
    let out = Func::new("out");
    out.define((x, y), f.at((x, -y)) + f.at((x, 1 - y)))
        .unwrap();
    f.store_root().compute_at(&out, y);
    let run = check(&out, &TestInputs::new(), &[0, 0], &[W, H]);
    assert_eq!(run.stores("f"), (W * (H + 1)) as u64);
    assert_eq!(run.allocation("f"), (W * 2) as u64);

    // A parallel loop cannot slide (and storage must be inside it).
    let (f, out, _, y) = vertical(&[-1, 0, 1]);
    out.parallel(y);
    f.store_at(&out, y).compute_at(&out, y);
    let run = check(&out, &TestInputs::new(), &[0, 0], &[W, H]);
    assert_eq!(run.stores("f"), (W * H * 3) as u64);
}

#[test]
fn a_func_with_pointwise_updates_slides() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    let r = RDom::named("r", [(0, 3)]);
    f.define((x, y), x + y).unwrap();
    f.update((x, y), f.at((x, y)) * 2 + r.x()).unwrap();
    let out = Func::new("out");
    out.define((x, y), f.at((x, y)) + f.at((x, y + 1))).unwrap();
    f.store_root().compute_at(&out, y);
    let run = check(&out, &TestInputs::new(), &[1, 1], &[W, H]);
    // Each of the H + 1 rows is computed once, by both stages (the update three times).
    assert_eq!(run.stores("f"), (W * (H + 1) * 4) as u64);
}

#[test]
fn a_func_with_updates_and_an_unrolled_pure_stage_slides_a_chunk_at_a_time() {
    // Halide's sliding_reduction: the pure stage unrolled by `k` computes k rows at least
    // (shifted inwards), which would undo the updates of the rows before the slid one; so
    // every stage computes the newest k rows of the 3 a row of `out` reads (all 3 when
    // k > 3, where sliding saves nothing), each once in the first iteration's 3 rows.
    for k in [2i32, 3, 4] {
        let (x, y) = (Var::new("x"), Var::new("y"));
        let f = Func::new("f");
        f.define((x, y), x * 5 + y * y).unwrap();
        f.update((x, y), f.at((x, y)) * 3 + y).unwrap();
        let out = Func::new("out");
        out.define(
            (x, y),
            f.at((x, y)) + f.at((x, y - 1)) + f.at((x, y - 2)) * 2,
        )
        .unwrap();
        f.unroll(y, k);
        f.store_root().compute_at(&out, y);
        let run = check(&out, &TestInputs::new(), &[1, 1], &[W, H]);
        // Rows of the region per iteration: the first iteration's 3, then k (at most 3);
        // the update computes them, the pure stage them in whole chunks of k.
        let k = i64::from(k);
        let rows: i64 = (0..H)
            .map(|i| if i == 0 { 3 } else { k.min(3) })
            .map(|region| region + (region + k - 1) / k * k)
            .sum();
        assert_eq!(run.stores("f"), (W * rows) as u64, "unrolled by {k}");
    }
}

#[test]
fn folding_with_a_downsampling_consumer() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x * y - 3).unwrap();
    let out = Func::new("out");
    out.define(
        (x, y),
        f.at((x, y * 2)) + f.at((x, y * 2 + 1)) + f.at((x, y * 2 + 2)),
    )
    .unwrap();
    f.store_root().compute_at(&out, y);
    let run = check(&out, &TestInputs::new(), &[0, -3], &[W, 8]);
    // Rows 2y .. 2y + 2: three rows per iteration, two new ones after the first.
    assert_eq!(run.stores("f"), (W * (3 + 2 * 7)) as u64);
    assert_eq!(run.allocation("f"), (W * 4) as u64);
}

#[test]
fn fold_storage_takes_the_factor_asked_for() {
    // A three-row window folds to 4 rows by itself; asked, to 3 (or to 6), with the same
    // values and each point still computed once.
    for (factor, rows) in [(None, 4), (Some(3), 3), (Some(6), 6)] {
        let (f, out, _, y) = vertical(&[-1, 0, 1]);
        f.store_root().compute_at(&out, y);
        if let Some(factor) = factor {
            f.fold_storage(y, factor);
        }
        let run = check(&out, &TestInputs::new(), &[-3, -5], &[W, H]);
        assert_eq!(run.stores("f"), (W * (H + 2)) as u64, "{factor:?}");
        assert_eq!(run.allocation("f"), W as u64 * rows, "{factor:?}");
    }
}

#[test]
fn fold_storage_of_a_half_resolution_producer_under_a_bounded_output() {
    // out computes two rows per iteration and reads f at half resolution: one iteration
    // uses 3 rows of f when its rows start even, 4 when odd. Bounded to start at row 0,
    // the window is 3 rows, which the fold must see through the region's min (a let fixed
    // by the bound) and the lets of the split's rounded-up extent.
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x * 7 + y * y).unwrap();
    let out = Func::new("out");
    out.define((x, y), f.at((x, y / 2 - 1)) + f.at((x, y / 2 + 1)))
        .unwrap();
    out.bound(y, 0, H as i32)
        .split_with_tail(y, "yo", "yi", 2, TailStrategy::RoundUp);
    f.store_root().compute_at(&out, "yo").fold_storage(y, 3);
    let run = check(&out, &TestInputs::new(), &[0, 0], &[W, H]);
    assert_eq!(run.allocation("f"), (W * 3) as u64);
}

#[test]
#[ignore = "refused today: with `t/6*6 <= t` the extent is e - min(e - 5, s) + 1, which the \
            constant bound's splits do not bound (e is nested in the subtracted min)"]
fn fold_storage_of_a_producer_split_by_its_own_factor() {
    // out reads rows min(y, 12) and min(y + 2, 12) of f: a window [s, e] of at most 3 rows,
    // which f's own split by 6 shifts inwards to 6 (its one strip starts at min(s, e - 5)).
    // The extent, max(min((e - s + 6)/6*6 + s - 6, e - 5) + 5, e) - min(e - 5, s) + 1, is at
    // most 6 only through `t/6*6 <= t` and then max(5, e - s) <= 5. The schedule fuzzer's
    // valid folds lowering cannot prove (seeds 20240686, 20240691) are of this kind.
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x * 7 + y * y).unwrap();
    let out = Func::new("out");
    out.define((x, y), f.at((x, min(y, 12))) + f.at((x, min(y + 2, 12))))
        .unwrap();
    f.store_root()
        .compute_at(&out, y)
        .split_with_tail(y, "fyo", "fyi", 6, TailStrategy::ShiftInwards)
        .fold_storage(y, 6);
    let run = check(&out, &TestInputs::new(), &[-3, -5], &[W, H]);
    assert_eq!(run.allocation("f"), (W * 6) as u64);
}

#[test]
fn fold_storage_that_cannot_hold_the_window_is_refused() {
    let refusal = |schedule: &dyn Fn(&Func, &Func, Var, Var)| {
        let (f, out, x, y) = vertical(&[-1, 0, 1]);
        schedule(&f, &out, x, y);
        lower_common::schedule_error(&out)
    };
    // Too small for the three rows one iteration uses.
    let e = refusal(&|f, out, _, y| {
        f.store_root().compute_at(out, y).fold_storage(y, 2);
    });
    assert!(
        e.contains("f.fold_storage(y, 2)") && e.contains("uses 3 coordinates of y, more than 2"),
        "{e}"
    );
    // Computed and stored at the same level: nothing to fold along.
    let e = refusal(&|f, _, _, y| {
        f.compute_root().fold_storage(y, 4);
    });
    assert!(e.contains("not computed inside a serial loop"), "{e}");
    // Along x the window is the whole row.
    let e = refusal(&|f, out, x, y| {
        f.store_root().compute_at(out, y).fold_storage(x, 4);
    });
    assert!(e.contains("f.fold_storage(x, 4)"), "{e}");
    // Not a dimension; not positive.
    let e = refusal(&|f, out, _, y| {
        f.store_root()
            .compute_at(out, y)
            .fold_storage(Var::new("z"), 4);
    });
    assert!(e.contains("z is not a dimension of f"), "{e}");
    let e = refusal(&|f, out, _, y| {
        f.store_root().compute_at(out, y).fold_storage(y, 0);
    });
    assert!(e.contains("must be positive"), "{e}");
}

#[test]
fn fold_storage_of_a_window_moving_both_ways_is_refused() {
    // out reads f at rows y % 4 and y % 4 + 1: two rows, moving forward, then back.
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x + y).unwrap();
    let out = Func::new("out");
    out.define((x, y), f.at((x, y % 4)) + f.at((x, y % 4 + 1)))
        .unwrap();
    f.store_root().compute_at(&out, y).fold_storage(y, 2);
    let e = lower_common::schedule_error(&out);
    assert!(
        e.contains("f.fold_storage(y, 2)") && e.contains("only forward, or only backward"),
        "{e}"
    );
}

#[test]
fn a_sliding_producer_unrolled_or_vectorized_whole() {
    // Per tile of 10 output columns, f is needed over 11 columns, then (sliding) 10: no
    // constant extent, but a constant bound, 11; the iterations past a tile's real extent
    // are guarded off, so each column of f is still computed once.
    for vectorized in [false, true] {
        let x = Var::new("x");
        let f = Func::new("f");
        f.define(x, x * x + 1).unwrap();
        let g = Func::new("g");
        g.define(x, f.at(x) + f.at(x - 1)).unwrap();
        g.split(x, "xo", "xi", 10);
        let stage = f.store_root().compute_at(&g, "xo");
        if vectorized {
            stage.vectorize_loop("x");
        } else {
            stage.unroll_loop("x");
        }
        let run = check(&g, &TestInputs::new(), &[0], &[100]);
        assert_eq!(run.provides("f"), 101, "vectorized: {vectorized}");
    }
}

/// `f` computed per point of `g` (a Func computed per point of `out`) and stored at root
/// slides over `out`'s loop, through `g`'s loop of one iteration: each point once.
#[test]
fn sliding_through_a_containing_stage() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, x * 5 - 2).unwrap();
    let g = Func::new("g");
    g.define(x, f.at(x) * 3 + f.at(x - 2)).unwrap();
    let out = Func::new("out");
    out.define(x, g.at(x) - 1).unwrap();
    f.store_root().compute_at(&g, x);
    g.compute_at(&out, x);
    let run = check(&out, &TestInputs::new(), &[-4], &[30]);
    assert_eq!(run.provides("f"), 32);
    assert_eq!(
        run.allocation("f"),
        4,
        "folded to the 3 points one iteration reads"
    );
}

/// A producer whose footprint does not depend on the row: it slides along x over the inner
/// loop, and its other dimension, fixed, over the rows: it is computed in the first row
/// only, and later rows reuse every column of it, so its columns must not fold along the
/// inner loop (which would have kept just the last two).
#[test]
fn a_footprint_fixed_across_rows_keeps_every_column() {
    let (x, y, k) = (Var::new("x"), Var::new("y"), Var::new("k"));
    let f = Func::new("f");
    f.define((x, k), x * x - 3 * k).unwrap();
    let out = Func::new("out");
    out.define((x, y), f.at((x, 0)) + f.at((x + 1, 1)) * y)
        .unwrap();
    f.store_root().compute_at(&out, x);
    let run = check(&out, &TestInputs::new(), &[0, 0], &[W, H]);
    assert_eq!(run.provides("f"), 2 * (W as u64 + 1));
    assert_eq!(run.allocation("f"), 2 * (W as u64 + 1));
}

/// Sliding along both dimensions: columns over the inner loop, rows over the outer one
/// (through the inner loop, whose bounds do not depend on the row), with the rows folded.
#[test]
fn sliding_along_rows_and_columns_at_once() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x * 7 - y * 3).unwrap();
    let out = Func::new("out");
    out.define((x, y), f.at((x - 1, y)) * 2 + f.at((x + 1, y - 2)))
        .unwrap();
    f.store_root().compute_at(&out, x);
    let run = check(&out, &TestInputs::new(), &[2, -1], &[W, H]);
    assert_eq!(run.provides("f"), (W as u64 + 2) * (H as u64 + 2));
    assert_eq!(run.allocation("f"), (W as u64 + 2) * 4);
}
