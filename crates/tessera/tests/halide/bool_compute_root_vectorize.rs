//! Halide's `test/correctness/bool_compute_root_vectorize.cpp`: the pipeline of
//! `bool_compute_root` (a compute_root bool Func read by a vectorized compute_root consumer,
//! summed over 100 x 100 to 4950), which Halide also runs on a GPU target (left out here).
//! Besides Halide's vector width of 8 for the consumer, this tries widths 4 and 16 and the
//! bool producer vectorized too, so that bool vectors are stored as well as loaded.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

fn count_below_diagonal(consumer_width: i32, producer_width: Option<i32>) -> i32 {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let pred = Func::new("pred");
    pred.define((x, y), x.lt(y)).unwrap();
    let selector = Func::new("selector");
    selector
        .define((x, y), select(pred.at((x, y)), 1, 0))
        .unwrap();
    pred.compute_root();
    if let Some(w) = producer_width {
        pred.vectorize(x, w);
    }
    selector.compute_root().vectorize(x, consumer_width);
    let range = RDom::new([(0, 100), (0, 100)]);
    let total = Func::new("total");
    total
        .define((), sum(selector.at((range.x(), range.y()))))
        .unwrap();
    let run = check(&total, &TestInputs::new(), &[], &[]);
    let AnyBuffer::I32(out) = &run.realization.buffers[0] else {
        panic!("the sum is i32");
    };
    out.get(&[])
}

fn reference() -> i32 {
    let want = (0..100)
        .flat_map(|y| (0..100).map(move |x| (x < y) as i32))
        .sum::<i32>();
    assert_eq!(want, 4950);
    want
}

#[test]
fn loads_of_eight_bools() {
    assert_eq!(count_below_diagonal(8, None), reference());
}

#[test]
fn other_widths_and_a_vectorized_bool_producer() {
    for (consumer, producer) in [(4, None), (16, None), (8, Some(8)), (16, Some(4))] {
        assert_eq!(
            count_below_diagonal(consumer, producer),
            reference(),
            "consumer width {consumer}, producer width {producer:?}"
        );
    }
}
