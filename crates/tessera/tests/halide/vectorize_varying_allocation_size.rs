//! Halide's `test/correctness/vectorize_varying_allocation_size.cpp`: a producer computed
//! inside a vectorized loop, where the region it must cover (`[min(x, x² - 20), max(x, x² -
//! 20)]`) varies from lane to lane. Halide checks the first 4 points of a 100-point output;
//! here all 100 are checked.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn a_producer_with_a_region_varying_across_lanes() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, x).unwrap();
    let g = Func::new("g");
    g.define(x, f.at(x) + f.at(x * x - 20)).unwrap();
    g.split(x, "xo", "xi", 4).vectorize_loop("xi");
    f.compute_at(&g, "xi");
    let run = check(&g, &TestInputs::new(), &[0], &[100]);
    let out = crate::i32_values(&run);
    for i in 0..100 {
        assert_eq!(i64::from(out.get(&[i])), i + i * i - 20, "g({i})");
    }
}
