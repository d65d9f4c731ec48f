//! Halide's `test/correctness/vectorize_mixed_widths.cpp`: a producer split by 16 and
//! vectorized by 8 within it (then unrolled), computed per vector of a consumer vectorized by
//! 16: `g(x) = f(x) / 2` with `f(x) = 2x` must give `x`.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn a_producer_of_half_width_vectors() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, 2 * x).unwrap();
    let g = Func::new("g");
    g.define(x, f.at(x) / 2).unwrap();
    f.compute_at(&g, x)
        .split(x, "xo", "xi", 16)
        .vectorize("xi", 8)
        .unroll_loop("xi");
    g.compute_root().vectorize(x, 16);
    let run = check(&g, &TestInputs::new(), &[0], &[16]);
    let out = crate::i32_values(&run);
    for i in 0..16 {
        assert_eq!(out.get(&[i]), i as i32, "g({i})");
    }
}
