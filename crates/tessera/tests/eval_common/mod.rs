//! Helpers shared by the evaluator's tests: a seeded RNG (re-run with `TESSERA_SEED=n`) and
//! random buffers.

#![allow(dead_code)]

use rand::rngs::SmallRng;
use rand::SeedableRng;
use tessera::prelude::*;

/// An RNG seeded from `TESSERA_SEED`, or from `default_seed`; the seed is printed so a
/// failing run can be repeated.
pub fn seeded_rng(test: &str, default_seed: u64) -> SmallRng {
    let seed = std::env::var("TESSERA_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default_seed);
    eprintln!("{test}: seed {seed} (re-run with TESSERA_SEED={seed})");
    SmallRng::seed_from_u64(seed)
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
