//! Halide's `test/correctness/compute_with_in.cpp`: a per-consumer wrapper of a Func
//! (`one.in(three)`) computed at root in the loops of another Func (`compute_with(two,
//! Var::outermost())`), while the wrapped Func is computed at two's outermost level. Halide
//! only checks that it runs over 64 x 64; here the values are checked with plain Rust.
//!
//! Both Halide's form (`Var::outermost()`, with `one` computed at two's outermost level,
//! which the group shares: `one` is computed once for both, where the group is) and one
//! fusing the outermost real loop (y) with `one` at root are run.

use crate::lower_common::Checked;
use crate::{i32_values, realize};
use tessera::prelude::*;

/// `output = two + three`, `two = one + 2`, `three = one + 3` with `one = x + y`; `schedule`
/// gets one, two, one's wrapper for three and y.
fn run(schedule: impl Fn(&Func, &Func, &Func, Var)) -> Checked {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let one = Func::new("one");
    one.define((x, y), x + y).unwrap();
    let two = Func::new("two");
    two.define((x, y), one.at((x, y)) + 2).unwrap();
    let three = Func::new("three");
    three.define((x, y), one.at((x, y)) + 3).unwrap();
    let output = Func::new("output");
    output
        .define((x, y), two.at((x, y)) + three.at((x, y)))
        .unwrap();
    two.compute_root();
    let wrapper = one.in_(&three);
    schedule(&one, &two, &wrapper, y);
    realize(&output, &[64, 64])
}

fn assert_values(run: &Checked) {
    let out = i32_values(run);
    for yy in 0..64 {
        for xx in 0..64 {
            assert_eq!(
                i64::from(out.get(&[xx, yy])),
                2 * (xx + yy) + 5,
                "at ({xx}, {yy})"
            );
        }
    }
}

#[test]
fn a_wrapper_computed_with_another_func() {
    let run = run(|one, two, wrapper, y| {
        wrapper.compute_root().compute_with(two, y);
        one.compute_root();
    });
    assert_values(&run);
}

#[test]

fn at_var_outermost() {
    let run = run(|one, two, wrapper, _| {
        wrapper.compute_root().compute_with(two, Var::outermost());
        one.compute_at(two, Var::outermost());
    });
    assert_values(&run);
}
