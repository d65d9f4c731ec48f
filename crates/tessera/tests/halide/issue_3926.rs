//! Halide's `test/correctness/issue_3926.cpp`: a Func tiled with GuardWithIf tails in two
//! specializations (on a bool Param and on its negation), with the wrapper of its producer
//! computed at the inner tile loop of whichever specialization runs. Halide only checks that
//! a 34 x 34 output (not a multiple of the tile) realizes; here its values are checked too.
//! Halide's global wrapper `f.in()` is `f.in_(&g)` (g is f's only consumer), and its
//! `specialize_fail` (an error where no specialization holds) is left out: Tessera has no
//! such directive: the second condition always holds where the first fails, so lowering
//! drops the default branch, as `specialize_fail` makes it unreachable in Halide.

use crate::lower_common::{check, TestInputs};
use tessera::lang::schedule::TailStrategy;
use tessera::lang::stage::Stage;
use tessera::prelude::*;

/// Halide's `tile(x, y, tx, ty, 8, 8, GuardWithIf)`: x and y stay the outer loops.
fn tile_guarded(s: &Stage, x: Var, y: Var) {
    s.split_with_tail(x, x, "tx", 8, TailStrategy::GuardWithIf)
        .split_with_tail(y, y, "ty", 8, TailStrategy::GuardWithIf)
        .reorder(("tx", "ty", x, y));
}

#[test]
fn a_wrapper_computed_inside_guarded_tiles_of_two_specializations() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let param = Param::<bool>::new("param");
    let f = Func::new("f");
    f.define(x, Expr::from(x)).unwrap();
    let g = Func::new("g");
    g.define((x, y), f.at(x) + select(param.expr(), 1, 2))
        .unwrap();
    tile_guarded(&g.specialize(param.expr()), x, y);
    tile_guarded(&g.specialize(!param.expr()), x, y);
    f.in_(&g).compute_at(&g, "tx");
    for value in [false, true] {
        let inputs = TestInputs::new().param(param.bind(value));
        let run = check(&g, &inputs, &[0, 0], &[34, 34]);
        let plus = if value { 1 } else { 2 };
        crate::assert_i32_output(&run, 0, |p| p[0] + plus);
    }
}
