//! Halide's `test/correctness/fused_where_inner_extent_is_zero.cpp`: a compute-root Func
//! whose two loops are fused, read over a reduction domain whose extents (Params) may be
//! zero, used to divide by zero in Halide's fuse logic. Every combination of extents 0 and 1
//! runs; the values are checked with plain Rust.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn fused_loops_of_zero_extent() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x + y).unwrap();
    let (inner, outer) = (
        Param::<i32>::new("inner_extent"),
        Param::<i32>::new("outer_extent"),
    );
    let r = RDom::named(
        "r",
        [(Expr::from(0), inner.expr()), (Expr::from(0), outer.expr())],
    );
    let g = Func::new("g");
    g.define((x, y), 0).unwrap();
    g.update((r.x(), r.y()), f.at((r.x(), r.y()))).unwrap();
    f.compute_root().fuse(x, y, "fused");
    for i in 0..2 {
        for o in 0..2 {
            let inputs = TestInputs::new().param(inner.bind(i)).param(outer.bind(o));
            let run = check(&g, &inputs, &[0, 0], &[10, 10]);
            let out = crate::i32_values(&run);
            for yy in 0..10 {
                for xx in 0..10 {
                    let want = if xx < i64::from(i) && yy < i64::from(o) {
                        xx + yy
                    } else {
                        0
                    };
                    assert_eq!(
                        i64::from(out.get(&[xx, yy])),
                        want,
                        "i = {i}, o = {o}, at ({xx}, {yy})"
                    );
                }
            }
        }
    }
}
