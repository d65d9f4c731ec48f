//! Halide's `test/correctness/align_bounds.cpp`: `align_bounds(x, 2)` (and with an offset
//! of one) rounds the region of an intermediate Func outwards to even (odd) bounds so its
//! unrolled select folds away, `align_extent(x, 32)` rounds only the extent, strided loads
//! of every alignment of a vectorized, rounded-up consumer, and `align_bounds` on an output
//! whose buffer does not satisfy it is a run-time error. Halide traces the realized bounds of
//! the aligned Func and checks the lowered code has no select; here the values are checked
//! with plain Rust and the aligned Func's allocation against the extent Halide traces.
//!
//! The strided-loads case (which Halide only checks does not crash) checks values over
//! 128 points instead of 1024. The select check is left out (it inspects Halide's IR).

use crate::lower_common::{check, TestInputs};
use tessera::codegen::target::Target;
use tessera::lang::schedule::TailStrategy;
use tessera::pipeline::{Inputs, Pipeline};
use tessera::prelude::*;

/// `g(x) = select(x % 2 == 0, f(x + 1), f(x - 1) + 8)` with `f(x) = 3`, both computed at
/// root, and `h(x) = g(x - p) + g(x + p)`: h is 22 at even x and 6 at odd x.
fn select_on_parity() -> (Func, Func, Var, Param<i32>) {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, 3).unwrap();
    let g = Func::new("g");
    g.define(x, select((x % 2).eq_(0), f.at(x + 1), f.at(x - 1) + 8))
        .unwrap();
    let p = Param::<i32>::new("p");
    let h = Func::new("h");
    h.define(x, g.at(x - p.expr()) + g.at(x + p.expr()))
        .unwrap();
    f.compute_root();
    g.compute_root();
    (g, h, x, p)
}

/// Realizes h over [0, 10) for each `(p, extent Halide traces for g)`, checking the values
/// and that g's allocation is at most that extent.
fn check_parity_values(h: &Func, p: &Param<i32>, halide_extents: &[(i32, u64)]) {
    for &(p_value, extent) in halide_extents {
        let run = check(h, &TestInputs::new().param(p.bind(p_value)), &[0], &[10]);
        let out = crate::i32_values(&run);
        for i in 0..10 {
            // g(x - p) and g(x + p) share the parity of x + p: 3 + 3 when even, 11 + 11 when odd.
            let correct = if (i + i64::from(p_value)) % 2 == 0 {
                6
            } else {
                22
            };
            assert_eq!(out.get(&[i]), correct, "p = {p_value}, at {i}");
        }
        let g = run.allocation("g");
        assert!(
            g <= extent,
            "p = {p_value}: g allocates {g}, Halide {extent}"
        );
    }
}

/// g aligned by `align` and unrolled by 2, checked as `check_parity_values` does.
fn aligned_and_unrolled(align: impl Fn(&Func, Var), halide_extents: &[(i32, u64)]) {
    let (g, h, x, p) = select_on_parity();
    align(&g, x);
    g.unroll(x, 2);
    check_parity_values(&h, &p, halide_extents);
}

#[test]
fn aligned_to_even_bounds() {
    // Halide: [-4, 14), then the same for p = 4, then [-6, 16).
    aligned_and_unrolled(
        |g, x| {
            g.align_bounds(x, 2);
        },
        &[(3, 18), (4, 18), (5, 22)],
    );
}

#[test]
fn aligned_to_odd_bounds() {
    aligned_and_unrolled(
        |g, x| {
            g.align_bounds_with_remainder(x, 2, 1);
        },
        &[(3, 16), (4, 20), (5, 20)],
    );
}

#[test]
fn aligned_extent() {
    let (g, h, x, p) = select_on_parity();
    g.align_extent(x, 32);
    check_parity_values(&h, &p, &[(3, 32), (4, 32), (5, 32)]);
}

#[test]
fn strided_loads_of_every_alignment() {
    const N: i64 = 128;
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, x).unwrap();
    let e = (-32..=32).fold(Expr::from(0), |e, i| e + f.at(x * 3 + i));
    let g = Func::new("g");
    g.define(x, e).unwrap();
    f.compute_root();
    g.bound(x, 0, N as i32)
        .vectorize_with_tail(x, 16, TailStrategy::RoundUp);
    let run = check(&g, &TestInputs::new(), &[0], &[N]);
    let out = crate::i32_values(&run);
    for i in 0..N {
        let correct: i64 = (-32..=32).map(|k| 3 * i + k).sum();
        assert_eq!(i64::from(out.get(&[i])), correct, "at {i}");
    }
}

#[test]
fn an_aligned_output_into_a_misaligned_buffer_is_an_error() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, x).unwrap();
    f.align_bounds_with_remainder(x, 8, 4);
    // Realizing into a fixed buffer over [0, 10) must fail rather than write outside it.
    let compiled = Pipeline::new(&f)
        .compile_jit(&Target::host().with_bounds_checks(true))
        .unwrap();
    let mut out = vec![AnyBuffer::from(Buffer::<i32>::new(&[10]))];
    let result = compiled.realize_into(&Inputs::new(), &mut out);
    let message = result
        .err()
        .map(|e| e.to_string())
        .unwrap_or_else(|| panic!("an output violating align_bounds was accepted"));
    assert!(
        message.contains("f.align_bounds(x, 8, 4): the output buffer must start at 4 modulo 8"),
        "{message}"
    );
    // A buffer over [4, 20) satisfies it.
    let mut aligned = vec![AnyBuffer::from(Buffer::<i32>::with_mins(&[4], &[16]))];
    compiled.realize_into(&Inputs::new(), &mut aligned).unwrap();
    let AnyBuffer::I32(values) = &aligned[0] else {
        panic!("the output is i32");
    };
    assert!((4..20).all(|i| values.get(&[i]) == i as i32));
}
