//! Halide's `test/correctness/bool_compute_root.cpp`: a bool-valued Func computed at the root
//! and read, eight lanes at a time, by a vectorized compute_root consumer; the sum of the
//! consumer over 100 x 100 is the number of points with x < y, 4950.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn a_bool_func_read_by_a_vectorized_consumer() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let pred = Func::new("pred");
    pred.define((x, y), x.lt(y)).unwrap();
    let selector = Func::new("selector");
    selector
        .define((x, y), select(pred.at((x, y)), 1, 0))
        .unwrap();
    pred.compute_root();
    selector.compute_root().vectorize(x, 8);
    let range = RDom::new([(0, 100), (0, 100)]);
    let total = Func::new("total");
    total
        .define((), sum(selector.at((range.x(), range.y()))))
        .unwrap();
    let run = check(&total, &TestInputs::new(), &[], &[]);
    let AnyBuffer::I32(out) = &run.realization.buffers[0] else {
        panic!("the sum is i32");
    };
    let want = (0..100)
        .flat_map(|y| (0..100).map(move |x| (x < y) as i32))
        .sum::<i32>();
    assert_eq!(want, 4950);
    assert_eq!(out.get(&[]), want);
}
