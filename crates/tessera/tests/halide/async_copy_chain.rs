//! Halide's `test/correctness/async_copy_chain.cpp`: chains of async stages double-buffered
//! (folded to 2 rows) between `A(x, y) = x + y` and `B(x, y) = A(x, y)`, flat or each nested
//! at the outermost loop of the next. Halide's copy stages are `A.in()` wrappers made extern
//! copies by `copy_to_host()`; on a CPU-only target that copy is a plain copy of the values,
//! so here they are the wrappers themselves (`in_all`, Tessera has no extern copy stages),
//! which is the async folding logic the test stresses. Its GPU-only cases (`copy_to_device`)
//! are not applicable, and the "two copy stages, flat" case is disabled in Halide (`if (0)`,
//! "Broken"). Values checked with plain Rust on the interpreter and on the JIT at 1 and 2
//! threads.

use crate::r#async::check_everywhere;
use tessera::prelude::*;

/// `A(x, y) = x + y; B(x, y) = A(x, y)`, and the row variable.
fn pipeline() -> (Func, Func, Var) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (a, b) = (Func::new("A"), Func::new("B"));
    a.define((x, y), x + y).unwrap();
    b.define((x, y), a.at((x, y))).unwrap();
    (a, b, y)
}

fn check(b: &Func) {
    check_everywhere(b, &[256, 256], |p| p[0] + p[1]);
}

#[test]
fn double_buffered_a_to_b() {
    let (a, b, y) = pipeline();
    a.store_root().compute_at(&b, y).fold_storage(y, 2).async_();
    check(&b);
}

#[test]
fn a_copy_stage_between_them() {
    let (a, b, y) = pipeline();
    a.store_root().compute_at(&b, y).fold_storage(y, 2).async_();
    a.in_all()
        .store_root()
        .compute_at(&b, y)
        .fold_storage(y, 2)
        .async_();
    check(&b);
}

#[test]
fn a_copy_stage_between_them_with_the_first_nested_in_it() {
    let (a, b, y) = pipeline();
    let copy = a.in_all();
    a.store_root()
        .compute_at(&copy, Var::outermost())
        .fold_storage(y, 2)
        .async_();
    copy.store_root()
        .compute_at(&b, y)
        .fold_storage(y, 2)
        .async_();
    check(&b);
}

#[test]
fn two_copy_stages_each_nested_at_the_outermost_loop_of_the_next() {
    let (a, b, y) = pipeline();
    let copy = a.in_all();
    let copy_of_copy = copy.in_all();
    a.store_root()
        .compute_at(&copy, Var::outermost())
        .fold_storage(y, 2)
        .async_();
    copy.store_root()
        .compute_at(&copy_of_copy, Var::outermost())
        .fold_storage(y, 2)
        .async_();
    copy_of_copy
        .store_root()
        .compute_at(&b, y)
        .fold_storage(y, 2)
        .async_();
    check(&b);
}
