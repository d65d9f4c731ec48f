//! Every schedule of every app, lowered once and run on the Stmt interpreter and the JIT,
//! equals the app's plain-Rust reference exactly: at the schedule's minimum output, at odd
//! sizes just above it, and at random sizes with random input values and shifted input mins.
//! Each schedule's declared minimum is exact: one pixel narrower or shorter, the lowered
//! pipeline refuses the buffers on both. Each schedule is lowered and compiled once, for all
//! the tests (that dominates their time).

mod common;
mod golden;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use common::{assert_same_image, seeded_rng, Scheduled};
use golden::GoldenDir;
use rand::rngs::SmallRng;
use rand::Rng;
use tessera::ir::line_wrap::MAX_LINE_COLUMNS;
use tessera::pipeline::{run_interp, signature};
use tessera::prelude::*;
use tessera_apps::app::AUTO_SCHEDULES;
use tessera_apps::schedule::ScheduleInfo;
use tessera_apps::{apps, App};

/// Random inputs for an output of `width × height`, their mins shifted at random (all by
/// the same amount) unless the app's rules require inputs starting at 0.
fn random_inputs(app: &dyn App, rng: &mut SmallRng, width: i64, height: i64) -> Vec<AnyBuffer> {
    let shift: Vec<i64> = (0..3).map(|_| rng.random_range(-20..=20)).collect();
    let specs = app.description().inputs;
    let images = |rng: &mut SmallRng, shift: &[i64]| -> Vec<AnyBuffer> {
        specs
            .iter()
            .zip(app.input_extents(width, height))
            .map(|(spec, extents)| random_image(spec.ty, &shift[..extents.len()], &extents, rng))
            .collect()
    };
    let shifted = images(rng, &shift);
    if app.check_inputs(&shifted).is_ok() {
        shifted
    } else {
        images(rng, &[0; 3])
    }
}

/// A random image of `ty` over `mins`, `extents`. Integer images take values in a random
/// subrange of their type (so histograms are wide, narrow or constant, and sums may wrap);
/// float images values in [0, 1].
fn random_image(ty: Type, mins: &[i64], extents: &[i64], rng: &mut SmallRng) -> AnyBuffer {
    let mut input = AnyBuffer::with_mins(ty, mins, extents).expect("input type has buffers");
    let (lo, hi) = if ty.is_int_or_uint() {
        let lo = rng.random_range(ty.int_min()..=ty.int_max());
        (lo, rng.random_range(lo..=ty.int_max()))
    } else {
        (0, 0)
    };
    tessera::lang::buffer::for_each_coord_in(mins, extents, &mut |c| {
        let v = if ty.is_uint() {
            Value::UInt(rng.random_range(lo..=hi) as u64)
        } else if ty.is_int() {
            Value::Int(rng.random_range(lo..=hi) as i64)
        } else {
            let v = Value::F64(rng.random_range(0.0..=1.0));
            tessera::eval::value::cast(v, Type::f64(), ty)
        };
        input.set_value(c, v);
    });
    input
}

/// Apps whose own test files check their schedules instead, at the sizes (and pyramid depths)
/// the interpreter affords: interpolate's ten pyramid levels take the lowering far too long for
/// a test, and bilateral_grid and local_laplacian take the interpreter minutes at the sizes
/// here (tests/<app>.rs check the same schedules on smaller outputs or fewer levels);
/// multigrid's grids are 8k + 1 points on a side and camera_pipe's outputs multiples of 32,
/// not the sizes here (their modules' tests check their schedules at such sizes).
const CHECKED_IN_THEIR_OWN_TESTS: [&str; 5] = [
    "interpolate",
    "bilateral_grid",
    "local_laplacian",
    "multigrid",
    "camera_pipe",
];

/// The apps whose schedules are lowered and run here.
fn lowered_apps() -> impl Iterator<Item = &'static dyn App> {
    apps()
        .iter()
        .copied()
        .filter(|a| !CHECKED_IN_THEIR_OWN_TESTS.contains(&a.name()))
}

/// Compiled pipelines by app and schedule name.
type LoweredCache = Mutex<HashMap<(String, String), Arc<Scheduled>>>;

/// App `app` with schedule `schedule`, lowered and compiled on first use and then shared by
/// every test.
fn lowered(app: &dyn App, schedule: &'static str) -> Arc<Scheduled> {
    static LOWERED: OnceLock<LoweredCache> = OnceLock::new();
    let mut cache = LOWERED
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let key = (app.name().to_string(), schedule.to_string());
    let entry = cache
        .entry(key)
        .or_insert_with(|| Arc::new(Scheduled::new(app, schedule)));
    Arc::clone(entry)
}

/// Runs `scheduled` on `inputs` on the interpreter and the JIT and compares both with the
/// reference.
fn check(app: &dyn App, scheduled: &Scheduled, inputs: &[AnyBuffer], context: &str) {
    let want = app.reference(inputs, &[]).expect("reference");
    for (backend, got) in scheduled.run(app, inputs, &[]) {
        assert_same_image(&got, &want, &format!("{context} ({backend})"));
    }
}

/// Output sizes for `schedule`: its minimum, odd sizes just above, and five random sizes.
fn sizes(schedule: &ScheduleInfo, rng: &mut SmallRng) -> Vec<(i64, i64)> {
    let (w, h) = schedule.min_output;
    let mut sizes = vec![(w, h), (w + 1, h + 2), (w + 7, h + 3)];
    for _ in 0..5 {
        sizes.push((w + rng.random_range(0..40), h + rng.random_range(0..40)));
    }
    sizes
}

#[test]
fn every_schedule_of_every_app_matches_the_reference() {
    let (seed, mut rng) = seeded_rng(0x5c4e);
    for app in lowered_apps() {
        for schedule in app.schedules() {
            let lowered = lowered(app, schedule.name);
            for (w, h) in sizes(&schedule, &mut rng) {
                let inputs = random_inputs(app, &mut rng, w, h);
                let mins: Vec<i64> = inputs[0].dims().iter().map(|d| d.min).collect();
                let context = format!(
                    "{} schedule {}, {w}x{h} output, input mins {mins:?}, seed {seed} (TESSERA_SEED={seed})",
                    app.name(),
                    schedule.name
                );
                check(app, &lowered, &inputs, &context);
            }
        }
    }
}

#[test]
fn built_in_test_images_through_the_default_schedule() {
    for app in lowered_apps() {
        let fits = app.schedule_info("manual").expect("manual").min_output;
        let (w, h) = (fits.0.max(40), fits.1.max(36));
        let input = app.default_inputs(w, h).expect("the default input");
        let context = format!("{} default input", app.name());
        check(app, &lowered(app, "manual"), &input, &context);
    }
}

#[test]
fn declared_minimum_outputs_are_exact() {
    for app in lowered_apps() {
        for schedule in app.schedules() {
            let (w, h) = schedule.min_output;
            let lowered = lowered(app, schedule.name);
            let smaller = [(w - 1, h), (w, h - 1)];
            for (sw, sh) in smaller.into_iter().filter(|&(a, b)| a > 0 && b > 0) {
                let input = app.default_inputs(sw, sh).expect("the default input");
                let (mins, extents) = app.check_inputs(&input).expect("fits the app");
                let refused = app
                    .check_schedule_fits(schedule.name, &extents)
                    .err()
                    .map(|e| e.to_string())
                    .unwrap_or_default();
                assert!(
                    refused.contains(&format!("computes outputs of at least {w} x {h}")),
                    "{} {} at {sw}x{sh}: {refused}",
                    app.name(),
                    schedule.name
                );
                let inputs = app.inputs(&lowered.pipeline, &input, &[]);
                let stmt = &lowered.compiled.lowered().stmt;
                let interpreted = run_interp(
                    lowered.compiled.lowered(),
                    stmt,
                    &inputs,
                    &mins,
                    &extents,
                    0,
                )
                .map(drop);
                // Into buffers of exactly that size (`realize` would compute into bigger
                // ones and crop them).
                let sig = signature(lowered.compiled.lowered());
                let mut outputs: Vec<AnyBuffer> = sig
                    .outputs
                    .iter()
                    .map(|o| AnyBuffer::with_mins(o.ty, &mins, &extents).expect("an output"))
                    .collect();
                let jitted = lowered.compiled.realize_into(&inputs, &mut outputs);
                for (backend, ran) in [("interpreter", interpreted), ("JIT", jitted)] {
                    assert!(
                        common::refused_as_too_small(&ran),
                        "{} {} runs at {sw}x{sh} on the {backend}, below its declared minimum {w}x{h}: {ran:?}",
                        app.name(),
                        schedule.name
                    );
                }
            }
        }
    }
}

#[test]
fn every_app_has_the_common_schedules_and_refuses_unknown_ones() {
    for app in apps() {
        let names: Vec<&str> = app.schedules().iter().map(|s| s.name).collect();
        // Fully inlined, the pyramids, the grids and the chains are too big to lower (their
        // tests say why).
        let common: &[&str] = match app.name() {
            "local_laplacian" | "interpolate" | "bilateral_grid" | "pyramid_blend"
            | "multigrid" | "stencil_chain" | "camera_pipe" => &["manual", "root"],
            _ => &["manual", "root", "inline"],
        };
        assert_eq!(names[..common.len()], *common, "{}", app.name());
        let e = app
            .build_scheduled("fastest")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        let wanted = format!(
            "app {} has no schedule `fastest`; its schedules are: {}",
            app.name(),
            names.join(", ")
        );
        assert!(e.contains(&wanted), "{e}");
        let e = app.schedule_info("fastest").err().map(|e| e.to_string());
        assert!(e.unwrap_or_default().contains(&wanted));
    }
    let blur: Vec<&str> = tessera_apps::blur::Blur
        .schedules()
        .iter()
        .map(|s| s.name)
        .collect();
    assert_eq!(
        blur[3..],
        [
            "breadth_first",
            "full_fusion",
            "sliding_window",
            "tiled",
            "sliding_tiles",
            "auto",
            "auto-greedy"
        ]
    );
}

/// The final statement and loop-nest summary of one app schedule, as `tessera lower` prints
/// them.
struct Printout {
    app: &'static str,
    schedule: &'static str,
    stmt: String,
    loop_nest: String,
}

/// Every schedule an app offers (the ones `tessera apps` lists), lowered once for all the
/// tests below with every lowering pass's statement verified (`lower::verify`) whatever the
/// build, so a pass that breaks the IR of an app fails here, named.
fn every_listed_schedule_printed() -> &'static [Printout] {
    static PRINTOUTS: OnceLock<Vec<Printout>> = OnceLock::new();
    PRINTOUTS.get_or_init(|| {
        let verified = tessera::LowerOptions {
            verify: true,
            ..Default::default()
        };
        let mut printouts = Vec::new();
        for app in apps() {
            for info in app.schedules() {
                let lowered = app
                    .lower_with(info.name, &verified)
                    .unwrap_or_else(|e| panic!("{} {} does not lower: {e}", app.name(), info.name))
                    .lowered;
                printouts.push(Printout {
                    app: app.name(),
                    schedule: info.name,
                    stmt: lowered.stmt.to_string(),
                    loop_nest: lowered.loop_nest(),
                });
            }
        }
        printouts
    })
}

/// Every schedule an app offers lowers for the app's default output size: none is listed
/// that cannot be used. The printout (`tessera lower`) and its loop-nest summary keep every
/// line within `MAX_LINE_COLUMNS` characters (issue 15: lines ran to thousands of columns).
#[test]
fn every_listed_schedule_lowers_to_verified_statements_printed_within_the_line_limit() {
    for printout in every_listed_schedule_printed() {
        for text in [&printout.stmt, &printout.loop_nest] {
            let longest = text.lines().max_by_key(|l| l.chars().count());
            let width = longest.map_or(0, |l| l.chars().count());
            assert!(
                width <= MAX_LINE_COLUMNS,
                "{} {}: a printed line is {width} characters long: {longest:?}",
                printout.app,
                printout.schedule
            );
        }
    }
}

/// Golden files of the final lowered statement of every app schedule (what `tessera lower
/// APP --schedule S` prints), in `tests/lowered/APP-SCHEDULE.stmt`: any change to the code
/// lowering makes shows up as a diff of these files in review. Lowering does not depend on
/// the host (the apps' vector widths are AVX2's whatever the CPU), so neither do the files.
/// `TESSERA_BLESS=1` rewrites them (TESTING.md).
#[test]
fn every_listed_schedule_lowers_to_its_golden_statement() {
    let mut golden = GoldenDir::new(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/lowered"),
        "stmt",
    );
    // Automatic schedules are left out: they depend on the host's caches and cores.
    let by_hand = every_listed_schedule_printed()
        .iter()
        .filter(|p| !AUTO_SCHEDULES.iter().any(|(name, _)| *name == p.schedule));
    for printout in by_hand {
        golden.check(
            &format!("{}-{}", printout.app, printout.schedule),
            &printout.stmt,
        );
    }
    golden.finish();
}

#[test]
fn a_golden_mismatch_shows_the_first_differing_lines_with_context() {
    let expected: String = (1..=40).map(|i| format!("line {i}\n")).collect();
    let actual = expected.replace("line 20\n", "line twenty\nline 20.5\n");
    let diff = golden::first_difference(&expected, &actual);
    assert_eq!(
        diff,
        "@@ -17,4 +17,5 @@\n line 17\n line 18\n line 19\n-line 20\n+line twenty\n+line 20.5\n"
    );
    let long: String = (1..=40).map(|i| format!("new {i}\n")).collect();
    let diff = golden::first_difference(&expected, &long);
    assert!(diff.starts_with("@@ -1,40 +1,40 @@\n-line 1\n"), "{diff}");
    assert!(diff.contains("-... (28 more lines)\n+new 1\n"), "{diff}");
    assert!(diff.ends_with("+... (28 more lines)\n"), "{diff}");
    assert_eq!(diff.lines().count(), 1 + 2 * 13);
}
