//! Halide's `test/correctness/deferred_loop_level.cpp`: where `inner(x, y, c) =
//! sin(x + y + c)` is computed and stored for `outer(x, y, c) = cos(inner(x, y, c))` under
//! five placements — at outer's x, inlined, at root, computed at outer's y and stored at
//! root, computed at outer's y with no store level — checked in the lowered code: the
//! innermost loop around each `sin`, `cos` and each store of `inner`/`outer` is the loop
//! Halide expects (`outer.s0.x` when inner is inlined or computed per x, else `inner.s0.x`
//! for inner's work). The values of the 1x1x1 output are checked too.
//!
//! Halide sets the placements through `LoopLevel` objects filled in *after* the schedule
//! directive was written (the point of the test). Tessera has no deferred loop levels:
//! `compute_at`/`store_at` take the consumer and its loop directly, so the directives are
//! written once the consumer exists, and only the resulting placement is checked.

use crate::lower_common::{check, TestInputs};
use tessera::ir::{Stmt, StmtKind};
use tessera::prelude::*;

enum Placement {
    AtOuterX,
    Inlined,
    Root,
    ComputeAtOuterYStoreRoot,
    ComputeAtOuterY,
}

/// The innermost loop name around every `sin`/`cos` call and every store, checked against
/// the expected loop for inner's and outer's work.
fn check_loops(
    s: &Stmt,
    innermost: &str,
    inner: &str,
    outer: &str,
    inner_loop: &str,
    outer_loop: &str,
) {
    let mut loop_name = innermost.to_string();
    if let StmtKind::For { name, .. } = s.kind() {
        loop_name = name.to_string();
    }
    if let StmtKind::Store { buffer, .. } = s.kind() {
        let b = buffer.to_string();
        if b.starts_with(inner) {
            assert_eq!(loop_name, inner_loop, "store of {b}");
        } else if b.starts_with(outer) {
            assert_eq!(loop_name, outer_loop, "store of {b}");
        } else {
            panic!("a store to an unexpected buffer {b}");
        }
    }
    s.for_each_child(
        |e| {
            let text = e.to_string();
            if text.contains("sin(") {
                assert_eq!(loop_name, inner_loop, "sin in {text}");
            }
            if text.contains("cos(") {
                assert_eq!(loop_name, outer_loop, "cos in {text}");
            }
        },
        |c| check_loops(c, &loop_name, inner, outer, inner_loop, outer_loop),
    );
}

fn check_placement(i: usize, placement: Placement, inner_loop: &str, outer_loop: &str) {
    let (x, y, c) = (Var::new("x"), Var::new("y"), Var::new("c"));
    let inner_name = format!("inner{i}");
    let outer_name = format!("outer{i}");
    let inner = Func::new(&inner_name);
    inner
        .define((x, y, c), sin(cast_to::<f32>(x + y + c)))
        .unwrap();
    let outer = Func::new(&outer_name);
    outer
        .define((x, y, c), cos(cast_to::<f32>(inner.at((x, y, c)))))
        .unwrap();
    match placement {
        Placement::AtOuterX => {
            inner.compute_at(&outer, x).store_at(&outer, x);
        }
        Placement::Inlined => {
            inner.compute_inline();
        }
        Placement::Root => {
            inner.compute_root().store_root();
        }
        Placement::ComputeAtOuterYStoreRoot => {
            inner.compute_at(&outer, y).store_root();
        }
        Placement::ComputeAtOuterY => {
            inner.compute_at(&outer, y);
        }
    }
    let run = check(&outer, &TestInputs::new(), &[0, 0, 0], &[1, 1, 1]);
    let AnyBuffer::F32(out) = &run.realization.buffers[0] else {
        panic!("outer is f32");
    };
    assert_eq!(out.get(&[0, 0, 0]), 0f32.sin().cos(), "outer{i}(0, 0, 0)");
    let innermost = format!("{outer_name}.none");
    check_loops(
        &run.lowered.stmt,
        &innermost,
        &inner_name,
        &outer_name,
        inner_loop,
        outer_loop,
    );
}

#[test]
fn computed_and_stored_at_the_consumers_x() {
    check_placement(1, Placement::AtOuterX, "outer1.s0.x", "outer1.s0.x");
}

#[test]
fn inlined() {
    check_placement(2, Placement::Inlined, "outer2.s0.x", "outer2.s0.x");
}

#[test]
fn computed_and_stored_at_root() {
    check_placement(3, Placement::Root, "inner3.s0.x", "outer3.s0.x");
}

#[test]
fn computed_at_the_consumers_y_and_stored_at_root() {
    check_placement(
        4,
        Placement::ComputeAtOuterYStoreRoot,
        "inner4.s0.x",
        "outer4.s0.x",
    );
}

#[test]
fn computed_at_the_consumers_y() {
    check_placement(5, Placement::ComputeAtOuterY, "inner5.s0.x", "outer5.s0.x");
}
