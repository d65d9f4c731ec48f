//! Halide's `test/correctness/bounds_of_func.cpp`: the values a compute-root Func can take
//! bound the region of an input it indexes — a clamp to [10, 20], a clamp to a Param's
//! value, a chain of three calls of `max(min(x, 100) - 10, 0)`, and 20 Tuple stages each
//! combining the previous stage's two elements (which must not take exponential time).
//! Halide infers the input's bounds for a 1024-point output and checks them; here the input
//! given covers exactly that region (so Tessera must need no more) and the values are checked
//! with plain Rust. The input is i32 where Halide's is f32 (the type does not matter).
//!
//! Tessera clamps a Func value used as a coordinate to the values the Func can take
//! (`lower::clamp_func_values`), which bounds the region read.

use crate::check_input_region;
use crate::lower_common::TestInputs;
use tessera::prelude::*;

const OUTPUT: (i64, i64) = (0, 1024);

fn input() -> ImageParam {
    ImageParam::new(Type::i32(), 1, "in")
}

/// `g(x) = in(f(x))` with `f(x) = clamp(x, 10, hi)` computed at root: the input is needed
/// over [10, 20] when `hi` is 20.
fn clamped_by_a_func(hi: Expr, inputs: TestInputs) {
    let x = Var::new("x");
    let input = input();
    let f = Func::new("f");
    f.define(x, clamp(x, 10, hi)).unwrap();
    f.compute_root();
    let g = Func::new("g");
    g.define(x, input.at(f.at(x))).unwrap();
    check_input_region(&g, &input, inputs, OUTPUT, (10, 11), |x| x.clamp(10, 20));
}

#[test]
fn a_clamped_func_bounds_the_input() {
    clamped_by_a_func(Expr::from(20), TestInputs::new());
}

#[test]
fn a_clamp_to_a_param() {
    let p = Param::<i32>::new("p");
    clamped_by_a_func(p.expr(), TestInputs::new().param(p.bind(20)));
}

#[test]
fn transitively_through_three_calls() {
    let x = Var::new("x");
    let input = input();
    let f = Func::new("f");
    f.define(x, min(x, 100)).unwrap();
    f.compute_root();
    let g = Func::new("g");
    g.define(x, max(f.at(x) - 10, 0)).unwrap();
    g.compute_root();
    let h = Func::new("h");
    h.define(x, input.at(g.at(g.at(g.at(x))))).unwrap();
    let g_value = |x: i64| (x.min(100) - 10).max(0);
    check_input_region(&h, &input, TestInputs::new(), OUTPUT, (0, 91), |x| {
        g_value(g_value(g_value(x)))
    });
}

#[test]
fn twenty_tuple_stages() {
    let x = Var::new("x");
    let input = input();
    let first = Func::new("f0");
    first
        .define(x, Tuple(vec![clamp(x, 0, 2), clamp(x, 1, 3)]))
        .unwrap();
    first.compute_root();
    let last = (1..20).fold(first, |prev, i| {
        let f = Func::new(&format!("f{i}"));
        let (a, b) = (prev.value_at(x, 0), prev.value_at(x, 1));
        f.define(x, Tuple(vec![a.clone() + b.clone(), b - a]))
            .unwrap();
        f.compute_root();
        f
    });
    let h = Func::new("h");
    h.define(x, input.at(last.value_at(x, 0) + last.value_at(x, 1)))
        .unwrap();
    let index = |x: i64| {
        let (a, b) = (1..20).fold((x.clamp(0, 2), x.clamp(1, 3)), |(a, b), _| (a + b, b - a));
        a + b
    };
    check_input_region(
        &h,
        &input,
        TestInputs::new(),
        OUTPUT,
        (-1049600, 2097153),
        index,
    );
}
