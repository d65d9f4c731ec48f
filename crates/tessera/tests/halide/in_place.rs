//! Halide's `test/correctness/in_place.cpp`: a pipeline that updates its output buffer in
//! place. A Func whose pure definition is `undef` (so the output keeps the data already in
//! the buffer) runs a prefix-sum update over it, compared with the same scan over a copy of
//! the data read from an input image; then a select with `undef` on one side, vectorized,
//! stores only the even points. The in-place runs realize into the data on the evaluator, the
//! interpreter and natively (`check_in_place`).

use crate::lower_common::{check, check_in_place, TestInputs};
use tessera::prelude::*;

fn f32_values(run: &crate::lower_common::Checked) -> &Buffer<f32> {
    match &run.realization.buffers[0] {
        AnyBuffer::F32(b) => b,
        _ => panic!("the output is f32"),
    }
}

#[test]
fn a_prefix_sum_over_a_copy_of_the_data() {
    let input = ImageParam::new(Type::f32(), 1, "reference_in");
    let x = Var::new("x");
    let g = Func::new("g");
    g.define(x, input.at(x)).unwrap();
    let r = RDom::new([(1, 99)]);
    g.update(r.x(), g.at(r.x()) + g.at(r.x() - 1)).unwrap();
    let run = check(&g, &TestInputs::new().image(&input, sines()), &[0], &[100]);
    check_prefix_sum_of_sines(f32_values(&run));
}

/// Halide's check: `out` differs from the prefix sums of sin(0..100) by at most 1e-4 in all.
fn check_prefix_sum_of_sines(out: &Buffer<f32>) {
    let mut reference: Vec<f32> = (0..100).map(|i| (i as f32).sin()).collect();
    for i in 1..100 {
        reference[i] += reference[i - 1];
    }
    let err: f32 = (1..100)
        .map(|i| (out.get(&[i as i64]) - reference[i]).abs())
        .sum();
    assert!(err <= 1e-4, "total error {err}");
}

fn sines() -> Buffer<f32> {
    Buffer::<f32>::from_fn(&[0], &[100], |c| (c[0] as f32).sin())
}

/// `f` realized into the sines, as f32 values.
fn in_place(f: &Func) -> Buffer<f32> {
    let out = check_in_place(f, &TestInputs::new(), &[sines().into()]);
    match &out[0] {
        AnyBuffer::F32(b) => b.clone(),
        other => panic!("{} is f32, not {}", f.name(), other.ty()),
    }
}

#[test]
fn a_prefix_sum_in_place_over_an_undef_pure_definition() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, undef::<f32>()).unwrap();
    let r = RDom::new([(1, 99)]);
    f.update(r.x(), f.at(r.x()) + f.at(r.x() - 1)).unwrap();
    check_prefix_sum_of_sines(&in_place(&f));
}

#[test]
fn a_select_with_undef_stores_only_the_even_points() {
    let x = Var::new("x");
    let h = Func::new("h");
    h.define(x, select((x % 2).eq_(0), 1.0f32, undef::<f32>()))
        .unwrap();
    h.vectorize(x, 4);
    let data = in_place(&h);
    for i in 0..100 {
        let correct = if i % 2 == 0 { 1.0 } else { (i as f64).sin() };
        let got = data.get(&[i]) as f64;
        assert!(
            (got - correct).abs() <= 0.001,
            "data({i}) = {got} instead of {correct}"
        );
    }
}
