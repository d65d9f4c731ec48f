//! Halide's `test/correctness/autotune_bug_4.cpp`: two producers split by 4 and 5, computed
//! per outer iteration of a consumer split by 6, one of them stored at root. Halide traces
//! the realizations and checks they cover [0, 7); here every access of the run before
//! flattening is checked against the realized box, which is what that guards, and the values
//! with plain Rust.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn producers_split_differently_from_their_consumer() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, x).unwrap();
    let g = Func::new("g");
    g.define(x, f.at(x)).unwrap();
    let h = Func::new("h");
    h.define(x, g.at(x) + g.at(x + 1)).unwrap();
    f.split(x, "xo", "xi", 4);
    g.split(x, "xo", "xi", 5);
    h.split(x, "xo", "xi", 6);
    f.compute_at(&h, "xo");
    g.compute_at(&h, "xo").store_root();
    h.bound(x, 0, 6);
    let run = check(&h, &TestInputs::new(), &[0], &[6]);
    let out = crate::i32_values(&run);
    for i in 0..6 {
        assert_eq!(i64::from(out.get(&[i])), 2 * i + 1, "at {i}");
    }
}
