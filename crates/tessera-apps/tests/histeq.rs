//! The histeq pipeline, evaluated by the definition-level evaluator, equals the plain-Rust
//! reference exactly: random u8 inputs of many shapes with wide, narrow, two-valued and
//! constant histograms, shifted input mins, and the built-in test image.

mod common;

use common::{assert_same_image, seeded_rng};
use rand::Rng;
use tessera::prelude::*;
use tessera_apps::histeq::{self, Histeq};
use tessera_apps::App;

const SIZES: [(i64, i64); 6] = [(1, 1), (3, 5), (8, 8), (17, 11), (40, 23), (64, 3)];

fn check(input: Buffer<u8>, context: &str) {
    let got = Histeq
        .evaluate(&[input.clone().into()], &[])
        .expect("histeq evaluates");
    assert_same_image(&got, &histeq::reference(&input).into(), context);
}

#[test]
fn random_inputs_of_many_shapes_and_histograms() {
    let (seed, mut rng) = seeded_rng(0x41);
    for (w, h) in SIZES {
        let ranges: [(u8, u8); 3] = [(0, 255), (100, 110), (37, 38)];
        for (lo, hi) in ranges {
            let input = Buffer::from_fn(&[0, 0], &[w, h], |_| rng.random_range(lo..=hi));
            let context =
                format!("{w}x{h} input in {lo}..={hi}, seed {seed} (TESSERA_SEED={seed})");
            check(input, &context);
        }
    }
}

#[test]
fn random_shapes_and_value_ranges() {
    let (seed, mut rng) = seeded_rng(0x43);
    for _ in 0..25 {
        let (w, h) = (rng.random_range(1..=48), rng.random_range(1..=48));
        let lo = rng.random_range(0..=255u8);
        let hi = rng.random_range(lo..=255u8);
        let input = Buffer::from_fn(&[0, 0], &[w, h], |_| rng.random_range(lo..=hi));
        let context = format!("{w}x{h} input in {lo}..={hi}, seed {seed} (TESSERA_SEED={seed})");
        check(input, &context);
    }
}

#[test]
fn constant_and_extreme_images() {
    for v in [0u8, 77, 255] {
        check(
            Buffer::from_fn(&[0, 0], &[9, 4], |_| v),
            &format!("constant {v}"),
        );
    }
    check(
        Buffer::from_fn(&[0, 0], &[6, 6], |c| {
            if (c[0] + c[1]) % 2 == 0 {
                0
            } else {
                255
            }
        }),
        "checkerboard of 0 and 255",
    );
}

#[test]
fn shifted_input_mins() {
    let (seed, mut rng) = seeded_rng(0x42);
    let input =
        Buffer::from_fn(&[0, 0], &[7, 5], |_| rng.random_range(0..=255u8)).translated(&[4, -2]);
    check(input, &format!("input mins (4, -2), seed {seed}"));
}

#[test]
fn built_in_test_image() {
    let input = Histeq.default_inputs(20, 12).expect("the default input");
    let got = Histeq.evaluate(&input, &[]).expect("histeq evaluates");
    assert_same_image(
        &got,
        &Histeq.reference(&input, &[]).expect("reference"),
        "default input",
    );
}
