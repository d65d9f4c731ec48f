//! Halide's `test/correctness/early_out.cpp`: an "or" reduction that stops early through an
//! RDom predicate reading the Func being reduced (`ry.where(!test())`), over rows whose
//! wrapper (`test_rows.in()`) is computed at root and, only in a specialization on a Param
//! the rest of the pipeline never reads, split by a Param-dependent factor into parallel
//! slices with the ShiftInwards tail. Halide's test only checks that this compiles (it
//! once hit two compiler bugs); here the pipeline also runs, for several heights and both
//! sides of the specialization, and the output must be 0 (row 0 already passes the test).
//! The update must store once: after it, the predicate is false for every other row.
//! Halide's global wrapper `in()` is written as the wrapper for `test`, its one consumer.

use crate::lower_common::{check, TestInputs};
use tessera::lang::schedule::TailStrategy;
use tessera::prelude::*;

#[test]
fn an_or_reduction_that_stops_at_the_first_true_row() {
    let height = Param::<i32>::new("height");
    let y = Var::new("y");
    let test_rows = Func::new("test_rows");
    test_rows.define(y, y.lt(100)).unwrap();
    let test = Func::new("test");
    test.define((), Expr::from(false)).unwrap();
    let ry = RDom::new([(0, 1024)]);
    ry.where_(!test.at(()));
    test.update((), test_rows.at(ry.x())).unwrap();
    let output = Func::new("output");
    output
        .define((), select(test.at(()), cast_to::<u8>(0), cast_to::<u8>(1)))
        .unwrap();

    let num_slices = (height.expr() + 255) / 256;
    let slice_size = (height.expr() + num_slices.clone() - 1) / num_slices;
    let wrapper = test_rows.in_(&test);
    wrapper.compute_root();
    wrapper
        .specialize(height.expr().gt(slice_size.clone()))
        .split_with_tail(y, y, "yi", slice_size, TailStrategy::ShiftInwards)
        .parallel(y);

    // 1 and 256 fall outside the specialization (one slice), 300 and 1000 inside it.
    for h in [1, 256, 300, 1000] {
        let run = check(&output, &TestInputs::new().param(height.bind(h)), &[], &[]);
        let AnyBuffer::U8(out) = &run.realization.buffers[0] else {
            panic!("output is u8");
        };
        assert_eq!(out.get(&[]), 0, "height {h}");
        // The pure definition and one update; the predicate stops every other row.
        assert_eq!(run.provides("test"), 2, "height {h}");
    }
}

/// The smallest form of the early out: `f() = false`, then `f() = r < 5` for `r` in
/// [0, 10) where `!f()`. The predicate reads `f` itself, so it must be evaluated at every
/// iteration: the first one sets `f` to true and the predicate skips the rest.
#[test]
fn a_predicate_reading_the_func_it_updates_is_evaluated_per_iteration() {
    let f = Func::new("f");
    f.define((), Expr::from(false)).unwrap();
    let r = RDom::new([(0, 10)]);
    r.where_(!f.at(()));
    f.update((), r.x().lt(5)).unwrap();
    let run = check(&f, &TestInputs::new(), &[], &[]);
    let AnyBuffer::Bool(out) = &run.realization.buffers[0] else {
        panic!("f is bool");
    };
    assert!(out.get(&[]), "f() is true after the first iteration");
    assert_eq!(run.provides("f"), 2);
}
