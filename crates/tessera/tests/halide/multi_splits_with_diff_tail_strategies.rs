//! Halide's `test/correctness/multi_splits_with_diff_tail_strategies.cpp`: a split with the
//! RoundUp tail followed by a split of its outer loop with the GuardWithIf, Predicate or
//! PredicateLoads tail must apply their substitutions, predicates and lets in order (once,
//! out of order, this read out of bounds): `f(x, y, c) = x + y + c` with c innermost, y split
//! by 2 (RoundUp), and the outer y split by 64 (each of those three). Halide's 3000x2000x3
//! output is shrunk to 10x140x3, which keeps the outer y loop (70 iterations) not a multiple
//! of 64.

use crate::{i32_values, realize};
use tessera::lang::schedule::TailStrategy;
use tessera::prelude::*;

#[test]
fn a_round_up_split_then_a_guarded_split_of_its_outer_loop() {
    round_up_then(TailStrategy::GuardWithIf);
}

#[test]
fn a_round_up_split_then_a_predicated_split_of_its_outer_loop() {
    round_up_then(TailStrategy::Predicate);
}

#[test]
fn a_round_up_split_then_a_split_of_its_outer_loop_predicating_loads() {
    round_up_then(TailStrategy::PredicateLoads);
}

fn round_up_then(tail: TailStrategy) {
    let (x, y, c) = (Var::new("x"), Var::new("y"), Var::new("c"));
    let f = Func::new("f");
    f.define((x, y, c), x + y + c).unwrap();
    f.reorder((c, x, y));
    f.split_with_tail(y, "yo", "yi", 2, TailStrategy::RoundUp);
    f.split_with_tail("yo", "yoo", "yoi", 64, tail);
    let run = realize(&f, &[10, 140, 3]);
    let out = i32_values(&run);
    for cc in 0..3 {
        for yy in 0..140 {
            for xx in 0..10 {
                assert_eq!(
                    out.get(&[xx, yy, cc]) as i64,
                    xx + yy + cc,
                    "{tail:?}: f({xx}, {yy}, {cc})"
                );
            }
        }
    }
}
