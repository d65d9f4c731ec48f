//! Halide's `test/correctness/shadowed_bound.cpp`: a producer computed per tile, bounded to
//! 4 channels and unrolled over them, inside a consumer that reads one channel of it at a
//! time and channel 3: the producer's channel loop has the bound from its consumer outside
//! and the constant bound inside, and simplification must use the inner one. Halide only
//! checks that it compiles and runs; here the values are checked. Halide's 1024 x 1024 x 4
//! output is shrunk to 64 x 64 x 4.

use crate::realize;
use tessera::prelude::*;

#[test]
fn a_bound_inside_the_consumers_bound() {
    let (x, y, c) = (Var::new("x"), Var::new("y"), Var::new("c"));
    let f = Func::new("f");
    f.define((x, y, c), x + y + c).unwrap();
    let g = Func::new("g");
    g.define((x, y, c), f.at((x, y, c)) + f.at((x, y, 3)))
        .unwrap();
    g.compute_root().tile_in_place(x, y, "xi", "yi", 32, 32);
    f.compute_at(&g, x).bound(c, 0, 4).unroll_loop(c);
    let run = realize(&g, &[64, 64, 4]);
    crate::assert_i32_output(&run, 0, |p| (p[0] + p[1] + p[2]) + (p[0] + p[1] + 3));
}
