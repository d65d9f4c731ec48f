//! `Stage::atomic` and `allow_race_conditions`, natively at 2 threads against plain Rust:
//! parallel histograms with repeated bins (exact counts, i32 and f32, several runs), a
//! vectorized reduction into one point (a horizontal reduction, over nested vectorized loops
//! too, and the loops kept serial where lanes update different points), an update needing a
//! compare-and-swap loop, and the schedules lowering refuses.

use tessera::codegen::Target;
use tessera::lower::LowerOptions;
use tessera::pipeline::{Inputs, Pipeline};
use tessera::prelude::*;

const RUNS: usize = 5;

/// `f` over `[0, extent)` natively at 2 threads, `RUNS` times; each run's values as f64.
fn runs_at_two_threads(f: &Func, extent: i64) -> Vec<Vec<f64>> {
    let mut compiled = Pipeline::new(f)
        .compile_jit(&Target::host())
        .unwrap_or_else(|e| panic!("{}: {e}", f.name()));
    compiled.set_threads(2).expect("a pool of 2 threads");
    (0..RUNS)
        .map(|_| {
            let out = compiled
                .realize(&Inputs::new(), &[0], &[extent])
                .expect("runs");
            (0..extent)
                .map(|i| out[0].get_value(&[i]).as_f64())
                .collect()
        })
        .collect()
}

/// The bin of sample `i`: `(i * i) % bins`, so bins repeat within every vector and task.
fn bin_of(i: i64, bins: i64) -> usize {
    ((i * i) % bins) as usize
}

/// `hist(bin(r)) += 1` over `r` in `[0, samples)`, in `ty`, atomic and parallel over `r`
/// (split so each task holds many samples, vectorized inside).
fn parallel_histogram(ty: Type, samples: i32, bins: i32) -> Func {
    let x = Var::new("x");
    let bin = Func::new("bin");
    bin.define(x, (x * x) % bins).unwrap();
    bin.compute_root();
    let r = RDom::named("r", [(0, samples)]);
    let hist = Func::new("hist");
    hist.define(x, cast(ty, 0)).unwrap();
    let at = clamp(bin.at(r.x()), 0, bins - 1);
    hist.update(at.clone(), hist.at(at) + cast(ty, 1)).unwrap();
    hist.update_stage(0)
        .atomic()
        .split(r.x(), "ro", "ri", 1000)
        .parallel("ro")
        .vectorize("ri", 8);
    hist
}

#[test]
fn a_parallel_histogram_counts_exactly() {
    // x * x stays within i32.
    let (samples, bins) = (40_000, 7);
    let mut expected = vec![0.0; bins as usize];
    for i in 0..i64::from(samples) {
        expected[bin_of(i, bins.into())] += 1.0;
    }
    for ty in [Type::i32(), Type::f32()] {
        let hist = parallel_histogram(ty, samples, bins);
        for (run, got) in runs_at_two_threads(&hist, bins.into()).iter().enumerate() {
            assert_eq!(got, &expected, "{ty}, run {run}");
        }
    }
}

#[test]
fn a_vectorized_reduction_into_one_point_is_horizontal() {
    let x = Var::new("x");
    let r = RDom::named("r", [(0, 1003)]);
    let total = Func::new("total");
    total.define(x, 0).unwrap();
    // A Var on the left so the output has a dimension; every r updates total(0).
    total.update(0, total.at(0) + r.x() * 3).unwrap();
    total
        .update_stage(0)
        .atomic()
        .split(r.x(), "ro", "ri", 64)
        .parallel("ro")
        .vectorize("ri", 16);
    let lowered = Pipeline::new(&total)
        .lower(&LowerOptions::default())
        .expect("lowers");
    let printed = lowered.stmt.to_string();
    assert!(printed.contains("atomic"), "{printed}");
    assert!(!printed.contains("vectorized for"), "{printed}");
    let want: i64 = (0..1003).map(|i| i * 3).sum();
    for got in runs_at_two_threads(&total, 1) {
        assert_eq!(got, vec![want as f64]);
    }
}

/// `f`'s update over the 2-D RDom `r`, atomic, both reduction loops split (tails guarded)
/// and their inner loops vectorized, in the reduction's order (`ryo`, `ryi`, `rxo`, `rxi`):
/// vectors of 4 x 8 lanes inside the loop over `rxo`; its lowered loop nest.
fn in_nested_vectorized_loops(f: &Func, r: &RDom) -> String {
    f.update_stage(0)
        .atomic()
        .split(r.x(), "rxo", "rxi", 8)
        .split(r.y(), "ryo", "ryi", 4)
        .vectorize_loop("ryi")
        .vectorize_loop("rxi");
    let lowered = Pipeline::new(f)
        .lower(&LowerOptions::default())
        .expect("lowers");
    lowered.stmt.to_string()
}

#[test]
fn a_reduction_into_one_point_over_nested_vectorized_loops_is_horizontal() {
    let x = Var::new("x");
    let r = RDom::named("r", [(0, 37), (0, 11)]);
    let total = Func::new("total");
    total.define(x, 0).unwrap();
    total
        .update(0, total.at(0) + r.x() * 3 + r.y() * 100)
        .unwrap();
    let printed = in_nested_vectorized_loops(&total, &r);
    // Both vectorized loops are gone: every lane of both reduced into one store.
    assert!(printed.contains("atomic"), "{printed}");
    assert!(
        !printed.contains("rxi") && !printed.contains("ryi"),
        "{printed}"
    );
    let want: i64 = (0..37)
        .flat_map(|i| (0..11).map(move |j| i * 3 + j * 100))
        .sum();
    for got in runs_at_two_threads(&total, 1) {
        assert_eq!(got, vec![want as f64]);
    }
}

#[test]
fn an_atomic_update_of_points_the_outer_lanes_differ_in_keeps_that_loop_serial() {
    // f(r.y) += ...: within one r.y the inner lanes reduce into one point, but the outer
    // lanes update different points, so the outer loop runs serially.
    let x = Var::new("x");
    let r = RDom::named("r", [(0, 37), (0, 11)]);
    let f = Func::new("rows");
    f.define(x, 0).unwrap();
    f.update(r.y(), f.at(r.y()) + r.x() * 3 + r.y()).unwrap();
    let printed = in_nested_vectorized_loops(&f, &r);
    assert!(printed.contains("atomic"), "{printed}");
    assert!(
        printed.contains("for (rows.s1.r.y.ryi,") && !printed.contains("rxi"),
        "{printed}"
    );
    let want: Vec<f64> = (0..11)
        .map(|j| (0..37).map(|i| f64::from(i * 3 + j)).sum())
        .collect();
    for got in runs_at_two_threads(&f, 11) {
        assert_eq!(got, want);
    }
}

#[test]
fn a_histogram_over_nested_vectorized_loops_counts_exactly() {
    // Bins differ between all lanes: both loops run serially, lane by lane.
    let bins = 5;
    let x = Var::new("x");
    let r = RDom::named("r", [(0, 37), (0, 11)]);
    let hist = Func::new("hist");
    hist.define(x, 0).unwrap();
    let at = (r.x() * r.x() + r.y()) % bins;
    hist.update(at.clone(), hist.at(at) + 1).unwrap();
    in_nested_vectorized_loops(&hist, &r);
    let mut want = vec![0.0; bins as usize];
    for i in 0..37 {
        for j in 0..11 {
            want[((i * i + j) % i64::from(bins)) as usize] += 1.0;
        }
    }
    for got in runs_at_two_threads(&hist, bins.into()) {
        assert_eq!(got, want);
    }
}

#[test]
fn an_update_of_another_shape_swaps_until_it_wins() {
    // f(b) = min(f(b) + 1, cap): no single atomic instruction does it, and a lost update
    // would show in the count (the cap is never reached).
    let (samples, bins) = (20_000, 5);
    let x = Var::new("x");
    let r = RDom::named("r", [(0, samples)]);
    let f = Func::new("capped");
    f.define(x, 0).unwrap();
    let at = r.x() % bins;
    f.update(at.clone(), min(f.at(at) + 1, 1_000_000)).unwrap();
    f.update_stage(0)
        .atomic()
        .split(r.x(), "ro", "ri", 500)
        .parallel("ro")
        .vectorize("ri", 4);
    let expected = vec![f64::from(samples / bins); bins as usize];
    for got in runs_at_two_threads(&f, bins.into()) {
        assert_eq!(got, expected);
    }
}

#[test]
fn a_race_is_refused_without_atomic_or_permission() {
    let x = Var::new("x");
    let r = RDom::named("r", [(0, 100)]);
    let f = Func::new("racy");
    f.define(x, 0).unwrap();
    f.update(r.x() % 10, f.at(r.x() % 10) + 1).unwrap();
    f.update_stage(0).parallel(r.x());
    let err = Pipeline::new(&f)
        .lower(&LowerOptions::default())
        .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("racy.update(0).parallel(r.x)") && msg.contains("atomic()"),
        "{msg}"
    );
}

#[test]
fn atomic_refuses_reads_of_points_other_iterations_write() {
    let x = Var::new("x");
    let r = RDom::named("r", [(0, 100)]);
    let f = Func::new("scan");
    f.define(x, 0).unwrap();
    f.update(r.x() + 1, f.at(r.x()) + 1).unwrap();
    f.update_stage(0).atomic().parallel(r.x());
    let err = Pipeline::new(&f)
        .lower(&LowerOptions::default())
        .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("scan.update(0).atomic()") && msg.contains("scan(r.x)"),
        "{msg}"
    );
}

#[test]
fn atomic_refuses_a_parallel_tuple_whose_elements_read_each_other() {
    let x = Var::new("x");
    let r = RDom::named("r", [(0, 100)]);
    let f = Func::new("pair");
    f.define(x, Tuple(vec![Expr::from(0), Expr::from(0)]))
        .unwrap();
    let at = r.x() % 4;
    f.update(
        at.clone(),
        Tuple(vec![f.value_at(at.clone(), 1) + 1, f.value_at(at, 0) + 2]),
    )
    .unwrap();
    f.update_stage(0).atomic().parallel(r.x());
    let err = Pipeline::new(&f)
        .lower(&LowerOptions::default())
        .unwrap_err();
    assert!(err.to_string().contains("needs a lock"), "{err}");
}
