//! Halide's `test/correctness/undef.cpp`: Fibonacci over a pure definition of 0 and over an
//! `undef` pure definition whose first two points are set by updates (`f2(0) = 0; f2(1) = 0`)
//! must agree over the 102 points the recurrence writes (both are 0 everywhere, since the
//! recurrence starts from two zeros). Halide's last case — a Tuple whose pure definition is
//! `Tuple(undef, sin(x))`, ping-ponged between its elements by updates each leaving the other
//! element undef — reads element 0 where nothing wrote it (Halide's test checks no value,
//! only that it runs); here it is realized into a buffer holding 0 there and checked against
//! plain Rust.

use crate::lower_common::{check, check_in_place, TestInputs};
use tessera::prelude::*;

/// `f(r) = f(r - 1) + f(r - 2)` for r in [2, 102) over the given first definitions of `f`.
fn fibonacci(name: &str, define: impl Fn(&Func, Var)) -> Vec<i32> {
    let x = Var::new("x");
    let f = Func::new(name);
    define(&f, x);
    let r = RDom::new([(2, 100)]);
    f.update(r.x(), f.at(r.x() - 1) + f.at(r.x() - 2)).unwrap();
    let run = check(&f, &TestInputs::new(), &[0], &[102]);
    let AnyBuffer::I32(out) = &run.realization.buffers[0] else {
        panic!("{name} is i32");
    };
    (0..102).map(|i| out.get(&[i])).collect()
}

#[test]
fn fibonacci_over_an_undef_pure_definition() {
    let fib1 = fibonacci("f1", |f, x| f.define(x, 0).unwrap());
    let fib2 = fibonacci("f2", |f, x| {
        f.define(x, undef::<i32>()).unwrap();
        f.update(0, 0).unwrap();
        f.update(1, 0).unwrap();
    });
    let mut reference = vec![0i32; 102];
    for i in 2..102 {
        reference[i] = reference[i - 1].wrapping_add(reference[i - 2]);
    }
    assert_eq!(fib1, reference);
    assert_eq!(fib2, fib1);
}

#[test]
fn a_tuple_ping_ponging_between_undef_elements() {
    // f3(x) = {undef, sin(x)}; ten times f3(r) = {f3[0] + f3[1] + f3(left)[1] + f3(right)[1],
    // undef}, then f3(r) = {undef, f3[1] + f3[0] + f3(left)[0] + f3(right)[0]}.
    let x = Var::new("x");
    let f = Func::new("f3");
    f.define(x, Tuple(vec![undef::<f32>(), sin(cast(Type::f32(), x))]))
        .unwrap();
    let r = RDom::new([(0, 100)]);
    let (left, right) = (max(r.x() - 1, 0), min(r.x() + 1, 99));
    let at = |p: Expr, i| f.value_at(p, i);
    let rx = || Expr::from(r.x());
    for _ in 0..10 {
        let first = at(rx(), 0) + at(rx(), 1) + at(left.clone(), 1) + at(right.clone(), 1);
        f.update(r.x(), Tuple(vec![first, undef::<f32>()])).unwrap();
        let second = at(rx(), 1) + at(rx(), 0) + at(left.clone(), 0) + at(right.clone(), 0);
        f.update(r.x(), Tuple(vec![undef::<f32>(), second]))
            .unwrap();
    }
    // The first update reads element 0 where nothing wrote it (Halide checks no value): it
    // is realized into a buffer holding 0 there.
    let data: Vec<AnyBuffer> = vec![
        Buffer::<f32>::from_fn(&[0], &[100], |_| 0.0).into(),
        Buffer::<f32>::from_fn(&[0], &[100], |_| -1.0).into(),
    ];
    let out = check_in_place(&f, &TestInputs::new(), &data);
    let mut e0 = vec![0.0f32; 100];
    let mut e1: Vec<f32> = (0..100).map(|i| (i as f32).sin()).collect();
    for _ in 0..10 {
        for i in 0..100 {
            let (l, rr) = (i.max(1) - 1, (i + 1).min(99));
            e0[i] = e0[i] + e1[i] + e1[l] + e1[rr];
        }
        for i in 0..100 {
            let (l, rr) = (i.max(1) - 1, (i + 1).min(99));
            e1[i] = e1[i] + e0[i] + e0[l] + e0[rr];
        }
    }
    for (index, reference) in [e0, e1].iter().enumerate() {
        let AnyBuffer::F32(got) = &out[index] else {
            panic!("f32 elements")
        };
        for (i, want) in reference.iter().enumerate() {
            let v = got.get(&[i as i64]);
            assert!(
                (v - want).abs() <= want.abs() * 1e-4,
                "element {index} at {i}: {v} vs {want}"
            );
        }
    }
}
