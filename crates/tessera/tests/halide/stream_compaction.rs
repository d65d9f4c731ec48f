//! Halide's `test/correctness/stream_compaction.cpp`: the coordinates of the ones of a 0/1
//! Func (multiples of 5 or 7) written in order into `ones` by a scatter to the running count
//! of ones (`ones(clamp(cum_sum(r), 0, 1000)) = select(f(r) == 1, r, undef)`), where
//! `undef` skips the write. Halide parallelizes the scatter's RVar with
//! `allow_race_conditions()` (iterations that store nothing race with none, and each
//! other store goes to its own point); the same scatter is also checked serially.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

/// `ones` over [0, 1001), its update's RDom `r` over [0, 1000).
fn compaction() -> (Func, RDom) {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, select((x % 7).eq_(0).or((x % 5).eq_(0)), 1, 0))
        .unwrap();
    f.compute_root();
    let cum_sum = Func::new("cum_sum");
    cum_sum.define(x, 0).unwrap();
    let r = RDom::new([(0, 1000)]);
    cum_sum
        .update(r.x() + 1, f.at(r.x()) + cum_sum.at(r.x()))
        .unwrap();
    cum_sum.compute_root();
    let ones = Func::new("ones");
    ones.define(x, -1).unwrap();
    let bin = clamp(cum_sum.at(r.x()), 0, 1000);
    ones.update(bin, select(f.at(r.x()).eq_(1), r.x(), undef::<i32>()))
        .unwrap();
    (ones, r)
}

fn check_compaction(ones: &Func) {
    let run = check(ones, &TestInputs::new(), &[0], &[1001]);
    let out = crate::i32_values(&run);
    let coords: Vec<i32> = (0..1000).filter(|i| i % 5 == 0 || i % 7 == 0).collect();
    for i in 0..1001 {
        let want = coords.get(i as usize).copied().unwrap_or(-1);
        assert_eq!(out.get(&[i]), want, "ones({i})");
    }
}

#[test]
fn a_serial_compaction() {
    let (ones, _) = compaction();
    check_compaction(&ones);
}

#[test]
fn a_parallel_compaction() {
    let (ones, r) = compaction();
    ones.update_stage(0)
        .allow_race_conditions()
        .split(r.x(), r.x(), "ri", 50)
        .parallel(r.x());
    check_compaction(&ones);
}
