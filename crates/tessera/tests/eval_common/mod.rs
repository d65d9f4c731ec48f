//! Helpers shared by the evaluator's tests: a seeded RNG (re-run with `TESSERA_SEED=n`) and
//! random buffers.

#![allow(dead_code)]

use rand::rngs::SmallRng;
use rand::SeedableRng;
use tessera::prelude::*;

/// An RNG seeded by `tessera::testing::test_seed` (`default_seed` unless `TESSERA_SEED` says
/// otherwise), which prints the seed so a failing run can be repeated.
pub fn seeded_rng(test: &str, default_seed: u64) -> SmallRng {
    SmallRng::seed_from_u64(tessera::testing::test_seed(test, default_seed))
}

/// A buffer over `[mins, mins + extents)` filled by `gen`.
pub fn random_buffer<T: Scalar>(
    rng: &mut SmallRng,
    mins: &[i64],
    extents: &[i64],
    mut gen: impl FnMut(&mut SmallRng) -> T,
) -> Buffer<T> {
    Buffer::from_fn(mins, extents, |_| gen(rng))
}

/// Every coordinate of the box `[mins, mins + extents)`, the first dimension fastest.
pub fn points(mins: &[i64], extents: &[i64]) -> Vec<Vec<i64>> {
    let mut out = Vec::new();
    tessera::lang::buffer::for_each_coord_in(mins, extents, &mut |p| out.push(p.to_vec()));
    out
}
