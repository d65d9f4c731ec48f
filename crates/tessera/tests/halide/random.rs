//! Halide's `test/correctness/random.cpp`: `random_float()` and `random_int()` — the mean
//! and variance of a random image and of its gradients, the same image from the same seed
//! Param and an independent one from another, the fraction of set bits, and the variance
//! of the sum of one random value with itself and with another. The statistics are of
//! native runs over Halide's 1024 x 1024 images, computed in plain Rust; a 64 x 64 corner of
//! each pipeline is also checked bit for bit against the evaluator and the interpreter.

use crate::lower_common::{check, TestInputs};
use tessera::codegen::target::Target;
use tessera::pipeline::Pipeline;
use tessera::prelude::*;

const SIZE: i64 = 1024;
const TOLERANCE: f64 = 0.01;

/// `f` realized natively over SIZE x SIZE, as f64 values in row-major order (after the
/// 64 x 64 corner is checked against both oracles).
fn realize(f: &Func, inputs: &TestInputs) -> Vec<f64> {
    check(f, inputs, &[0, 0], &[64, 64]);
    let compiled = Pipeline::new(f).compile_jit(&Target::host()).unwrap();
    let out = compiled
        .realize(&inputs.pipeline_inputs(), &[0, 0], &[SIZE, SIZE])
        .unwrap();
    let mut values = Vec::with_capacity((SIZE * SIZE) as usize);
    for y in 0..SIZE {
        for x in 0..SIZE {
            values.push(match &out[0] {
                AnyBuffer::F32(b) => b.get(&[x, y]) as f64,
                AnyBuffer::F64(b) => b.get(&[x, y]),
                AnyBuffer::I32(b) => b.get(&[x, y]) as f64,
                _ => panic!("unexpected output type"),
            });
        }
    }
    values
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

fn variance(v: &[f64]) -> f64 {
    let m = mean(v);
    v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() - 1) as f64
}

fn near(what: &str, got: f64, want: f64) {
    assert!((got - want).abs() <= TOLERANCE, "{what}: {got}, not {want}");
}

#[test]
fn statistics_of_a_random_float_image() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), random_float(&[])).unwrap();
    f.vectorize(x, 4).parallel(y);
    let v = realize(&f, &TestInputs::new());
    let at = |x: i64, y: i64| v[(y * SIZE + x) as usize];
    let (mut dx, mut dy) = (Vec::new(), Vec::new());
    for y in 0..SIZE {
        for x in 0..SIZE {
            dx.push(at(x, y) - at((x + 1) % SIZE, y));
            dy.push(at(x, y) - at(x, (y + 1) % SIZE));
        }
    }
    near("mean", mean(&v), 0.5);
    near("variance", variance(&v), 1.0 / 12.0);
    near("mean of dx", mean(&dx), 0.0);
    near("variance of dx", variance(&dx), 1.0 / 6.0);
    near("mean of dy", mean(&dy), 0.0);
    near("variance of dy", variance(&dy), 1.0 / 6.0);
    assert!(
        v.iter().all(|&r| (0.0..1.0).contains(&r)),
        "values in [0, 1)"
    );
}

#[test]
fn the_same_seed_gives_the_same_image() {
    let seed = Param::<i32>::new("seed");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), cast(Type::f64(), random_float(&[seed.expr()])))
        .unwrap();
    let with_seed = |s: i32| TestInputs::new().param(seed.bind(s));
    let (im1, im2) = (realize(&f, &with_seed(0)), realize(&f, &with_seed(0)));
    let g = Func::new("g");
    g.define((x, y), f.at((x, y))).unwrap();
    let im3 = realize(&g, &with_seed(1));
    let mean_difference = |a: &[f64], b: &[f64]| {
        a.iter().zip(b).map(|(p, q)| (p - q).abs()).sum::<f64>() / a.len() as f64
    };
    assert_eq!(mean_difference(&im1, &im2), 0.0, "one seed, one image");
    near(
        "mean |difference| between seeds",
        mean_difference(&im1, &im3),
        1.0 / 3.0,
    );
}

#[test]
fn half_the_bits_of_random_ints_are_set() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), random_int(&[])).unwrap();
    let v = realize(&f, &TestInputs::new());
    let correct = (SIZE * SIZE * 16) as f64;
    let set_bits: u64 = v.iter().map(|&r| (r as i32).count_ones() as u64).sum();
    near("set bits / half", set_bits as f64 / correct, 1.0);
    // Adjacent bits are uncorrelated.
    let set_bits: u64 = v
        .iter()
        .map(|&r| {
            let r = r as i32;
            (r ^ r.wrapping_mul(2)).count_ones() as u64
        })
        .sum();
    near("set bits of r ^ 2r / half", set_bits as f64 / correct, 1.0);
}

#[test]
fn one_random_expression_is_one_value() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let r1 = cast(Type::f64(), random_float(&[]));
    let r2 = cast(Type::f64(), random_float(&[]));
    let (f, g) = (Func::new("f"), Func::new("g"));
    f.define((x, y), r1.clone() + r1.clone() - 1.0f32).unwrap();
    g.define((x, y), r1 + r2 - 1.0f32).unwrap();
    let second_moment = |v: &[f64]| v.iter().map(|r| r * r).sum::<f64>() / (v.len() - 1) as f64;
    near(
        "variance of r1 + r1",
        second_moment(&realize(&f, &TestInputs::new())),
        1.0 / 3.0,
    );
    near(
        "variance of r1 + r2",
        second_moment(&realize(&g, &TestInputs::new())),
        1.0 / 6.0,
    );
}
