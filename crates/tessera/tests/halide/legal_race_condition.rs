//! Halide's `test/correctness/legal_race_condition.cpp`: updates whose iterations Halide
//! cannot prove independent, parallelized (and vectorized) anyway with
//! `allow_race_conditions`: `f(r / 2) = r / 2`, where two iterations store the same value to
//! each point, and `f(p(r)) = r` for a permutation polynomial `p` of [0, 256). The values are
//! checked as Halide checks them (the first half of f is its index; the second, sorted, is
//! 0..256).
//! The first uses `Stage::allow_race_conditions`, the second `Func::allow_race_conditions`.

use crate::realize;
use tessera::prelude::*;

#[test]
fn a_race_storing_the_same_value() {
    let x = Var::new("x");
    let r = RDom::new([(0, 100)]);
    let f = Func::new("f");
    f.define(x, Expr::from(0)).unwrap();
    f.update(r.x() / 2, r.x() / 2).unwrap();
    f.update_stage(0).allow_race_conditions().parallel(r.x());
    let run = realize(&f, &[100]);
    crate::assert_i32_output(&run, 0, |p| if p[0] < 50 { p[0] } else { 0 });
}

#[test]
fn a_permutation_that_looks_like_a_race() {
    let x = Var::new("x");
    let r = RDom::new([(0, 256)]);
    let permuted = (r.x() * r.x() * 38 + r.x() * 193 + 32) % 256;
    let f = Func::new("f");
    f.define(x, Expr::from(-1)).unwrap();
    f.update(permuted, r.x()).unwrap();
    f.allow_race_conditions();
    f.update_stage(0).vectorize(r.x(), 4).parallel(r.x());
    let run = realize(&f, &[256]);
    let mut values = crate::i32_output(&run, 0).data().to_vec();
    values.sort_unstable();
    assert_eq!(values, (0..256).collect::<Vec<i32>>());
}
