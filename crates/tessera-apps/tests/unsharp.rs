//! The unsharp pipeline, evaluated by the definition-level evaluator, matches the plain-Rust
//! reference within the spec's tolerance (1e-4 of the largest output magnitude): random inputs
//! of many shapes (down to 1 × 1, smaller than the blur's reach) and value ranges (including
//! values whose difference from the blur sits near the threshold), shifted input mins, and the
//! built-in test image. Its schedules are checked in tests/schedules.rs.

mod common;

use common::{assert_close_image, seeded_rng};
use rand::Rng;
use tessera::prelude::*;
use tessera_apps::unsharp::{self, Unsharp};
use tessera_apps::App;

const TOLERANCE: f64 = 1e-4;

const SIZES: [(i64, i64); 8] = [
    (1, 1),
    (1, 5),
    (4, 1),
    (3, 3),
    (7, 2),
    (9, 8),
    (16, 5),
    (5, 13),
];

fn random_input(rng: &mut impl Rng, w: i64, h: i64, lo: f32, hi: f32) -> Buffer<f32> {
    Buffer::from_fn(&[0, 0, 0], &[w, h, 3], |_| rng.random_range(lo..=hi))
}

fn check(input: Buffer<f32>, context: &str) {
    let got = Unsharp
        .evaluate(&[input.clone().into()], &[])
        .expect("unsharp evaluates");
    assert_close_image(&got, &unsharp::reference(&input).into(), TOLERANCE, context);
}

#[test]
fn random_inputs_of_many_shapes() {
    let (seed, mut rng) = seeded_rng(0x5a);
    for (w, h) in SIZES {
        let input = random_input(&mut rng, w, h, 0.0, 1.0);
        check(
            input,
            &format!("{w}x{h}x3 input, seed {seed} (TESSERA_SEED={seed})"),
        );
    }
}

#[test]
fn random_shapes_and_value_ranges() {
    let (seed, mut rng) = seeded_rng(0x5b);
    for _ in 0..15 {
        let (w, h) = (rng.random_range(1..=20), rng.random_range(1..=20));
        let lo = rng.random_range(-100.0..=100.0f32);
        let hi = lo + rng.random_range(0.0..=50.0f32);
        let input = random_input(&mut rng, w, h, lo, hi);
        check(
            input,
            &format!("{w}x{h}x3 input in [{lo}, {hi}], seed {seed} (TESSERA_SEED={seed})"),
        );
    }
}

#[test]
fn differences_near_the_threshold() {
    // Values within 0.04 of each other: pixels differ from their blur by around the threshold
    // (0.02), so both arms of the select are taken.
    let (seed, mut rng) = seeded_rng(0x5c);
    let input = random_input(&mut rng, 12, 10, 0.5, 0.54);
    let out = unsharp::reference(&input);
    let sharpened = input
        .data()
        .iter()
        .zip(out.data())
        .filter(|(a, b)| a != b)
        .count();
    assert!(
        sharpened > 0 && sharpened < input.len(),
        "{sharpened} of {} pixels sharpened",
        input.len()
    );
    check(input, &format!("seed {seed} (TESSERA_SEED={seed})"));
}

#[test]
fn shifted_input_mins() {
    let (seed, mut rng) = seeded_rng(0x5d);
    let input = random_input(&mut rng, 6, 5, 0.0, 1.0).translated(&[-3, 5, 2]);
    let got = Unsharp
        .evaluate(&[input.clone().into()], &[])
        .expect("unsharp evaluates");
    let mins: Vec<i64> = got.dims().iter().map(|d| d.min).collect();
    assert_eq!(mins, vec![-3, 5, 2]);
    assert_close_image(
        &got,
        &unsharp::reference(&input).into(),
        TOLERANCE,
        &format!("seed {seed}"),
    );
}

#[test]
fn built_in_test_image() {
    let input = Unsharp.default_inputs(20, 12).expect("the default input");
    let got = Unsharp.evaluate(&input, &[]).expect("unsharp evaluates");
    let want = Unsharp.reference(&input, &[]).expect("reference");
    assert_close_image(&got, &want, TOLERANCE, "default input");
}
