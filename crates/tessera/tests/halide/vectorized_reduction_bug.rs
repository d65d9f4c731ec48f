//! Halide's `test/correctness/vectorized_reduction_bug.cpp`: vectorizing a loop whose body
//! computes a Func with an update at its default placement (inlined into the loop), and
//! vectorizing the update of a Func computed per strip whose value is an inline `sum`.

use crate::{i32_values, realize};
use tessera::prelude::*;

#[test]
fn vectorized_select_over_a_reduction() {
    let (x, y, c) = (Var::new("x"), Var::new("y"), Var::new("c"));
    let r = RDom::named("r", [(1, 2)]);
    let s = Func::new("sum");
    s.define((x, y), Expr::from(0)).unwrap();
    s.update((x, y), s.at((x, y)) + r.x()).unwrap();
    let foo = Func::new("foo");
    foo.define((x, y, c), select(c.eq_(3), Expr::from(255), s.at((x, y))))
        .unwrap();
    foo.vectorize(c, 4);
    let run = realize(&foo, &[2, 2, 4]);
    let out = i32_values(&run);
    for yy in 0..2 {
        for xx in 0..2 {
            for cc in 0..4 {
                let correct = if cc == 3 { 255 } else { 3 };
                assert_eq!(out.get(&[xx, yy, cc]), correct, "at ({xx}, {yy}, {cc})");
            }
        }
    }
}

#[test]
fn vectorized_update_of_an_inline_sum() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let h = Func::new("h");
    h.define((x, y), x + y).unwrap();
    h.compute_root();
    let g = Func::new("g");
    g.define((x, y), Expr::from(0)).unwrap();
    let r = RDom::new([(0, 120)]);
    g.update((x, Expr::from(0)), sum(h.at((x, r.x())))).unwrap();
    // Transposed.
    let f = Func::new("f");
    f.define((y, x), g.at((x, y))).unwrap();
    f.split(x, "x_outer", "xi", 16);
    g.compute_at(&f, "x_outer");
    g.update_stage(0).vectorize_loop("x");
    f.compute_root();
    let run = realize(&f, &[100, 100]);
    let out = i32_values(&run);
    for yy in 0..100i64 {
        for xx in 0..100i64 {
            let correct = if xx != 0 {
                0
            } else {
                120 * (xx + yy) + 120 * 119 / 2
            };
            assert_eq!(out.get(&[xx, yy]) as i64, correct, "at ({xx}, {yy})");
        }
    }
}
