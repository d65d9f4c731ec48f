//! Rounding to Halide's 16-bit float (`float16_t`, here `half::f16`) from f64, correctly.
//! `half::f16::from_f64` rounds twice (through f32 where F16C is there, by its truncated
//! high word otherwise), which can land on the wrong side of a tie; LLVM's `fptrunc` and
//! Halide's `float16_t(double)` round once. Every conversion to f16 from a wider value goes
//! through here, so constants, the evaluator and the native code agree.

use half::f16;

/// `v` rounded to the nearest f16, ties to even; past the largest finite f16 (65504) to an
/// infinity; NaN stays NaN (sign and quiet bit kept).
pub fn f16_from_f64(v: f64) -> f16 {
    f16::from_f32(f32_rounded_to_odd(v))
}

/// `v` as an f32 rounded to odd: truncated towards zero, with the last bit set when that
/// dropped anything. With 24 bits, more than f16's 11 + 2, the later rounding to f16 is then
/// the correct rounding of `v` itself (Boldo and Melquiond, "When double rounding is odd").
fn f32_rounded_to_odd(v: f64) -> f32 {
    let nearest = v as f32;
    if !v.is_finite() || nearest as f64 == v || nearest.is_infinite() {
        return nearest;
    }
    // The f32 next to `nearest` towards zero when `nearest` rounded away from zero: its bits
    // are one less (the same sign, a smaller magnitude).
    let truncated = if (nearest as f64).abs() > v.abs() {
        f32::from_bits(nearest.to_bits() - 1)
    } else {
        nearest
    };
    f32::from_bits(truncated.to_bits() | 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The f16 nearest to `v` by exhaustive search over every finite f16, ties to the even
    /// bit pattern, infinity beyond 65504 + half an ulp: the definition, without rounding
    /// tricks.
    fn nearest_by_search(v: f64) -> u16 {
        let sign = if v.is_sign_negative() { 0x8000 } else { 0 };
        let magnitude = v.abs();
        // The largest finite f16 plus half its ulp (2^5): ties there go to the infinity.
        if magnitude >= 65520.0 {
            return sign | 0x7C00;
        }
        let mut best = 0u16;
        for bits in 0..0x7C00u16 {
            let value = f16::from_bits(bits).to_f64();
            let best_value = f16::from_bits(best).to_f64();
            let (d, best_d) = ((value - magnitude).abs(), (best_value - magnitude).abs());
            if d < best_d || (d == best_d && bits % 2 == 0) {
                best = bits;
            }
        }
        sign | best
    }

    #[test]
    fn rounding_from_f64_is_to_nearest_even() {
        let ulp_at_one = 2f64.powi(-10);
        let samples = [
            1.0 + ulp_at_one / 2.0,                  // a tie: down to the even 1.0
            1.0 + 3.0 * ulp_at_one / 2.0,            // a tie: up to the even 1 + 2 ulp
            1.0 + ulp_at_one / 2.0 + 2f64.powi(-40), // just above a tie: up
            1.0 + ulp_at_one / 2.0 - 2f64.powi(-40), // just below a tie: down
            0.1,
            -2.5e-3,
            65504.0,
            65519.999,
            2f64.powi(-24),        // the smallest subnormal
            2f64.powi(-25),        // half of it, a tie: to zero
            2f64.powi(-25) * 1.01, // just above: to the smallest subnormal
            3.0 * 2f64.powi(-25),  // a tie between subnormals 1 and 2: to 2
            6.1e-5,                // just below the smallest normal
            1e-300,
        ];
        for v in samples.into_iter().flat_map(|v| [v, -v]) {
            assert_eq!(f16_from_f64(v).to_bits(), nearest_by_search(v), "{v:e}");
        }
    }

    #[test]
    fn half_crates_double_rounding_is_avoided() {
        // 1 + 2^-11 + 2^-40: half's conversion sees an exact tie and rounds down.
        let v = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
        assert_eq!(f16_from_f64(v).to_f64(), 1.0 + 2f64.powi(-10));
    }

    #[test]
    fn overflow_gives_infinity_and_nan_stays_nan() {
        assert_eq!(f16_from_f64(65520.0), f16::INFINITY);
        assert_eq!(f16_from_f64(-1e10), f16::NEG_INFINITY);
        assert_eq!(f16_from_f64(f64::INFINITY), f16::INFINITY);
        assert!(f16_from_f64(f64::NAN).is_nan());
        assert!(f16_from_f64(-f64::NAN).is_sign_negative());
        assert_eq!(f16_from_f64(-0.0).to_bits(), 0x8000);
    }

    #[test]
    fn every_f16_survives_a_round_trip_through_f32_and_f64() {
        for bits in 0..=u16::MAX {
            let h = f16::from_bits(bits);
            if h.is_nan() {
                assert!(f16_from_f64(h.to_f64()).is_nan());
                continue;
            }
            assert_eq!(f16_from_f64(h.to_f64()).to_bits(), bits);
            assert_eq!(f16::from_f32(h.to_f32()).to_bits(), bits);
        }
    }
}
