//! unsharp — unsharp masking (4 stages) of a float32 three-channel image: a separable 7-tap
//! Gaussian blur, and the image sharpened where it differs enough from its blur.
//!
//! ```text
//! K[i] = exp(-i²/(2·1.5²)) / Σ_j exp(-j²/(2·1.5²))    for i, j in -3..=3 (f64, stored as f32)
//! clamped = repeat_edge(input)
//! blur_y(x, y, c) = Σ_{i=-3..3} K[i] * clamped(x, y+i, c)     // summed in order i = -3, ..., 3
//! blur_x(x, y, c) = Σ_{i=-3..3} K[i] * blur_y(x+i, y, c)
//! sharpen(x, y, c) = 2 * input(x, y, c) - blur_x(x, y, c)
//! output(x, y, c) = select(|input(x, y, c) - blur_x(x, y, c)| > 0.02,
//!                          sharpen(x, y, c), input(x, y, c))
//! ```
//!
//! The output covers the input (W × H × 3). All arithmetic is f32.
//!
//! Schedules: `manual` (Halide's: parallel strips of 32 rows, channel by channel, blur_y
//! computed per output row; 16-lane vectors), `root` and `inline`.

use tessera::lang::param::ParamBinding;
use tessera::prelude::*;

use crate::app::{AppDefinition, AppPipeline};
use crate::description::{AppDescription, InputSpec, Shape, TYPICAL_EVAL_BYTES};
use crate::schedule::{self, AppFuncs, Schedule};

pub struct Unsharp;

/// The blur's taps reach `RADIUS` pixels either side.
pub const RADIUS: i32 = 3;
const SIGMA: f64 = 1.5;
/// Pixels differing from their blur by at most this are left unchanged.
pub const THRESHOLD: f32 = 0.02;

/// The normalized Gaussian taps `K[-RADIUS..=RADIUS]`, computed in f64 and stored as f32.
pub fn kernel() -> [f32; 2 * RADIUS as usize + 1] {
    let weight = |i: i32| (-f64::from(i * i) / (2.0 * SIGMA * SIGMA)).exp();
    let total: f64 = (-RADIUS..=RADIUS).map(weight).sum();
    std::array::from_fn(|k| (weight(k as i32 - RADIUS) / total) as f32)
}

/// The Funcs of the unsharp pipeline.
pub struct UnsharpFuncs {
    pub input: ImageParam,
    pub clamped: Func,
    pub blur_y: Func,
    pub blur_x: Func,
    pub sharpen: Func,
    pub output: Func,
}

impl AppFuncs for UnsharpFuncs {
    fn pipeline(&self) -> AppPipeline {
        AppPipeline {
            output: self.output.clone(),
            inputs: vec![self.input.clone()],
        }
    }
}

/// `Σ K[i] * tap(i)` for i = -RADIUS..=RADIUS, summed in that order.
fn convolve(tap: impl Fn(i32) -> Expr) -> Expr {
    kernel()
        .iter()
        .zip(-RADIUS..=RADIUS)
        .map(|(&k, i)| k * tap(i))
        .reduce(|sum, term| sum + term)
        .expect("internal error: the kernel has taps")
}

/// The algorithm.
pub fn funcs() -> Result<UnsharpFuncs> {
    let input = ImageParam::new(Type::f32(), 3, "input");
    let (x, y, c) = (Var::new("x"), Var::new("y"), Var::new("c"));
    let clamped = repeat_edge(&input);
    let blur_y = Func::new("blur_y");
    blur_y.define((x, y, c), convolve(|i| clamped.at((x, y + i, c))))?;
    let blur_x = Func::new("blur_x");
    blur_x.define((x, y, c), convolve(|i| blur_y.at((x + i, y, c))))?;
    let pixel = input.at((x, y, c));
    let sharpen = Func::new("sharpen");
    sharpen.define((x, y, c), 2 * pixel.clone() - blur_x.at((x, y, c)))?;
    let output = Func::new("output");
    let changed = abs(pixel.clone() - blur_x.at((x, y, c))).gt(THRESHOLD);
    output.define((x, y, c), select(changed, sharpen.at((x, y, c)), pixel))?;
    Ok(UnsharpFuncs {
        input,
        clamped,
        blur_y,
        blur_x,
        sharpen,
        output,
    })
}

/// f32 lanes per vector in Halide's schedule.
const VECTOR: i32 = 16;
/// Rows per parallel strip in the manual schedule.
const STRIP: i32 = 32;

/// The f32 lanes of the `root` schedule's vectors (the natural width).
const ROOT_VECTOR: i64 = 8;

const SCHEDULES: &[Schedule<UnsharpFuncs>] = &[
    Schedule {
        name: "manual",
        min_output: (VECTOR as i64, STRIP as i64),
        apply: manual,
    },
    Schedule {
        name: "root",
        min_output: (ROOT_VECTOR, 1),
        apply: schedule::root,
    },
    Schedule {
        name: "inline",
        min_output: (1, 1),
        apply: schedule::inline,
    },
];

/// Halide's schedule: strips of 32 rows in parallel, each strip channel by channel; each row of
/// blur_y computed as the output's row needs it (blur_x and sharpen inlined); the output,
/// larger than the caches, written past them.
pub fn manual(p: &UnsharpFuncs) {
    p.output
        .store_nontemporal()
        .split("y", "yo", "yi", STRIP)
        .reorder(["x", "yi", "c", "yo"])
        .parallel("yo")
        .vectorize("x", VECTOR);
    p.blur_y.compute_at(&p.output, "yi").vectorize("x", VECTOR);
}

/// Unsharp masking in plain Rust loops over a `W × H × 3` f32 image (any mins), in the spec's
/// order of f32 operations.
pub fn reference(input: &Buffer<f32>) -> Buffer<f32> {
    let k = kernel();
    let (mins, extents) = (input.mins(), input.extents());
    let clamped = |x: i64, y: i64, c: i64| {
        let clamp = |v: i64, d: usize| v.clamp(mins[d], mins[d] + extents[d] - 1);
        input.get(&[clamp(x, 0), clamp(y, 1), clamp(c, 2)])
    };
    let convolve = |tap: &dyn Fn(i64) -> f32| {
        (1..k.len()).fold(k[0] * tap(-i64::from(RADIUS)), |sum, j| {
            sum + k[j] * tap(j as i64 - i64::from(RADIUS))
        })
    };
    // blur_y over the input's box widened by RADIUS columns each side.
    let r = i64::from(RADIUS);
    let blur_y = Buffer::from_fn(
        &[mins[0] - r, mins[1], mins[2]],
        &[extents[0] + 2 * r, extents[1], extents[2]],
        |p| convolve(&|i| clamped(p[0], p[1] + i, p[2])),
    );
    Buffer::from_fn(&mins, &extents, |p| {
        let blur_x = convolve(&|i| blur_y.get(&[p[0] + i, p[1], p[2]]));
        let pixel = input.get(p);
        let sharpen = 2.0 * pixel - blur_x;
        if (pixel - blur_x).abs() > THRESHOLD {
            sharpen
        } else {
            pixel
        }
    })
}

/// unsharp as `tessera apps` lists it.
pub const DESCRIPTION: AppDescription = AppDescription {
    name: "unsharp",
    summary: "unsharp masking, f32 RGB",
    inputs: &[InputSpec {
        name: "input",
        ty: Type::f32(),
        shape: Shape::Channels(3),
        description: "f32 RGB, W × H × 3",
    }],
    rules: &[],
    output: Shape::Channels(3),
    params: &[],
    default_size: (2048, 2048),
    eval_bytes_per_pixel: TYPICAL_EVAL_BYTES,
};

impl AppDefinition for Unsharp {
    type Funcs = UnsharpFuncs;
    fn description(&self) -> &AppDescription {
        &DESCRIPTION
    }
    fn funcs(&self) -> Result<UnsharpFuncs> {
        funcs()
    }
    fn schedules(&self) -> &[Schedule<UnsharpFuncs>] {
        SCHEDULES
    }
    fn reference(&self, inputs: &[AnyBuffer], _params: &[ParamBinding]) -> Result<AnyBuffer> {
        let input: Buffer<f32> = inputs[0].clone().try_into()?;
        Ok(reference(&input).into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_is_a_normalized_symmetric_gaussian() {
        let k = kernel();
        let total: f32 = k.iter().sum();
        assert!((total - 1.0).abs() < 1e-6, "{k:?}");
        assert!((0..3).all(|i| k[i] == k[6 - i] && k[i] < k[i + 1]), "{k:?}");
        // exp(0) / (1 + 2 e^(-1/4.5) + 2 e^(-4/4.5) + 2 e^(-9/4.5)).
        assert!((k[3] - 0.270_682).abs() < 1e-6, "{k:?}");
    }

    #[test]
    fn reference_leaves_a_constant_image_and_sharpens_a_step() {
        let flat = Buffer::from_fn(&[0, 0, 0], &[9, 9, 3], |_| 0.5f32);
        assert_eq!(reference(&flat), flat);
        // A vertical step from 0 to 1 between columns 4 and 5: next to it the dark side gets
        // darker and the bright side brighter; far away (beyond the taps) nothing changes.
        let step = Buffer::from_fn(&[0, 0, 0], &[12, 4, 3], |c| {
            if c[0] >= 5 {
                1.0f32
            } else {
                0.0
            }
        });
        let out = reference(&step);
        assert!(out.get(&[4, 1, 0]) < 0.0 && out.get(&[5, 1, 2]) > 1.0);
        assert_eq!((out.get(&[0, 2, 1]), out.get(&[11, 0, 0])), (0.0, 1.0));
    }
}
