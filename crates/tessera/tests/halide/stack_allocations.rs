//! Halide's `test/correctness/stack_allocations.cpp`: two producers computed per 4 x 3 tile
//! of their consumer (vectorized across the tile) need only constant-size storage, which
//! Halide puts on the stack (its test fails on any heap allocation). Tessera does not choose
//! between stack and heap; here each producer's largest allocation must be at most what one
//! tile needs — g: 6 x 5 points for `h = g(x + 1, y + 1) + g(x - 1, y - 1)`, f: 8 x 7 for
//! `g = f(x - 1, y + 1) * f(x + 1, y - 1)` — and the output is checked with plain Rust.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn producers_per_tile_have_constant_size_storage() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x + y).unwrap();
    let g = Func::new("g");
    g.define((x, y), f.at((x - 1, y + 1)) * f.at((x + 1, y - 1)))
        .unwrap();
    let h = Func::new("h");
    h.define((x, y), g.at((x + 1, y + 1)) + g.at((x - 1, y - 1)))
        .unwrap();
    f.compute_at(&h, x);
    g.compute_at(&h, x);
    h.tile_in_place(x, y, "xi", "yi", 4, 3).vectorize_loop("xi");
    let run = check(&h, &TestInputs::new(), &[0, 0], &[10, 10]);
    let out = crate::i32_values(&run);
    let fv = |x: i64, y: i64| x + y;
    let gv = |x: i64, y: i64| fv(x - 1, y + 1) * fv(x + 1, y - 1);
    for yy in 0..10 {
        for xx in 0..10 {
            let want = gv(xx + 1, yy + 1) + gv(xx - 1, yy - 1);
            assert_eq!(i64::from(out.get(&[xx, yy])), want, "at ({xx}, {yy})");
        }
    }
    assert!(
        run.allocation("g") <= 6 * 5,
        "g allocates {}",
        run.allocation("g")
    );
    assert!(
        run.allocation("f") <= 8 * 7,
        "f allocates {}",
        run.allocation("f")
    );
}
