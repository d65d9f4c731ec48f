//! The automatic scheduler through its API (`Pipeline::auto_schedule`): both searches form
//! multi-stage groups where fusion pays, the schedule computes what a plain Rust loop does at
//! the size it was made for and at sizes smaller than its tiles, survives a JSON round trip,
//! schedules a 100-stage chain, names a missing estimate, and runs reductions in
//! parallel: a histogram factored into strips (rfactor), a grid histogram over rows with its
//! channels unrolled; and each ingredient of the space left out (the ablation) is missing
//! from a schedule that still computes right. The schedules are made for fixed vectors and
//! caches (`planned_for`, `xeon_caches`), so they do not change with the host.

mod lower_common;

use tessera::autoschedule::{Algorithm, AutoSchedule, AutoScheduleOptions, Caches, Ingredients};
use tessera::prelude::*;
use tessera::schedule_script::{Directive, ScheduleScript};

/// `clamped(x, y)`: `input` read at coordinates clamped to its bounds (a boundary
/// condition).
fn clamped(input: &ImageParam, x: Var, y: Var) -> Func {
    let clamped = Func::new("clamped");
    let cx = clamp(x, input.dim(0).min(), input.dim(0).max());
    let cy = clamp(y, input.dim(1).min(), input.dim(1).max());
    clamped.define((x, y), input.at((cx, cy))).unwrap();
    clamped
}

/// A 3 × 3 box blur of a u16 image through a clamped boundary: `blur_x` then `blur_y`.
fn blur() -> (ImageParam, Func) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let input = ImageParam::new(Type::u16(), 2, "input");
    let clamped = clamped(&input, x, y);
    let blur_x = Func::new("blur_x");
    let sum = |dx: i32| clamped.at((x + dx, y));
    blur_x
        .define((x, y), (sum(-1) + sum(0) + sum(1)) / 3)
        .unwrap();
    let blur_y = Func::new("blur_y");
    let col = |dy: i32| blur_x.at((x, y + dy));
    blur_y
        .define((x, y), (col(-1) + col(0) + col(1)) / 3)
        .unwrap();
    (input, blur_y)
}

fn image(w: i64, h: i64) -> Buffer<u16> {
    Buffer::from_fn(&[0, 0], &[w, h], |c| ((c[0] * 7 + c[1] * 13) % 1000) as u16)
}

/// The blur in plain loops.
fn blur_reference(input: &Buffer<u16>, w: i64, h: i64) -> Buffer<u16> {
    let (iw, ih) = (input.extents()[0], input.extents()[1]);
    let at = |x: i64, y: i64| input.get(&[x.clamp(0, iw - 1), y.clamp(0, ih - 1)]);
    let bx = |x: i64, y: i64| {
        ((at(x - 1, y) as u32 + at(x, y) as u32 + at(x + 1, y) as u32) as u16 as u32 / 3) as u16
    };
    Buffer::from_fn(&[0, 0], &[w, h], |c| {
        let (x, y) = (c[0], c[1]);
        let s = bx(x, y - 1)
            .wrapping_add(bx(x, y))
            .wrapping_add(bx(x, y + 1));
        s / 3
    })
}

/// The pipeline from `input` to `out` scheduled by `algorithm` for a `w × h` output (and
/// input) on 2 threads.
fn schedule(input: &ImageParam, out: &Func, algorithm: Algorithm, w: i64, h: i64) -> AutoSchedule {
    out.set_estimates(&[(0, w), (0, h)]).unwrap();
    input.set_estimates(&[(0, w), (0, h)]).unwrap();
    let options = AutoScheduleOptions {
        algorithm,
        ..two_threads()
    };
    Pipeline::new(out)
        .auto_schedule(&planned_for(), &options)
        .unwrap()
}

/// The blur scheduled by `algorithm` for a `w × h` output on 2 threads.
fn scheduled_blur(algorithm: Algorithm, w: i64, h: i64) -> (ImageParam, Func, AutoSchedule) {
    let (input, out) = blur();
    let schedule = schedule(&input, &out, algorithm, w, h);
    (input, out, schedule)
}

fn realize(input: &ImageParam, out: &Func, data: &Buffer<u16>, w: i64, h: i64) -> Buffer<u16> {
    let compiled = Pipeline::new(out).compile_jit(&Target::host()).unwrap();
    let inputs = Inputs::new().image(input, data.clone());
    let mut outs = compiled.realize(&inputs, &[0, 0], &[w, h]).unwrap();
    Buffer::<u16>::try_from(outs.remove(0)).unwrap()
}

#[test]
fn both_searches_fuse_the_blur_and_compute_it_right_at_any_size() {
    for algorithm in [Algorithm::Dp, Algorithm::Greedy] {
        let (input, out, schedule) = scheduled_blur(algorithm, 1536, 1024);
        // `clamped` is inlined (its clamps are addressing); blur_x is fused into blur_y.
        assert_eq!(
            schedule.inlined,
            vec!["clamped".to_string()],
            "{algorithm:?}"
        );
        assert_eq!(
            schedule.groups.len(),
            1,
            "{algorithm:?}: {:?}",
            schedule.groups
        );
        assert_eq!(schedule.groups[0].output, "blur_y");
        assert_eq!(schedule.groups[0].members, vec!["blur_x".to_string()]);
        assert!(schedule.predicted_ms > 0.0 && schedule.search_ms >= 0.0);
        // At the planned size, and at sizes smaller than one tile, vector or strip.
        for (w, h) in [(1536, 1024), (100, 37), (7, 5), (1, 1)] {
            let data = image(w, h);
            let got = realize(&input, &out, &data, w, h);
            let want = blur_reference(&data, w, h);
            got.for_each_coord(|c| {
                assert_eq!(got.get(c), want.get(c), "{algorithm:?} {w}x{h} at {c:?}")
            });
        }
    }
}

#[test]
fn an_automatic_schedule_survives_json_and_prints_as_rust() {
    let (_, out, schedule) = scheduled_blur(Algorithm::Dp, 640, 480);
    let lowered = Pipeline::new(&out).lower_to_string().unwrap();
    let json = schedule.to_json();
    let back: AutoSchedule = serde_json::from_str(&json).unwrap();
    assert_eq!(back, schedule);
    // The whole object loads as a schedule script, as `--schedule FILE.json` reads it.
    let script = ScheduleScript::from_json(&json).unwrap();
    assert_eq!(script, schedule.schedule);
    let (_, fresh) = blur();
    script.apply(&fresh).unwrap();
    assert_eq!(Pipeline::new(&fresh).lower_to_string().unwrap(), lowered);
    let rust = schedule.to_rust();
    assert!(rust.contains("blur_x.compute_at(&blur_y,"), "{rust}");
}

#[test]
fn a_missing_estimate_is_named() {
    let (input, out) = blur();
    input.set_estimates(&[(0, 64), (0, 64)]).unwrap();
    let e = Pipeline::new(&out)
        .auto_schedule(&planned_for(), &AutoScheduleOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("blur_y") && e.contains("estimate"), "{e}");
    let (_, out) = blur();
    out.set_estimates(&[(0, 64), (0, 64)]).unwrap();
    let e = Pipeline::new(&out)
        .auto_schedule(&planned_for(), &AutoScheduleOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("input") && e.contains("estimate"), "{e}");
}

#[test]
fn cache_sizes_given_must_be_positive() {
    let (input, out) = blur();
    input.set_estimates(&[(0, 64), (0, 64)]).unwrap();
    out.set_estimates(&[(0, 64), (0, 64)]).unwrap();
    let options = AutoScheduleOptions {
        caches: Some(Caches {
            l2_bytes: 0,
            ..xeon_caches()
        }),
        ..two_threads()
    };
    let e = Pipeline::new(&out)
        .auto_schedule(&planned_for(), &options)
        .unwrap_err()
        .to_string();
    assert!(e.contains("L2 cache size"), "{e}");
}

#[test]
fn a_hundred_stage_chain_is_scheduled_in_bounded_groups_and_computes_right() {
    const STAGES: usize = 100;
    let (x, y) = (Var::new("x"), Var::new("y"));
    let input = ImageParam::new(Type::i32(), 2, "input");
    let clamped = clamped(&input, x, y);
    let mut prev = clamped;
    for i in 0..STAGES {
        let f = Func::new(&format!("stage_{i}"));
        // Alternate directions so every stage is a stencil the next must wait for.
        let (a, b) = match i % 2 {
            0 => (prev.at((x - 1, y)), prev.at((x + 1, y))),
            _ => (prev.at((x, y - 1)), prev.at((x, y + 1))),
        };
        f.define((x, y), (a + b + prev.at((x, y))) % 1000).unwrap();
        prev = f;
    }
    let out = prev;
    let schedule = schedule(&input, &out, Algorithm::Dp, 512, 512);
    eprintln!(
        "100-stage chain: searched in {:.1} ms, {} groups",
        schedule.search_ms,
        schedule.groups.len()
    );
    assert!(schedule.groups.iter().all(|g| g.members.len() < 8));
    let scheduled: usize = schedule.groups.iter().map(|g| g.members.len() + 1).sum();
    assert_eq!(scheduled + schedule.inlined.len(), STAGES + 1);
    let (w, h) = (23, 11);
    let data = Buffer::<i32>::from_fn(&[0, 0], &[w, h], |c| ((c[0] * 31 + c[1] * 17) % 100) as i32);
    let compiled = Pipeline::new(&out).compile_jit(&Target::host()).unwrap();
    let inputs = Inputs::new().image(&input, data.clone());
    let mut outs = compiled.realize(&inputs, &[0, 0], &[w, h]).unwrap();
    let got = Buffer::<i32>::try_from(outs.remove(0)).unwrap();
    // The chain in plain loops, over a region wide enough for every stage's reads.
    let margin = STAGES as i64;
    let (ew, eh) = (w + 2 * margin, h + 2 * margin);
    let mut cur: Vec<i32> = (0..ew * eh)
        .map(|i| {
            let (x, y) = (i % ew - margin, i / ew - margin);
            data.get(&[x.clamp(0, w - 1), y.clamp(0, h - 1)])
        })
        .collect();
    for i in 0..STAGES {
        let at = |v: &[i32], x: i64, y: i64| {
            v[((y.clamp(0, eh - 1)) * ew + x.clamp(0, ew - 1)) as usize]
        };
        cur = (0..ew * eh)
            .map(|k| {
                let (x, y) = (k % ew, k / ew);
                let (a, b) = match i % 2 {
                    0 => (at(&cur, x - 1, y), at(&cur, x + 1, y)),
                    _ => (at(&cur, x, y - 1), at(&cur, x, y + 1)),
                };
                (a + b + at(&cur, x, y)) % 1000
            })
            .collect();
    }
    got.for_each_coord(|c| {
        let want = cur[((c[1] + margin) * ew + c[0] + margin) as usize];
        assert_eq!(got.get(c), want, "at {c:?}");
    });
}

/// A miniature of local Laplacian's level 0: `levels(x, y, k)` (a table lookup per pixel and
/// level) is read once per output pixel at a data-dependent level, and four times per point
/// by the x pass of its downsampling.
fn two_consumer_levels() -> (ImageParam, Func) {
    let (x, y, k, i) = (Var::new("x"), Var::new("y"), Var::new("k"), Var::new("i"));
    let input = ImageParam::new(Type::u16(), 2, "input");
    let clamped = Func::new("clamped");
    let cx = clamp(x, input.dim(0).min(), input.dim(0).max());
    let cy = clamp(y, input.dim(1).min(), input.dim(1).max());
    clamped
        .define((x, y), cast(Type::i32(), input.at((cx, cy))))
        .unwrap();
    let table = Func::new("table");
    table.define(i, (i * i) % 251).unwrap();
    table.set_estimate(&i, 0, 64).unwrap();
    let levels = Func::new("levels");
    levels
        .define((x, y, k), table.at(clamped.at((x, y)) + k))
        .unwrap();
    let dx = Func::new("dx");
    let at = |d: i32| levels.at((x * 2 + d, y, k));
    dx.define((x, y, k), at(-1) + at(0) * 3 + at(1) * 3 + at(2))
        .unwrap();
    let down = Func::new("down");
    let row = |d: i32| dx.at((x, y * 2 + d, k));
    down.define((x, y, k), row(-1) + row(0) * 3 + row(1) * 3 + row(2))
        .unwrap();
    let out = Func::new("out");
    let level = clamped.at((x, y)) % 4;
    out.define(
        (x, y),
        levels.at((x, y, level.clone())) + down.at((x / 2, y / 2, level)),
    )
    .unwrap();
    (input, out)
}

fn two_consumer_levels_reference(input: &Buffer<u16>, w: i64, h: i64) -> Buffer<i32> {
    let (iw, ih) = (input.extents()[0], input.extents()[1]);
    let clamped = |x: i64, y: i64| i64::from(input.get(&[x.clamp(0, iw - 1), y.clamp(0, ih - 1)]));
    let levels = |x: i64, y: i64, k: i64| {
        let i = clamped(x, y) + k;
        (i * i) % 251
    };
    let dx = |x: i64, y: i64, k: i64| {
        levels(2 * x - 1, y, k)
            + 3 * levels(2 * x, y, k)
            + 3 * levels(2 * x + 1, y, k)
            + levels(2 * x + 2, y, k)
    };
    let down = |x: i64, y: i64, k: i64| {
        dx(x, 2 * y - 1, k) + 3 * dx(x, 2 * y, k) + 3 * dx(x, 2 * y + 1, k) + dx(x, 2 * y + 2, k)
    };
    Buffer::from_fn(&[0, 0], &[w, h], |c| {
        let (x, y) = (c[0], c[1]);
        let level = clamped(x, y) % 4;
        (levels(x, y, level) + down(x.div_euclid(2), y.div_euclid(2), level)) as i32
    })
}

/// `to_wrap` proposes splitting `levels` (inlined into the output, its wrapper computed for
/// the x pass), but the search keeps a wrapper only when its plans are predicted faster, and
/// here one sliding window computing `levels` once for both consumers is: the wrapper would
/// evaluate the table lookup twice per point. Whichever way, the script round-trips.
#[test]
fn a_func_read_by_two_consumers_is_wrapped_only_when_that_is_predicted_faster() {
    let (input, out) = two_consumer_levels();
    let schedule = schedule(&input, &out, Algorithm::Dp, 1024, 768);
    let rust = schedule.to_rust();
    assert!(!rust.contains(".in_("), "{rust}");
    assert!(!schedule.inlined.contains(&"levels".to_string()), "{rust}");
    assert_eq!(schedule.groups.len(), 1, "{rust}");
    for (w, h) in [(1024, 768), (61, 17), (1, 1)] {
        let data = Buffer::from_fn(&[0, 0], &[w, h], |c| ((c[0] * 7 + c[1] * 13) % 60) as u16);
        let compiled = Pipeline::new(&out).compile_jit(&Target::host()).unwrap();
        let inputs = Inputs::new().image(&input, data.clone());
        let mut outs = compiled.realize(&inputs, &[0, 0], &[w, h]).unwrap();
        let got = Buffer::<i32>::try_from(outs.remove(0)).unwrap();
        let want = two_consumer_levels_reference(&data, w, h);
        got.for_each_coord(|c| assert_eq!(got.get(c), want.get(c), "{w}x{h} at {c:?}"));
    }
    // The script, wrapper included, applies to a freshly built pipeline.
    let (_, fresh) = two_consumer_levels();
    ScheduleScript::from_json(&schedule.to_json())
        .unwrap()
        .apply(&fresh)
        .unwrap();
    assert_eq!(
        Pipeline::new(&fresh).lower_to_string().unwrap(),
        Pipeline::new(&out).lower_to_string().unwrap()
    );
}

/// The target the schedules are made for: an AVX-512 x86-64, whatever this host is, since what
/// the tests pin (which Funcs are inlined, which groups form) follows from the vector width.
/// They are compiled and run for the host.
fn planned_for() -> Target {
    Target::x86_64(
        "skylake-avx512",
        "+avx,+avx2,+fma,+avx512f,+avx512bw,+avx512dq,+avx512vl",
    )
}

/// The caches of the Intel Xeon hosts the tests were written on (48 KiB L1d, 2 MiB L2 per
/// core, 40 MiB of L3 counted), whatever this host's are: which groups form and their tile
/// sizes follow from them too.
fn xeon_caches() -> Caches {
    "48K,2M,40M".parse().unwrap()
}

/// The caches of an AMD EPYC host: an L2 a quarter of the Xeon's.
fn epyc_caches() -> Caches {
    "32K,512K,32M".parse().unwrap()
}

/// The options of most tests: the dynamic programming on 2 threads, for `xeon_caches`.
fn two_threads() -> AutoScheduleOptions {
    AutoScheduleOptions {
        threads: 2,
        caches: Some(xeon_caches()),
        ..AutoScheduleOptions::default()
    }
}

/// A histogram of a u8 image, `hist(input(r.x, r.y)) += 1`, tripled by a consumer.
fn histogram() -> (ImageParam, Func) {
    let i = Var::new("i");
    let input = ImageParam::new(Type::u8(), 2, "input");
    let hist = lower_common::histogram(&input);
    let tripled = Func::new("tripled");
    tripled.define(i, hist.at(i) * 3).unwrap();
    tripled.set_estimates(&[(0, 256)]).unwrap();
    input.set_estimates(&[(0, 1024), (0, 1024)]).unwrap();
    (input, tripled)
}

fn u8_image(w: i64, h: i64) -> Buffer<u8> {
    Buffer::from_fn(&[0, 0], &[w, h], |c| {
        ((c[0] * 7 + c[1] * c[1] * 3) % 251) as u8
    })
}

#[test]
fn a_histogram_is_factored_into_parallel_strips_and_lanes_and_counts_right_at_any_size() {
    let (input, out) = histogram();
    let schedule = Pipeline::new(&out)
        .auto_schedule(&planned_for(), &two_threads())
        .unwrap();
    let intermediate = factored_into_lanes(&schedule);
    let strip = (schedule.schedule.directives.iter())
        .find_map(|d| match d {
            Directive::Parallel {
                func,
                update: Some(0),
                var,
            } if *func == intermediate => Some(var.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("the partial histograms are serial: {}", schedule.to_rust()));
    assert!(strip.contains("strip"), "{strip}");
    for (w, h) in [(1024, 1024), (333, 77), (37, 5), (1, 1)] {
        check_histogram(&input, &out, w, h);
    }
}

#[test]
fn a_histogram_for_one_thread_is_still_factored_into_lanes_and_counts_right() {
    let (input, out) = histogram();
    let options = AutoScheduleOptions {
        threads: 1,
        ..two_threads()
    };
    let schedule = Pipeline::new(&out)
        .auto_schedule(&planned_for(), &options)
        .unwrap();
    factored_into_lanes(&schedule);
    check_histogram(&input, &out, 333, 77);
}

/// The intermediate Func of `hist`'s factored update, after checking that it keeps partial
/// histograms per residue of x, their loop unrolled: equal neighbours increment different
/// counters.
fn factored_into_lanes(schedule: &AutoSchedule) -> String {
    let directives = &schedule.schedule.directives;
    let intermediate = directives
        .iter()
        .find_map(|d| match d {
            Directive::Rfactor {
                func,
                update: 0,
                preserved,
                intermediate,
            } if func == "hist" && preserved.len() == 2 => Some(intermediate.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("hist is not factored: {}", schedule.to_rust()));
    let lanes_unrolled = directives.iter().any(|d| {
        matches!(d, Directive::Unroll { func, update: Some(0), var, .. }
            if *func == intermediate && var.contains("lane"))
    });
    assert!(lanes_unrolled, "{}", schedule.to_rust());
    intermediate
}

/// Checks the tripled histogram of a `w × h` image, as scheduled, against a plain count.
fn check_histogram(input: &ImageParam, out: &Func, w: i64, h: i64) {
    let data = u8_image(w, h);
    let compiled = Pipeline::new(out).compile_jit(&Target::host()).unwrap();
    let inputs = Inputs::new().image(input, data.clone());
    let mut outs = compiled.realize(&inputs, &[0], &[256]).unwrap();
    let got = Buffer::<i32>::try_from(outs.remove(0)).unwrap();
    let mut want = [0i32; 256];
    data.for_each_coord(|c| want[data.get(c) as usize] += 1);
    for (bin, count) in want.iter().enumerate() {
        assert_eq!(got.get(&[bin as i64]), count * 3, "{w}x{h} at bin {bin}");
    }
}

#[test]
fn a_factored_histogram_survives_json_and_prints_as_rust() {
    let (_, out) = histogram();
    let schedule = Pipeline::new(&out)
        .auto_schedule(&planned_for(), &two_threads())
        .unwrap();
    let lowered = Pipeline::new(&out).lower_to_string().unwrap();
    assert!(lowered.contains("hist_intm"), "{lowered}");
    let script = ScheduleScript::from_json(&schedule.to_json()).unwrap();
    assert_eq!(script, schedule.schedule);
    let (_, fresh) = histogram();
    script.apply(&fresh).unwrap();
    assert_eq!(Pipeline::new(&fresh).lower_to_string().unwrap(), lowered);
    let rust = schedule.to_rust();
    assert!(
        rust.contains("let hist_intm = hist.update_stage(0).rfactor_named(\"hist_intm\", &[(\"r_y_o\".into(), Var::new(\"r_y_strip\")), (\"r_x_i\".into(), Var::new(\"r_x_lane\"))])?;"),
        "{rust}"
    );
}

/// A bilateral grid's histogram: per 8 × 8 block of the clamped image (cells `x, y`), the sum
/// of the values falling in each of 16 intensity bins `z` (`c` = 0) and their count (`c` = 1).
fn grid() -> (ImageParam, Func) {
    let (x, y, z, c) = (Var::new("x"), Var::new("y"), Var::new("z"), Var::new("c"));
    let input = ImageParam::new(Type::u16(), 2, "input");
    let r = RDom::named("r", [(0, 8), (0, 8)]);
    let px = clamp(x * 8 + r.x(), input.dim(0).min(), input.dim(0).max());
    let py = clamp(y * 8 + r.y(), input.dim(1).min(), input.dim(1).max());
    let val = cast_to::<i32>(input.at((px, py)));
    let grid = Func::new("grid");
    grid.define((x, y, z, c), 0).unwrap();
    let zi = val.clone() / 64;
    grid.update(
        (x.expr(), y.expr(), zi.clone(), c.expr()),
        grid.at((x.expr(), y.expr(), zi, c.expr())) + select(c.eq_(0), val, 1),
    )
    .unwrap();
    let out = Func::new("out");
    out.define((x, y, z, c), grid.at((x, y, z, c)) + 1).unwrap();
    out.set_estimates(&[(0, 320), (0, 192), (0, 16), (0, 2)])
        .unwrap();
    input.set_estimates(&[(0, 2560), (0, 1536)]).unwrap();
    (input, out)
}

#[test]
fn a_grid_histogram_unrolls_its_channels_runs_its_rows_in_parallel_and_sums_right() {
    let (input, out) = grid();
    let schedule = Pipeline::new(&out)
        .auto_schedule(&planned_for(), &two_threads())
        .unwrap();
    let rust = schedule.to_rust();
    let update = |d: &Directive| match d {
        Directive::Split {
            func,
            update: Some(0),
            ..
        }
        | Directive::Unroll {
            func,
            update: Some(0),
            ..
        }
        | Directive::Reorder {
            func,
            update: Some(0),
            ..
        }
        | Directive::Parallel {
            func,
            update: Some(0),
            ..
        }
        | Directive::Vectorize {
            func,
            update: Some(0),
            ..
        } => func == "grid",
        _ => false,
    };
    let grid_update: Vec<&Directive> = schedule
        .schedule
        .directives
        .iter()
        .filter(|d| update(d))
        .collect();
    // c has 2 iterations and y alone 192: c is unrolled innermost (computing each pixel's
    // bin once for the sum and the count), the cells x inside the block's pixels, and the
    // rows in parallel; the scatter is not vectorized.
    let want = [
        Directive::Split {
            func: "grid".into(),
            update: Some(0),
            var: "c".into(),
            outer: "c_o".into(),
            inner: "c_i".into(),
            factor: 2,
            tail: TailStrategy::GuardWithIf,
        },
        Directive::Unroll {
            func: "grid".into(),
            update: Some(0),
            var: "c_i".into(),
            factor: None,
        },
        Directive::Reorder {
            func: "grid".into(),
            update: Some(0),
            vars: ["c_i", "x", "r.x", "r.y", "y", "c_o"]
                .map(String::from)
                .to_vec(),
        },
        Directive::Parallel {
            func: "grid".into(),
            update: Some(0),
            var: "y".into(),
        },
    ];
    assert_eq!(grid_update, want.iter().collect::<Vec<_>>(), "{rust}");
    assert!(
        !rust.contains("rfactor"),
        "the grid has rows enough: {rust}"
    );
    for (w, h) in [(2560, 1536), (100, 37), (9, 17), (1, 1)] {
        let data = Buffer::<u16>::from_fn(&[0, 0], &[w, h], |c| {
            ((c[0] * 37 + c[1] * 11) % 1024) as u16
        });
        let (gw, gh) = ((w + 7) / 8, (h + 7) / 8);
        let compiled = Pipeline::new(&out).compile_jit(&Target::host()).unwrap();
        let inputs = Inputs::new().image(&input, data.clone());
        let mut outs = compiled
            .realize(&inputs, &[0, 0, 0, 0], &[gw, gh, 16, 2])
            .unwrap();
        let got = Buffer::<i32>::try_from(outs.remove(0)).unwrap();
        let mut want = vec![1i32; (gw * gh * 32) as usize];
        let cell = |x: i64, y: i64, z: i64, c: i64| (((c * 16 + z) * gh + y) * gw + x) as usize;
        for cy in 0..gh {
            for cx in 0..gw {
                for ry in 0..8 {
                    for rx in 0..8 {
                        let v =
                            data.get(&[(cx * 8 + rx).min(w - 1), (cy * 8 + ry).min(h - 1)]) as i32;
                        let z = (v / 64) as i64;
                        want[cell(cx, cy, z, 0)] += v;
                        want[cell(cx, cy, z, 1)] += 1;
                    }
                }
            }
        }
        got.for_each_coord(|c| {
            assert_eq!(
                got.get(c),
                want[cell(c[0], c[1], c[2], c[3])],
                "{w}x{h} at {c:?}"
            )
        });
    }
}

/// The split directives of Func `func` in `script`, as (variable split, tail).
fn splits_of(script: &ScheduleScript, func: &str) -> Vec<(String, TailStrategy)> {
    (script.directives.iter())
        .filter_map(|d| match d {
            Directive::Split {
                func: f, var, tail, ..
            } if f == func => Some((var.clone(), *tail)),
            _ => None,
        })
        .collect()
}

#[test]
fn only_funcs_reading_their_inputs_through_clamps_compute_past_their_last_vector() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let input = ImageParam::new(Type::u16(), 2, "input");
    let (max_x, max_y) = (input.dim(0).max(), input.dim(1).max());
    let clamped = Func::new("clamped");
    let (cx, cy) = (clamp(x, 0, max_x), clamp(y, 0, max_y.clone()));
    clamped.define((x, y), input.at((cx, cy))).unwrap();
    // `wide` reads through the clamp; `direct` reads x..x+4 of the input unclamped (rows
    // clamped): computing it past its region would read past the input's columns.
    let (wide, direct, out) = (Func::new("wide"), Func::new("direct"), Func::new("out"));
    let taps = |f: &dyn Fn(i32) -> Expr| (1..5).fold(f(0), |sum, k| sum + f(k));
    wide.define((x, y), taps(&|k| clamped.at((x + k - 2, y))))
        .unwrap();
    let row = clamp(y, 0, max_y);
    direct
        .define((x, y), taps(&|k| input.at((x + k, row.clone()))))
        .unwrap();
    let column = |dy: i32| wide.at((x, y + dy)) + direct.at((x, y + dy));
    out.define((x, y), column(-1) + column(0) + column(1))
        .unwrap();
    let (w, h) = (768, 512);
    out.set_estimates(&[(0, w), (0, h)]).unwrap();
    input.set_estimates(&[(0, w + 4), (0, h)]).unwrap();
    let schedule = Pipeline::new(&out)
        .auto_schedule(&planned_for(), &two_threads())
        .unwrap();
    let script = &schedule.schedule;
    for func in ["direct", "out"] {
        for (var, tail) in splits_of(script, func) {
            if var == "x" {
                assert_eq!(tail, TailStrategy::GuardWithIf, "{func}: {script:?}");
            }
        }
    }
    let wide_x = splits_of(script, "wide")
        .into_iter()
        .filter(|(v, _)| v == "x");
    for (_, tail) in wide_x {
        assert_ne!(tail, TailStrategy::GuardWithIf, "wide: {script:?}");
    }
    // The plain loops, wrapping as u16 does.
    let compiled = Pipeline::new(&out).compile_jit(&Target::host()).unwrap();
    for (w, h) in [(w, h), (37, 5), (3, 2), (1, 1)] {
        let (iw, ih) = (w + 4, h);
        let data = Buffer::<u16>::from_fn(&[0, 0], &[iw, ih], |c| {
            ((c[0] * 7919 + c[1] * 104_729) % 65_521) as u16
        });
        let at = |x: i64, y: i64| data.get(&[x, y.clamp(0, ih - 1)]);
        let clamped_at = |x: i64, y: i64| at(x.clamp(0, iw - 1), y);
        let sum5 = |f: &dyn Fn(i64) -> u16| (0..5).fold(0u16, |s, k| s.wrapping_add(f(k)));
        let want = Buffer::<u16>::from_fn(&[0, 0], &[w, h], |c| {
            let (x, y) = (c[0], c[1]);
            (-1..=1).fold(0u16, |s, dy| {
                let wide = sum5(&|k| clamped_at(x + k - 2, y + dy));
                let direct = sum5(&|k| at(x + k, y + dy));
                s.wrapping_add(wide).wrapping_add(direct)
            })
        });
        let inputs = Inputs::new().image(&input, data.clone());
        let mut outs = compiled.realize(&inputs, &[0, 0], &[w, h]).unwrap();
        let got = Buffer::<u16>::try_from(outs.remove(0)).unwrap();
        got.for_each_coord(|c| assert_eq!(got.get(c), want.get(c), "{w}x{h} at {c:?}"));
    }
}

/// Premultiplied alpha, blurred, divided by the blurred alpha: every colour channel of the
/// output reads the alpha channel (channel 3) of the producers it is fused with.
fn unpremultiplied_blur() -> (ImageParam, Func) {
    let (x, y, c) = (Var::new("x"), Var::new("y"), Var::new("c"));
    let input = ImageParam::new(Type::u8(), 3, "input");
    let clamped = |x: Expr, y: Expr, c: Expr| {
        let (mx, my) = (input.dim(0).max(), input.dim(1).max());
        cast(Type::i32(), input.at((clamp(x, 0, mx), clamp(y, 0, my), c)))
    };
    let premultiplied = Func::new("premultiplied");
    let alpha = clamped(x.into(), y.into(), Expr::from(3));
    let colour = clamped(x.into(), y.into(), c.into()) * alpha.clone();
    premultiplied
        .define((x, y, c), select(c.lt(3), colour, alpha))
        .unwrap();
    let (blur_x, blur_y, out) = (Func::new("blur_x"), Func::new("blur_y"), Func::new("out"));
    blur_x
        .define(
            (x, y, c),
            premultiplied.at((x - 1, y, c))
                + premultiplied.at((x, y, c)) * 2
                + premultiplied.at((x + 1, y, c)),
        )
        .unwrap();
    blur_y
        .define(
            (x, y, c),
            blur_x.at((x, y - 1, c)) + blur_x.at((x, y, c)) * 2 + blur_x.at((x, y + 1, c)),
        )
        .unwrap();
    out.define(
        (x, y, c),
        blur_y.at((x, y, c)) / max(blur_y.at((x, y, 3)), 1),
    )
    .unwrap();
    (input, out)
}

#[test]
fn a_consumer_reading_an_alpha_channel_loops_the_channels_inside_its_rows_and_computes_right() {
    let (input, out) = unpremultiplied_blur();
    let (w, h) = (1024, 768);
    out.set_estimates(&[(0, w), (0, h), (0, 3)]).unwrap();
    input.set_estimates(&[(0, w), (0, h), (0, 4)]).unwrap();
    let schedule = Pipeline::new(&out)
        .auto_schedule(&planned_for(), &two_threads())
        .unwrap();
    // Channels outside, each colour's task would compute (or reload) the alpha channel's
    // producers again: three times the alpha work, which the model sees.
    let group = schedule.groups.iter().find(|g| g.output == "out").unwrap();
    assert!(group.strategy.contains("channels inside"), "{schedule:?}");
    let compiled = Pipeline::new(&out).compile_jit(&Target::host()).unwrap();
    for (w, h, channels) in [(w, h, 3), (37, 5, 3), (3, 2, 2), (1, 1, 1)] {
        let data = Buffer::<u8>::from_fn(&[0, 0, 0], &[w, h, 4], |p| {
            ((p[0] * 7 + p[1] * 13 + p[2] * 29) % 251) as u8
        });
        let (mx, my) = (w - 1, h - 1);
        let pre = |x: i64, y: i64, c: i64| -> i32 {
            let at = |c: i64| i32::from(data.get(&[x.clamp(0, mx), y.clamp(0, my), c]));
            if c < 3 {
                at(c) * at(3)
            } else {
                at(3)
            }
        };
        let blurred = |x: i64, y: i64, c: i64| -> i32 {
            let row = |y: i64| pre(x - 1, y, c) + pre(x, y, c) * 2 + pre(x + 1, y, c);
            row(y - 1) + row(y) * 2 + row(y + 1)
        };
        let want = Buffer::<i32>::from_fn(&[0, 0, 0], &[w, h, channels], |p| {
            let (x, y) = (p[0], p[1]);
            blurred(x, y, p[2]).div_euclid(blurred(x, y, 3).max(1))
        });
        let inputs = Inputs::new().image(&input, data.clone());
        let mut outs = compiled
            .realize(&inputs, &[0, 0, 0], &[w, h, channels])
            .unwrap();
        let got = Buffer::<i32>::try_from(outs.remove(0)).unwrap();
        got.for_each_coord(|p| assert_eq!(got.get(p), want.get(p), "{w}x{h}x{channels} at {p:?}"));
    }
}

/// A horizontal 5-tap sum of a 3-channel i32 image as an update over `r`, each channel
/// weighted differently (`select` on `c`): `sum(x, y, c) += weight(c) * input(x + r, y, c)`.
#[test]
fn an_update_with_three_channels_unrolls_them_inside_its_vectors_and_sums_right() {
    let (x, y, c) = (Var::new("x"), Var::new("y"), Var::new("c"));
    let input = ImageParam::new(Type::i32(), 3, "input");
    let r = RDom::named("r", [(0, 5)]);
    let sum = Func::new("sum");
    sum.define((x, y, c), 0).unwrap();
    let px = clamp(x + r.x(), input.dim(0).min(), input.dim(0).max());
    let weight = select(c.eq_(0), 1, select(c.eq_(1), 2, 3));
    sum.update(
        (x.expr(), y.expr(), c.expr()),
        sum.at((x.expr(), y.expr(), c.expr())) + weight * input.at((px, y.expr(), c.expr())),
    )
    .unwrap();
    sum.set_estimates(&[(0, 1024), (0, 512), (0, 3)]).unwrap();
    input.set_estimates(&[(0, 1024), (0, 512), (0, 3)]).unwrap();
    let schedule = Pipeline::new(&sum)
        .auto_schedule(&planned_for(), &two_threads())
        .unwrap();
    let rust = schedule.to_rust();
    assert!(
        rust.contains("sum.update_stage(0).unroll_loop(\"c_i\")"),
        "the channels are not unrolled: {rust}"
    );
    let compiled = Pipeline::new(&sum).compile_jit(&Target::host()).unwrap();
    for (w, h, channels) in [(1024, 512, 3), (37, 5, 3), (9, 2, 2), (3, 1, 4)] {
        let data = Buffer::<i32>::from_fn(&[0, 0, 0], &[w, h, channels], |p| {
            ((p[0] * 31 + p[1] * 7 + p[2] * 13) % 97) as i32
        });
        let inputs = Inputs::new().image(&input, data.clone());
        let mut outs = compiled
            .realize(&inputs, &[0, 0, 0], &[w, h, channels])
            .unwrap();
        let got = Buffer::<i32>::try_from(outs.remove(0)).unwrap();
        got.for_each_coord(|p| {
            let weight = [1, 2, 3, 3][p[2].min(3) as usize];
            let want: i32 = (0..5)
                .map(|k| weight * data.get(&[(p[0] + k).min(w - 1), p[1], p[2]]))
                .sum();
            assert_eq!(got.get(p), want, "{w}x{h}x{channels} at {p:?}");
        });
    }
}

/// A 2 × 2 mosaic of two half-resolution planes, `mosaic(x, y) = select(y % 2 == 0,
/// select(x % 2 == 0, even(x / 2, y / 2), odd(x / 2, y / 2)), ...)` (a Bayer pattern's
/// interleaving), smoothed by a 3 × 3 box that reads each mosaic point nine times.
fn mosaic() -> (ImageParam, Func) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let input = ImageParam::new(Type::i32(), 2, "input");
    let clamped = clamped(&input, x, y);
    let even = Func::new("even");
    even.define((x, y), clamped.at((x, y)) * 3 + clamped.at((x + 1, y)))
        .unwrap();
    let odd = Func::new("odd");
    odd.define((x, y), clamped.at((x, y)) * 5 - clamped.at((x, y + 1)))
        .unwrap();
    let mosaic = Func::new("mosaic");
    let (hx, hy) = (x / 2, y / 2);
    let at = |f: &Func| f.at((hx.clone(), hy.clone()));
    let row = |first: &Func, second: &Func| select((x % 2).eq_(0), at(first), at(second));
    mosaic
        .define(
            (x, y),
            select((y % 2).eq_(0), row(&even, &odd), row(&odd, &even)),
        )
        .unwrap();
    let smoothed = Func::new("smoothed");
    let taps = (-1..=1).flat_map(|dy| (-1..=1).map(move |dx| (dx, dy)));
    let sum = taps
        .map(|(dx, dy)| mosaic.at((x + dx, y + dy)))
        .reduce(|a, b| a + b)
        .unwrap();
    smoothed.define((x, y), sum).unwrap();
    (input, smoothed)
}

#[test]
fn an_interleaving_is_computed_a_parity_at_a_time_and_computes_right() {
    let (input, out) = mosaic();
    out.set_estimates(&[(0, 1536), (0, 1024)]).unwrap();
    input.set_estimates(&[(0, 768), (0, 512)]).unwrap();
    let schedule = Pipeline::new(&out)
        .auto_schedule(&planned_for(), &two_threads())
        .unwrap();
    let rust = schedule.to_rust();
    for directive in [
        "mosaic.align_bounds(\"x\", 2);",
        "mosaic.align_bounds(\"y\", 2);",
        "mosaic.unroll_loop(\"x_pair\");",
        "mosaic.unroll_loop(\"y_pair\");",
    ] {
        assert!(rust.contains(directive), "no `{directive}` in {rust}");
    }
    let compiled = Pipeline::new(&out).compile_jit(&Target::host()).unwrap();
    for (w, h) in [(1536, 1024), (37, 5), (3, 2), (1, 1)] {
        let (iw, ih) = ((w + 1) / 2 + 1, (h + 1) / 2 + 1);
        let data = Buffer::<i32>::from_fn(&[0, 0], &[iw, ih], |p| {
            ((p[0] * 31 + p[1] * 17) % 101) as i32
        });
        let at = |x: i64, y: i64| data.get(&[x.clamp(0, iw - 1), y.clamp(0, ih - 1)]);
        let even = |x: i64, y: i64| at(x, y) * 3 + at(x + 1, y);
        let odd = |x: i64, y: i64| at(x, y) * 5 - at(x, y + 1);
        let mosaic = |x: i64, y: i64| {
            let (hx, hy) = (x.div_euclid(2), y.div_euclid(2));
            match (x.rem_euclid(2), y.rem_euclid(2)) {
                (0, 0) | (1, 1) => even(hx, hy),
                _ => odd(hx, hy),
            }
        };
        let inputs = Inputs::new().image(&input, data.clone());
        let mut outs = compiled.realize(&inputs, &[0, 0], &[w, h]).unwrap();
        let got = Buffer::<i32>::try_from(outs.remove(0)).unwrap();
        got.for_each_coord(|p| {
            let want: i32 = (-1..=1)
                .flat_map(|dy| (-1..=1).map(move |dx| (dx, dy)))
                .map(|(dx, dy)| mosaic(p[0] + dx, p[1] + dy))
                .sum();
            assert_eq!(got.get(p), want, "{w}x{h} at {p:?}");
        });
    }
}

/// A pyramid level: `weighted` (pointwise, cheap alone), its x pass at stride 2 and the y
/// pass at stride 2 reading three rows of it, as interpolate's downsampling does.
fn downsampled() -> (ImageParam, Func) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let input = ImageParam::new(Type::i32(), 2, "input");
    let clamped = clamped(&input, x, y);
    let weighted = Func::new("weighted");
    let v = clamped.at((x, y));
    weighted
        .define((x, y), select(v.clone().gt(500), v.clone() * 3, v * 5 - 7))
        .unwrap();
    let down_x = Func::new("down_x");
    let w = |dx: i32| weighted.at((x * 2 + dx, y));
    down_x.define((x, y), w(-1) + w(0) * 2 + w(1)).unwrap();
    let down = Func::new("down");
    let d = |dy: i32| down_x.at((x, y * 2 + dy));
    down.define((x, y), d(-1) + d(0) * 2 + d(1)).unwrap();
    (input, down)
}

#[test]
fn an_inlined_func_made_costly_by_its_own_inlined_producers_is_materialized_again() {
    let (input, out) = downsampled();
    out.set_estimates(&[(0, 1024), (0, 1024)]).unwrap();
    input.set_estimates(&[(0, 2048), (0, 2048)]).unwrap();
    let schedule = Pipeline::new(&out)
        .auto_schedule(&planned_for(), &two_threads())
        .unwrap();
    // Alone, `down_x` is three loads and adds: cheaper to inline than to store. With
    // `weighted` inlined in it, each of its points is three selects and multiplies, and the
    // y pass would evaluate each three times.
    let inlined: Vec<&str> = schedule.inlined.iter().map(|s| s.as_str()).collect();
    assert!(inlined.contains(&"weighted"), "{inlined:?}");
    assert!(!inlined.contains(&"down_x"), "{inlined:?}");
    let compiled = Pipeline::new(&out).compile_jit(&Target::host()).unwrap();
    for (w, h) in [(1024, 1024), (37, 5), (1, 1)] {
        let (iw, ih) = (2 * w + 1, 2 * h + 1);
        let data = Buffer::<i32>::from_fn(&[0, 0], &[iw, ih], |p| {
            ((p[0] * 37 + p[1] * 11) % 1001) as i32
        });
        let at = |x: i64, y: i64| data.get(&[x.clamp(0, iw - 1), y.clamp(0, ih - 1)]);
        let weighted = |x: i64, y: i64| match at(x, y) {
            v if v > 500 => v * 3,
            v => v * 5 - 7,
        };
        let down_x = |x: i64, y: i64| {
            weighted(2 * x - 1, y) + weighted(2 * x, y) * 2 + weighted(2 * x + 1, y)
        };
        let inputs = Inputs::new().image(&input, data.clone());
        let mut outs = compiled.realize(&inputs, &[0, 0], &[w, h]).unwrap();
        let got = Buffer::<i32>::try_from(outs.remove(0)).unwrap();
        got.for_each_coord(|p| {
            let (x, y) = (p[0], p[1]);
            let want = down_x(x, 2 * y - 1) + down_x(x, 2 * y) * 2 + down_x(x, 2 * y + 1);
            assert_eq!(got.get(p), want, "{w}x{h} at {p:?}");
        });
    }
}

/// Harris-like: two gradients, their three products, each summed over a 3 × 3 window into
/// one output.
fn structure_tensor() -> (ImageParam, Func) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let input = ImageParam::new(Type::i32(), 2, "input");
    let clamped = clamped(&input, x, y);
    // Sobel: the difference of the two neighbouring lines across (dx, dy), weighted 1 2 1.
    let gradient = |name: &str, dx: i32, dy: i32| {
        let g = Func::new(name);
        let at = |s: i32, t: i32| clamped.at((x + dx * s + dy * t, y + dy * s + dx * t));
        let line = |s: i32| at(s, -1) + at(s, 0) * 2 + at(s, 1);
        g.define((x, y), line(1) - line(-1)).unwrap();
        g
    };
    let (gx, gy) = (gradient("gx", 1, 0), gradient("gy", 0, 1));
    let product = |name: &str, a: &Func, b: &Func| {
        let p = Func::new(name);
        p.define((x, y), a.at((x, y)) * b.at((x, y))).unwrap();
        p
    };
    let products = [
        product("gxx", &gx, &gx),
        product("gyy", &gy, &gy),
        product("gxy", &gx, &gy),
    ];
    let window = |p: &Func| {
        let taps = (-1..=1).flat_map(|dy| (-1..=1).map(move |dx| (dx, dy)));
        taps.map(|(dx, dy)| p.at((x + dx, y + dy)))
            .reduce(|a, b| a + b)
            .unwrap()
    };
    let [sxx, syy, sxy] = products.each_ref().map(window);
    let out = Func::new("response");
    out.define(
        (x, y),
        sxx.clone() * syy.clone() - sxy.clone() * sxy + (sxx + syy),
    )
    .unwrap();
    (input, out)
}

#[test]
fn products_of_shared_producers_are_inlined_together_and_compute_right() {
    // Each product alone is cheaper stored than computed at its nine calls; inlined together
    // the window loads the two gradients once for all three, instead of loading each product.
    check_products_inlined(&planned_for(), "avx512");
}

#[test]
fn products_of_shared_producers_are_inlined_together_with_eight_lane_vectors_too() {
    // On AVX2 a vector holds half as many points as on AVX-512, so the work saved per point
    // by storing the products weighs twice as much against their bytes; stored, those bytes
    // are written to L2 and read back, which still makes inlining them cheaper.
    check_products_inlined(&Target::x86_64("haswell", "+avx,+avx2,+fma"), "avx2");
}

/// Schedules the structure tensor for `target` and checks that its products, not its
/// gradients, are inlined, and that it computes right.
fn check_products_inlined(target: &Target, what: &str) {
    let (input, out) = structure_tensor();
    out.set_estimates(&[(0, 2048), (0, 2048)]).unwrap();
    input.set_estimates(&[(0, 2048), (0, 2048)]).unwrap();
    let schedule = Pipeline::new(&out)
        .auto_schedule(target, &two_threads())
        .unwrap();
    let inlined: Vec<&str> = schedule.inlined.iter().map(|s| s.as_str()).collect();
    for product in ["gxx", "gyy", "gxy"] {
        assert!(
            inlined.contains(&product),
            "{what}: {product} not in {inlined:?}"
        );
    }
    for gradient in ["gx", "gy"] {
        assert!(
            !inlined.contains(&gradient),
            "{what}: {gradient} in {inlined:?}"
        );
    }
    check_structure_tensor(&input, &out, what);
}

/// Checks the structure tensor as scheduled against plain loops, at sizes down to one point.
fn check_structure_tensor(input: &ImageParam, out: &Func, what: &str) {
    let compiled = Pipeline::new(out).compile_jit(&Target::host()).unwrap();
    for (w, h) in [(300, 200), (17, 3), (1, 1)] {
        let data =
            Buffer::<i32>::from_fn(&[0, 0], &[w, h], |p| ((p[0] * 13 + p[1] * 29) % 7) as i32);
        let at = |x: i64, y: i64| data.get(&[x.clamp(0, w - 1), y.clamp(0, h - 1)]);
        let line = |x: i64, y: i64, dx: i64, dy: i64| {
            at(x - dy, y - dx) + at(x, y) * 2 + at(x + dy, y + dx)
        };
        let gx = |x: i64, y: i64| line(x + 1, y, 1, 0) - line(x - 1, y, 1, 0);
        let gy = |x: i64, y: i64| line(x, y + 1, 0, 1) - line(x, y - 1, 0, 1);
        let window = |x: i64, y: i64, f: &dyn Fn(i64, i64) -> i32| -> i32 {
            (-1..=1)
                .flat_map(|dy| (-1..=1).map(move |dx| (dx, dy)))
                .map(|(dx, dy)| f(x + dx, y + dy))
                .sum()
        };
        let inputs = Inputs::new().image(input, data.clone());
        let mut outs = compiled.realize(&inputs, &[0, 0], &[w, h]).unwrap();
        let got = Buffer::<i32>::try_from(outs.remove(0)).unwrap();
        got.for_each_coord(|p| {
            let (x, y) = (p[0], p[1]);
            let sxx = window(x, y, &|x, y| gx(x, y) * gx(x, y));
            let syy = window(x, y, &|x, y| gy(x, y) * gy(x, y));
            let sxy = window(x, y, &|x, y| gx(x, y) * gy(x, y));
            let want = sxx * syy - sxy * sxy + (sxx + syy);
            assert_eq!(got.get(p), want, "{what} {w}x{h} at {p:?}");
        });
    }
}

/// The sizes a strategy printed by `Strategy`'s Display names: a tile's width and height,
/// or a strip's rows.
fn strategy_sizes(strategy: &str) -> Vec<i64> {
    let numbers = strategy.split(|c: char| !c.is_ascii_digit());
    numbers.filter_map(|n| n.parse().ok()).collect()
}

#[test]
fn each_ingredient_left_out_is_missing_from_a_schedule_that_still_computes_right() {
    for without in [
        "inlining",
        "fusion",
        "overlapped_tiles",
        "sliding_windows",
        "overlapped_tiles,sliding_windows",
        "size_refinement",
        "wrappers,parity_unrolling,rfactor",
    ] {
        let (input, out) = structure_tensor();
        out.set_estimates(&[(0, 2048), (0, 2048)]).unwrap();
        input.set_estimates(&[(0, 2048), (0, 2048)]).unwrap();
        let ingredients = Ingredients::without(without).unwrap();
        assert_eq!(ingredients.missing().join(","), without);
        let options = AutoScheduleOptions {
            ingredients,
            ..two_threads()
        };
        let schedule = Pipeline::new(&out)
            .auto_schedule(&planned_for(), &options)
            .unwrap();
        let strategies: Vec<&str> = schedule.groups.iter().map(|g| &*g.strategy).collect();
        let fused = schedule.groups.iter().any(|g| !g.members.is_empty());
        match without {
            "inlining" => assert!(schedule.inlined.is_empty(), "{:?}", schedule.inlined),
            "fusion" => assert!(!fused, "{:?}", schedule.groups),
            "overlapped_tiles" => assert!(strategies.iter().all(|s| !s.starts_with("tiles"))),
            "sliding_windows" => assert!(strategies.iter().all(|s| !s.contains("sliding"))),
            "overlapped_tiles,sliding_windows" => assert!(!fused, "{:?}", schedule.groups),
            "size_refinement" => {
                // Heights and rows from the coarse grid: powers of four, or the whole 2048.
                for s in strategies.iter().filter(|s| !s.starts_with("parallel")) {
                    let rows = *strategy_sizes(s).last().unwrap();
                    let coarse = rows == 2048
                        || (rows as u64).is_power_of_two()
                            && rows.trailing_zeros().is_multiple_of(2);
                    assert!(coarse, "{s}");
                }
            }
            _ => {}
        }
        check_structure_tensor(&input, &out, without);
    }
    let error = Ingredients::without("inlining,tiling")
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("`tiling`") && error.contains("overlapped_tiles"),
        "{error}"
    );
}

#[test]
fn a_histogram_without_rfactor_stays_serial_and_counts_right() {
    let (input, out) = histogram();
    let options = AutoScheduleOptions {
        ingredients: Ingredients::without("rfactor").unwrap(),
        ..two_threads()
    };
    let schedule = Pipeline::new(&out)
        .auto_schedule(&planned_for(), &options)
        .unwrap();
    let factored =
        (schedule.schedule.directives.iter()).any(|d| matches!(d, Directive::Rfactor { .. }));
    assert!(!factored, "{}", schedule.to_rust());
    check_histogram(&input, &out, 333, 77);
}

/// An integer Laplacian-style pyramid of `levels` levels, as interpolate's: each level
/// downsampled from the one above (x pass, then y pass, 1 2 1 at stride 2, divided by 16),
/// and back up, each level plus the upsampled (averaged) level below. Returns the input, the
/// output and every Func, finest first.
fn pyramid(levels: usize) -> (ImageParam, Func, Vec<Func>) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let input = ImageParam::new(Type::i32(), 2, "input");
    let mut down = vec![clamped(&input, x, y)];
    let mut funcs = down.clone();
    for l in 1..levels {
        let above = down[l - 1].clone();
        let down_x = Func::new(&format!("down_x_{l}"));
        let a = |dx: i32| above.at((x * 2 + dx, y));
        down_x.define((x, y), a(-1) + a(0) * 2 + a(1)).unwrap();
        let level = Func::new(&format!("down_{l}"));
        let d = |dy: i32| down_x.at((x, y * 2 + dy));
        level
            .define((x, y), (d(-1) + d(0) * 2 + d(1)) / 16)
            .unwrap();
        funcs.extend([down_x, level.clone()]);
        down.push(level);
    }
    let mut up = down[levels - 1].clone();
    for l in (0..levels - 1).rev() {
        let level = Func::new(&format!("up_{l}"));
        let coarse = up.at((x / 2, y / 2)) + up.at(((x + 1) / 2, (y + 1) / 2));
        level
            .define((x, y), down[l].at((x, y)) + coarse / 2)
            .unwrap();
        funcs.push(level.clone());
        up = level;
    }
    (input, up, funcs)
}

/// `pyramid`'s output over `[0, w) × [0, h)`, row by row, by plain recursion over the
/// definitions (memoized).
fn pyramid_reference(data: &Buffer<i32>, levels: usize, w: i64, h: i64) -> Vec<i32> {
    use std::collections::HashMap;
    let size = (data.extents()[0], data.extents()[1]);
    fn down(
        data: &Buffer<i32>,
        (w, h): (i64, i64),
        memo: &mut HashMap<(usize, i64, i64), i32>,
        l: usize,
        x: i64,
        y: i64,
    ) -> i32 {
        if l == 0 {
            return data.get(&[x.clamp(0, w - 1), y.clamp(0, h - 1)]);
        }
        if let Some(&v) = memo.get(&(l, x, y)) {
            return v;
        }
        let mut sum = 0;
        for (dy, wy) in [(-1, 1), (0, 2), (1, 1)] {
            let mut row = 0;
            for (dx, wx) in [(-1, 1), (0, 2), (1, 1)] {
                row += wx * down(data, (w, h), memo, l - 1, 2 * x + dx, 2 * y + dy);
            }
            sum += wy * row;
        }
        let v = sum.div_euclid(16);
        memo.insert((l, x, y), v);
        v
    }
    fn up(
        data: &Buffer<i32>,
        size: (i64, i64),
        memo: &mut HashMap<(usize, i64, i64), i32>,
        levels: usize,
        l: usize,
        x: i64,
        y: i64,
    ) -> i32 {
        let here = down(data, size, memo, l, x, y);
        if l == levels - 1 {
            return here;
        }
        let a = up(
            data,
            size,
            memo,
            levels,
            l + 1,
            x.div_euclid(2),
            y.div_euclid(2),
        );
        let b = up(
            data,
            size,
            memo,
            levels,
            l + 1,
            (x + 1).div_euclid(2),
            (y + 1).div_euclid(2),
        );
        here + (a + b).div_euclid(2)
    }
    let mut memo = HashMap::new();
    (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .map(|(x, y)| up(data, size, &mut memo, levels, 0, x, y))
        .collect()
}

#[test]
fn the_coarse_levels_of_a_pyramid_do_not_widen_the_finer_ones() {
    // A tile or a vector of a coarse level wider than its region, computed whole, needs a
    // wider region of the level above it, and each level up doubles the widening: the
    // automatic schedule must compute no Func it puts at root over a larger region than
    // bounds inference needs (the same pipeline with every Func at root, unvectorized).
    // Rounded up to whole vectors and tiles, the first level computed 1.17 times that. The
    // region is what is allocated, not what is stored: a row's last vector shifted inwards
    // stores up to a vector's points twice (81 columns in 6 vectors of 16) but widens
    // nothing. Planned for a small L2 (EPYC) and a large one (Xeon): the plans differ.
    const LEVELS: usize = 7;
    let (w, h) = (640, 384);
    let data = Buffer::<i32>::from_fn(&[0, 0], &[w + 3, h + 5], |p| {
        ((p[0] * 37 + p[1] * 11) % 1001) as i32
    });
    let want = pyramid_reference(&data, LEVELS, w, h);
    // The points of each Func's largest allocation with every Func at root (`None`) or
    // scheduled automatically for `caches`, and the Funcs that schedule computes at root
    // but the output (realized into the caller's buffer): the others are computed in tiles,
    // some of them recomputed where tiles overlap, by design.
    let regions = |caches: Option<Caches>| {
        let (input, out, funcs) = pyramid(LEVELS);
        let mut roots = Vec::new();
        let mut script = String::new();
        match caches {
            Some(caches) => {
                out.set_estimates(&[(0, w), (0, h)]).unwrap();
                input.set_estimates(&[(0, w + 3), (0, h + 5)]).unwrap();
                let options = AutoScheduleOptions {
                    caches: Some(caches),
                    ..two_threads()
                };
                let schedule = Pipeline::new(&out)
                    .auto_schedule(&planned_for(), &options)
                    .unwrap();
                script = schedule.to_rust();
                roots.extend(
                    (schedule.groups.into_iter().map(|g| g.output))
                        .filter(|f| f.as_str() != out.name().as_str()),
                );
            }
            None => {
                for f in &funcs {
                    f.compute_root();
                }
            }
        }
        let inputs = Inputs::new().image(&input, data.clone());
        let run = Pipeline::new(&out)
            .realize_interp(&inputs, &[0, 0], &[w, h])
            .unwrap();
        let got = Buffer::<i32>::try_from(run.buffers[0].clone()).unwrap();
        got.for_each_coord(|p| {
            let at = (p[1] * w + p[0]) as usize;
            assert_eq!(got.get(p), want[at], "{caches:?} at {p:?}");
        });
        let points = (run.stats.allocation_elements.iter())
            .map(|(func, &n)| (func.to_string(), n))
            .collect::<std::collections::HashMap<String, u64>>();
        (points, roots, script)
    };
    let (needed, _, _) = regions(None);
    for caches in [epyc_caches(), xeon_caches()] {
        let (auto, roots, script) = regions(Some(caches));
        assert!(!roots.is_empty(), "{caches:?}: {script}");
        for func in &roots {
            let (points, needed) = (auto[func], needed[func]);
            assert!(
                points <= needed,
                "{caches:?}: {func} computed over {points} points, {needed} at root\n{script}"
            );
        }
    }
}

#[test]
fn an_expensive_lookup_table_is_computed_once_not_once_per_strip() {
    // A 1024-entry tone curve in f64 (a libm `pow` per entry and lane) read at data-dependent
    // coordinates by a stencil's producer. Computed per strip of the stencil's sliding
    // window, it would be recomputed by every strip, as camera_pipe's curve once was (120
    // times a run; this smaller pipeline kept its table at root even then).
    const ENTRIES: i64 = 1024;
    let (x, y, i) = (Var::new("x"), Var::new("y"), Var::new("i"));
    let input = ImageParam::new(Type::u16(), 2, "input");
    let clamped = clamped(&input, x, y);
    let curve = Func::new("curve");
    let level = pow(cast_to::<f64>(i) / (ENTRIES - 1) as f64, 1.0f64 / 2.2f64);
    curve
        .define(
            i,
            cast_to::<u8>(clamp(level * 255.0f64 + 0.5f64, 0.0f64, 255.0f64)),
        )
        .unwrap();
    let toned = Func::new("toned");
    let index = clamp(cast_to::<i32>(clamped.at((x, y))), 0, ENTRIES as i32 - 1);
    toned
        .define((x, y), cast_to::<u16>(curve.at(index)))
        .unwrap();
    let out = Func::new("out");
    let row = |dy: i32| toned.at((x, y + dy));
    out.define((x, y), row(-1) + row(0) * 2 + row(1)).unwrap();
    out.set_estimates(&[(0, 2048), (0, 1536)]).unwrap();
    input.set_estimates(&[(0, 2048), (0, 1536)]).unwrap();
    let schedule = Pipeline::new(&out)
        .auto_schedule(&planned_for(), &two_threads())
        .unwrap();
    // Run smaller than planned: a curve computed per strip would be stored once per strip.
    let (w, h) = (160, 96);
    let data = Buffer::<u16>::from_fn(&[0, 0], &[w, h], |c| {
        ((c[0] * 37 + c[1] * 91) % 1100) as u16
    });
    let run = Pipeline::new(&out)
        .realize_interp(&Inputs::new().image(&input, data.clone()), &[0, 0], &[w, h])
        .unwrap();
    let table: Vec<u16> = (0..ENTRIES)
        .map(|i| {
            let level = (i as f64 / (ENTRIES - 1) as f64).powf(1.0 / 2.2);
            (level * 255.0 + 0.5).clamp(0.0, 255.0) as u8 as u16
        })
        .collect();
    let toned_at = |x: i64, y: i64| {
        let v = data.get(&[x.clamp(0, w - 1), y.clamp(0, h - 1)]);
        table[usize::from(v).min(ENTRIES as usize - 1)]
    };
    let got = Buffer::<u16>::try_from(run.buffers[0].clone()).unwrap();
    got.for_each_coord(|c| {
        let (x, y) = (c[0], c[1]);
        let want = toned_at(x, y - 1) + toned_at(x, y) * 2 + toned_at(x, y + 1);
        assert_eq!(got.get(c), want, "at {c:?}");
    });
    // Stored once (not inlined either: a `pow` per pixel instead of per entry).
    let curve_stores = (run.stats.stores.iter())
        .find(|(buffer, _)| buffer.to_string() == "curve")
        .map_or(0, |(_, &n)| n);
    assert!(
        (1..=ENTRIES as u64).contains(&curve_stores),
        "the curve is stored {curve_stores} times for its {ENTRIES} entries: {:?}",
        schedule.groups
    );
}

/// How many levels `collapse` has: enough that the chain collapsing the coarse levels holds
/// more Funcs than a group, so no run of consecutive Funcs in a depth-first order visiting
/// producers as read holds both the finest upsampling and the output.
const COLLAPSE_LEVELS: usize = 4;

/// A Laplacian pyramid of `COLLAPSE_LEVELS` levels collapsed, as a pyramid blend's: `g_l`,
/// level l - 1 downsampled (x pass, then y pass, 1 2 1 at stride 2; `g_0` the input), each
/// read through clamps; `mid_l`, `g_l` plus `mid_{l+1}` upsampled (the coarsest is
/// `g_{L-1}` itself); the output, the input's detail (the input less `g_1` upsampled) plus
/// `mid_1` upsampled. Each upsampling is an x pass at full width selecting by the parity of
/// x (`*_up_x`), then a y pass inlined into its reader. Returns the input, the output and
/// `g_1_up_x`, the finest upsampling of the input's level, whose only upstream stages
/// (`g_1` and its x pass) the collapse needs too.
fn collapse() -> (ImageParam, Func, Func) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let input = ImageParam::new(Type::i32(), 2, "input");
    let extents = |l: usize| {
        let scale = 1i32 << l;
        [0, 1].map(|d| (input.extent(d) + (scale - 1)) / scale)
    };
    let clamped_level = |level: &Func, l: usize| {
        let [w, h] = extents(l);
        let clamped = Func::new(&format!("{}_clamped", level.name()));
        let at = level.at((clamp(x, 0, w - 1), clamp(y, 0, h - 1)));
        clamped.define((x, y), at).unwrap();
        clamped
    };
    let down = |above: &Func, l: usize| {
        let down_x = Func::new(&format!("g_{l}_x"));
        let a = |dx: i32| above.at((x * 2 + dx, y));
        down_x.define((x, y), a(-1) + a(0) * 2 + a(1)).unwrap();
        let level = Func::new(&format!("g_{l}"));
        let d = |dy: i32| down_x.at((x, y * 2 + dy));
        level
            .define((x, y), (d(-1) + d(0) * 2 + d(1)) / 16)
            .unwrap();
        clamped_level(&level, l)
    };
    // `level` upsampled by 2: its x pass a Func, its y pass an expression.
    let up = |level: &Func| {
        let up_x = Func::new(&format!("{}_up_x", level.name()));
        let s = |dx: i32| level.at((x / 2 + dx, y));
        let even = (s(-1) + s(0) * 6 + s(1)) / 8;
        up_x.define((x, y), select((x % 2).eq_(0), even, (s(0) + s(1)) / 2))
            .unwrap();
        let r = |dy: i32| up_x.at((x, y / 2 + dy));
        let even = (r(-1) + r(0) * 6 + r(1)) / 8;
        let y_pass = select((y % 2).eq_(0), even, (r(0) + r(1)) / 2);
        (up_x, y_pass)
    };
    let mut g = vec![clamped(&input, x, y)];
    for l in 1..COLLAPSE_LEVELS {
        let level = down(&g[l - 1], l);
        g.push(level);
    }
    let mut mid = g[COLLAPSE_LEVELS - 1].clone();
    for l in (1..COLLAPSE_LEVELS - 1).rev() {
        let (_, coarser) = up(&mid);
        let level = Func::new(&format!("mid_{l}"));
        level.define((x, y), g[l].at((x, y)) + coarser).unwrap();
        mid = clamped_level(&level, l);
    }
    let (g_1_up_x, detail_base) = up(&g[1]);
    let (_, collapsed) = up(&mid);
    let out = Func::new("out");
    // The detail's upsampling is read first, so a depth-first order visiting producers as
    // read puts it before the collapse's whole chain, away from the output.
    out.define((x, y), input.at((x, y)) - detail_base + collapsed)
        .unwrap();
    (input, out, g_1_up_x)
}

/// `collapse`'s output over a `w × h` input, level by level in plain loops.
fn collapse_reference(data: &Buffer<i32>) -> Vec<i32> {
    let (w, h) = (data.extents()[0], data.extents()[1]);
    // A level as a row-major vector and its size, read with clamped coordinates.
    struct Level(Vec<i32>, i64, i64);
    impl Level {
        fn at(&self, x: i64, y: i64) -> i32 {
            self.0[(y.clamp(0, self.2 - 1) * self.1 + x.clamp(0, self.1 - 1)) as usize]
        }
        fn from_fn(w: i64, h: i64, f: impl Fn(i64, i64) -> i32) -> Level {
            let v = (0..h).flat_map(|y| (0..w).map(move |x| (x, y)));
            Level(v.map(|(x, y)| f(x, y)).collect(), w, h)
        }
    }
    let down = |l: &Level| {
        let (w, h) = ((l.1 + 1) / 2, (l.2 + 1) / 2);
        let dx = |x: i64, y: i64| l.at(2 * x - 1, y) + 2 * l.at(2 * x, y) + l.at(2 * x + 1, y);
        Level::from_fn(w, h, |x, y| {
            (dx(x, 2 * y - 1) + 2 * dx(x, 2 * y) + dx(x, 2 * y + 1)).div_euclid(16)
        })
    };
    // `l` upsampled at a point of the level twice its size.
    let up = |l: &Level, x: i64, y: i64| {
        let ux = |x: i64, y: i64| {
            let s = |dx: i64| l.at(x.div_euclid(2) + dx, y);
            if x.rem_euclid(2) == 0 {
                (s(-1) + 6 * s(0) + s(1)).div_euclid(8)
            } else {
                (s(0) + s(1)).div_euclid(2)
            }
        };
        let r = |dy: i64| ux(x, y.div_euclid(2) + dy);
        if y.rem_euclid(2) == 0 {
            (r(-1) + 6 * r(0) + r(1)).div_euclid(8)
        } else {
            (r(0) + r(1)).div_euclid(2)
        }
    };
    let mut g = vec![Level::from_fn(w, h, |x, y| data.get(&[x, y]))];
    for l in 1..COLLAPSE_LEVELS {
        let level = down(&g[l - 1]);
        g.push(level);
    }
    let mut mid = g.pop().expect("the coarsest level");
    for l in (1..COLLAPSE_LEVELS - 1).rev() {
        let level = &g[l];
        mid = Level::from_fn(level.1, level.2, |x, y| level.at(x, y) + up(&mid, x, y));
    }
    Level::from_fn(w, h, |x, y| {
        g[0].at(x, y) - up(&g[1], x, y) + up(&mid, x, y)
    })
    .0
}

#[test]
fn a_full_resolution_upsampling_read_only_by_the_output_is_computed_in_its_strips() {
    // The upsampling's x pass is read by the output alone, and its upstream stages are
    // upstream of the output's other producers too: stored at root it writes and reads back
    // a full-width image, per strip it stays in cache. The dynamic programming groups Funcs
    // consecutive in a depth-first order; visiting the producers as read puts the
    // upsampling before the collapse's chain, which kept it out of the output's group (and
    // at root), as pyramid_blend's finest upsamplings were.
    let (input, out, g_1_up_x) = collapse();
    let (w, h) = (2048, 2048);
    out.set_estimates(&[(0, w), (0, h)]).unwrap();
    input.set_estimates(&[(0, w), (0, h)]).unwrap();
    let options = AutoScheduleOptions {
        caches: Some(epyc_caches()),
        ..two_threads()
    };
    let schedule = Pipeline::new(&out)
        .auto_schedule(&planned_for(), &options)
        .unwrap();
    let output_group = (schedule.groups.iter())
        .find(|g| g.output == out.name().as_str())
        .expect("the output heads a group");
    assert!(
        (output_group.members.iter()).any(|m| m == g_1_up_x.name().as_str()),
        "{:?}",
        schedule.groups
    );
    // Run at a size unrelated to the plan, odd in both dimensions.
    let data = Buffer::<i32>::from_fn(&[0, 0], &[203, 137], |p| {
        ((p[0] * 37 + p[1] * 11) % 1001) as i32
    });
    let want = collapse_reference(&data);
    let inputs = Inputs::new().image(&input, data.clone());
    let compiled = Pipeline::new(&out).compile_jit(&Target::host()).unwrap();
    let mut outs = compiled.realize(&inputs, &[0, 0], &[203, 137]).unwrap();
    let got = Buffer::<i32>::try_from(outs.remove(0)).unwrap();
    got.for_each_coord(|p| {
        assert_eq!(got.get(p), want[(p[1] * 203 + p[0]) as usize], "at {p:?}");
    });
}

/// `expand(coarse) + fine`, as a Laplacian pyramid's collapse adds an upsampled coarser
/// level: `ux` upsamples the (clamped) coarse input by 2 in x, `uy` upsamples `ux` by 2 in
/// y, and `out(x, y) = uy(x, y) + fine(x, y)`. Both upsamplings select their taps by the
/// parity of the coordinate (in integers, scaled by 8 rather than divided).
fn expanded_sum() -> (ImageParam, ImageParam, Func) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let fine = ImageParam::new(Type::i32(), 2, "fine");
    let coarse = ImageParam::new(Type::i32(), 2, "coarse");
    let c = clamped(&coarse, x, y);
    let upsample = |v: Var, tap: &dyn Fn(i32) -> Expr| {
        let even = tap(-1) + tap(0) * 6 + tap(1);
        let odd = (tap(0) + tap(1)) * 4;
        select((v % 2).eq_(0), even, odd)
    };
    let ux = Func::new("ux");
    ux.define((x, y), upsample(x, &|k| c.at((x / 2 + k, y))))
        .unwrap();
    let uy = Func::new("uy");
    uy.define((x, y), upsample(y, &|k| ux.at((x, y / 2 + k))))
        .unwrap();
    let fine_clamped = clamped(&fine, x, y);
    let out = Func::new("out");
    out.define((x, y), uy.at((x, y)) + fine_clamped.at((x, y)))
        .unwrap();
    (fine, coarse, out)
}

/// `expanded_sum` in plain loops over the region `min`, `extent`.
fn expanded_sum_reference(
    fine: &Buffer<i32>,
    coarse: &Buffer<i32>,
    min: [i64; 2],
    extent: [i64; 2],
) -> Buffer<i32> {
    let clamped = |b: &Buffer<i32>, x: i64, y: i64| {
        let (w, h) = (b.extents()[0], b.extents()[1]);
        b.get(&[x.clamp(0, w - 1), y.clamp(0, h - 1)])
    };
    let upsample = |v: i64, tap: &dyn Fn(i64) -> i32| match v.rem_euclid(2) {
        0 => tap(-1) + tap(0) * 6 + tap(1),
        _ => (tap(0) + tap(1)) * 4,
    };
    let ux = |x: i64, y: i64| upsample(x, &|k| clamped(coarse, x.div_euclid(2) + k, y));
    Buffer::from_fn(&min, &extent, |p| {
        let (x, y) = (p[0], p[1]);
        upsample(y, &|k| ux(x, y.div_euclid(2) + k)) + clamped(fine, x, y)
    })
}

#[test]
fn an_output_selected_by_its_row_parity_is_computed_in_pairs_where_its_min_is_even() {
    let (fine, coarse, out) = expanded_sum();
    let (w, h) = (1024, 768);
    out.set_estimates(&[(0, w), (0, h)]).unwrap();
    fine.set_estimates(&[(0, w), (0, h)]).unwrap();
    coarse.set_estimates(&[(0, w / 2), (0, h / 2)]).unwrap();
    let schedule = Pipeline::new(&out)
        .auto_schedule(&planned_for(), &two_threads())
        .unwrap();
    let rust = schedule.to_rust();
    let specialized = "let special = out.specialize((out.output_min(1) % 2).eq_(0));";
    assert!(rust.contains(specialized), "no `{specialized}` in {rust}");
    for directive in [
        "special.split_with_tail(\"y\", \"y\", \"y_pair\", 2, TailStrategy::GuardWithIf);",
        "special.unroll_loop(\"y_pair\");",
    ] {
        assert!(rust.contains(directive), "no `{directive}` in {rust}");
    }
    assert!(!rust.contains("out.align_bounds"), "{rust}");
    // The specialization survives JSON: the script read back lowers to the same code.
    let lowered = Pipeline::new(&out).lower_to_string().unwrap();
    let script = ScheduleScript::from_json(&schedule.to_json()).unwrap();
    assert_eq!(script, schedule.schedule);
    let (_, _, fresh) = expanded_sum();
    script.apply(&fresh).unwrap();
    assert_eq!(Pipeline::new(&fresh).lower_to_string().unwrap(), lowered);
    // Even and odd mins, odd extents, regions starting before the inputs.
    let compiled = Pipeline::new(&out).compile_jit(&Target::host()).unwrap();
    let fine_data =
        Buffer::<i32>::from_fn(&[0, 0], &[w, h], |p| ((p[0] * 31 + p[1] * 17) % 101) as i32);
    let coarse_data = Buffer::<i32>::from_fn(&[0, 0], &[w / 2, h / 2], |p| {
        ((p[0] * 13 + p[1] * 29) % 97) as i32
    });
    let inputs = Inputs::new()
        .image(&fine, fine_data.clone())
        .image(&coarse, coarse_data.clone());
    for (min, extent) in [
        ([0, 0], [w, h]),
        ([1, 1], [37, 37]),
        ([0, 2], [37, 37]),
        ([3, 5], [64, 2]),
        ([-3, -2], [40, 1]),
        ([2, 1], [1, 1]),
    ] {
        let mut outs = compiled.realize(&inputs, &min, &extent).unwrap();
        let got = Buffer::<i32>::try_from(outs.remove(0)).unwrap();
        let want = expanded_sum_reference(&fine_data, &coarse_data, min, extent);
        got.for_each_coord(|p| {
            assert_eq!(
                got.get(p),
                want.get(p),
                "min {min:?} extent {extent:?} at {p:?}"
            )
        });
    }
}

/// The lanes of each vectorized loop of Func `func` in `script`: the factor of the split
/// whose inner loop is vectorized.
fn vector_lanes(script: &ScheduleScript, func: &str) -> Vec<i32> {
    let vectorized: Vec<&String> = (script.directives.iter())
        .filter_map(|d| match d {
            Directive::Vectorize { func: f, var, .. } if f == func => Some(var),
            _ => None,
        })
        .collect();
    (script.directives.iter())
        .filter_map(|d| match d {
            Directive::Split {
                func: f,
                inner,
                factor,
                update: None,
                ..
            } if f == func && vectorized.contains(&inner) => Some(*factor),
            _ => None,
        })
        .collect()
}

#[test]
fn two_registers_per_vector_step_on_avx2_one_on_avx512_and_natural_on_narrow_rows() {
    let avx2 = Target::x86_64("haswell", "+avx,+avx2,+fma");
    // (target, output width, ingredients left out, lanes of the output's and the
    // gradients' vectors): on AVX2, two 8-lane registers of i32 per step where the rows
    // are wide; one where a row is narrower than two (a 12-point output), or the
    // ingredient is left out; on AVX-512 one 16-lane register, as wide already.
    let cases = [
        (&avx2, 2048, "", 16),
        (&avx2, 2048, "wide_vectors", 8),
        (&avx2, 12, "", 8),
        (&planned_for(), 2048, "", 16),
    ];
    for (target, w, without, lanes) in cases {
        let (input, out) = structure_tensor();
        out.set_estimates(&[(0, w), (0, 2048)]).unwrap();
        input.set_estimates(&[(0, w), (0, 2048)]).unwrap();
        let options = AutoScheduleOptions {
            ingredients: Ingredients::without(without).unwrap(),
            ..two_threads()
        };
        let schedule = Pipeline::new(&out).auto_schedule(target, &options).unwrap();
        let what = format!("{w} wide without [{without}] on {target:?}");
        for func in ["response", "gx", "gy"] {
            let got = vector_lanes(&schedule.schedule, func);
            assert_eq!(got, vec![lanes], "{func}, {what}: {}", schedule.to_rust());
        }
        check_structure_tensor(&input, &out, &what);
    }
}
