//! Halide's `test/correctness/reorder_storage.cpp`: a 3-channel Func computed at the root
//! with its storage reordered to (c, x, y) is allocated exactly the product of its extents
//! (Halide checks the allocation's byte size in a custom allocator, with its one extra
//! element); then with x's storage aligned to 16, the allocation grows to the aligned width.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn reordered_storage_is_the_product_of_the_extents() {
    let (x, y, c) = (Var::new("x"), Var::new("y"), Var::new("c"));
    let f = Func::new("f");
    f.define((x, y, c), 1).unwrap();
    let g = Func::new("g");
    g.define((x, y, c), f.at((x, y, c))).unwrap();
    f.compute_root().reorder_storage([c, x, y]);
    let (w, h) = (10i64, 11i64);
    let run = check(&g, &TestInputs::new(), &[0, 0, 0], &[w, h, 3]);
    let out = crate::i32_values(&run);
    out.for_each_coord(|p| assert_eq!(out.get(p), 1, "g{p:?}"));
    assert_eq!(run.allocation("f"), (3 * w * h) as u64);
}

#[test]
fn aligned_storage_rounds_the_width_up() {
    let (x, y, c) = (Var::new("x"), Var::new("y"), Var::new("c"));
    let f = Func::new("f");
    f.define((x, y, c), 1).unwrap();
    let g = Func::new("g");
    g.define((x, y, c), f.at((x, y, c))).unwrap();
    let alignment = 16;
    f.compute_root()
        .reorder_storage([c, x, y])
        .align_storage(x, alignment);
    let (w, h) = (10i64, 11i64);
    let run = check(&g, &TestInputs::new(), &[0, 0, 0], &[w, h, 3]);
    let out = crate::i32_values(&run);
    out.for_each_coord(|p| assert_eq!(out.get(p), 1, "g{p:?}"));
    let aligned_w = (w + i64::from(alignment) - 1) / i64::from(alignment) * i64::from(alignment);
    assert_eq!(run.allocation("f"), (aligned_w * h * 3) as u64);
}
