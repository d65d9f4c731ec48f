//! pyramid_blend — Laplacian pyramid blending (the PolyMage benchmark, 49 stages;
//! `../shared/apps/pyramid_blend.md`): two RGB f32 images `img1` and `img2` (W × H × 3) are
//! blended by a mask (f32, W × H, in [0, 1]; 1 takes img1) level by level of their Laplacian
//! pyramids, each level weighted by the mask's Gaussian level, and the blended pyramid is
//! collapsed back into a W × H × 3 image. `LEVELS` = 4; level l is W_l × H_l with
//! W_l = ceil(W / 2^l); `c` is carried through unchanged.
//!
//! ```text
//! clampl(f, l)(x, y) = f(clamp(x, 0, W_l - 1), clamp(y, 0, H_l - 1))
//! down(f, l):   s = clampl(f, l-1)
//!   dx(x, y) = (s(2x-2, y) + 4*s(2x-1, y) + 6*s(2x, y) + 4*s(2x+1, y) + s(2x+2, y)) * (1/16)
//!   g(x, y)  = (dx(x, 2y-2) + 4*dx(x, 2y-1) + 6*dx(x, 2y) + 4*dx(x, 2y+1) + dx(x, 2y+2)) * (1/16)
//! expand(f, l): s = clampl(f, l+1)
//!   ux(x, y) = select(x % 2 == 0, (s(x/2-1, y) + 6*s(x/2, y) + s(x/2+1, y)) * 0.125,
//!                                 (s(x/2, y) + s(x/2+1, y)) * 0.5)
//!   uy(x, y) = the same in y, reading ux
//! gA[0] = img1, gB[0] = img2, gM[0] = mask;  gP[l] = down(gP[l-1], l)               l = 1..3
//! lA[l] = gA[l] - expand(gA[l+1], l) (lB likewise), l = 0..2;  lA[3] = gA[3], lB[3] = gB[3]
//! blend[l](x, y, c) = lA[l](x, y, c) * gM[l](x, y) + lB[l](x, y, c) * (1 - gM[l](x, y))
//! out[3] = blend[3];  out[l] = expand(out[l+1], l) + blend[l]                     l = 2, 1, 0
//! ```
//!
//! The three inputs have the same x and y extents, start at 0, and the images have channels
//! 0..3 (the description's rules); the output is `[0, W) × [0, H) × [0, 3)`. Besides the spec's 49
//! stages the pipeline has a copy of each input as level 0 of its pyramid and a `repeat_edge`
//! Func per resampling, all inlined by every schedule but `root`.
//!
//! Schedules: `manual` (see `manual`: the spec's Halide schedule with every upsampling's parity
//! select folded away, through `align_bounds` and unrolling by two) and `root`. Measured at
//! 2048 × 2048 on a 2-CPU machine shared with another job (`python bench/compare.py --apps
//! pyramid_blend --threads 1,2 --runs 10 --rounds 3 --tessera-schedules manual
//! --halide-schedules manual`, medians): `manual` 34.3 ms at one thread and 17.2 ms at two,
//! Halide 21 with the same schedule 29.5 and 15.9 ms (ratios 1.16 and 1.13). Loop
//! partitioning takes every clamped level read out of the steady state (dense and stride-2
//! loads, not gathers); computing the three channels of a row together (Halide's order), strips
//! of 64 rows, and the horizontal upsamples slid down the strip instead of computed per strip
//! measured no faster. There is no `inline`: the collapse inlined would recompute every
//! coarser level per pixel, an exponentially large expression.

use tessera::lang::schedule::TailStrategy;
use tessera::prelude::*;

use tessera::lang::param::ParamBinding;

use crate::app::{AppDefinition, AppPipeline};
use crate::description::{
    all_start_at_zero, extents, AppDescription, InputRule, InputSpec, Shape, TYPICAL_EVAL_BYTES,
};
use crate::schedule::{self, AppFuncs, Schedule};
use crate::synthetic;

/// The number of pyramid levels.
pub const LEVELS: usize = 4;
/// The spec's default output size.
pub const DEFAULT_SIZE: (i64, i64) = (2048, 2048);
/// The channels of the two images and of the output.
pub const CHANNELS: i64 = 3;

/// A Gaussian pyramid: `levels[0]` is the input (a copy of it, so every level is a Func),
/// `dx[l - 1]` the horizontal pass making `levels[l]`, and `clamped[l]` level l repeated at
/// its edges, as downsampling it into level l + 1 reads it (l < LEVELS - 1).
pub struct GaussianPyramid {
    pub levels: Vec<Func>,
    pub clamped: Vec<Func>,
    pub dx: Vec<Func>,
}

/// `expand(f, l)`: the coarse level repeated at its edges, the horizontal upsampling `ux` and
/// the vertical one `uy` (the result).
pub struct Expansion {
    pub clamped: Func,
    pub ux: Func,
    pub uy: Func,
}

/// The Funcs of the pipeline, each pyramid indexed by level. `up_a[l]` is
/// `expand(gA[l + 1], l)` (and `up_b`, `up_out` likewise, l < LEVELS - 1); the coarsest
/// Laplacian levels are the Gaussian ones (`l_a[3]` is `g_a.levels[3]`) and `out[3]` is
/// `blend[3]`; `output` is `out[0]`.
pub struct PyramidBlendFuncs {
    pub img1: ImageParam,
    pub img2: ImageParam,
    pub mask: ImageParam,
    pub g_a: GaussianPyramid,
    pub g_b: GaussianPyramid,
    pub g_m: GaussianPyramid,
    pub up_a: Vec<Expansion>,
    pub up_b: Vec<Expansion>,
    pub l_a: Vec<Func>,
    pub l_b: Vec<Func>,
    pub blend: Vec<Func>,
    pub up_out: Vec<Expansion>,
    pub out: Vec<Func>,
    pub output: Func,
}

/// `W_l` (d = 0) or `H_l` (d = 1) of level `l`: the input's extent halved `l` times, rounded up.
pub fn level_extent(img1: &ImageParam, d: usize, l: usize) -> Expr {
    let scale = 1i32 << l;
    (img1.extent(d) + (scale - 1)) / scale
}

/// `f` at `(x, y)` and its remaining Vars (c for the images' levels, nothing for the mask's).
fn level_at(f: &Func, x: impl Into<Expr>, y: impl Into<Expr>) -> Expr {
    let rest = f.args().into_iter().skip(2).map(|v| v.expr());
    f.at([x.into(), y.into()]
        .into_iter()
        .chain(rest)
        .collect::<Vec<_>>())
}

/// `clampl(f, l)`: level `l` repeated at its edges.
fn clamped_level(f: &Func, img1: &ImageParam, l: usize) -> Result<Func> {
    let bounds = [0, 1].map(|d| (Expr::i32(0), level_extent(img1, d, l)));
    repeat_edge_with_bounds(f, &bounds)
}

/// The 5-tap `[1 4 6 4 1] / 16` sum of `tap(-2) .. tap(2)`, left to right.
fn binomial5(tap: impl Fn(i32) -> Expr) -> Expr {
    (tap(-2) + 4.0f32 * tap(-1) + 6.0f32 * tap(0) + 4.0f32 * tap(1) + tap(2)) * (1.0f32 / 16.0)
}

/// The upsampling of `tap(k)` (the coarse level at `v/2 + k`) at fine coordinate `v`.
fn upsample2(v: Var, tap: impl Fn(i32) -> Expr) -> Expr {
    select(
        (v % 2).eq_(0),
        (tap(-1) + 6.0f32 * tap(0) + tap(1)) * 0.125f32,
        (tap(0) + tap(1)) * 0.5f32,
    )
}

/// The Gaussian pyramid whose level 0 is `input`, its Funcs named `{name}_{l}`.
fn gaussian(input: &ImageParam, img1: &ImageParam, name: &str) -> Result<GaussianPyramid> {
    let vars: Vec<Var> = ["x", "y", "c"][..input.dimensions()]
        .iter()
        .map(|v| Var::new(v))
        .collect();
    let (x, y) = (vars[0], vars[1]);
    let base = Func::new(&format!("{name}_0"));
    base.define(vars.clone(), input.at(vars.clone()))?;
    let mut pyramid = GaussianPyramid {
        levels: vec![base],
        clamped: Vec::new(),
        dx: Vec::new(),
    };
    for l in 1..LEVELS {
        let finer = &pyramid.levels[l - 1];
        let s = clamped_level(finer, img1, l - 1)?;
        let dx = Func::new(&format!("{name}_{l}_dx"));
        dx.define(vars.clone(), binomial5(|k| level_at(&s, 2 * x + k, y)))?;
        let g = Func::new(&format!("{name}_{l}"));
        g.define(vars.clone(), binomial5(|k| level_at(&dx, x, 2 * y + k)))?;
        pyramid.clamped.push(s);
        pyramid.dx.push(dx);
        pyramid.levels.push(g);
    }
    Ok(pyramid)
}

/// `expand(coarse, l)`, where `coarse` is level l + 1, its Funcs named `{name}_*`.
fn expand(coarse: &Func, img1: &ImageParam, l: usize, name: &str) -> Result<Expansion> {
    let vars = coarse.args();
    let (x, y) = (vars[0], vars[1]);
    let clamped = clamped_level(coarse, img1, l + 1)?;
    let ux = Func::new(&format!("{name}_ux"));
    ux.define(
        vars.clone(),
        upsample2(x, |k| level_at(&clamped, x / 2 + k, y)),
    )?;
    let uy = Func::new(&format!("{name}_uy"));
    uy.define(vars.clone(), upsample2(y, |k| level_at(&ux, x, y / 2 + k)))?;
    Ok(Expansion { clamped, ux, uy })
}

/// The Laplacian pyramid of `g` (named `{name}_{l}`) and the expansions it subtracts.
fn laplacian(
    g: &GaussianPyramid,
    img1: &ImageParam,
    name: &str,
) -> Result<(Vec<Func>, Vec<Expansion>)> {
    let (mut levels, mut ups) = (Vec::new(), Vec::new());
    for l in 0..LEVELS - 1 {
        let up = expand(&g.levels[l + 1], img1, l, &format!("{name}_{l}_up"))?;
        let vars = g.levels[l].args();
        let level = Func::new(&format!("{name}_{l}"));
        level.define(vars.clone(), g.levels[l].at(vars.clone()) - up.uy.at(vars))?;
        levels.push(level);
        ups.push(up);
    }
    levels.push(g.levels[LEVELS - 1].clone());
    Ok((levels, ups))
}

/// The algorithm, written once.
pub fn funcs() -> Result<PyramidBlendFuncs> {
    let img1 = ImageParam::new(Type::f32(), 3, "img1");
    let img2 = ImageParam::new(Type::f32(), 3, "img2");
    let mask = ImageParam::new(Type::f32(), 2, "mask");
    let (x, y, c) = (Var::new("x"), Var::new("y"), Var::new("c"));

    let g_a = gaussian(&img1, &img1, "gA")?;
    let g_b = gaussian(&img2, &img1, "gB")?;
    let g_m = gaussian(&mask, &img1, "gM")?;
    let (l_a, up_a) = laplacian(&g_a, &img1, "lA")?;
    let (l_b, up_b) = laplacian(&g_b, &img1, "lB")?;

    let mut blend = Vec::new();
    for l in 0..LEVELS {
        let m = g_m.levels[l].at((x, y));
        let b = Func::new(&format!("blend_{l}"));
        b.define(
            (x, y, c),
            l_a[l].at((x, y, c)) * m.clone() + l_b[l].at((x, y, c)) * (1.0f32 - m),
        )?;
        blend.push(b);
    }

    // Collapsed coarsest first, then reversed so that index l is level l.
    let mut out = vec![blend[LEVELS - 1].clone()];
    let mut up_out = Vec::new();
    for l in (0..LEVELS - 1).rev() {
        let coarser = out.last().expect("internal error: a coarser level exists");
        let up = expand(coarser, &img1, l, &format!("out_{l}_up"))?;
        let level = Func::new(&format!("out_{l}"));
        level.define((x, y, c), up.uy.at((x, y, c)) + blend[l].at((x, y, c)))?;
        up_out.push(up);
        out.push(level);
    }
    out.reverse();
    up_out.reverse();
    let output = out[0].clone();
    Ok(PyramidBlendFuncs {
        img1,
        img2,
        mask,
        g_a,
        g_b,
        g_m,
        up_a,
        up_b,
        l_a,
        l_b,
        blend,
        up_out,
        out,
        output,
    })
}

/// Whether `img2` (input 1) has `img1`'s extents.
fn images_match(inputs: &[AnyBuffer]) -> bool {
    extents(&inputs[1]) == extents(&inputs[0])
}

/// Whether `mask` (input 2) has `img1`'s x and y extents.
fn mask_matches(inputs: &[AnyBuffer]) -> bool {
    extents(&inputs[2])[..2] == extents(&inputs[0])[..2]
}

pub const DESCRIPTION: AppDescription = AppDescription {
    name: "pyramid_blend",
    summary: "Laplacian pyramid blending of two f32 RGB images by a mask, 4 levels",
    inputs: &[
        InputSpec {
            name: "img1",
            ty: Type::f32(),
            shape: Shape::Channels(CHANNELS),
            description: "f32 RGB, W × H × 3, taken where the mask is 1",
        },
        InputSpec {
            name: "img2",
            ty: Type::f32(),
            shape: Shape::Channels(CHANNELS),
            description: "f32 RGB, W × H × 3, taken where the mask is 0",
        },
        InputSpec {
            name: "mask",
            ty: Type::f32(),
            shape: Shape::Plane,
            description: "f32 in [0, 1], W × H",
        },
    ],
    rules: &[
        InputRule {
            input: "img1",
            rule: "every input must start at 0 in every dimension",
            holds: all_start_at_zero,
        },
        InputRule {
            input: "img2",
            rule: "img2 must have img1's extents",
            holds: images_match,
        },
        InputRule {
            input: "mask",
            rule: "mask must have img1's x and y extents",
            holds: mask_matches,
        },
    ],
    output: Shape::Channels(CHANNELS),
    params: &[],
    default_size: DEFAULT_SIZE,
    eval_bytes_per_pixel: TYPICAL_EVAL_BYTES,
};

pub struct PyramidBlend;

impl AppFuncs for PyramidBlendFuncs {
    fn pipeline(&self) -> AppPipeline {
        AppPipeline {
            output: self.output.clone(),
            inputs: vec![self.img1.clone(), self.img2.clone(), self.mask.clone()],
        }
    }
}

impl AppDefinition for PyramidBlend {
    type Funcs = PyramidBlendFuncs;
    fn description(&self) -> &AppDescription {
        &DESCRIPTION
    }
    fn funcs(&self) -> Result<PyramidBlendFuncs> {
        funcs()
    }
    fn schedules(&self) -> &[Schedule<PyramidBlendFuncs>] {
        SCHEDULES
    }
    fn default_inputs(&self, width: i64, height: i64) -> Result<Vec<AnyBuffer>> {
        let (img1, img2, mask) = default_inputs(width, height)?;
        Ok(vec![img1.into(), img2.into(), mask.into()])
    }
    fn reference(&self, inputs: &[AnyBuffer], _params: &[ParamBinding]) -> Result<AnyBuffer> {
        let [img1, img2, mask] = inputs else {
            return Err(Error::Buffer(format!(
                "pyramid_blend takes 3 inputs, not {}",
                inputs.len()
            )));
        };
        let typed = |b: &AnyBuffer| Buffer::<f32>::try_from(b.clone());
        Ok(reference(&typed(img1)?, &typed(img2)?, &typed(mask)?).into())
    }
}

/// The default inputs `(img1, img2, mask)` for an output of `width × height`: two different
/// synthetic images and, as mask, a third synthetic image's first channel (smooth regions,
/// hard-edged shapes and noise, in [0, 1]). An error when they cannot be allocated.
pub fn default_inputs(width: i64, height: i64) -> Result<(Buffer<f32>, Buffer<f32>, Buffer<f32>)> {
    let extents = [width, height, CHANNELS];
    let seed = synthetic::DEFAULT_SEED;
    let img1 = synthetic::image(&extents, seed)?;
    let img2 = synthetic::image(&extents, seed + 1)?;
    let mask = synthetic::image(&extents[..2], seed + 2)?;
    Ok((img1, img2, mask))
}

/// f32 lanes per vector: two AVX-512 registers, four AVX2 ones (0.97 of the time of 16 lanes
/// at 1 thread and 0.94 at 2 on an AVX-512 host, 2026-11-30).
const VECTOR: i32 = 32;
/// Rows per parallel strip (measured at 1 thread after early frees: strips of 32 rows take
/// 1.16 times as long, 128 rows 1.06, 512 rows 1.05).
const STRIP: i32 = 256;

/// The smallest output of `manual`: one vector wide (the last vector of a row shifts
/// inwards); any height (the last strip of row pairs is guarded, so is the last pair's
/// second row).
const MANUAL_MIN_OUTPUT: (i64, i64) = (VECTOR as i64, 1);

/// The schedules, `manual` first.
pub const SCHEDULES: &[Schedule<PyramidBlendFuncs>] = &[
    Schedule {
        name: "manual",
        min_output: MANUAL_MIN_OUTPUT,
        apply: manual,
    },
    Schedule {
        name: "root",
        min_output: (schedule::natural_vector_width(Type::f32()) as i64, 1),
        apply: schedule::root,
    },
];

/// `f`'s rows in parallel strips of `STRIP` rows, vectorized over x (rounded up: `f` is
/// an intermediate level, whose reads are clamped).
fn strips(f: &Func) -> &Func {
    f.split("y", "y", "y_in_strip", STRIP)
        .parallel("y")
        .vectorize_with_tail("x", VECTOR, TailStrategy::RoundUp)
}

/// `f`'s rows in pairs (the second of the last pair guarded when `tail` is GuardWithIf), the
/// pairs in parallel strips (the last one guarded), vectorized over x: within a pair each
/// row's parity is known when `f`'s y min is even.
fn paired_strips(f: &Func, tail: TailStrategy, x_tail: TailStrategy) -> &Func {
    f.split_with_tail("y", "y", "y_pair", 2, tail)
        .unroll_loop("y_pair")
        .split_with_tail("y", "y", "y_in_strip", STRIP / 2, TailStrategy::GuardWithIf)
        .parallel("y")
        .vectorize_with_tail("x", VECTOR, x_tail)
}

/// The horizontal upsampling `ux` computed per strip of `consumer`, its region aligned to
/// column pairs and unrolled by two, so each column's parity is known: the select folds away
/// and `x / 2` is a dense load.
fn upsample_per_strip(ux: &Func, consumer: &Func) {
    ux.compute_at(consumer, "y")
        .align_bounds(Var::new("x"), 2)
        .split_with_tail("x", "x", "x_pair", 2, TailStrategy::RoundUp)
        .unroll_loop("x_pair")
        .vectorize_with_tail("x", VECTOR, TailStrategy::RoundUp);
}

/// The spec's Halide schedule, with the parity of every upsampling folded away: the
/// Gaussian levels 1..3 at root in parallel strips of `STRIP` rows, their horizontal passes
/// per strip; `out[2]` and `out[1]` at root, the horizontal upsamples of their three
/// expansions (of gA, gB and the coarser `out`) per strip, aligned to column pairs and
/// unrolled by two (`upsample_per_strip`), and the rest (Laplacians, blend, vertical
/// upsamples) inlined into rows computed in pairs (`paired_strips`: aligned to 2, so each
/// row's parity is known); level 0 likewise fused into the output's strips, whose y min is
/// fixed at 0 (`bound`) and whose odd last row is guarded. Vectors of `VECTOR` (32) f32 lanes.
pub fn manual(p: &PyramidBlendFuncs) {
    let y = Var::new("y");
    for g in [&p.g_a, &p.g_b, &p.g_m] {
        for l in 1..LEVELS {
            strips(g.levels[l].compute_root());
            g.dx[l - 1]
                .compute_at(&g.levels[l], "y")
                .vectorize_with_tail("x", VECTOR, TailStrategy::RoundUp);
        }
    }
    for l in 0..LEVELS - 1 {
        let out = &p.out[l];
        if l > 0 {
            paired_strips(
                out.compute_root().align_bounds(y, 2),
                TailStrategy::RoundUp,
                TailStrategy::RoundUp,
            );
        } else {
            paired_strips(
                out.bound(y, 0, p.img1.extent(1)),
                TailStrategy::GuardWithIf,
                TailStrategy::ShiftInwards,
            );
        }
        for up in [&p.up_a[l], &p.up_b[l], &p.up_out[l]] {
            upsample_per_strip(&up.ux, out);
        }
    }
}

/// One pyramid level in the reference: `width × height × channels` values.
struct Level {
    width: i64,
    height: i64,
    channels: i64,
    data: Vec<f32>,
}

impl Level {
    fn from_fn(width: i64, height: i64, channels: i64, f: impl Fn(i64, i64, i64) -> f32) -> Level {
        let mut data = Vec::with_capacity((width * height * channels) as usize);
        for c in 0..channels {
            for y in 0..height {
                for x in 0..width {
                    data.push(f(x, y, c));
                }
            }
        }
        Level {
            width,
            height,
            channels,
            data,
        }
    }
    fn of_buffer(b: &Buffer<f32>) -> Level {
        let channels = if b.dimensions() == 3 { b.channels() } else { 1 };
        Level::from_fn(b.width(), b.height(), channels, |x, y, c| {
            if b.dimensions() == 3 {
                b.get(&[x, y, c])
            } else {
                b.get(&[x, y])
            }
        })
    }
    fn at(&self, x: i64, y: i64, c: i64) -> f32 {
        self.data[((c * self.height + y) * self.width + x) as usize]
    }
    /// `clampl`: the level repeated at its edges.
    fn clamped(&self, x: i64, y: i64, c: i64) -> f32 {
        self.at(x.clamp(0, self.width - 1), y.clamp(0, self.height - 1), c)
    }
    /// `down`: the next coarser level.
    fn down(&self) -> Level {
        let (w, h) = ((self.width + 1) / 2, (self.height + 1) / 2);
        let dx = Level::from_fn(w, self.height, self.channels, |x, y, c| {
            binomial5_ref(|k| self.clamped(2 * x + k, y, c))
        });
        Level::from_fn(w, h, self.channels, |x, y, c| {
            binomial5_ref(|k| dx.clamped(x, 2 * y + k, c))
        })
    }
    /// `expand` of this (coarse) level to `width × height`. `ux` reads clamped rows, so
    /// it is computed on the coarse level's rows only and read at clamped rows.
    fn expand(&self, width: i64, height: i64) -> Level {
        let ux = Level::from_fn(width, self.height, self.channels, |x, y, c| {
            upsample2_ref(x, |k| self.clamped(x.div_euclid(2) + k, y, c))
        });
        Level::from_fn(width, height, self.channels, |x, y, c| {
            upsample2_ref(y, |k| ux.clamped(x, y.div_euclid(2) + k, c))
        })
    }
}

fn binomial5_ref(tap: impl Fn(i64) -> f32) -> f32 {
    (tap(-2) + 4.0 * tap(-1) + 6.0 * tap(0) + 4.0 * tap(1) + tap(2)) * (1.0 / 16.0)
}

fn upsample2_ref(v: i64, tap: impl Fn(i64) -> f32) -> f32 {
    if v.rem_euclid(2) == 0 {
        (tap(-1) + 6.0 * tap(0) + tap(1)) * 0.125
    } else {
        (tap(0) + tap(1)) * 0.5
    }
}

/// The Gaussian pyramid of `base`, finest first.
fn gaussian_ref(base: Level) -> Vec<Level> {
    let mut levels = vec![base];
    for l in 1..LEVELS {
        let next = levels[l - 1].down();
        levels.push(next);
    }
    levels
}

/// Level `l` of the Laplacian pyramid of `g`.
fn laplacian_ref(g: &[Level], l: usize) -> Level {
    let fine = &g[l];
    if l == LEVELS - 1 {
        return Level::from_fn(fine.width, fine.height, fine.channels, |x, y, c| {
            fine.at(x, y, c)
        });
    }
    let up = g[l + 1].expand(fine.width, fine.height);
    Level::from_fn(fine.width, fine.height, fine.channels, |x, y, c| {
        fine.at(x, y, c) - up.at(x, y, c)
    })
}

/// The blended image in plain Rust loops, in the spec's order of f32 operations, for inputs
/// the description's rules accept.
pub fn reference(img1: &Buffer<f32>, img2: &Buffer<f32>, mask: &Buffer<f32>) -> Buffer<f32> {
    let (mins, extents) = (img1.mins(), img1.extents());
    let g_a = gaussian_ref(Level::of_buffer(img1));
    let g_b = gaussian_ref(Level::of_buffer(img2));
    let g_m = gaussian_ref(Level::of_buffer(mask));
    let blend: Vec<Level> = (0..LEVELS)
        .map(|l| {
            let (la, lb, m) = (laplacian_ref(&g_a, l), laplacian_ref(&g_b, l), &g_m[l]);
            Level::from_fn(la.width, la.height, la.channels, |x, y, c| {
                let w = m.at(x, y, 0);
                la.at(x, y, c) * w + lb.at(x, y, c) * (1.0 - w)
            })
        })
        .collect();
    let mut blend = blend.into_iter().rev();
    let mut out = blend.next().expect("internal error: the coarsest level");
    for level in blend {
        let up = out.expand(level.width, level.height);
        out = Level::from_fn(level.width, level.height, level.channels, |x, y, c| {
            up.at(x, y, c) + level.at(x, y, c)
        });
    }
    Buffer::from_fn(&mins, &extents, |p| out.at(p[0], p[1], p[2]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    use tessera::pipeline::{run_interp, Inputs, Pipeline};
    use tessera::Target;

    /// The spec's tolerance, relative to the largest output magnitude.
    const TOLERANCE: f32 = 1e-4;

    /// Random images and mask of `w × h`, values in [0, 1], from `seed`.
    fn random_inputs(w: i64, h: i64, seed: u64) -> (Buffer<f32>, Buffer<f32>, Buffer<f32>) {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut image =
            |extents: &[i64]| Buffer::from_fn(&vec![0; extents.len()], extents, |_| rng.random());
        (image(&[w, h, 3]), image(&[w, h, 3]), image(&[w, h]))
    }

    fn inputs(
        p: &PyramidBlendFuncs,
        (a, b, m): &(Buffer<f32>, Buffer<f32>, Buffer<f32>),
    ) -> Inputs {
        Inputs::new()
            .image(&p.img1, a.clone())
            .image(&p.img2, b.clone())
            .image(&p.mask, m.clone())
    }

    /// Panics unless `got` has `want`'s region and is within the tolerance of it everywhere.
    fn assert_close(got: &AnyBuffer, want: &Buffer<f32>, context: &str) {
        let got: Buffer<f32> = got.clone().try_into().expect("an f32 output");
        assert_eq!(got.extents(), want.extents(), "{context}");
        assert_eq!(got.mins(), want.mins(), "{context}");
        let largest = want.data().iter().fold(0.0f32, |m, v| m.max(v.abs()));
        want.for_each_coord(|c| {
            let (g, w) = (got.get(c), want.get(c));
            assert!(
                (g - w).abs() <= TOLERANCE * largest,
                "at {c:?}: {g} but the reference gives {w}; {context}"
            );
        });
    }

    fn app() -> &'static dyn crate::App {
        crate::find("pyramid_blend").expect("pyramid_blend is an app")
    }

    fn refusal(a: &Buffer<f32>, b: &Buffer<f32>, m: &Buffer<f32>) -> String {
        app()
            .check_inputs(&[a.clone().into(), b.clone().into(), m.clone().into()])
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    }

    #[test]
    fn inputs_of_different_extents_are_refused_naming_the_input() {
        let (a, b, m) = random_inputs(6, 5, 1);
        assert_eq!(
            app().check_inputs(&[a.clone().into(), b.clone().into(), m.clone().into()]),
            Ok((vec![0, 0, 0], vec![6, 5, 3]))
        );
        let (_, wide, narrow_mask) = random_inputs(7, 5, 2);
        let e = refusal(&a, &wide, &m);
        assert!(
            e.contains(
                "input `img2` of app pyramid_blend does not fit: img2 must have img1's extents"
            ),
            "{e}"
        );
        let e = refusal(&a, &b, &narrow_mask);
        assert!(
            e.contains("input `mask` of app pyramid_blend does not fit: mask must have img1's x and y extents"),
            "{e}"
        );
        let e = refusal(&a, &b, &a);
        assert!(
            e.contains("input `mask` of app pyramid_blend is W×H"),
            "{e}"
        );
        let e = refusal(&a, &Buffer::new(&[6, 5, 4]), &m);
        assert!(
            e.contains("input `img2` of app pyramid_blend is W×H×3"),
            "{e}"
        );
        let e = refusal(&a.clone().translated(&[1, 0, 0]), &b, &m);
        assert!(e.contains("must start at 0"), "{e}");
    }

    #[test]
    fn blending_an_image_with_itself_gives_it_back() {
        // Whatever the mask, each blended level is the image's own Laplacian level, and
        // collapsing a Laplacian pyramid reconstructs the image (up to rounding).
        let (a, _, m) = random_inputs(13, 6, 3);
        let out = reference(&a, &a, &m);
        assert_close(&out.into(), &a, "img1 blended with itself");
    }

    #[test]
    fn the_evaluator_matches_the_reference() {
        for (w, h, seed) in [(1, 1, 4), (9, 6, 5), (3, 17, 6)] {
            let data = random_inputs(w, h, seed);
            let p = funcs().expect("the algorithm builds");
            let mut evaluator = Evaluator::new();
            for (param, b) in [(&p.img1, &data.0), (&p.img2, &data.1), (&p.mask, &data.2)] {
                evaluator = evaluator.with_input(param, b.clone());
            }
            let got = evaluator
                .realize(&p.output, &[0, 0, 0], &[w, h, 3])
                .expect("the evaluator runs")
                .swap_remove(0);
            let want = reference(&data.0, &data.1, &data.2);
            assert_close(&got, &want, &format!("evaluator, {w} x {h}"));
        }
    }

    #[test]
    fn every_schedule_matches_the_reference_natively_and_on_the_interpreter() {
        for (i, s) in SCHEDULES.iter().enumerate() {
            let p = funcs().expect("the algorithm builds");
            (s.apply)(&p);
            let compiled = Pipeline::new(&p.output)
                .compile_jit(&Target::host())
                .unwrap_or_else(|e| panic!("schedule {}: {e}", s.name));
            let (mw, mh) = s.min_output;
            for (w, h) in [(mw, mh), (mw + 21, mh + 6), (mw + 2, 70)] {
                let data = random_inputs(w, h, 10 + i as u64);
                let want = reference(&data.0, &data.1, &data.2);
                let (mins, extents) = (data.0.mins(), data.0.extents());
                let inputs = inputs(&p, &data);
                let context = format!("schedule {}, {w} x {h}", s.name);
                let jit = compiled
                    .realize(&inputs, &mins, &extents)
                    .unwrap_or_else(|e| panic!("{context} (JIT): {e}"));
                assert_close(&jit[0], &want, &format!("{context} (JIT)"));
                // Every size is at least the schedule's minimum, which it computes exactly.
                let lowered = compiled.lowered();
                let interp = run_interp(lowered, &lowered.stmt, &inputs, &mins, &extents, 0)
                    .unwrap_or_else(|e| panic!("{context} (interpreter): {e}"));
                assert_close(
                    &interp.buffers[0],
                    &want,
                    &format!("{context} (interpreter)"),
                );
            }
        }
    }
}
