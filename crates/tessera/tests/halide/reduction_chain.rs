//! Halide's `test/correctness/reduction_chain.cpp`: a Func whose updates write its diagonal
//! (`g(x, x) = ...`, `g(y, y) = ...`), each reading its neighbours and a Func stored at the
//! consumer's loop and computed inside an update's loop; g itself stored at the root and
//! computed per x of the output. Halide's test only realizes it (tracing f1); this checks the
//! values: g is 2 on the diagonal and 0 elsewhere, so out(x, y) is 4 where x == y.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn updates_along_the_diagonal() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (f0, f1, f2) = (Func::new("f0"), Func::new("f1"), Func::new("f2"));
    f0.define((x, y), 0).unwrap();
    f1.define((x, y), 1).unwrap();
    f2.define((x, y), 2).unwrap();
    let g = Func::new("g");
    g.define((x, y), 0).unwrap();
    g.update((x, x), g.at((x, x - 1)) + g.at((x, x + 1)) + f0.at((x, x)))
        .unwrap();
    g.update((y, y), g.at((y - 1, y)) + g.at((y + 1, y)) + f1.at((y, y)))
        .unwrap();
    g.update((x, x), g.at((x, x - 1)) + g.at((x, x + 1)) + f2.at((x, x)))
        .unwrap();
    let out = Func::new("out");
    out.define((x, y), g.at((x - 1, y - 1)) + g.at((x + 1, y + 1)))
        .unwrap();
    g.store_root().compute_at(&out, x);
    f0.store_at(&out, x).compute_at(g.update_stage(0), x);
    f1.store_at(&out, x).compute_at(g.update_stage(1), y);
    f2.store_at(&out, x).compute_at(g.update_stage(2), x);
    let run = check(&out, &TestInputs::new(), &[0, 0], &[10, 10]);
    let values = crate::i32_values(&run);
    for yy in 0..10 {
        for xx in 0..10 {
            let want = if xx == yy { 4 } else { 0 };
            assert_eq!(values.get(&[xx, yy]), want, "out({xx}, {yy})");
        }
    }
}
