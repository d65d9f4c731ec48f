//! Halide's `test/correctness/chunk_sharing.cpp`: one producer `a` used by two consumers `b`
//! and `c`, all three computed per row of the output `d = b + c`, over 32 x 32.

use crate::i32_values;
use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn a_producer_shared_by_two_consumers_at_the_same_level() {
    let (x, y, i, j) = (Var::new("x"), Var::new("y"), Var::new("i"), Var::new("j"));
    let a = Func::new("a");
    a.define((i, j), i + j).unwrap();
    let b = Func::new("b");
    b.define((i, j), a.at((i, j)) + 1).unwrap();
    let c = Func::new("c");
    c.define((i, j), a.at((i, j)) * 2).unwrap();
    let d = Func::new("d");
    d.define((x, y), b.at((x, y)) + c.at((x, y))).unwrap();
    c.compute_at(&d, y);
    b.compute_at(&d, y);
    a.compute_at(&d, y);
    let run = check(&d, &TestInputs::new(), &[0, 0], &[32, 32]);
    let out = i32_values(&run);
    for yy in 0..32 {
        for xx in 0..32 {
            let a = xx + yy;
            let (b, c) = (a + 1, a * 2);
            assert_eq!(out.get(&[xx as i64, yy as i64]), b + c, "d({xx}, {yy})");
        }
    }
    // Each Func computes one row per row of d.
    for name in ["a", "b", "c"] {
        assert!(
            run.provides(name) <= 32 * 32,
            "{name}: {}",
            run.provides(name)
        );
    }
}
