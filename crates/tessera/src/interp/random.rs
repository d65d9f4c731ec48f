//! Deterministic pseudo-random bits (SplitMix64) for the interpreter: the garbage pattern that
//! fills new storage and the seeded iteration orders of parallel loops. Self-contained, so a
//! seed means the same thing on every platform and with every version of `rand`.

/// The SplitMix64 output function: a bijective scramble of 64 bits.
pub(super) fn mix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A SplitMix64 generator.
#[derive(Clone, Debug)]
pub(super) struct SplitMix64(u64);

impl SplitMix64 {
    pub(super) fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix64(self.0)
    }

    /// A value in `[0, n)` for `n > 0` (multiply-shift; the bias is below 2^-32 for any
    /// realistic loop extent).
    fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Shuffles `items` uniformly (Fisher-Yates).
    pub(super) fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffles_are_permutations_that_depend_on_the_seed() {
        let shuffled = |seed| {
            let mut v: Vec<u32> = (0..32).collect();
            SplitMix64::new(seed).shuffle(&mut v);
            v
        };
        let a = shuffled(1);
        let mut sorted = a.clone();
        sorted.sort();
        assert_eq!(sorted, (0..32).collect::<Vec<_>>());
        assert_eq!(a, shuffled(1));
        assert_ne!(a, shuffled(2));
    }
}
