//! Halide's `test/correctness/memoize_cloned.cpp`: a copy of a memoized Func made by
//! `clone_in` shares the cache entries of the Func it copies, so f computed per row of one
//! consumer is found in the cache per row of another. Halide counts the calls of an extern
//! in f; here f prints each point it computes.

use crate::memoize::{counted, Counts};
use tessera::prelude::*;

#[test]
fn a_clone_reuses_the_rows_its_original_computed() {
    let counts = Counts::default();
    let (f, g, h) = (Func::new("f"), Func::new("g"), Func::new("h"));
    let (x, y) = (Var::new("x"), Var::new("y"));
    f.define((x, y), counted(x, "count")).unwrap();
    g.define((x, y), f.at((x, y)) * 2).unwrap();
    h.define((x, y), f.at((x, y)) + g.at((x, y))).unwrap();
    h.compute_root();
    g.compute_root();
    f.clone_in(&h).compute_at(&h, y).memoize();
    f.compute_at(&g, y).memoize();
    h.bound(x, 0, 1024).bound(y, 0, 32);
    let c = Pipeline::new(&h).compile_jit(&Target::host()).unwrap();
    let inputs = Inputs::new().custom_print(counts.handler());
    let out = c.realize_as::<i32>(&inputs, &[0, 0], &[1024, 32]).unwrap();
    for j in 0..32 {
        for i in 0..1024 {
            assert_eq!(out.get(&[i, j]), 3 * i as i32);
        }
    }
    assert_eq!(counts.of("count"), 1024 * 32);
}
