//! Halide's `test/correctness/predicated_store_load.cpp`, its two tail-strategy cases: a copy
//! of a 73 x 73 input vectorized by 32 with a `Predicate`, `PredicateLoads` or
//! `PredicateStores` tail has masked stores and loads exactly where the strategy says (Halide:
//! one masked store unless PredicateLoads, one masked load unless PredicateStores), and a
//! predicated tail reading a scalar computed per row masks only its store. Halide counts the
//! masked loads and stores in its lowered code; here the final lowered code is inspected
//! (Tessera's partitioned loops keep the masks to the tail, so a count is at least 1 where
//! Halide's is 1 and 0 where Halide's is 0), and the values are checked against plain Rust.
//! The cases on reduction domains with `where` predicates need `allow_race_conditions` or
//! vectorized RVars Tessera refuses, and are left out.

use crate::lower_common::{check, walk_stmts, Checked, TestInputs};
use tessera::ir::visit::visit_stmt_exprs;
use tessera::ir::{ExprKind, StmtKind};
use tessera::lang::schedule::TailStrategy;
use tessera::prelude::*;

const SIZE: i64 = 73;

/// The masked stores and masked loads in `run`'s lowered code.
fn masked_accesses(run: &Checked) -> (usize, usize) {
    let (mut stores, mut loads) = (0, 0);
    walk_stmts(&run.lowered.stmt, &mut |s| {
        if let StmtKind::Store {
            predicate: Some(_), ..
        } = s.kind()
        {
            stores += 1;
        }
    });
    visit_stmt_exprs(&run.lowered.stmt, &mut |e| {
        if let ExprKind::Load {
            predicate: Some(_), ..
        } = e.kind()
        {
            loads += 1;
        }
        true
    });
    (stores, loads)
}

#[test]
fn each_predicated_tail_masks_what_it_says() {
    for tail in [
        TailStrategy::Predicate,
        TailStrategy::PredicateLoads,
        TailStrategy::PredicateStores,
    ] {
        let p = ImageParam::new(Type::i32(), 2, "p");
        let (x, y) = (Var::new("x"), Var::new("y"));
        let f = Func::new("f");
        f.define((x, y), p.at((x, y))).unwrap();
        // A wrapper, so that realizing does not grow f's region to whole vectors.
        let g = Func::new("g");
        g.define((x, y), f.at((x, y))).unwrap();
        f.compute_root().vectorize_with_tail(x, 32, tail);
        let width = if tail == TailStrategy::PredicateStores {
            (SIZE + 31) / 32 * 32
        } else {
            SIZE
        };
        let input = Buffer::<i32>::from_fn(&[0, 0], &[width, SIZE], |c| c[0] as i32);
        let run = check(
            &g,
            &TestInputs::new().image(&p, input),
            &[0, 0],
            &[SIZE, SIZE],
        );
        let out = crate::i32_values(&run);
        out.for_each_coord(|c| assert_eq!(out.get(c), c[0] as i32, "{tail:?} at {c:?}"));
        let (stores, loads) = masked_accesses(&run);
        let (want_stores, want_loads) = (
            tail != TailStrategy::PredicateLoads,
            tail != TailStrategy::PredicateStores,
        );
        assert_eq!(stores > 0, want_stores, "{tail:?}: {stores} masked stores");
        assert_eq!(loads > 0, want_loads, "{tail:?}: {loads} masked loads");
    }
}

#[test]
fn a_predicated_tail_with_a_scalar_masks_only_its_store() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let g = Func::new("g");
    g.define(x, Expr::from(10)).unwrap();
    let f = Func::new("f");
    f.define((x, y), x + g.at(0)).unwrap();
    g.compute_at(&f, y);
    f.vectorize_with_tail(x, 32, TailStrategy::Predicate);
    let run = check(&f, &TestInputs::new(), &[0, 0], &[SIZE, SIZE]);
    let out = crate::i32_values(&run);
    out.for_each_coord(|c| assert_eq!(out.get(c), c[0] as i32 + 10, "at {c:?}"));
    let (stores, loads) = masked_accesses(&run);
    assert!(stores > 0, "no masked store");
    assert_eq!(loads, 0, "masked loads of the scalar");
}
