//! Halide's `test/correctness/autotune_bug_3.cpp`: a Func stored at root, computed per x of
//! its consumer and split by 8 (more than the 2 points the bounded consumer needs). Halide
//! traces f's realization and checks it covers the split (at least 8 points); here every
//! access of the run before flattening is checked against the realized box, which is what
//! that guards, and the values with plain Rust.

use crate::realize_split_producer_stored_at_root;
use tessera::prelude::*;

#[test]
fn a_split_producer_stored_at_root() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, x).unwrap();
    let run = realize_split_producer_stored_at_root(&f);
    let out = crate::i32_values(&run);
    for i in 0..2 {
        assert_eq!(i64::from(out.get(&[i])), 2 * i + 1, "at {i}");
    }
}
