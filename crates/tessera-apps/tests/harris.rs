//! The harris pipeline, evaluated by the definition-level evaluator, matches the plain-Rust
//! reference within the spec's tolerance (1e-4 of the largest output magnitude): random inputs
//! of many shapes (down to 1 × 1) and value ranges, a corner and an edge, shifted input mins,
//! and the built-in test image. Its schedules are checked in tests/schedules.rs.

mod common;

use common::{assert_close_image, seeded_rng};
use rand::Rng;
use tessera::prelude::*;
use tessera_apps::harris::{self, Harris};
use tessera_apps::App;

const TOLERANCE: f64 = 1e-4;

const SIZES: [(i64, i64); 8] = [
    (1, 1),
    (1, 4),
    (5, 1),
    (2, 3),
    (7, 4),
    (13, 11),
    (16, 9),
    (6, 17),
];

fn random_input(rng: &mut impl Rng, w: i64, h: i64, lo: f32, hi: f32) -> Buffer<f32> {
    Buffer::from_fn(&[0, 0], &[w, h], |_| rng.random_range(lo..=hi))
}

fn check(input: Buffer<f32>, context: &str) {
    let got = Harris
        .evaluate(&[input.clone().into()], &[])
        .expect("harris evaluates");
    assert_close_image(&got, &harris::reference(&input).into(), TOLERANCE, context);
}

#[test]
fn random_inputs_of_many_shapes() {
    let (seed, mut rng) = seeded_rng(0x4a);
    for (w, h) in SIZES {
        let input = random_input(&mut rng, w, h, 0.0, 1.0);
        check(
            input,
            &format!("{w}x{h} input, seed {seed} (TESSERA_SEED={seed})"),
        );
    }
}

#[test]
fn random_shapes_and_value_ranges() {
    let (seed, mut rng) = seeded_rng(0x4b);
    for _ in 0..15 {
        let (w, h) = (rng.random_range(1..=24), rng.random_range(1..=24));
        let lo = rng.random_range(-100.0..=100.0f32);
        let hi = lo + rng.random_range(0.0..=50.0f32);
        let input = random_input(&mut rng, w, h, lo, hi);
        check(
            input,
            &format!("{w}x{h} input in [{lo}, {hi}], seed {seed} (TESSERA_SEED={seed})"),
        );
    }
}

#[test]
fn a_corner_responds_positively_and_an_edge_negatively() {
    // A bright square in the top-left quarter: its corner at (5, 5) has gradients in both
    // directions, the middle of its right edge only horizontally.
    let input = Buffer::from_fn(&[0, 0], &[12, 12], |c| {
        if c[0] < 6 && c[1] < 6 {
            1.0f32
        } else {
            0.0
        }
    });
    let out = harris::reference(&input);
    assert!(out.get(&[5, 5]) > 0.0, "corner: {}", out.get(&[5, 5]));
    assert!(out.get(&[5, 1]) < 0.0, "edge: {}", out.get(&[5, 1]));
    check(input, "square");
}

#[test]
fn shifted_input_mins() {
    let (seed, mut rng) = seeded_rng(0x4d);
    let input = random_input(&mut rng, 7, 5, 0.0, 1.0).translated(&[4, -6]);
    let got = Harris
        .evaluate(&[input.clone().into()], &[])
        .expect("harris evaluates");
    let mins: Vec<i64> = got.dims().iter().map(|d| d.min).collect();
    assert_eq!(mins, vec![4, -6]);
    assert_close_image(
        &got,
        &harris::reference(&input).into(),
        TOLERANCE,
        &format!("seed {seed}"),
    );
}

#[test]
fn built_in_test_image() {
    let input = Harris.default_inputs(20, 14).expect("the default input");
    let got = Harris.evaluate(&input, &[]).expect("harris evaluates");
    let want = Harris.reference(&input, &[]).expect("reference");
    assert_close_image(&got, &want, TOLERANCE, "default input");
}
