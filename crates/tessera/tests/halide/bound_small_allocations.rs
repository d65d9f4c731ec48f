//! Halide's `test/correctness/bound_small_allocations.cpp`: a chain of 64-bit products
//! shifted and clamped back to 32 bits, whose constant folding overflowed in Halide's
//! simplifier while bounding small allocations (a vectorized, compute-root output). Halide
//! only checks that it compiles and runs; here the values are checked with plain Rust.

use crate::{i32_values, realize};
use tessera::prelude::*;

/// `(a * a + 2^30) >> 31` computed in 64 bits, clamped to i32.
fn calc(a: Expr) -> Expr {
    let prod = cast_to::<i64>(a.clone()) * cast_to::<i64>(a);
    let scaled = (prod + (1 << 30)) >> 31;
    cast_to::<i32>(clamp(scaled, i32::MIN, i32::MAX))
}

fn calc_value(a: i64) -> i64 {
    ((a * a + (1 << 30)) >> 31).clamp(i64::from(i32::MIN), i64::from(i32::MAX))
}

#[test]
fn simplifying_an_overflowing_chain() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), calc(max(x + (1 << 28), -(1 << 29) + (1 << 28))))
        .unwrap();
    let g = Func::new("g");
    g.define((x, y), calc(f.at((x, y))) + f.at((x, y)) / 4 + (1 << 30))
        .unwrap();
    let h = Func::new("h");
    h.define((x, y), calc(g.at((x, y))) + g.at((x, y)) / 4 + (1 << 30))
        .unwrap();
    h.vectorize(x, 8).compute_root();
    let run = realize(&h, &[32, 32]);
    let out = i32_values(&run);
    for yy in 0..32 {
        for xx in 0..32i64 {
            let f = calc_value((xx + (1 << 28)).max(-(1 << 29) + (1 << 28)));
            let g = calc_value(f) + f / 4 + (1 << 30);
            let h = calc_value(g) + g / 4 + (1 << 30);
            assert_eq!(i64::from(out.get(&[xx, yy])), h, "at ({xx}, {yy})");
        }
    }
}
