//! Halide's `test/correctness/concat.cpp`: `h(x) = select(x < 100, f(x), g(x))` over 200
//! points with f and g computed at root: f is needed only where x < 100 and g only where
//! x >= 100, so each is computed over 100 points (Halide counts calls of an extern in each).
//! Here the values are checked with plain Rust, and the points the interpreter counts for f
//! and g must be at most 100 each.

use crate::{i32_values, realize};
use tessera::prelude::*;

#[test]
fn each_side_of_a_select_computed_where_it_is_used() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, x + 1).unwrap();
    let g = Func::new("g");
    g.define(x, x + 2).unwrap();
    let h = Func::new("h");
    h.define(x, select(x.lt(100), f.at(x), g.at(x))).unwrap();
    f.compute_root();
    g.compute_root();
    h.compute_root();
    let run = realize(&h, &[200]);
    let out = i32_values(&run);
    for i in 0..200 {
        let correct = if i < 100 { i + 1 } else { i + 2 };
        assert_eq!(i64::from(out.get(&[i])), correct, "at {i}");
    }
    let (f_points, g_points) = (run.provides("f"), run.provides("g"));
    assert!(
        f_points <= 100 && g_points <= 100,
        "f {f_points}, g {g_points} points, Halide 100 each"
    );
}
