//! Halide's `test/correctness/dead_realization_in_specialization.cpp`: in a specialization
//! of the output (`min == 0 && extent == 5` in x) a producer computed per row is not needed
//! at all (`select(x > 10, f, g)` never takes f), but its realization is still there until
//! bounds inference runs, which must not confuse allocation bounds. Halide only checks that
//! it compiles; here both branches run (5 and 20 points wide) and the values are checked
//! with plain Rust.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn a_producer_unused_in_a_specialization() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x + y).unwrap();
    let g = Func::new("g");
    g.define((x, y), x + y).unwrap();
    let output = Func::new("output");
    output
        .define((x, y), select(x.gt(10), f.at((x, y)), g.at((x, y))))
        .unwrap();
    f.compute_at(&output, y);
    g.compute_at(&output, y);
    output.specialize(
        output
            .output_min(0)
            .eq_(0)
            .and(output.output_extent(0).eq_(5)),
    );
    for width in [5, 20] {
        let run = check(&output, &TestInputs::new(), &[0, 0], &[width, 8]);
        let out = crate::i32_values(&run);
        for yy in 0..8 {
            for xx in 0..width {
                assert_eq!(i64::from(out.get(&[xx, yy])), xx + yy, "at ({xx}, {yy})");
            }
        }
    }
}
