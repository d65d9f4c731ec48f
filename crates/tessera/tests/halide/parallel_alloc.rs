//! Halide's `test/correctness/parallel_alloc.cpp`: a producer computed per row of a
//! consumer whose rows run in parallel, so each parallel iteration allocates its own copy.
//! Halide realizes it 20 times (twice each); here each run is checked under several
//! parallel orders, five times over.

use crate::realize;
use tessera::prelude::*;

#[test]
fn an_allocation_inside_a_parallel_loop() {
    for _ in 0..5 {
        let (x, y) = (Var::new("x"), Var::new("y"));
        let g = Func::new("g");
        g.define((x, y), x * y).unwrap();
        let f = Func::new("f");
        f.define((x, y), g.at((x - 1, y)) + g.at((x + 1, y)))
            .unwrap();
        g.compute_at(&f, y);
        f.parallel(y);
        let run = realize(&f, &[8, 8]);
        crate::assert_i32_output(&run, 0, |p| (p[0] - 1) * p[1] + (p[0] + 1) * p[1]);
    }
}
