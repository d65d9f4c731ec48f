//! The specifications' scalar operations in plain Rust, for the references: `clamp` and `lerp`
//! on f32 exactly as the pipelines compute them (Tessera's float `min(a, b)` is
//! `a < b ? a : b` and `max(a, b)` is `a > b ? a : b`, so a NaN clamps to the upper bound, and
//! `lerp(a, b, t)` is `a * (1 - t) + b * t`).

/// `clamp(x, lo, hi)` = `max(min(x, hi), lo)` with Tessera's float min and max.
pub fn clamp_f32(x: f32, lo: f32, hi: f32) -> f32 {
    let below_hi = if x < hi { x } else { hi };
    if below_hi > lo {
        below_hi
    } else {
        lo
    }
}

/// `lerp(a, b, t)` = `a * (1 - t) + b * t`, in f32.
pub fn lerp_f32(a: f32, b: f32, t: f32) -> f32 {
    a * (1.0 - t) + b * t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clamp_and_lerp_as_the_pipelines_compute_them() {
        assert_eq!(clamp_f32(1.5, 0.0, 1.0), 1.0);
        assert_eq!(clamp_f32(-0.5, 0.0, 1.0), 0.0);
        assert_eq!(clamp_f32(0.25, 0.0, 1.0), 0.25);
        assert_eq!(clamp_f32(f32::NAN, 0.0, 1.0), 1.0);
        assert_eq!(lerp_f32(2.0, 6.0, 0.25), 3.0);
        // Not a + (b - a) * t: with a = 1e8 and b = 1, t = 1 gives exactly b.
        assert_eq!(lerp_f32(1e8, 1.0, 1.0), 1.0);
    }
}
