//! The blur pipeline, evaluated by the definition-level evaluator, equals the plain-Rust
//! reference exactly: 12-bit inputs (the spec's test inputs) of many shapes, full-range u16
//! inputs whose sums wrap, shifted input mins, and the built-in test image.

mod common;

use common::{assert_same_image, seeded_rng};
use rand::Rng;
use tessera::prelude::*;
use tessera_apps::blur::{self, Blur};
use tessera_apps::App;

/// Output sizes: single pixels, single rows and columns, odd and non-square shapes.
const SIZES: [(i64, i64); 8] = [
    (1, 1),
    (1, 4),
    (5, 1),
    (2, 3),
    (7, 4),
    (13, 17),
    (16, 9),
    (33, 6),
];

fn random_input(rng: &mut impl Rng, w: i64, h: i64, max: u16) -> Buffer<u16> {
    Buffer::from_fn(&[0, 0], &[w + 2, h + 2], |_| rng.random_range(0..=max))
}

fn check(input: Buffer<u16>, context: &str) {
    let got = Blur
        .evaluate(&[input.clone().into()], &[])
        .expect("blur evaluates");
    assert_same_image(&got, &blur::reference(&input).into(), context);
}

#[test]
fn twelve_bit_inputs_of_many_shapes() {
    let (seed, mut rng) = seeded_rng(0xb1);
    for (w, h) in SIZES {
        let input = random_input(&mut rng, w, h, 4095);
        check(
            input,
            &format!("{w}x{h} output, seed {seed} (TESSERA_SEED={seed})"),
        );
    }
}

#[test]
fn twelve_bit_inputs_of_random_shapes() {
    let (seed, mut rng) = seeded_rng(0xb4);
    for _ in 0..25 {
        let (w, h) = (rng.random_range(1..=40), rng.random_range(1..=40));
        let input = random_input(&mut rng, w, h, 4095);
        check(
            input,
            &format!("{w}x{h} output, seed {seed} (TESSERA_SEED={seed})"),
        );
    }
}

#[test]
fn full_range_inputs_wrap_in_u16() {
    let (seed, mut rng) = seeded_rng(0xb2);
    for (w, h) in [(3, 2), (6, 5), (11, 7)] {
        let input = random_input(&mut rng, w, h, u16::MAX);
        check(
            input,
            &format!("{w}x{h} output, seed {seed} (TESSERA_SEED={seed})"),
        );
    }
    // Every sum overflows: 3 * 65535 wraps to 65533, so blur_x is 21844 everywhere.
    let saturated = Buffer::from_fn(&[0, 0], &[6, 5], |_| u16::MAX);
    assert!(blur::reference(&saturated)
        .data()
        .iter()
        .all(|&v| v == 21844));
    check(saturated, "all-65535 input");
}

#[test]
fn shifted_input_mins_shift_the_output() {
    let (seed, mut rng) = seeded_rng(0xb3);
    let input = random_input(&mut rng, 6, 4, 4095).translated(&[-3, 5]);
    let got = Blur
        .evaluate(&[input.clone().into()], &[])
        .expect("blur evaluates");
    assert_eq!(
        got.dims().iter().map(|d| d.min).collect::<Vec<_>>(),
        vec![-3, 5]
    );
    assert_same_image(
        &got,
        &blur::reference(&input).into(),
        &format!("seed {seed}"),
    );
}

#[test]
fn built_in_test_image() {
    let input = Blur.default_inputs(24, 10).expect("the default input");
    let got = Blur.evaluate(&input, &[]).expect("blur evaluates");
    assert_same_image(
        &got,
        &Blur.reference(&input, &[]).expect("reference"),
        "default input",
    );
}
