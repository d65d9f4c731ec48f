//! Halide's `test/correctness/inline_reduction.cpp`: the inline reductions `sum`, `product`,
//! `maximum` and `minimum` over a 3x3 window (vectorized, and a separable minimum with two
//! reductions in one pipeline); reductions over the last dimension of a 3-D image with
//! `argmin`/`argmax`; and `minimum`/`maximum` of negative floats and of infinities (the start
//! value must be the type's lowest/highest value, not the smallest positive float).
//! The 3-D cases are written with Halide's implicit `_` arguments (`Var::placeholder()`), in
//! the positions Halide's test puts them, and their values (which Halide's test does not
//! check, only that they compile) are checked too.

use crate::lower_common::{check, Checked, TestInputs};
use tessera::prelude::*;

fn realize(output: &Func, extents: &[i64]) -> Checked {
    let mins = vec![0; extents.len()];
    check(output, &TestInputs::new(), &mins, extents)
}

fn f32_values(run: &Checked) -> &Buffer<f32> {
    match &run.realization.buffers[0] {
        AnyBuffer::F32(b) => b,
        _ => panic!("the output is f32"),
    }
}

fn f64_values(run: &Checked) -> &Buffer<f64> {
    match &run.realization.buffers[0] {
        AnyBuffer::F64(b) => b,
        _ => panic!("the output is f64"),
    }
}

fn input_func(x: Var, y: Var) -> Func {
    let input = Func::new("input");
    input.define((x, y), cast_to::<f32>(x * y + 1)).unwrap();
    input
}

/// The values of the 3x3 window about (x, y): (x + rx)(y + ry) + 1.
fn window(x: i64, y: i64) -> Vec<f32> {
    let mut v = Vec::new();
    for rx in -1..2 {
        for ry in -1..2 {
            v.push(((x + rx) * (y + ry)) as f32 + 1.0);
        }
    }
    v
}

#[test]
fn a_local_variance_from_two_sums() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let input = input_func(x, y);
    let r = RDom::new([(-1, 3), (-1, 3)]);
    let val = input.at((x + r.x(), y + r.y()));
    let mean = sum(val.clone()) / 9.0f32;
    let local_variance = Func::new("local_variance");
    local_variance
        .define(
            (x, y),
            sum(val.clone() * val) / 81.0f32 - mean.clone() * mean,
        )
        .unwrap();
    let run = realize(&local_variance, &[10, 10]);
    let out = f32_values(&run);
    for yy in 0..10 {
        for xx in 0..10 {
            let w = window(xx, yy);
            let mean = w.iter().sum::<f32>() / 9.0;
            let sq = w.iter().map(|v| v * v).sum::<f32>();
            let want = sq / 81.0 - mean * mean;
            let got = out.get(&[xx, yy]);
            assert!(
                (got - want).abs() <= 1e-3,
                "({xx}, {yy}): {got}, not {want}"
            );
        }
    }
}

/// `reduce` of the window about each point (vectorized by 4 if `vectorized`), against
/// `reference`.
fn check_window(
    name: &str,
    reduce: fn(Expr) -> Expr,
    reference: fn(&[f32]) -> f32,
    relative: bool,
    vectorized: bool,
) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let input = input_func(x, y);
    let r = RDom::new([(-1, 3), (-1, 3)]);
    let f = Func::new(name);
    f.define((x, y), reduce(input.at((x + r.x(), y + r.y()))))
        .unwrap();
    if vectorized {
        f.vectorize(x, 4);
    }
    let run = realize(&f, &[10, 10]);
    let out = f32_values(&run);
    for yy in 0..10 {
        for xx in 0..10 {
            let want = reference(&window(xx, yy));
            let got = out.get(&[xx, yy]);
            if relative {
                let ratio = (want + 10.0) / (got + 10.0);
                assert!(
                    (0.99..=1.01).contains(&ratio),
                    "{name}({xx}, {yy}): {got}, not {want}"
                );
            } else {
                assert!(
                    (got - want).abs() <= 1e-3,
                    "{name}({xx}, {yy}): {got}, not {want}"
                );
            }
        }
    }
}

fn product_of(w: &[f32]) -> f32 {
    w.iter().product()
}
fn max_of(w: &[f32]) -> f32 {
    w.iter().copied().fold(-1e10, f32::max)
}
fn min_of(w: &[f32]) -> f32 {
    w.iter().copied().fold(1e10, f32::min)
}

#[test]
fn product_maximum_and_minimum_of_a_window() {
    check_window("local_product", product, product_of, true, false);
    check_window("local_max", maximum, max_of, false, false);
    check_window("local_min", minimum, min_of, false, false);
}

#[test]
fn a_vectorized_product() {
    check_window("local_product", product, product_of, true, true);
}

#[test]
fn a_vectorized_maximum() {
    check_window("local_max", maximum, max_of, false, true);
}

#[test]
fn a_vectorized_minimum() {
    check_window("local_min", minimum, min_of, false, true);
}

#[test]
fn a_separable_minimum_two_reductions_in_one_pipeline() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let input = input_func(x, y);
    let kx = RDom::new([(-1, 3)]);
    let ky = RDom::new([(-1, 3)]);
    let min_x = Func::new("min_x");
    min_x
        .define((x, y), minimum(input.at((x + kx.x(), y))))
        .unwrap();
    let min_y = Func::new("min_y");
    min_y
        .define((x, y), minimum(min_x.at((x, y + ky.x()))))
        .unwrap();
    min_y.vectorize(x, 4);
    let run = realize(&min_y, &[10, 10]);
    let out = f32_values(&run);
    for yy in 0..10 {
        for xx in 0..10 {
            let want = window(xx, yy).into_iter().fold(1e10, f32::min);
            assert_eq!(out.get(&[xx, yy]), want, "min_y({xx}, {yy})");
        }
    }
}

/// The 3-D input of the reductions over z: `x * 100 + y * 10 + (z + 5)`. (Halide writes
/// `z + 5 % 10`, which is `z + 5`.)
fn input_3d_value(x: i64, y: i64, z: i64) -> f32 {
    x as f32 * 100.0 + y as f32 * 10.0 + (z + 5) as f32
}

/// A reduction over z of the 10x10x10 input image, `f(lhs) = reduce(input_3d(lhs, all_z))`
/// with `lhs` holding a placeholder, realized over 10x10, against `reference` applied to the
/// 10 values along z.
fn check_over_z(
    name: &str,
    lhs: &[Var],
    reduce: impl Fn(Expr) -> Expr,
    reference: impl Fn(&[f32]) -> f32,
    ty: Type,
) {
    let image = ImageParam::new(Type::f32(), 3, "input_3d");
    let data = Buffer::<f32>::from_fn(&[0, 0, 0], &[10, 10, 10], |c| {
        input_3d_value(c[0], c[1], c[2])
    });
    let all_z = RDom::new([(image.min(2), image.extent(2))]);
    let mut call: Vec<Expr> = lhs.iter().map(|v| v.expr()).collect();
    call.push(all_z.x().into());
    let f = Func::new(name);
    f.define(lhs, reduce(image.at(call))).unwrap();
    assert_eq!(f.dimensions(), 2);
    let run = check(
        &f,
        &TestInputs::new().image(&image, data),
        &[0, 0],
        &[10, 10],
    );
    for yy in 0..10 {
        for xx in 0..10 {
            let along_z: Vec<f32> = (0..10).map(|z| input_3d_value(xx, yy, z)).collect();
            let want = reference(&along_z);
            let got = match &run.realization.buffers[0] {
                AnyBuffer::F32(b) if ty == Type::f32() => b.get(&[xx, yy]),
                AnyBuffer::I32(b) if ty == Type::i32() => b.get(&[xx, yy]) as f32,
                _ => panic!("{name} has the wrong type"),
            };
            assert_eq!(got, want, "{name}({xx}, {yy})");
        }
    }
}

#[test]
fn reductions_over_the_last_dimension_of_an_image() {
    let (x, y, all) = (Var::new("x"), Var::new("y"), Var::placeholder());
    check_over_z("sum_implicit", &[all], sum, |v| v.iter().sum(), Type::f32());
    check_over_z(
        "product_implicit",
        &[all],
        product,
        |v| v.iter().product(),
        Type::f32(),
    );
    check_over_z(
        "min_implicit",
        &[all],
        minimum,
        |v| v.iter().copied().fold(f32::INFINITY, f32::min),
        Type::f32(),
    );
    check_over_z(
        "max_implicit",
        &[all, y],
        maximum,
        |v| v.iter().copied().fold(f32::NEG_INFINITY, f32::max),
        Type::f32(),
    );
    // The input increases along z: the first minimum is at z = 0, the maximum at z = 9.
    check_over_z(
        "argmin_implicit",
        &[all],
        |e| argmin(e)[0].clone(),
        |_| 0.0,
        Type::i32(),
    );
    check_over_z(
        "argmax_implicit",
        &[x, all],
        |e| argmax(e)[0].clone(),
        |_| 9.0,
        Type::i32(),
    );
}

/// `reduce(r * factor)` over `r` in `[min, min + extent)`, as a zero-dimensional Func.
fn scalar_reduction(reduce: fn(Expr) -> Expr, min: i32, extent: i32, factor: Expr) -> Func {
    let r = RDom::new([(min, extent)]);
    let f = Func::new("scalar");
    f.define((), reduce(r.x().expr() * factor)).unwrap();
    f
}

#[test]
fn the_minimum_of_negative_floats() {
    let f = scalar_reduction(minimum, 0, 11, Expr::from(-0.5f32));
    let run = realize(&f, &[]);
    assert_eq!(f32_values(&run).get(&[]), -5.0);
    let f = scalar_reduction(minimum, 0, 11, cast_to::<f64>(Expr::from(-0.5f32)));
    let run = realize(&f, &[]);
    assert_eq!(f64_values(&run).get(&[]), -5.0);
}

#[test]
fn extrema_of_infinities() {
    let f = scalar_reduction(minimum, 1, 10, Expr::from(f32::INFINITY));
    assert_eq!(f32_values(&realize(&f, &[])).get(&[]), f32::INFINITY);
    let f = scalar_reduction(minimum, 1, 10, Expr::from(f64::INFINITY));
    assert_eq!(f64_values(&realize(&f, &[])).get(&[]), f64::INFINITY);
    let f = scalar_reduction(maximum, 1, 10, Expr::from(f32::NEG_INFINITY));
    assert_eq!(f32_values(&realize(&f, &[])).get(&[]), f32::NEG_INFINITY);
    let f = scalar_reduction(maximum, 1, 10, Expr::from(f64::NEG_INFINITY));
    assert_eq!(f64_values(&realize(&f, &[])).get(&[]), f64::NEG_INFINITY);
}
