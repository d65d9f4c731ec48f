//! Shared by the app tests: the seeded RNG (re-run a failure with `TESSERA_SEED=<seed>`), an
//! exact element-by-element comparison of two images that reports the first difference, and
//! the comparison of float images within a tolerance relative to the largest magnitude.

#![allow(dead_code)] // each test file uses some of these helpers

use rand::rngs::SmallRng;
use rand::SeedableRng;
use tessera::lang::buffer::for_each_coord_in;
use tessera::prelude::*;

/// The RNG of a randomized test and its seed (`tessera::testing::test_seed`: `default` unless
/// `TESSERA_SEED` says otherwise).
pub fn seeded_rng(default: u64) -> (u64, SmallRng) {
    let seed = tessera::testing::test_seed("app test", default);
    (seed, SmallRng::seed_from_u64(seed))
}

/// The region `(mins, extents)` of `b`.
fn region(b: &AnyBuffer) -> (Vec<i64>, Vec<i64>) {
    (
        b.dims().iter().map(|d| d.min).collect(),
        b.dims().iter().map(|d| d.extent).collect(),
    )
}

/// Panics unless `got` and `want` have the same element type and region.
fn assert_same_shape(got: &AnyBuffer, want: &AnyBuffer, context: &str) {
    assert_eq!(got.ty(), want.ty(), "element type; {context}");
    assert_eq!(region(got), region(want), "region; {context}");
}

/// Whether a run failed because the output (or the input it implies) is smaller than what
/// the schedule computes at once: the whole vectors or tiles of a split, or a region past a
/// buffer.
pub fn refused_as_too_small<T>(ran: &Result<T>) -> bool {
    matches!(ran, Err(Error::Runtime(m))
        if m.contains("needs dimension") || m.contains("computes whole pieces"))
}

/// Panics unless `got` and `want` have the same type, mins, extents and elements.
pub fn assert_same_image(got: &AnyBuffer, want: &AnyBuffer, context: &str) {
    assert_same_shape(got, want, context);
    let (mins, extents) = region(want);
    let mut first_difference = None;
    for_each_coord_in(&mins, &extents, &mut |c| {
        if first_difference.is_none() && got.get_value(c) != want.get_value(c) {
            first_difference = Some((c.to_vec(), got.get_value(c), want.get_value(c)));
        }
    });
    if let Some((coord, g, w)) = first_difference {
        panic!("at {coord:?} the pipeline gives {g:?} but the reference {w:?}; {context}");
    }
}

/// Panics unless the float images `got` and `want` have the same type and region, and every
/// element of `got` is within `relative` times the largest magnitude in `want` of the
/// reference's (NaN exactly where the reference has NaN).
pub fn assert_close_image(got: &AnyBuffer, want: &AnyBuffer, relative: f64, context: &str) {
    assert_same_shape(got, want, context);
    let (mins, extents) = region(want);
    let mut largest = 0.0f64;
    for_each_coord_in(&mins, &extents, &mut |c| {
        let w = want.get_value(c).as_f64();
        if w.is_finite() {
            largest = largest.max(w.abs());
        }
    });
    let tolerance = relative * largest;
    let mut worst: Option<(Vec<i64>, f64, f64)> = None;
    let mut worst_error = tolerance;
    for_each_coord_in(&mins, &extents, &mut |c| {
        let (g, w) = (got.get_value(c).as_f64(), want.get_value(c).as_f64());
        let error = if g.is_nan() || w.is_nan() || g.is_infinite() || w.is_infinite() {
            if g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()) {
                0.0
            } else {
                f64::INFINITY
            }
        } else {
            (g - w).abs()
        };
        if error > worst_error {
            worst_error = error;
            worst = Some((c.to_vec(), g, w));
        }
    });
    if let Some((coord, g, w)) = worst {
        panic!(
            "at {coord:?} the pipeline gives {g} but the reference {w}, more than {tolerance:e} apart (the largest difference); {context}"
        );
    }
}

/// An app's pipeline with a schedule, lowered once and compiled to native code, to run on
/// the Stmt interpreter (on the loop nest it was lowered to), the JIT and the JIT in checked
/// mode (every access bounds-checked: the same output, or an error naming the access).
pub struct Scheduled {
    pub schedule: &'static str,
    pub pipeline: tessera_apps::AppPipeline,
    pub compiled: tessera::pipeline::Compiled,
    pub checked: tessera::pipeline::Compiled,
}

impl Scheduled {
    pub fn new(app: &dyn tessera_apps::App, schedule: &'static str) -> Scheduled {
        let context = |e: Error| format!("{} {schedule}: {e}", app.name());
        let pipeline = app
            .build_scheduled(schedule)
            .unwrap_or_else(|e| panic!("{}", context(e)));
        let host = tessera::Target::host();
        let compile = |target: &tessera::Target| {
            tessera::pipeline::Pipeline::new(&pipeline.output)
                .compile_jit(target)
                .unwrap_or_else(|e| panic!("{}", context(e)))
        };
        let compiled = compile(&host);
        let checked = compile(&host.with_bounds_checks(true));
        Scheduled {
            schedule,
            pipeline,
            compiled,
            checked,
        }
    }

    /// The output for `inputs` (in the app's declared order) computed by the interpreter, the
    /// JIT and the checked JIT, each named.
    pub fn run(
        &self,
        app: &dyn tessera_apps::App,
        inputs: &[AnyBuffer],
        params: &[tessera::lang::param::ParamBinding],
    ) -> [(&'static str, AnyBuffer); 3] {
        let (mins, extents) = app.check_inputs(inputs).expect("the inputs fit the app");
        app.check_schedule_fits(self.schedule, &extents)
            .expect("the output fits the schedule");
        let inputs = app.inputs(&self.pipeline, inputs, params);
        let context = |backend: &str| format!("{} {} ({backend})", app.name(), self.schedule);
        let lowered = self.compiled.lowered();
        let mut interpreted =
            tessera::pipeline::run_interp(lowered, &lowered.stmt, &inputs, &mins, &extents, 0)
                .unwrap_or_else(|e| panic!("{}: {e}", context("interpreter")));
        let jit = |compiled: &tessera::pipeline::Compiled, backend: &str| {
            compiled
                .realize(&inputs, &mins, &extents)
                .unwrap_or_else(|e| panic!("{}: {e}", context(backend)))
                .swap_remove(0)
        };
        [
            ("interpreter", interpreted.buffers.swap_remove(0)),
            ("JIT", jit(&self.compiled, "JIT")),
            ("checked JIT", jit(&self.checked, "checked JIT")),
        ]
    }
}
