//! Shared by the app tests: the seeded RNG (re-run a failure with `TESSERA_SEED=<seed>`) and
//! an element-by-element comparison of two images that reports the first difference.

use rand::rngs::SmallRng;
use rand::SeedableRng;
use tessera::lang::buffer::for_each_coord_in;
use tessera::prelude::*;

/// The RNG of a randomized test and its seed: `TESSERA_SEED` when set, else `default`.
pub fn seeded_rng(default: u64) -> (u64, SmallRng) {
    let seed = std::env::var("TESSERA_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default);
    (seed, SmallRng::seed_from_u64(seed))
}

/// Panics unless `got` and `want` have the same type, mins, extents and elements.
pub fn assert_same_image(got: &AnyBuffer, want: &AnyBuffer, context: &str) {
    let region = |b: &AnyBuffer| -> (Vec<i64>, Vec<i64>) {
        (
            b.dims().iter().map(|d| d.min).collect(),
            b.dims().iter().map(|d| d.extent).collect(),
        )
    };
    assert_eq!(got.ty(), want.ty(), "element type; {context}");
    let (mins, extents) = region(want);
    assert_eq!(
        region(got),
        (mins.clone(), extents.clone()),
        "region; {context}"
    );
    let mut first_difference = None;
    for_each_coord_in(&mins, &extents, &mut |c| {
        if first_difference.is_none() && got.get_value(c) != want.get_value(c) {
            first_difference = Some((c.to_vec(), got.get_value(c), want.get_value(c)));
        }
    });
    if let Some((coord, g, w)) = first_difference {
        panic!("at {coord:?} the pipeline gives {g:?} but the reference {w:?}; {context}");
    }
}
