//! Halide's `test/correctness/tuple_vector_reduce.cpp`: Tuple-valued associative reductions
//! into a zero-dimensional Func, vectorized (and parallelized) over the RDom with
//! `atomic()`: the sums of `(r, 2r)` for r in [1, 100], and the product of 50 unit complex
//! numbers `(cos r, sin r)`. Halide checks the values (and, for the sums, that the code has
//! horizontal vector reductions and atomics without a mutex; here the values, the sums'
//! elements each reduced horizontally, the product's lanes updated in turn since its
//! elements read each other), and the same reductions are checked serially.

use crate::lower_common::{check, Checked, TestInputs};
use tessera::prelude::*;

fn pair_sum() -> (Func, RDom) {
    let x = Var::new("x");
    let input = Func::new("in");
    input.define(x, Tuple(vec![x.expr(), 2 * x])).unwrap();
    input.compute_root();
    let f = Func::new("f");
    f.define((), Tuple(vec![Expr::from(0), Expr::from(0)]))
        .unwrap();
    let r = RDom::new([(1, 100)]);
    f.update(
        (),
        Tuple(vec![
            f.value_at((), 0) + input.value_at(r.x(), 0),
            f.value_at((), 1) + input.value_at(r.x(), 1),
        ]),
    )
    .unwrap();
    (f, r)
}

fn check_pair_sum(run: &Checked) {
    let got: Vec<i64> = run
        .realization
        .buffers
        .iter()
        .map(|b| b.get_value(&[]).as_f64() as i64)
        .collect();
    assert_eq!(got, vec![100 * 101 / 2, 100 * 101]);
}

fn complex_product() -> (Func, RDom) {
    let x = Var::new("x");
    let input = Func::new("in");
    let xf = cast_to::<f32>(x);
    input
        .define(x, Tuple(vec![cos(xf.clone()), sin(xf)]))
        .unwrap();
    input.compute_root();
    let f = Func::new("f");
    f.define((), Tuple(vec![Expr::from(1.0f32), Expr::from(0.0f32)]))
        .unwrap();
    let r = RDom::new([(1, 50)]);
    let (ar, ai) = (f.value_at((), 0), f.value_at((), 1));
    let (br, bi) = (input.value_at(r.x(), 0), input.value_at(r.x(), 1));
    f.update(
        (),
        Tuple(vec![
            ar.clone() * br.clone() - ai.clone() * bi.clone(),
            ar * bi + br * ai,
        ]),
    )
    .unwrap();
    (f, r)
}

fn check_complex_product(run: &Checked) {
    let [a, b] = [0, 1].map(|i| run.realization.buffers[i].get_value(&[]).as_f64());
    let magnitude = a * a + b * b;
    assert!(
        magnitude > 0.9 && magnitude < 1.1,
        "should have magnitude one: {a} + {b}i"
    );
    // The product of e^{ir} for r in [1, 50] is e^{i 1275}.
    let angle = 1275.0f64;
    assert!((a - angle.cos()).abs() < 1e-3 && (b - angle.sin()).abs() < 1e-3);
}

#[test]
fn a_tuple_sum_serially() {
    let (f, _) = pair_sum();
    check_pair_sum(&check(&f, &TestInputs::new(), &[], &[]));
}

#[test]
fn a_tuple_sum_vectorized_and_parallel() {
    let (f, r) = pair_sum();
    f.update_stage(0)
        .atomic()
        .vectorize(r.x(), 8)
        .parallel(r.x());
    check_pair_sum(&check(&f, &TestInputs::new(), &[], &[]));
}

#[test]
fn a_complex_product_serially() {
    let (f, _) = complex_product();
    check_complex_product(&check(&f, &TestInputs::new(), &[], &[]));
}

#[test]
fn a_complex_product_vectorized() {
    let (f, r) = complex_product();
    f.update_stage(0).atomic().vectorize(r.x(), 8);
    check_complex_product(&check(&f, &TestInputs::new(), &[], &[]));
}
