//! interpolate — multi-scale interpolation (≈50 stages): scattered opaque samples of an RGBA
//! float32 image (alpha in channel 3) spread to fill the transparent pixels, by building a
//! pyramid of premultiplied, alpha-weighted downsamplings and compositing each level over the
//! upsampled coarser result, then dividing by the resulting alpha.
//!
//! ```text
//! clamped = repeat_edge(input)
//! downsampled[0](x, y, c) = select(c < 3, clamped(x, y, c) * clamped(x, y, 3), clamped(x, y, 3))
//! downx[l](x, y, c) = (d(2x-1, y, c) + 2*d(2x, y, c) + d(2x+1, y, c)) * 0.25    (d = downsampled[l-1])
//! downsampled[l](x, y, c) = (downx[l](x, 2y-1, c) + 2*downx[l](x, 2y, c) + downx[l](x, 2y+1, c)) * 0.25
//! interpolated[LEVELS-1] = downsampled[LEVELS-1]
//! upsampledx[l](x, y, c) = (interpolated[l+1](x/2, y, c) + interpolated[l+1]((x+1)/2, y, c)) / 2
//! upsampled[l](x, y, c) = (upsampledx[l](x, y/2, c) + upsampledx[l](x, (y+1)/2, c)) / 2
//! interpolated[l](x, y, c) = downsampled[l](x, y, c) + (1 - downsampled[l](x, y, 3)) * upsampled[l](x, y, c)
//! output(x, y, c) = interpolated[0](x, y, c) / interpolated[0](x, y, 3)          c = 0..2
//! ```
//!
//! LEVELS = 10; a W × H × 4 input gives a W × H × 3 output. Channels are absolute indices
//! (alpha is channel 3), so inputs have channels 0..=3. The pipeline and the reference are
//! written for any number of levels (tests use fewer: the downsampling chain reads about
//! 2^(levels-1) pixels beyond every edge of the input, whatever its size — with 10 levels
//! level 0 covers over 1500 × 1500 points even for a tiny input).

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tessera::lang::param::ParamBinding;
use tessera::prelude::*;

use crate::app::{AppDefinition, AppPipeline};
use crate::description::{AppDescription, InputSpec, Shape};
use crate::schedule::{self, AppFuncs, Schedule};
use crate::synthetic;

pub struct Interpolate;

/// The pyramid levels of the app.
pub const LEVELS: usize = 10;
/// The alpha channel.
const ALPHA: i32 = 3;

/// The Funcs of the interpolate pipeline. `downx[l - 1]` makes level `l` of `downsampled`
/// (l ≥ 1); `upsampledx[l]` and `upsampled[l]` feed `interpolated[l]` (l < levels - 1).
pub struct InterpolateFuncs {
    pub input: ImageParam,
    pub clamped: Func,
    pub downsampled: Vec<Func>,
    pub downx: Vec<Func>,
    pub interpolated: Vec<Func>,
    pub upsampledx: Vec<Func>,
    pub upsampled: Vec<Func>,
    pub output: Func,
}

impl AppFuncs for InterpolateFuncs {
    fn pipeline(&self) -> AppPipeline {
        AppPipeline {
            output: self.output.clone(),
            inputs: vec![self.input.clone()],
        }
    }
}

/// The algorithm with `levels` pyramid levels (at least 1).
pub fn funcs_with_levels(levels: usize) -> Result<InterpolateFuncs> {
    if levels == 0 {
        return Err(Error::Definition(
            "interpolate needs at least one pyramid level".to_string(),
        ));
    }
    let input = ImageParam::new(Type::f32(), 3, "input");
    let (x, y, c) = (Var::new("x"), Var::new("y"), Var::new("c"));
    let clamped = repeat_edge(&input);

    let level_0 = Func::new("downsampled_0");
    level_0.define(
        (x, y, c),
        select(
            c.lt(ALPHA),
            clamped.at((x, y, c)) * clamped.at((x, y, ALPHA)),
            clamped.at((x, y, ALPHA)),
        ),
    )?;
    let mut downsampled = vec![level_0];
    let mut downx = Vec::new();
    for l in 1..levels {
        let d = &downsampled[l - 1];
        let dx = Func::new(&format!("downx_{l}"));
        dx.define(
            (x, y, c),
            (d.at((2 * x - 1, y, c)) + 2 * d.at((2 * x, y, c)) + d.at((2 * x + 1, y, c))) * 0.25,
        )?;
        let level = Func::new(&format!("downsampled_{l}"));
        level.define(
            (x, y, c),
            (dx.at((x, 2 * y - 1, c)) + 2 * dx.at((x, 2 * y, c)) + dx.at((x, 2 * y + 1, c))) * 0.25,
        )?;
        downx.push(dx);
        downsampled.push(level);
    }

    let coarsest = Func::new(&format!("interpolated_{}", levels - 1));
    coarsest.define((x, y, c), downsampled[levels - 1].at((x, y, c)))?;
    // Built coarsest first; reversed below so that index l is level l.
    let mut interpolated = vec![coarsest];
    let (mut upsampledx, mut upsampled) = (Vec::new(), Vec::new());
    for l in (0..levels - 1).rev() {
        let coarser = interpolated
            .last()
            .expect("internal error: a coarser level exists");
        let ux = Func::new(&format!("upsampledx_{l}"));
        ux.define(
            (x, y, c),
            (coarser.at((x / 2, y, c)) + coarser.at(((x + 1) / 2, y, c))) / 2,
        )?;
        let u = Func::new(&format!("upsampled_{l}"));
        u.define(
            (x, y, c),
            (ux.at((x, y / 2, c)) + ux.at((x, (y + 1) / 2, c))) / 2,
        )?;
        let d = &downsampled[l];
        let level = Func::new(&format!("interpolated_{l}"));
        level.define(
            (x, y, c),
            d.at((x, y, c)) + (1 - d.at((x, y, ALPHA))) * u.at((x, y, c)),
        )?;
        upsampledx.push(ux);
        upsampled.push(u);
        interpolated.push(level);
    }
    interpolated.reverse();
    upsampledx.reverse();
    upsampled.reverse();

    let output = Func::new("output");
    output.define(
        (x, y, c),
        interpolated[0].at((x, y, c)) / interpolated[0].at((x, y, ALPHA)),
    )?;
    Ok(InterpolateFuncs {
        input,
        clamped,
        downsampled,
        downx,
        interpolated,
        upsampledx,
        upsampled,
        output,
    })
}

/// The algorithm, with the app's `LEVELS` levels.
pub fn funcs() -> Result<InterpolateFuncs> {
    funcs_with_levels(LEVELS)
}

/// f32 lanes per vector.
const VECTOR: i32 = 8;
/// Rows per parallel task.
const ROWS_PER_TASK: i32 = 8;

/// The smallest output of the manual schedule: `VECTOR` columns of 2 × 2 tiles a vector and
/// `ROWS_PER_TASK` rows of tiles a task, where a last tile sticking out shifts inwards by one
/// pixel (so 15 pixels make 8 tiles).
const MANUAL_MIN_OUTPUT: (i64, i64) = (2 * VECTOR as i64 - 1, 2 * ROWS_PER_TASK as i64 - 1);

/// The schedules: `manual` and `root` (no `inline`: a pyramid of ten levels inlined is an
/// exponentially large expression). Each applies to the pipeline with any number of levels.
pub const SCHEDULES: &[Schedule<InterpolateFuncs>] = &[
    Schedule {
        name: "manual",
        min_output: MANUAL_MIN_OUTPUT,
        apply: manual,
    },
    Schedule {
        name: "root",
        min_output: (VECTOR as i64, 1),
        apply: schedule::root,
    },
];

/// Halide's `f.parallel(y, rows)`: the rows of `f` in parallel tasks of `rows` rows each.
fn parallel_rows(f: &Func, rows: i32) -> &Func {
    f.split("y", "y", "y_in_task", rows).parallel("y")
}

/// Halide's schedule: the inner levels of downsampled and interpolated (upsampledx and
/// upsampled inlined) computed at root, rows in parallel tasks, vectorized over x; unlike
/// Halide's (which inlines it), downsampled's x pass `downx` slides down each task, a row at
/// a time (0.83 of the time at 1 and 2 threads); interpolated unrolled in 2 × 2 blocks, so that within a block the upsampling's
/// divisions by 2 are known. The finest and coarsest levels are inlined into their consumers.
/// The output is computed in 2 × 2 tiles with its three channels unrolled, the tiles' columns
/// vectorized; unlike Halide's, a tile row's two columns are the innermost loop, so their
/// strided stores are next to each other and combine into one dense store (lowering's
/// `interleave_stores`; Halide's channels innermost keep them apart, stored lane by lane).
/// The first level, which reads the (planar) input, computes its four channels together per
/// pixel, so each input plane is read once and alpha is loaded once for all of them. The
/// output, larger than the caches, is written past them.
pub fn manual(p: &InterpolateFuncs) {
    let levels = p.downsampled.len();
    for l in 1..levels.saturating_sub(1) {
        parallel_rows(p.downsampled[l].compute_root(), ROWS_PER_TASK).vectorize("x", VECTOR);
        // The x pass of the downsampling slides down each task's rows: each of its rows is
        // computed once, where inlined into downsampled it was computed for two of
        // downsampled's rows (the rows 2y ± 1 are shared by y and its neighbours).
        let downx = p.downx[l - 1]
            .store_at(&p.downsampled[l], "y")
            .compute_at(&p.downsampled[l], "y_in_task");
        if l == 1 {
            p.downsampled[l].reorder(["c", "x", "y_in_task", "y"]);
            downx.reorder(["c", "x", "y"]);
            for f in [&p.downsampled[l], downx] {
                f.bound(Var::new("c"), 0, 4).unroll("c", 4);
            }
        }
        downx.vectorize("x", VECTOR);
        parallel_rows(p.interpolated[l].compute_root(), ROWS_PER_TASK)
            .unroll("x", 2)
            .unroll("y", 2)
            .vectorize("x", VECTOR);
    }
    let tile = p
        .output
        .store_nontemporal()
        .bound(Var::new("c"), 0, 3)
        .reorder(["c", "x", "y"])
        .tile_in_place("x", "y", "xi", "yi", 2, 2)
        .reorder(["xi", "c"])
        .unroll("c", 3)
        .unroll_loop("xi")
        .unroll_loop("yi");
    parallel_rows(tile, ROWS_PER_TASK).vectorize("x", VECTOR);
}

/// A closed interval `[lo, hi]` of coordinates along one dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub lo: i64,
    pub hi: i64,
}

impl Span {
    /// The coarser level's coordinates that upsampling this span reads (`x/2`, `(x+1)/2`).
    fn upsampling_footprint(self) -> Span {
        Span {
            lo: self.lo.div_euclid(2),
            hi: (self.hi + 1).div_euclid(2),
        }
    }
    /// The finer level's coordinates that downsampling this span reads (`2x-1 ..= 2x+1`).
    fn downsampling_footprint(self) -> Span {
        Span {
            lo: 2 * self.lo - 1,
            hi: 2 * self.hi + 1,
        }
    }
    fn union(self, other: Span) -> Span {
        Span {
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
        }
    }
    fn extent(self) -> i64 {
        self.hi - self.lo + 1
    }
}

/// The (x, y) regions of each pyramid level that an output region needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelRegions {
    pub interpolated: Vec<[Span; 2]>,
    pub downsampled: Vec<[Span; 2]>,
}

/// What `levels` levels compute for an output over `out` (x and y spans): interpolated level
/// l + 1 is read where level l upsamples; downsampled level l where interpolated level l
/// reads it and where level l + 1 downsamples it.
pub fn level_regions(out: [Span; 2], levels: usize) -> LevelRegions {
    let mut interpolated = vec![out];
    for l in 1..levels {
        interpolated.push(interpolated[l - 1].map(Span::upsampling_footprint));
    }
    let mut downsampled = interpolated.clone();
    for l in (0..levels - 1).rev() {
        for d in 0..2 {
            downsampled[l][d] =
                interpolated[l][d].union(downsampled[l + 1][d].downsampling_footprint());
        }
    }
    LevelRegions {
        interpolated,
        downsampled,
    }
}

/// A buffer over the (x, y) spans `region` and the channels `channels`, filled by `f`.
fn level_buffer(
    region: [Span; 2],
    channels: Span,
    f: impl Fn(i64, i64, i64) -> f32,
) -> Buffer<f32> {
    Buffer::from_fn(
        &[region[0].lo, region[1].lo, channels.lo],
        &[region[0].extent(), region[1].extent(), channels.extent()],
        |p| f(p[0], p[1], p[2]),
    )
}

/// Multi-scale interpolation with `levels` levels in plain Rust loops, over an RGBA f32 image
/// (any x and y mins, channels 0..=3), each level computed over the region the output needs,
/// in the spec's order of f32 operations.
pub fn reference_with_levels(input: &Buffer<f32>, levels: usize) -> Buffer<f32> {
    assert!(
        levels > 0,
        "internal error: the interpolate reference needs a level"
    );
    let (mins, extents) = (input.mins(), input.extents());
    let clamped = |x: i64, y: i64, c: i64| {
        let clamp = |v: i64, d: usize| v.clamp(mins[d], mins[d] + extents[d] - 1);
        input.get(&[clamp(x, 0), clamp(y, 1), clamp(c, 2)])
    };
    let alpha = i64::from(ALPHA);
    let out_channels = Span {
        lo: mins[2],
        hi: mins[2] + 2,
    };
    let channels = out_channels.union(Span {
        lo: alpha,
        hi: alpha,
    });
    let out = [0, 1].map(|d| Span {
        lo: mins[d],
        hi: mins[d] + extents[d] - 1,
    });
    let regions = level_regions(out, levels);

    let mut downsampled = vec![level_buffer(regions.downsampled[0], channels, |x, y, c| {
        if c < alpha {
            clamped(x, y, c) * clamped(x, y, alpha)
        } else {
            clamped(x, y, alpha)
        }
    })];
    for l in 1..levels {
        let d = &downsampled[l - 1];
        let [xs, ys] = regions.downsampled[l];
        let downx = level_buffer([xs, ys.downsampling_footprint()], channels, |x, y, c| {
            (d.get(&[2 * x - 1, y, c]) + 2.0 * d.get(&[2 * x, y, c]) + d.get(&[2 * x + 1, y, c]))
                * 0.25
        });
        downsampled.push(level_buffer([xs, ys], channels, |x, y, c| {
            (downx.get(&[x, 2 * y - 1, c])
                + 2.0 * downx.get(&[x, 2 * y, c])
                + downx.get(&[x, 2 * y + 1, c]))
                * 0.25
        }));
    }

    let mut interpolated = downsampled[levels - 1].clone();
    for l in (0..levels - 1).rev() {
        let coarser = &interpolated;
        let [xs, ys] = regions.interpolated[l];
        let upsampledx = level_buffer([xs, ys.upsampling_footprint()], channels, |x, y, c| {
            (coarser.get(&[x.div_euclid(2), y, c]) + coarser.get(&[(x + 1).div_euclid(2), y, c]))
                / 2.0
        });
        let d = &downsampled[l];
        interpolated = level_buffer([xs, ys], channels, |x, y, c| {
            let upsampled = (upsampledx.get(&[x, y.div_euclid(2), c])
                + upsampledx.get(&[x, (y + 1).div_euclid(2), c]))
                / 2.0;
            d.get(&[x, y, c]) + (1.0 - d.get(&[x, y, alpha])) * upsampled
        });
    }
    level_buffer(out, out_channels, |x, y, c| {
        interpolated.get(&[x, y, c]) / interpolated.get(&[x, y, alpha])
    })
}

/// The reference with the app's `LEVELS` levels.
pub fn reference(input: &Buffer<f32>) -> Buffer<f32> {
    reference_with_levels(input, LEVELS)
}

/// The fraction of pixels of the default input that are opaque samples.
const SAMPLE_DENSITY: f64 = 0.05;

/// An RGBA image whose colours are the synthetic test image and whose alpha is 1 at a
/// scattered `density` of the pixels (chosen by `seed`) and 0 elsewhere. An error when it
/// cannot be allocated.
pub fn sampled_image(width: i64, height: i64, density: f64, seed: u64) -> Result<Buffer<f32>> {
    let colours = synthetic::image(&[width, height, 4], seed)?;
    let mut rng = SmallRng::seed_from_u64(seed);
    let opaque: Vec<bool> = (0..width * height)
        .map(|_| rng.random_bool(density))
        .collect();
    Buffer::try_from_fn(&[0, 0, 0], &[width, height, 4], |p| {
        if p[2] < i64::from(ALPHA) {
            colours.get(p)
        } else if opaque[(p[1] * width + p[0]) as usize] {
            1.0
        } else {
            0.0
        }
    })
}

/// interpolate as `tessera apps` lists it.
pub const DESCRIPTION: AppDescription = AppDescription {
    name: "interpolate",
    summary: "pyramid interpolation of scattered RGBA samples, f32",
    inputs: &[InputSpec {
        name: "input",
        ty: Type::f32(),
        shape: Shape::Channels(4),
        description: "f32 RGBA (alpha in channel 3), W × H × 4",
    }],
    rules: &[],
    output: Shape::Channels(3),
    params: &[],
    default_size: (2560, 1536),
    // Measured: 66 KB per pixel at 256 x 256 (every level of both pyramids memoized).
    eval_bytes_per_pixel: 72 << 10,
};

impl AppDefinition for Interpolate {
    type Funcs = InterpolateFuncs;
    fn description(&self) -> &AppDescription {
        &DESCRIPTION
    }
    fn funcs(&self) -> Result<InterpolateFuncs> {
        funcs()
    }
    fn schedules(&self) -> &[Schedule<InterpolateFuncs>] {
        SCHEDULES
    }
    fn default_inputs(&self, width: i64, height: i64) -> Result<Vec<AnyBuffer>> {
        let input = sampled_image(width, height, SAMPLE_DENSITY, synthetic::DEFAULT_SEED)?;
        Ok(vec![input.into()])
    }
    fn reference(&self, inputs: &[AnyBuffer], _params: &[ParamBinding]) -> Result<AnyBuffer> {
        let input: Buffer<f32> = inputs[0].clone().try_into()?;
        Ok(reference(&input).into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(lo: i64, hi: i64) -> Span {
        Span { lo, hi }
    }

    #[test]
    fn level_regions_by_hand() {
        // Output x in [0, 5]: interpolated 1 reads [0, 3], 2 reads [0, 2]; downsampled 2 is
        // [0, 2], level 1 also feeds it over [-1, 5], level 0 feeds that over [-3, 11].
        let r = level_regions([span(0, 5), span(2, 2)], 3);
        let xs: Vec<Span> = r.interpolated.iter().map(|s| s[0]).collect();
        assert_eq!(xs, vec![span(0, 5), span(0, 3), span(0, 2)]);
        let xs: Vec<Span> = r.downsampled.iter().map(|s| s[0]).collect();
        assert_eq!(xs, vec![span(-3, 11), span(-1, 5), span(0, 2)]);
        assert_eq!(r.interpolated[1][1], span(1, 1));
    }

    #[test]
    fn one_opaque_sample_fills_the_image_with_its_colour() {
        let mut input = Buffer::from_fn(&[0, 0, 0], &[7, 5, 4], |_| 0.0f32);
        for (c, v) in [0.25f32, 0.5, 0.75, 1.0].into_iter().enumerate() {
            input.set(&[3, 2, c as i64], v);
        }
        for levels in [1, 3, 5] {
            let out = reference_with_levels(&input, levels);
            assert_eq!(out.extents(), vec![7, 5, 3]);
            out.for_each_coord(|p| {
                let want = [0.25f32, 0.5, 0.75][p[2] as usize];
                let got = out.get(p);
                // Where a level has no coverage the division is 0/0; with enough levels the
                // sample reaches everywhere.
                if levels == 5 || p[..2] == [3, 2] {
                    assert!((got - want).abs() < 1e-6, "{levels} levels, {p:?}: {got}");
                }
            });
        }
    }

    #[test]
    fn default_input_has_scattered_opaque_samples() {
        let inputs = Interpolate
            .default_inputs(40, 30)
            .expect("the default input");
        let [AnyBuffer::F32(input)] = inputs.as_slice() else {
            panic!("interpolate's one input is f32");
        };
        let mut opaque = 0;
        input.for_each_coord(|p| {
            let v = input.get(p);
            if p[2] == 3 {
                assert!(v == 0.0 || v == 1.0);
                opaque += usize::from(v == 1.0);
            }
        });
        assert!((20..=100).contains(&opaque), "{opaque} opaque of 1200");
    }
}
