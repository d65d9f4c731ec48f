//! The interpolate pipeline matches the plain-Rust reference within the spec's tolerance (1e-4
//! of the largest output magnitude; NaN, from 0/0 where no sample reaches, where the reference
//! has NaN). Both are written for any number of pyramid levels. The app's ten levels read about
//! 512 pixels beyond every edge of the input whatever its size (level 0 covers over
//! 1500 × 1500 points), too many for the definition-level evaluator in a test (and there is
//! no `inline` schedule: a deep pyramid inlined is one exponentially large expression); so the
//! algorithm is checked with 1 to 6 levels through the evaluator, its schedules (written for
//! any number of levels) with 2 levels through the interpreter and the JIT, and the ten-level reference
//! by the properties of its result.

mod common;

use common::{assert_close_image, seeded_rng};
use rand::rngs::SmallRng;
use rand::Rng;
use tessera::lang::buffer::for_each_coord_in;
use tessera::pipeline::{run_interp, Compiled, Inputs, Pipeline};
use tessera::prelude::*;
use tessera::Target;
use tessera_apps::interpolate::{self, Interpolate, SCHEDULES};
use tessera_apps::schedule::AppFuncs;
use tessera_apps::{App, AppPipeline};

const TOLERANCE: f64 = 1e-4;

/// Random colours in [0, 1]; alpha 1 at a random `density` of the pixels and 0 elsewhere, or,
/// when `density` is `None`, random in [0, 1] everywhere.
fn random_input(rng: &mut SmallRng, w: i64, h: i64, density: Option<f64>) -> Buffer<f32> {
    Buffer::from_fn(&[0, 0, 0], &[w, h, 4], |c| match density {
        Some(d) if c[2] == 3 => f32::from(u8::from(rng.random_bool(d))),
        _ => rng.random_range(0.0..=1.0),
    })
}

/// The output region for `input`: its x and y, channels 0..3.
fn output_region(input: &Buffer<f32>) -> (Vec<i64>, Vec<i64>) {
    let (mins, extents) = (input.mins(), input.extents());
    (vec![mins[0], mins[1], 0], vec![extents[0], extents[1], 3])
}

/// The pipeline with `levels` levels, evaluated by the definition-level evaluator.
fn evaluate(levels: usize, input: &Buffer<f32>) -> AnyBuffer {
    let f = interpolate::funcs_with_levels(levels).expect("the algorithm builds");
    let (mins, extents) = output_region(input);
    Evaluator::new()
        .with_input(&f.input, input.clone())
        .realize(&f.output, &mins, &extents)
        .expect("interpolate evaluates")
        .swap_remove(0)
}

fn check_evaluated(levels: usize, input: &Buffer<f32>, context: &str) {
    let want = interpolate::reference_with_levels(input, levels).into();
    assert_close_image(&evaluate(levels, input), &want, TOLERANCE, context);
}

#[test]
fn one_to_six_levels_on_random_inputs() {
    let (seed, mut rng) = seeded_rng(0x1a);
    for levels in 1..=6 {
        for density in [Some(0.3), Some(0.05), None] {
            let (w, h) = (rng.random_range(1..=12), rng.random_range(1..=12));
            let input = random_input(&mut rng, w, h, density);
            let context = format!(
                "{levels} levels, {w}x{h} input, alpha density {density:?}, seed {seed} (TESSERA_SEED={seed})"
            );
            check_evaluated(levels, &input, &context);
        }
    }
}

#[test]
fn shifted_input_mins_and_the_built_in_image() {
    let (seed, mut rng) = seeded_rng(0x1b);
    let input = random_input(&mut rng, 9, 7, Some(0.2)).translated(&[-5, 3, 0]);
    check_evaluated(4, &input, &format!("mins (-5, 3), seed {seed}"));
    let inputs = Interpolate
        .default_inputs(16, 12)
        .expect("the default input");
    let [AnyBuffer::F32(input)] = inputs.as_slice() else {
        panic!("interpolate's one input is f32");
    };
    check_evaluated(5, input, "default input");
}

/// The depth the schedules are checked at.
const LEVELS: usize = 2;

/// `compiled` run for `input` on the interpreter and on the JIT, each named.
fn run(
    compiled: &Compiled,
    pipeline: &AppPipeline,
    input: &Buffer<f32>,
) -> [(&'static str, Result<AnyBuffer>); 2] {
    let (mins, extents) = output_region(input);
    let inputs = Inputs::new().image(&pipeline.inputs[0], input.clone());
    let lowered = compiled.lowered();
    let interpreted = run_interp(lowered, &lowered.stmt, &inputs, &mins, &extents, 0)
        .map(|mut r| r.buffers.swap_remove(0));
    // Into a buffer of exactly the output's size (`realize` would compute a schedule's
    // whole vectors past a small output into a bigger one and crop it).
    let mut outputs = vec![AnyBuffer::with_mins(Type::f32(), &mins, &extents).expect("an output")];
    let jitted = compiled
        .realize_into(&inputs, &mut outputs)
        .map(|()| outputs.swap_remove(0));
    [("interpreter", interpreted), ("JIT", jitted)]
}

#[test]
fn schedules_with_two_levels_on_the_interpreter_and_the_jit() {
    let (seed, mut rng) = seeded_rng(0x1c);
    for schedule in SCHEDULES.iter() {
        let (name, (w, h)) = (schedule.name, schedule.min_output);
        let f = interpolate::funcs_with_levels(LEVELS).expect("the algorithm builds");
        (schedule.apply)(&f);
        let pipeline = f.pipeline();
        let compiled = Pipeline::new(&pipeline.output)
            .compile_jit(&Target::host())
            .unwrap_or_else(|e| panic!("schedule {name}: {e}"));
        let sizes = [
            (w, h),
            (w + 1, h + 3),
            (w + rng.random_range(0..8), h + rng.random_range(0..8)),
        ];
        for (sw, sh) in sizes {
            let dx = rng.random_range(-20..=20);
            let dy = rng.random_range(-20..=20);
            let input = random_input(&mut rng, sw, sh, Some(0.2)).translated(&[dx, dy, 0]);
            let context = format!(
                "schedule {name}, {sw}x{sh} output, mins ({dx}, {dy}), seed {seed} (TESSERA_SEED={seed})"
            );
            let want = interpolate::reference_with_levels(&input, LEVELS).into();
            for (backend, got) in run(&compiled, &pipeline, &input) {
                let context = format!("{context} ({backend})");
                let got = got.unwrap_or_else(|e| panic!("{e}; {context}"));
                assert_close_image(&got, &want, TOLERANCE, &context);
            }
        }
        // One pixel narrower or shorter than the declared minimum, the buffers are refused.
        for (sw, sh) in [(w - 1, h), (w, h - 1)] {
            if sw == 0 || sh == 0 {
                continue;
            }
            let input = random_input(&mut rng, sw, sh, Some(0.2));
            for (backend, ran) in run(&compiled, &pipeline, &input) {
                assert!(
                    common::refused_as_too_small(&ran),
                    "schedule {name} runs at {sw}x{sh} on the {backend}, below its minimum {w}x{h}: {ran:?}"
                );
            }
        }
    }
}

#[test]
fn ten_levels_give_weighted_averages_of_the_sample_colours() {
    // Every output colour is a weighted average of the opaque samples' colours, so it lies
    // within their range in each channel; with ten levels every pixel is reached.
    let input = Interpolate
        .default_inputs(40, 30)
        .expect("the default input");
    let out = Interpolate.reference(&input, &[]).expect("reference");
    let [AnyBuffer::F32(input)] = input.as_slice() else {
        panic!("interpolate's one input is f32");
    };
    for c in 0..3 {
        let mut range = (f32::INFINITY, f32::NEG_INFINITY);
        for_each_coord_in(&[0, 0], &[40, 30], &mut |p| {
            if input.get(&[p[0], p[1], 3]) == 1.0 {
                let v = input.get(&[p[0], p[1], c]);
                range = (range.0.min(v), range.1.max(v));
            }
        });
        for_each_coord_in(&[0, 0], &[40, 30], &mut |p| {
            let v = out.get_value(&[p[0], p[1], c]).as_f64() as f32;
            assert!(
                v >= range.0 - 1e-5 && v <= range.1 + 1e-5,
                "channel {c} at {p:?}: {v} outside the samples' range {range:?}"
            );
        });
    }
}
