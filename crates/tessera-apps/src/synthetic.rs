//! The deterministic synthetic test image every app's default input is made from: smooth
//! gradients and waves, a few flat shapes with hard edges, and uniform noise, in [0, 1]. The
//! same seed and extents always give the same image.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tessera::prelude::*;

/// The seed of every app's default input.
pub const DEFAULT_SEED: u64 = 0x7e55_e4a0;

/// A flat-valued rectangle or disc, in coordinates relative to the image size.
struct Shape {
    center: (f64, f64),
    half_size: (f64, f64),
    round: bool,
    value: f64,
}

impl Shape {
    fn random(rng: &mut SmallRng) -> Shape {
        Shape {
            center: (rng.random_range(0.0..1.0), rng.random_range(0.0..1.0)),
            half_size: (rng.random_range(0.04..0.2), rng.random_range(0.04..0.2)),
            round: rng.random_bool(0.5),
            value: rng.random_range(0.0..1.0),
        }
    }
    fn contains(&self, u: f64, v: f64) -> bool {
        let dx = (u - self.center.0) / self.half_size.0;
        let dy = (v - self.center.1) / self.half_size.1;
        if self.round {
            dx * dx + dy * dy <= 1.0
        } else {
            dx.abs() <= 1.0 && dy.abs() <= 1.0
        }
    }
}

const SHAPES: usize = 7;
const NOISE: f64 = 0.04;

/// The default test image of `extents` (`image` with `DEFAULT_SEED`), each value in [0, 1]
/// converted by `convert` (e.g. scaled to an integer range).
pub fn default_image_as<T: Scalar>(extents: &[i64], convert: impl Fn(f32) -> T) -> Result<AnyBuffer>
where
    Buffer<T>: Into<AnyBuffer>,
{
    converted(&image(extents, DEFAULT_SEED)?, convert)
}

/// The default test image for an app's input number `index` (each input of an app has its own
/// seed, the first `DEFAULT_SEED`) of element type `ty`: floats in [0, 1], unsigned integers
/// the same scaled to their type's whole range.
pub fn default_input(ty: Type, extents: &[i64], index: usize) -> Result<AnyBuffer> {
    let image = image(extents, DEFAULT_SEED + index as u64)?;
    match ty {
        t if t == Type::f32() => Ok(image.into()),
        t if t == Type::f64() => converted(&image, f64::from),
        t if t == Type::u8() => converted(&image, |v| (v * 255.0).round() as u8),
        t if t == Type::u16() => converted(&image, |v| (v * 65535.0).round() as u16),
        _ => Err(Error::Buffer(format!(
            "there is no default test image of {ty} values; the app must give its own"
        ))),
    }
}

/// `image` with each value converted by `convert`.
fn converted<T: Scalar>(image: &Buffer<f32>, convert: impl Fn(f32) -> T) -> Result<AnyBuffer>
where
    Buffer<T>: Into<AnyBuffer>,
{
    Ok(
        Buffer::<T>::try_from_fn(&image.mins(), &image.extents(), |c| convert(image.get(c)))?
            .into(),
    )
}

/// An image over `[0, extents)` (x, y, then optionally channels) with values in [0, 1]:
/// a gradient plus low-frequency waves (different per channel), overpainted by flat shapes,
/// plus uniform noise of amplitude `NOISE`. An error when it cannot be allocated.
pub fn image(extents: &[i64], seed: u64) -> Result<Buffer<f32>> {
    assert!(
        extents.len() >= 2,
        "internal error: a synthetic image needs x and y extents, got {extents:?}"
    );
    let mut rng = SmallRng::seed_from_u64(seed);
    let shapes: Vec<Shape> = (0..SHAPES).map(|_| Shape::random(&mut rng)).collect();
    let (w, h) = (extents[0].max(1) as f64, extents[1].max(1) as f64);
    let mins = vec![0; extents.len()];
    Buffer::try_from_fn(&mins, extents, |c| {
        let (u, v) = (c[0] as f64 / w, c[1] as f64 / h);
        let channel = c.get(2).copied().unwrap_or(0) as f64;
        let smooth = 0.35 * u
            + 0.25 * v
            + 0.15 * (std::f64::consts::TAU * (1.7 * u + 0.3 * channel)).sin()
            + 0.1 * (std::f64::consts::TAU * 2.3 * v).cos();
        let painted = shapes
            .iter()
            .rev()
            .find(|s| s.contains(u, v))
            .map_or(smooth, |s| 0.3 * smooth + 0.7 * s.value);
        let noisy = painted + rng.random_range(-NOISE..=NOISE);
        noisy.clamp(0.0, 1.0) as f32
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_in_range_and_varied() {
        let a = image(&[64, 48], 3).unwrap();
        assert_eq!(a, image(&[64, 48], 3).unwrap());
        assert_ne!(a, image(&[64, 48], 4).unwrap());
        assert!(a.data().iter().all(|&v| (0.0..=1.0).contains(&v)));
        let (lo, hi) = a
            .data()
            .iter()
            .fold((1.0f32, 0.0f32), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        assert!(hi - lo > 0.5, "range [{lo}, {hi}] is too narrow");
        // Noise: neighbouring pixels differ somewhere even inside smooth regions.
        assert!((1..64).any(|x| a.get(&[x, 10]) != a.get(&[x - 1, 10])));
    }

    #[test]
    fn channels_differ() {
        let a = image(&[32, 16, 3], 1).unwrap();
        assert!((0..32).any(|x| (a.get(&[x, 5, 0]) - a.get(&[x, 5, 2])).abs() > 0.1));
    }
}
