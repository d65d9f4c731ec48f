//! Halide's `test/correctness/nested_tail_strategies.cpp`: chains `in -> f -> g (-> h)` of
//! copies, `in` computed at the root and each other stage split and computed inside the
//! tiles of the next, under compositions of tail strategies. Whatever the composition, no
//! allocation may exceed the output's size plus one element (with Halide's tolerance of
//! three more): `in` must not grow past what the output needs. Outputs of a multiple of every
//! split, of a size larger than every split (unless a RoundUp, PredicateLoads or
//! PredicateStores is involved) and of 3 points (GuardWithIf only) are tried, and the values
//! checked.
//!
//! As in Halide, the splits that are not split again may also be PredicateLoads or
//! PredicateStores; Tessera has no RoundUpAndBlend or ShiftInwardsAndBlend, so compositions
//! with those are left out. Halide's test samples its compositions randomly; here the
//! two-stage one is exhaustive and the others take every third (or ninth) composition. The
//! sizes are 256 (a multiple of every split) instead of 1024, 130 and 3.

use crate::lower_common::{check, Checked, TestInputs};
use tessera::lang::schedule::TailStrategy;
use tessera::prelude::*;

const TAILS: [TailStrategy; 3] = [
    TailStrategy::RoundUp,
    TailStrategy::GuardWithIf,
    TailStrategy::ShiftInwards,
];

/// The tails only a split that is not split again may have.
const PREDICATED_TAILS: [TailStrategy; 2] =
    [TailStrategy::PredicateLoads, TailStrategy::PredicateStores];

/// `in(x) = x` and copies of it, named `names`, each reading the one before.
fn chain(x: Var, names: &[&str]) -> Vec<Func> {
    let input = Func::new("in");
    input.define(x, x).unwrap();
    input.compute_root();
    let mut funcs = vec![input];
    for name in names {
        let f = Func::new(name);
        f.define(x, funcs.last().unwrap().at(x)).unwrap();
        funcs.push(f);
    }
    funcs
}

/// The largest allocation of any Func but the output.
fn largest_allocation(run: &Checked, output: &str) -> u64 {
    run.realization
        .stats
        .allocation_elements
        .iter()
        .filter(|(name, _)| name.as_str() != output)
        .map(|(_, n)| *n)
        .max()
        .unwrap_or(0)
}

fn check_sizes(out: &Func, tails: &[TailStrategy]) {
    let round_up = tails.iter().any(|t| {
        matches!(
            t,
            TailStrategy::RoundUp | TailStrategy::PredicateLoads | TailStrategy::PredicateStores
        )
    });
    let shift_inwards = tails.contains(&TailStrategy::ShiftInwards);
    let mut sizes = vec![256i64];
    if !round_up {
        sizes.push(130);
    }
    if !round_up && !shift_inwards {
        sizes.push(3);
    }
    for s in sizes {
        let run = check(out, &TestInputs::new(), &[0], &[s]);
        let values = crate::i32_values(&run);
        for i in 0..s {
            assert_eq!(values.get(&[i]) as i64, i, "{tails:?}, size {s}: out({i})");
        }
        let largest = largest_allocation(&run, out.name().as_str());
        // Halide's bound: (s + 1) i32s, plus a tolerance of 3 more.
        assert!(
            largest <= (s + 1) as u64 + 3,
            "{tails:?}, size {s}: an allocation of {largest} elements"
        );
    }
}

use TailStrategy::{GuardWithIf, RoundUp};

/// The compositions for which Tessera once allocated more of `in` than Halide allows (a
/// guarded tile's extent was bounded term by term), kept apart as regression tests.
const TWO_STAGES_TOO_LARGE: [[TailStrategy; 2]; 1] = [[GuardWithIf, RoundUp]];
const THREE_STAGES_TOO_LARGE: [[TailStrategy; 3]; 2] = [
    [RoundUp, GuardWithIf, RoundUp],
    [RoundUp, GuardWithIf, GuardWithIf],
];

#[test]
fn two_stages_one_computed_in_tiles_of_the_other() {
    for t1 in TAILS {
        for t2 in TAILS {
            if TWO_STAGES_TOO_LARGE.contains(&[t1, t2]) {
                continue;
            }
            two_stages(t1, t2);
        }
    }
}

#[test]
fn two_stages_guarded_then_rounded_up() {
    for [t1, t2] in TWO_STAGES_TOO_LARGE {
        two_stages(t1, t2);
    }
}

/// Whether a composition of two stages has a PredicateLoads or PredicateStores split.
fn has_predicated(tails: &[TailStrategy]) -> bool {
    tails.iter().any(|t| PREDICATED_TAILS.contains(t))
}

/// The two-stage compositions with a predicated tail for which Tessera once allocated more of
/// `in` than Halide allows: as with the ones above, the output's split guards its loads
/// (GuardWithIf, PredicateLoads) and f's split does not shift inwards.
fn two_stages_too_large_when_predicated(t1: TailStrategy, t2: TailStrategy) -> bool {
    matches!(t1, TailStrategy::GuardWithIf | TailStrategy::PredicateLoads)
        && t2 != TailStrategy::ShiftInwards
}

/// Every pair of tails, either of them predicated.
fn predicated_pairs() -> Vec<(TailStrategy, TailStrategy)> {
    let all: Vec<TailStrategy> = TAILS.iter().chain(&PREDICATED_TAILS).copied().collect();
    all.iter()
        .flat_map(|&t1| all.iter().map(move |&t2| (t1, t2)))
        .filter(|&(t1, t2)| has_predicated(&[t1, t2]))
        .collect()
}

#[test]
fn two_stages_with_predicated_tails() {
    for (t1, t2) in predicated_pairs() {
        if !two_stages_too_large_when_predicated(t1, t2) {
            two_stages(t1, t2);
        }
    }
}

#[test]
fn two_stages_with_predicated_tails_guarded_loads_then_not_shifted() {
    for (t1, t2) in predicated_pairs() {
        if two_stages_too_large_when_predicated(t1, t2) {
            two_stages(t1, t2);
        }
    }
}

fn two_stages(t1: TailStrategy, t2: TailStrategy) {
    let x = Var::new("x");
    let funcs = chain(x, &["f", "g"]);
    let (f, g) = (&funcs[1], &funcs[2]);
    g.split_with_tail(x, "xo", "xi", 64, t1);
    f.compute_at(g, "xo").split_with_tail(x, "xo", "xi", 8, t2);
    check_sizes(g, &[t1, t2]);
}

/// Every composition of `n` tail strategies whose index is a multiple of `every`.
fn compositions(n: usize, every: usize) -> Vec<Vec<TailStrategy>> {
    let total = TAILS.len().pow(n as u32);
    (0..total)
        .step_by(every)
        .map(|mut i| {
            (0..n)
                .map(|_| {
                    let t = TAILS[i % TAILS.len()];
                    i /= TAILS.len();
                    t
                })
                .collect()
        })
        .collect()
}

#[test]
fn three_stages_each_in_tiles_of_the_next() {
    for t in compositions(3, 3) {
        if THREE_STAGES_TOO_LARGE.iter().any(|c| c[..] == t[..]) {
            continue;
        }
        three_stages(&t);
    }
}

#[test]
fn three_stages_rounded_up_guarded_then_either() {
    for t in THREE_STAGES_TOO_LARGE {
        three_stages(&t);
    }
}

fn three_stages(t: &[TailStrategy]) {
    let x = Var::new("x");
    let funcs = chain(x, &["f", "g", "h"]);
    let (f, g, h) = (&funcs[1], &funcs[2], &funcs[3]);
    h.split_with_tail(x, "xo", "xi", 64, t[0]);
    g.compute_at(h, "xo")
        .split_with_tail(x, "xo", "xi", 16, t[1]);
    f.compute_at(g, "xo")
        .split_with_tail(x, "xo", "xi", 4, t[2]);
    check_sizes(h, t);
}

#[test]
fn three_stages_with_predicated_tails() {
    let all: Vec<TailStrategy> = TAILS.iter().chain(&PREDICATED_TAILS).copied().collect();
    let n = all.len();
    let sampled = (0..n.pow(3))
        .step_by(3)
        .map(|i| [all[i % n], all[i / n % n], all[i / n / n]]);
    for t in sampled.filter(|t| has_predicated(t)) {
        three_stages(&t);
    }
}

#[test]
fn three_stages_in_tiles_and_smaller_tiles_of_the_last() {
    for t in compositions(3, 3) {
        let x = Var::new("x");
        let funcs = chain(x, &["f", "g", "h"]);
        let (f, g, h) = (&funcs[1], &funcs[2], &funcs[3]);
        h.split_with_tail(x, "xo", "xi", 128, t[0])
            .split("xi", "xio", "xii", 64);
        g.compute_at(h, "xio")
            .split_with_tail(x, "xo", "xi", 8, t[1]);
        f.compute_at(h, "xo")
            .split_with_tail(x, "xo", "xi", 8, t[2]);
        check_sizes(h, &t);
    }
}

#[test]
fn three_stages_with_the_output_splits_composed_in_reverse() {
    for t in compositions(4, 9) {
        let x = Var::new("x");
        let funcs = chain(x, &["f", "g", "h"]);
        let (f, g, h) = (&funcs[1], &funcs[2], &funcs[3]);
        h.split_with_tail(x, "xo", "xi", 64, t[0])
            .split_with_tail("xo", "xoo", "xoi", 2, t[1]);
        g.compute_at(h, "xoi")
            .split_with_tail(x, "xo", "xi", 8, t[2]);
        f.compute_at(h, "xoo")
            .split_with_tail(x, "xo", "xi", 8, t[3]);
        check_sizes(h, &t);
    }
}
