//! Halide's `test/correctness/force_onto_stack.cpp`: `bound_extent(x, 8)` on a producer
//! computed per iteration of a split by a Param (or by 8 with a GuardWithIf or
//! PredicateLoads tail, whose last iteration needs fewer points) gives it a constant-size
//! allocation (Halide checks there is no heap allocation), and a split needing more than 8
//! points (p = 10) is a run-time error naming the bound. Here the allocation must be at most
//! 8 elements, the error must be reported, and the values are checked with plain Rust.
//!
//! Tessera has no allocator hooks and does not choose between stack and heap: that the
//! allocation has a constant size of 8 elements is what is checked instead of Halide's
//! custom malloc never being called.

use crate::lower_common::{check, try_check, TestInputs};
use tessera::lang::schedule::TailStrategy;
use tessera::prelude::*;

/// `g(x) = f(x) = x` with g split by `factor` (and `tail`) and f computed per split.
fn split_producer(factor: Expr, tail: TailStrategy) -> (Func, Func, Var) {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, x).unwrap();
    let g = Func::new("g");
    g.define(x, f.at(x)).unwrap();
    g.split_with_tail(x, "xo", "xi", factor, tail);
    f.compute_at(&g, "xo");
    (f, g, x)
}

fn assert_on_the_stack(g: &Func, inputs: &TestInputs) {
    let run = check(g, inputs, &[0], &[20]);
    let out = crate::i32_values(&run);
    for i in 0..20 {
        assert_eq!(i64::from(out.get(&[i])), i, "at {i}");
    }
    let elements = run.allocation("f");
    assert!(
        elements <= 8,
        "f allocates {elements} elements, Halide's bound 8"
    );
}

#[test]
fn a_split_by_a_param_within_the_bound() {
    let p = Param::<i32>::new("p");
    let (f, g, x) = split_producer(p.expr(), TailStrategy::Auto);
    f.bound_extent(x, 8);
    f.vectorize_loop(x);
    assert_on_the_stack(&g, &TestInputs::new().param(p.bind(5)));
    let err = try_check(&g, &TestInputs::new().param(p.bind(10)), &[0], &[20])
        .err()
        .expect("a split of 10 needs 10 points of f, bounded to 8");
    assert!(err.contains("f.bound_extent(x, ..)"), "{err}");
}

#[test]
fn guarded_tails_within_the_bound() {
    for tail in [TailStrategy::GuardWithIf, TailStrategy::PredicateLoads] {
        let (f, g, x) = split_producer(Expr::from(8), tail);
        f.bound_extent(x, 8);
        assert_on_the_stack(&g, &TestInputs::new());
    }
}
