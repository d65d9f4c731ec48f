//! Halide's `test/correctness/partial_realization.cpp`: realizing over a box smaller than
//! the schedule or the definitions write: a histogram whose scatter writes 199 bins,
//! realized over 100 of them, and a Func tiled 16 x 8 with RoundUp, realized over 30 x 20
//! (Halide computes 32 x 24 and returns a crop). Both are checked with their values and
//! the extents of the buffer returned.
//!
//! Differences: the histogram has an explicit pure definition `hist(x) = 0` (Tessera
//! refuses an update without one; Halide adds it). Halide also checks the crop's strides
//! (1 and 32, a view of its 32-wide buffer); Tessera returns a dense copy of the box asked
//! for, so that check is left out.

use crate::lower_common::{check, TestInputs};
use tessera::codegen::target::Target;
use tessera::lang::schedule::TailStrategy;
use tessera::pipeline::{Inputs, Pipeline};
use tessera::prelude::*;

#[test]
fn a_histogram_realized_over_fewer_bins_than_it_writes() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let im = Func::new("im");
    im.define((x, y), x + y).unwrap();
    let r = RDom::new([(0, 100), (0, 100)]);
    let hist = Func::new("hist");
    hist.define(x, Expr::from(0)).unwrap();
    let bin = im.at((r.x(), r.y()));
    hist.update(bin.clone(), hist.at(bin) + 1).unwrap();
    let run = check(&hist, &TestInputs::new(), &[0], &[100]);
    // One zero at the top left corner, two ones, three twos, ...
    crate::assert_i32_output(&run, 0, |p| p[0] + 1);
}

#[test]
fn a_round_up_tile_realized_over_a_smaller_box() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x + y).unwrap();
    f.split_with_tail(x, x, "xi", 16, TailStrategy::RoundUp)
        .split_with_tail(y, y, "yi", 8, TailStrategy::RoundUp)
        .reorder(("xi", "yi", x, y));
    let run = check(&f, &TestInputs::new(), &[0, 0], &[30, 20]);
    crate::assert_i32_output(&run, 0, |p| p[0] + p[1]);
    let compiled = Pipeline::new(&f).compile_jit(&Target::host()).unwrap();
    let out = compiled
        .realize(&Inputs::new(), &[0, 0], &[30, 20])
        .unwrap();
    assert_eq!(
        out[0].dims().iter().map(|d| d.extent).collect::<Vec<_>>(),
        [30, 20]
    );
}
