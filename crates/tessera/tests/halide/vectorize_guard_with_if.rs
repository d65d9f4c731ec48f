//! Halide's `test/correctness/vectorize_guard_with_if.cpp`: vectorizing by 8 with a
//! GuardWithIf tail over 100 points stores only vectors (13 of them, the last one partial),
//! no scalars; a vectorized gather `b(x / 2) + x / 2` over 98 points with a GuardWithIf tail
//! reads no input past its end; and PredicateLoads/PredicateStores tails of a clamped gather.
//! Halide counts vector and scalar stores by tracing; here the lowered code is inspected: every
//! store into the output must be a vector store. Tessera has no `Predicate`,
//! `PredicateLoads` or `PredicateStores` tail strategies, so those cases are ignored.

use crate::lower_common::{check, walk_stmts, TestInputs};
use tessera::ir::StmtKind;
use tessera::lang::schedule::TailStrategy;
use tessera::prelude::*;

#[test]
fn a_guarded_vector_tail_stores_only_vectors() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, x).unwrap();
    f.split_with_tail(x, x, "xv", 8, TailStrategy::GuardWithIf)
        .vectorize_loop("xv");
    let run = check(&f, &TestInputs::new(), &[0], &[100]);
    let out = crate::i32_values(&run);
    for i in 0..100 {
        assert_eq!(out.get(&[i]), i as i32, "f({i})");
    }
    let (mut vector, mut scalar) = (0, 0);
    walk_stmts(&run.lowered.stmt, &mut |s| {
        if let StmtKind::Store { buffer, index, .. } = s.kind() {
            if buffer.as_str() == "f" {
                if index.ty().lanes > 1 {
                    vector += 1;
                } else {
                    scalar += 1;
                }
            }
        }
    });
    assert!(vector >= 1, "no vector store into f");
    assert_eq!(scalar, 0, "scalar stores into f in the lowered code");
}

#[test]
fn a_guarded_vectorized_gather_reads_only_its_input() {
    let b = ImageParam::new(Type::i32(), 1, "b");
    let data = Buffer::<i32>::from_fn(&[0], &[49], |c| c[0] as i32);
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, b.at(x / 2) + x / 2).unwrap();
    f.split_with_tail(x, x, "xv", 8, TailStrategy::GuardWithIf)
        .vectorize_loop("xv");
    let run = check(&f, &TestInputs::new().image(&b, data), &[0], &[98]);
    let out = crate::i32_values(&run);
    for i in 0..98 {
        assert_eq!(out.get(&[i]), (i / 2 + i / 2) as i32, "f({i})");
    }
}

#[test]
#[ignore = "no API: TailStrategy::Predicate"]
fn a_predicated_vector_tail_stores_only_vectors() {
    unimplemented!("f.vectorize(x, 8, TailStrategy::Predicate)");
}

#[test]
#[ignore = "no API: TailStrategy::PredicateLoads and PredicateStores"]
fn predicated_loads_and_stores_of_a_clamped_gather() {
    unimplemented!(
        "f(x) = clamp(x * x - 2, 0, x) + in(..); f.vectorize(x, 8, PredicateLoads); \
         g.vectorize(x, 8, PredicateStores)"
    );
}
