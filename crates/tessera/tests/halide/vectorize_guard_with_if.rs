//! Halide's `test/correctness/vectorize_guard_with_if.cpp`: vectorizing by 8 with a
//! GuardWithIf or Predicate tail over 100 points stores only vectors (13 of them, the last
//! one partial), no scalars; a vectorized gather `b(x / 2) + x / 2` over 98 points with a
//! GuardWithIf or Predicate tail reads no input past its end; and a clamped gather computed
//! with a PredicateLoads tail, copied with a PredicateStores tail (which reads whole pieces of
//! its input, so the input covers 104 points rather than Halide's 100). Halide counts vector and
//! scalar stores by tracing; here the lowered code is inspected: every store into the output
//! must be a vector store.

use crate::lower_common::{check, walk_stmts, TestInputs};
use tessera::ir::StmtKind;
use tessera::lang::schedule::TailStrategy;
use tessera::prelude::*;

fn vector_tail_stores_only_vectors(tail: TailStrategy) {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, x).unwrap();
    f.vectorize_with_tail(x, 8, tail);
    let run = check(&f, &TestInputs::new(), &[0], &[100]);
    let out = crate::i32_values(&run);
    for i in 0..100 {
        assert_eq!(out.get(&[i]), i as i32, "{tail:?}: f({i})");
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
    assert!(vector >= 1, "{tail:?}: no vector store into f");
    assert_eq!(
        scalar, 0,
        "{tail:?}: scalar stores into f in the lowered code"
    );
}

#[test]
fn a_guarded_vector_tail_stores_only_vectors() {
    vector_tail_stores_only_vectors(TailStrategy::GuardWithIf);
}

#[test]
fn a_predicated_vector_tail_stores_only_vectors() {
    vector_tail_stores_only_vectors(TailStrategy::Predicate);
}

fn vectorized_gather_reads_only_its_input(tail: TailStrategy) {
    let b = ImageParam::new(Type::i32(), 1, "b");
    let data = Buffer::<i32>::from_fn(&[0], &[49], |c| c[0] as i32);
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, b.at(x / 2) + x / 2).unwrap();
    f.vectorize_with_tail(x, 8, tail);
    let run = check(&f, &TestInputs::new().image(&b, data), &[0], &[98]);
    let out = crate::i32_values(&run);
    for i in 0..98 {
        assert_eq!(out.get(&[i]), (i / 2 + i / 2) as i32, "{tail:?}: f({i})");
    }
}

#[test]
fn a_guarded_vectorized_gather_reads_only_its_input() {
    vectorized_gather_reads_only_its_input(TailStrategy::GuardWithIf);
}

#[test]
fn a_predicated_vectorized_gather_reads_only_its_input() {
    vectorized_gather_reads_only_its_input(TailStrategy::Predicate);
}

#[test]
fn predicated_loads_and_stores_of_a_clamped_gather() {
    let input = ImageParam::new(Type::i32(), 1, "in");
    let x = Var::new("x");
    let (f, g) = (Func::new("f"), Func::new("g"));
    let index = clamp(x * x - 2, 0, x);
    f.define(x, index.clone() + input.at(index)).unwrap();
    g.define(x, f.at(x)).unwrap();
    f.compute_root()
        .vectorize_with_tail(x, 8, TailStrategy::PredicateLoads);
    g.compute_root()
        .vectorize_with_tail(x, 8, TailStrategy::PredicateStores);
    // g reads f in whole pieces (its stores alone are guarded), so f is computed over 104
    // points, and `in` must hold them all; Halide's test gives it 100.
    let data = Buffer::<i32>::from_fn(&[0], &[104], |_| 0);
    let run = check(&g, &TestInputs::new().image(&input, data), &[0], &[100]);
    let out = crate::i32_values(&run);
    for i in 0..100i64 {
        assert_eq!(out.get(&[i]) as i64, (i * i - 2).min(i).max(0), "g({i})");
    }
}
