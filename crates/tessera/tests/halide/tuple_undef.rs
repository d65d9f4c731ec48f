//! Halide's `test/correctness/tuple_undef.cpp`: `undef` elements of Tuple definitions store
//! nothing. Halide counts the `Store` nodes of the lowered code: 2 for `Tuple(x + y, undef)`
//! updated by `Tuple(f[0] + undef, f[1] + 2)`, 3 for `Tuple(x, y)` updated by `Tuple(undef,
//! select(x < 20, 20x, undef))`, and none for a Func all of whose elements are undef; here
//! the `Store`s of Tessera's lowered statement are counted (at most Halide's), and the values
//! checked. A scatter to `clamp(select(r < 2, 13, undef), 0, 100)` (writing one point, twice)
//! is checked by value. As in Halide, the first and last are realized into buffers filled with
//! 0xdeadbeef and 0xf00dcafe, which elements left undef must keep. 64 x 64 instead of
//! 1024 x 1024.

use crate::lower_common::{check, check_in_place, walk_stmts, TestInputs};
use tessera::ir::{Stmt, StmtKind};
use tessera::lower::LowerOptions;
use tessera::pipeline::Pipeline;
use tessera::prelude::*;

const N: i64 = 64;

/// The `Store` statements of `stmt` must be at most Halide's count.
fn assert_stores(stmt: &Stmt, halide: usize) {
    let mut stores = 0;
    walk_stmts(stmt, &mut |s| {
        stores += usize::from(matches!(s.kind(), StmtKind::Store { .. }));
    });
    assert!(
        stores <= halide,
        "{stores} stores, Halide {halide}:\n{stmt}"
    );
}

/// Halide's fill values: what an element left undef must keep.
const A: i32 = 0xdead_beef_u32 as i32;
const B: i32 = 0xf00d_cafe_u32 as i32;

/// Realizes `f` into two N x N buffers filled with `A` and `B` (on the evaluator, the
/// interpreter and natively, which must agree), returning them and the lowered statement.
fn realize_over_fill(f: &Func) -> (Vec<Buffer<i32>>, Stmt) {
    let data: Vec<AnyBuffer> = [A, B]
        .map(|v| Buffer::<i32>::from_fn(&[0, 0], &[N, N], |_| v).into())
        .to_vec();
    let out = check_in_place(f, &TestInputs::new(), &data)
        .into_iter()
        .map(|b| match b {
            AnyBuffer::I32(b) => b,
            _ => panic!("both elements are i32"),
        })
        .collect();
    let lowered = Pipeline::new(f)
        .lower(&LowerOptions::default())
        .expect("lowers");
    (out, lowered.stmt)
}

#[test]
fn an_undef_pure_element_and_an_undef_update_element() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), Tuple(vec![x + y, undef::<i32>()]))
        .unwrap();
    f.update(
        (x, y),
        Tuple(vec![
            f.value_at((x, y), 0) + undef::<i32>(),
            f.value_at((x, y), 1) + 2,
        ]),
    )
    .unwrap();
    let (out, stmt) = realize_over_fill(&f);
    for y in 0..N {
        for x in 0..N {
            let got = (out[0].get(&[x, y]), out[1].get(&[x, y]));
            assert_eq!(got, ((x + y) as i32, B.wrapping_add(2)), "at ({x}, {y})");
        }
    }
    assert_stores(&stmt, 2);
}

#[test]
fn an_update_with_an_undef_element_and_an_undef_select_arm() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), Tuple(vec![x.expr(), y.expr()])).unwrap();
    f.update(
        (x, y),
        Tuple(vec![
            undef::<i32>(),
            select(x.lt(20), 20 * f.value_at((x, y), 0), undef::<i32>()),
        ]),
    )
    .unwrap();
    let run = check(&f, &TestInputs::new(), &[0, 0], &[N, N]);
    crate::assert_outputs_2d(&run, N, |x, y| vec![x, if x < 20 { 20 * x } else { y }]);
    assert_stores(&run.lowered.stmt, 3);
}

#[test]
fn a_scatter_to_an_undef_coordinate() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), Tuple(vec![Expr::from(0), Expr::from(0)]))
        .unwrap();
    let r = RDom::new([(0, 10)]);
    let arg0 = clamp(select(r.x().lt(2), 13, undef::<i32>()), 0, 100);
    let arg1 = clamp(select(r.x().lt(2), 23, undef::<i32>()), 0, 100);
    let at = (arg0.clone(), arg1.clone());
    f.update(
        (arg0, arg1),
        Tuple(vec![f.value_at(at.clone(), 0) + 10, f.value_at(at, 1) + 5]),
    )
    .unwrap();
    let run = check(&f, &TestInputs::new(), &[0, 0], &[N, N]);
    crate::assert_outputs_2d(&run, N, |x, y| {
        if (x, y) == (13, 23) {
            vec![20, 10]
        } else {
            vec![0, 0]
        }
    });
}

#[test]
fn a_tuple_of_undefs_stores_nothing() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), Tuple(vec![undef::<i32>(), undef::<i32>()]))
        .unwrap();
    let (out, stmt) = realize_over_fill(&f);
    assert!(out[0].data().iter().all(|&v| v == A) && out[1].data().iter().all(|&v| v == B));
    assert_stores(&stmt, 0);
}
