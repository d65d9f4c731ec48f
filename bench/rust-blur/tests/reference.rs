//! The hand-written blur equals Tessera's plain-loop blur reference (`tessera_apps::blur`) on
//! random 12-bit and full-range (wrapping) inputs of sizes around the strip height.
//! Re-run a failure with `TESSERA_SEED=N`.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tessera::prelude::*;

#[test]
fn equals_the_blur_reference() {
    let seed = tessera::testing::test_seed("rust-blur reference", 20_261_122);
    let mut rng = SmallRng::seed_from_u64(seed);
    for (width, height, bits) in [
        (1, 1, 12),
        (7, 31, 12),
        (64, 32, 12),
        (33, 33, 16),
        (100, 65, 12),
        (129, 97, 16),
    ] {
        let input: Vec<u16> = (0..(width + 2) * (height + 2))
            .map(|_| rng.random_range(0..1u32 << bits) as u16)
            .collect();
        let mut output = vec![0u16; width * height];
        rust_blur::blur(&input, &mut output, width, height);
        let image = Buffer::from_fn(&[0, 0], &[width as i64 + 2, height as i64 + 2], |c| {
            input[c[1] as usize * (width + 2) + c[0] as usize]
        });
        let want = tessera_apps::blur::reference(&image);
        for y in 0..height {
            for x in 0..width {
                assert_eq!(
                    output[y * width + x],
                    want.get(&[x as i64, y as i64]),
                    "at ({x}, {y}) of {width} x {height}, seed {seed}"
                );
            }
        }
    }
}
