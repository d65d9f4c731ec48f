//! The bilateral grid, evaluated by the definition-level evaluator, equals the plain-Rust
//! reference within 1e-4 of the largest output: random inputs of several shapes (including
//! values outside [0, 1], which the pipeline clamps), several values of the runtime parameter
//! r_sigma, shifted and negative input mins (where `x / s` and `x % s` round toward −∞), and
//! the built-in test image. The `manual` and `root` schedules, lowered once and run on the Stmt
//! interpreter and compiled by the JIT, equal the reference within the same tolerance on small
//! random inputs. (There is no `inline`: substituting the three 5-tap blurs into each of the
//! slice's 16 grid samples makes an expression past lowering's 2^20-node limit.)

mod common;

use common::{assert_close_image, seeded_rng, Scheduled};
use rand::Rng;
use tessera::lang::param::ParamBinding;
use tessera::prelude::*;
use tessera_apps::bilateral_grid::{self, BilateralGrid};
use tessera_apps::App;

const TOLERANCE: f64 = 1e-4;

fn r_sigma(value: f32) -> ParamBinding {
    Param::<f32>::new("r_sigma").bind(value)
}

fn random_input(
    rng: &mut impl Rng,
    mins: [i64; 2],
    extents: [i64; 2],
    lo: f32,
    hi: f32,
) -> Buffer<f32> {
    Buffer::from_fn(&mins, &extents, |_| rng.random_range(lo..=hi))
}

fn check_evaluated(input: Buffer<f32>, sigma: f32, context: &str) {
    let got = BilateralGrid
        .evaluate(&[input.clone().into()], &[r_sigma(sigma)])
        .expect("bilateral_grid evaluates");
    let want = bilateral_grid::reference(&input, sigma).expect("the reference runs");
    assert_close_image(&got, &want.into(), TOLERANCE, context);
}

#[test]
fn random_inputs_and_r_sigmas() {
    let (seed, mut rng) = seeded_rng(0xb9);
    let cases: [([i64; 2], f32); 4] = [
        ([24, 16], 0.1),
        ([9, 13], 0.25),
        ([17, 8], 0.07),
        ([1, 1], 0.1),
    ];
    for (extents, sigma) in cases {
        let input = random_input(&mut rng, [0, 0], extents, 0.0, 1.0);
        let context =
            format!("{extents:?} input, r_sigma {sigma}, seed {seed} (TESSERA_SEED={seed})");
        check_evaluated(input, sigma, &context);
    }
}

#[test]
fn values_outside_the_unit_range_are_clamped() {
    let (seed, mut rng) = seeded_rng(0xba);
    let input = random_input(&mut rng, [0, 0], [12, 10], -0.5, 1.5);
    check_evaluated(input, 0.2, &format!("seed {seed} (TESSERA_SEED={seed})"));
}

#[test]
fn negative_and_shifted_mins() {
    let (seed, mut rng) = seeded_rng(0xbb);
    for mins in [[-11, -5], [3, 7]] {
        let input = random_input(&mut rng, mins, [14, 9], 0.0, 1.0);
        let context = format!("input mins {mins:?}, seed {seed} (TESSERA_SEED={seed})");
        check_evaluated(input, 0.1, &context);
    }
}

#[test]
fn built_in_test_image_with_the_default_r_sigma() {
    let input = BilateralGrid
        .default_inputs(24, 16)
        .expect("the default input");
    let got = BilateralGrid.evaluate(&input, &[]).expect("evaluates");
    let want = BilateralGrid.reference(&input, &[]).expect("reference");
    assert_close_image(&got, &want, TOLERANCE, "default input");
}

/// Every schedule, through the interpreter and the JIT, against the reference.
#[test]
fn manual_and_root_on_the_interpreter_and_the_jit() {
    let (seed, mut rng) = seeded_rng(0xbc);
    for info in BilateralGrid.schedules() {
        let scheduled = Scheduled::new(&BilateralGrid, info.name);
        let (w, h) = info.min_output;
        let cases: [([i64; 2], [i64; 2], f32); 4] = [
            ([0, 0], [w.max(24), h.max(16)], 0.1),
            ([-13, 5], [w + 9, h + 11], 0.25),
            ([6, -3], [w, h], 0.1),
            ([0, 0], [w + 3, h + 18], 0.07),
        ];
        for (mins, extents, sigma) in cases {
            let input = random_input(&mut rng, mins, extents, -0.1, 1.1);
            let want = bilateral_grid::reference(&input, sigma).expect("the reference runs");
            let inputs = [input.into()];
            for (backend, got) in scheduled.run(&BilateralGrid, &inputs, &[r_sigma(sigma)]) {
                let context = format!(
                    "schedule {} on the {backend}, input mins {mins:?} extents {extents:?}, r_sigma {sigma}, seed {seed} (TESSERA_SEED={seed})",
                    info.name
                );
                assert_close_image(&got, &want.clone().into(), TOLERANCE, &context);
            }
        }
    }
}

/// A grid sized by `1 / r_sigma` has no size for r_sigma = 0 or 1e-30 (its extent saturates
/// 32 bits): the run is refused with an error naming a Func of the grid, where its extent used
/// to wrap to a small allocation that the histogram then wrote past (a segfault). NaN and -0
/// run or fail cleanly, never touching memory outside the grid (checked mode).
#[test]
fn r_sigmas_without_a_grid_size_are_errors_not_crashes() {
    let input = BilateralGrid
        .default_inputs(64, 48)
        .expect("a 64 x 48 input");
    let (mins, extents) = BilateralGrid.check_inputs(&input).expect("the input fits");
    for schedule in ["manual", "root"] {
        let scheduled = Scheduled::new(&BilateralGrid, schedule);
        for sigma in [0.0, 1e-30, -0.0, f32::NAN] {
            let inputs = BilateralGrid.inputs(&scheduled.pipeline, &input, &[r_sigma(sigma)]);
            for compiled in [&scheduled.compiled, &scheduled.checked] {
                let result = compiled.realize(&inputs, &mins, &extents);
                if sigma == 0.0 || sigma == 1e-30 {
                    let message = result.expect_err("no grid fits").to_string();
                    assert!(
                        ["grid", "blur"].iter().any(|f| message.contains(f))
                            && message.contains("32-bit"),
                        "{schedule}, r_sigma {sigma}: {message}"
                    );
                } else if let Err(e) = result {
                    assert!(!e.to_string().contains("checked mode"), "{schedule}: {e}");
                }
            }
        }
    }
}
