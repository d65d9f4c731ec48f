//! Reductions of cases the randomized tests (`schedule_fuzz`, `unbounded_fuzz`) found failing,
//! kept as regression tests. The comment above each names the seed that found it and what
//! went wrong. A case not fixed yet is `#[ignore]`d with the reason (run those with
//! `cargo test --test fuzz_found -- --ignored`).

mod lower_common;

use lower_common::{try_check, TestInputs};
use tessera::lang::schedule::TailStrategy;
use tessera::lang::stage::DimName;
use tessera::prelude::*;

/// schedule_fuzz seed 1001230 (the generator of commit 18d1206): a producer computed inside
/// the loops of an update whose RVar is split with `GuardWithIf` was computed for the RVar
/// values past the RDom as well — the guard sat around the update's store, inside the
/// producer's compute level — so the input had to cover rows nothing reads: here rows 1..=7
/// where the RDom covers rows 1..=2 ("input `input` needs dimension 1 in [1, 7]"). In the
/// fuzzed case a second split and a downsampling made it rows -2..=114 for rows 6..=10.
/// Guards now sit right inside the innermost loop they test, as in Halide.
#[test]

fn a_producer_inside_a_guarded_rvar_split_reads_only_the_rdom_rows() {
    let input = ImageParam::new(Type::u8(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f0 = Func::new("f0");
    f0.define((x, y), cast_to::<u16>(input.at((x, y)))).unwrap();
    let f1 = Func::new("f1");
    f1.define((x, y), f0.at((x, y)) * 2).unwrap();
    let r = RDom::new([(0, 2), (1, 2)]);
    let f2 = Func::new("f2");
    f2.define((x, y), cast_to::<u16>(Expr::from(0))).unwrap();
    f2.update((x, r.y()), f2.at((x, r.y())) + f1.at((x + r.x(), r.y())))
        .unwrap();
    f2.update_stage(0).split_with_tail(
        DimName(r.y().name()),
        "yo",
        "yi",
        7,
        TailStrategy::GuardWithIf,
    );
    f1.compute_at_stage(&f2, 1, r.x().name().as_str());
    f0.compute_root();
    // The update reads rows 1..=2 and columns 0..=4 of the input for an output of 0..=3.
    let image = Buffer::<u8>::from_fn(&[0, 1], &[5, 2], |c| (c[0] * 7 + c[1] * 3) as u8);
    let inputs = TestInputs::new().image(&input, image);
    if let Err(e) = try_check(&f2, &inputs, &[0, 1], &[4, 2]) {
        panic!("{e}");
    }
}
