//! Halide's `test/correctness/scatter.cpp`: a scan `f(r, y) = f(r - 1, y) + 100` over
//! r in [-10, 10) of a Func computed at the root, read by its consumer at `(x + 5, y + 5)`:
//! the pure definition must cover what both the update and the consumer read, and the update
//! what the consumer reads, so g(i) is `1617 + 100 i` for i < 5 and 17 after.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn a_scan_read_by_a_shifted_consumer() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let r = RDom::new([(-10, 20)]);
    let f = Func::new("f");
    f.define((x, y), 17).unwrap();
    f.update((r.x().expr(), y.expr()), f.at((r.x() - 1, y)) + 100)
        .unwrap();
    let g = Func::new("g");
    g.define((x, y), f.at((x + 5, y + 5))).unwrap();
    f.compute_root();
    let run = check(&g, &TestInputs::new(), &[0, 0], &[10, 1]);
    let out = crate::i32_values(&run);
    for i in 0..10 {
        let correct = if i < 5 { 1617 + i as i32 * 100 } else { 17 };
        assert_eq!(out.get(&[i, 0]), correct, "g({i}, 0)");
    }
}
