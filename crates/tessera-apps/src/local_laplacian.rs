//! local_laplacian — the local Laplacian filter (88 stages): a Gaussian pyramid of the image
//! remapped at each of `levels` intensity levels, its Laplacian pyramid, and an output
//! Laplacian pyramid that, per pixel and per pyramid level, interpolates between the two
//! intensity levels nearest the input's own (a data-dependent gather), collapsed back into an
//! image and recoloured. uint16 RGB in and out, W × H × 3; `levels` = 8 (runtime i32 Param),
//! `alpha` = 1.0 and `beta` = 1.0 (runtime f32 Params); J = 8 pyramid levels, fixed when the
//! pipeline is built.
//!
//! ```text
//! downsample(f)(x, y[, k]):   dx(x, y) = (f(2x-1, y) + 3*(f(2x, y) + f(2x+1, y)) + f(2x+2, y)) / 8
//!                             dy(x, y) = (dx(x, 2y-1) + 3*(dx(x, 2y) + dx(x, 2y+1)) + dx(x, 2y+2)) / 8
//! upsample(f)(x, y[, k]):     wx = f32((x % 2)*2 + 1) / 4;   wy = f32((y % 2)*2 + 1) / 4
//!                             ux(x, y) = lerp(f((x+1)/2, y), f((x-1)/2, y), wx)
//!                             uy(x, y) = lerp(ux(x, (y+1)/2), ux(x, (y-1)/2), wy)
//!     (both carry an extra k argument through unchanged when f has one; lerp(a, b, t) = a*(1-t) + b*t;
//!      integer / rounds toward −∞)
//!
//! a = alpha / f32(levels - 1)
//! remap(x) = a * fx * exp(-fx*fx / 2)   where fx = f32(x) / 256
//! floating(x, y, c) = f32(input(x, y, c)) / 65535
//! clamped = floating with coordinates clamped to [0, W-1] × [0, H-1]
//! gray(x, y) = 0.299*clamped(x, y, 0) + 0.587*clamped(x, y, 1) + 0.114*clamped(x, y, 2)
//!
//! level = f32(k) * (1 / f32(levels - 1))
//! idx = clamp(i32(gray(x, y) * f32(levels - 1) * 256), 0, (levels - 1) * 256)
//! gPyramid[0](x, y, k) = beta * (gray(x, y) - level) + level + remap(idx - 256*k)
//! gPyramid[j](x, y, k) = downsample(gPyramid[j-1])(x, y, k)                 j = 1..J-1
//! lPyramid[J-1] = gPyramid[J-1]
//! lPyramid[j](x, y, k) = gPyramid[j](x, y, k) - upsample(gPyramid[j+1])(x, y, k)   j = J-2..0
//!
//! inGPyramid[0] = gray;   inGPyramid[j] = downsample(inGPyramid[j-1])
//!
//! lv = inGPyramid[j](x, y) * f32(levels - 1);  li = clamp(i32(lv), 0, levels - 2);  lf = lv - f32(li)
//! outLPyramid[j](x, y) = (1 - lf) * lPyramid[j](x, y, li) + lf * lPyramid[j](x, y, li + 1)
//!
//! outGPyramid[J-1] = outLPyramid[J-1]
//! outGPyramid[j](x, y) = upsample(outGPyramid[j+1])(x, y) + outLPyramid[j](x, y)
//!
//! color(x, y, c) = outGPyramid[0](x, y) * (clamped(x, y, c) + 0.01) / (gray(x, y) + 0.01)
//! output(x, y, c) = u16(clamp(color(x, y, c), 0, 1) * 65535)                // u16() truncates
//! ```
//!
//! An input whose mins are not 0 is clamped to its own box; the output covers that box.
//!
//! Schedules: `manual` (Halide's: gray, the remap table and the finer levels of the two
//! Gaussian pyramids at root in parallel strips, the processed pyramid stored with k between x
//! and y, level 0's copy for level 1 (a wrapper, `Func::in_`) sliding down level 1's strips;
//! the collapse's levels at root too but for the finest, computed row by row within parallel
//! strips of 64 output rows; f32 vectors of 16 lanes) and `root`. There is no `inline`: fully
//! inlined, every output pixel would recompute the pyramids below it (with two pyramid levels
//! already an expression of over a million nodes, which lowering refuses), so no schedule of
//! that name could run.

use tessera::eval::value::Value;
use tessera::lang::param::ParamBinding;
use tessera::lang::schedule::TailStrategy;
use tessera::prelude::*;

use crate::app::{pipeline_functions, AppDefinition, AppPipeline};
use crate::description::{AppDescription, InputSpec, ParamSpec, Shape};
use crate::params::param_value;
use crate::schedule::{self, AppFuncs, Schedule};
use crate::spec_math::{clamp_f32, lerp_f32};

/// The app, with its number of pyramid levels: `J` as specified, fewer in tests (the region a
/// pipeline must compute grows with 2^levels however small the output, as every coarse level
/// is downsampled from the full-resolution level below it; like Halide's generator parameter
/// `pyramid_levels`, the depth is fixed when the pipeline is built).
pub struct LocalLaplacian {
    pub pyramid_levels: usize,
}

/// The number of pyramid levels the specification fixes.
pub const J: usize = 8;

impl LocalLaplacian {
    /// The app as specified, with `J` pyramid levels.
    pub const STANDARD: LocalLaplacian = LocalLaplacian { pyramid_levels: J };
}

/// The Funcs of the local Laplacian filter, for schedules to direct. The pyramids hold one
/// Func per level, finest first; the `downsample` and `upsample` stages between levels are
/// reached through them.
pub struct LocalLaplacianFuncs {
    pub input: ImageParam,
    pub levels: Param<i32>,
    pub alpha: Param<f32>,
    pub beta: Param<f32>,
    pub remap: Func,
    pub floating: Func,
    pub clamped: Func,
    pub gray: Func,
    pub g_pyramid: Vec<Func>,
    pub l_pyramid: Vec<Func>,
    pub in_g_pyramid: Vec<Func>,
    pub out_l_pyramid: Vec<Func>,
    pub out_g_pyramid: Vec<Func>,
    pub color: Func,
    pub output: Func,
}

impl AppFuncs for LocalLaplacianFuncs {
    fn pipeline(&self) -> AppPipeline {
        AppPipeline {
            output: self.output.clone(),
            inputs: vec![self.input.clone()],
        }
    }
}

/// The pure Vars of a pyramid level: x, y and the extra Vars of `f` (k for the processed
/// pyramids), which the resampling stages carry through unchanged.
struct LevelVars {
    x: Var,
    y: Var,
    extra: Vec<Var>,
}

impl LevelVars {
    fn of(f: &Func) -> LevelVars {
        LevelVars {
            x: Var::new("x"),
            y: Var::new("y"),
            extra: f.args().into_iter().skip(2).collect(),
        }
    }
    fn all(&self) -> Vec<Var> {
        [self.x, self.y]
            .into_iter()
            .chain(self.extra.iter().copied())
            .collect()
    }
    /// `f` at `(x, y, extra...)`.
    fn at(&self, f: &Func, x: impl Into<Expr>, y: impl Into<Expr>) -> Expr {
        let args: Vec<Expr> = [x.into(), y.into()]
            .into_iter()
            .chain(self.extra.iter().map(|v| v.expr()))
            .collect();
        f.at(args)
    }
}

/// `downsample(f)`, named `name` (its x pass `{name}_dx`).
fn downsample(f: &Func, name: &str) -> Result<Func> {
    let v = LevelVars::of(f);
    let (x, y) = (v.x, v.y);
    let dx = Func::new(&format!("{name}_dx"));
    dx.define(
        v.all(),
        (v.at(f, 2 * x - 1, y)
            + 3.0f32 * (v.at(f, 2 * x, y) + v.at(f, 2 * x + 1, y))
            + v.at(f, 2 * x + 2, y))
            / 8.0f32,
    )?;
    let dy = Func::new(name);
    dy.define(
        v.all(),
        (v.at(&dx, x, 2 * y - 1)
            + 3.0f32 * (v.at(&dx, x, 2 * y) + v.at(&dx, x, 2 * y + 1))
            + v.at(&dx, x, 2 * y + 2))
            / 8.0f32,
    )?;
    Ok(dy)
}

/// `upsample(f)`, named `name` (its x pass `{name}_ux`).
fn upsample(f: &Func, name: &str) -> Result<Func> {
    let v = LevelVars::of(f);
    let (x, y) = (v.x, v.y);
    let weight = |c: Var| cast_to::<f32>((c % 2) * 2 + 1) / 4.0f32;
    let ux = Func::new(&format!("{name}_ux"));
    ux.define(
        v.all(),
        lerp(v.at(f, (x + 1) / 2, y), v.at(f, (x - 1) / 2, y), weight(x)),
    )?;
    let uy = Func::new(name);
    uy.define(
        v.all(),
        lerp(
            v.at(&ux, x, (y + 1) / 2),
            v.at(&ux, x, (y - 1) / 2),
            weight(y),
        ),
    )?;
    Ok(uy)
}

/// A Func named `name` equal to `f` (a pyramid level given by another, as Halide writes them).
fn copy_of(f: &Func, name: &str) -> Result<Func> {
    let vars = f.args();
    let copy = Func::new(name);
    copy.define(vars.clone(), f.at(vars))?;
    Ok(copy)
}

/// The algorithm with `pyramid_levels` (J) levels, at least 1.
pub fn funcs(pyramid_levels: usize) -> Result<LocalLaplacianFuncs> {
    if pyramid_levels == 0 {
        return Err(Error::Definition(
            "local_laplacian needs at least one pyramid level".to_string(),
        ));
    }
    let input = ImageParam::new(Type::u16(), 3, "input");
    let levels = Param::<i32>::new("levels");
    let alpha = Param::<f32>::new("alpha");
    let beta = Param::<f32>::new("beta");
    let (x, y, c, k) = (Var::new("x"), Var::new("y"), Var::new("c"), Var::new("k"));
    let levels_minus_one = || levels.expr() - 1;
    let intensity_steps = || cast_to::<f32>(levels_minus_one());

    let remap = Func::new("remap");
    let a = alpha.expr() / intensity_steps();
    let fx = cast_to::<f32>(x) / 256.0f32;
    remap.define(x, a * fx.clone() * exp(-fx.clone() * fx / 2.0f32))?;

    let floating = Func::new("floating");
    floating.define((x, y, c), cast_to::<f32>(input.at((x, y, c))) / 65535.0f32)?;
    let clamped = repeat_edge_with_bounds(
        &floating,
        &[
            (input.min(0), input.extent(0)),
            (input.min(1), input.extent(1)),
        ],
    )?;
    let channel = |i: i32| clamped.at((x.expr(), y.expr(), Expr::i32(i)));
    let gray = Func::new("gray");
    gray.define(
        (x, y),
        0.299f32 * channel(0) + 0.587f32 * channel(1) + 0.114f32 * channel(2),
    )?;

    let level = cast_to::<f32>(k) * (1.0f32 / intensity_steps());
    let idx = clamp(
        cast_to::<i32>(gray.at((x, y)) * intensity_steps() * 256.0f32),
        0,
        levels_minus_one() * 256,
    );
    let g0 = Func::new("gPyramid_0");
    g0.define(
        (x, y, k),
        beta.expr() * (gray.at((x, y)) - level.clone()) + level + remap.at(idx - 256 * k),
    )?;
    let mut g_pyramid = vec![g0];
    for j in 1..pyramid_levels {
        g_pyramid.push(downsample(&g_pyramid[j - 1], &format!("gPyramid_{j}"))?);
    }

    let coarsest = pyramid_levels - 1;
    let mut l_pyramid = vec![copy_of(
        &g_pyramid[coarsest],
        &format!("lPyramid_{coarsest}"),
    )?];
    for j in (0..coarsest).rev() {
        let up = upsample(&g_pyramid[j + 1], &format!("gPyramid_{}_up", j + 1))?;
        let l = Func::new(&format!("lPyramid_{j}"));
        l.define((x, y, k), g_pyramid[j].at((x, y, k)) - up.at((x, y, k)))?;
        l_pyramid.insert(0, l);
    }

    let mut in_g_pyramid = vec![copy_of(&gray, "inGPyramid_0")?];
    for j in 1..pyramid_levels {
        in_g_pyramid.push(downsample(
            &in_g_pyramid[j - 1],
            &format!("inGPyramid_{j}"),
        )?);
    }

    let mut out_l_pyramid = Vec::with_capacity(pyramid_levels);
    for j in 0..pyramid_levels {
        let lv = in_g_pyramid[j].at((x, y)) * intensity_steps();
        let li = clamp(cast_to::<i32>(lv.clone()), 0, levels.expr() - 2);
        let lf = lv - cast_to::<f32>(li.clone());
        let l = Func::new(&format!("outLPyramid_{j}"));
        l.define(
            (x, y),
            (1.0f32 - lf.clone()) * l_pyramid[j].at((x.expr(), y.expr(), li.clone()))
                + lf * l_pyramid[j].at((x.expr(), y.expr(), li + 1)),
        )?;
        out_l_pyramid.push(l);
    }

    let mut out_g_pyramid = vec![copy_of(
        &out_l_pyramid[coarsest],
        &format!("outGPyramid_{coarsest}"),
    )?];
    for j in (0..coarsest).rev() {
        let up = upsample(&out_g_pyramid[0], &format!("outGPyramid_{}_up", j + 1))?;
        let g = Func::new(&format!("outGPyramid_{j}"));
        g.define((x, y), up.at((x, y)) + out_l_pyramid[j].at((x, y)))?;
        out_g_pyramid.insert(0, g);
    }

    let color = Func::new("color");
    color.define(
        (x, y, c),
        out_g_pyramid[0].at((x, y)) * (clamped.at((x, y, c)) + 0.01f32)
            / (gray.at((x, y)) + 0.01f32),
    )?;
    let output = Func::new("output");
    output.define(
        (x, y, c),
        cast_to::<u16>(clamp(color.at((x, y, c)), 0.0f32, 1.0f32) * 65535.0f32),
    )?;
    Ok(LocalLaplacianFuncs {
        input,
        levels,
        alpha,
        beta,
        remap,
        floating,
        clamped,
        gray,
        g_pyramid,
        l_pyramid,
        in_g_pyramid,
        out_l_pyramid,
        out_g_pyramid,
        color,
        output,
    })
}

/// The vector width of the f32 stages (one 512-bit vector; Halide's schedule uses 16 too),
/// and of the output (u16).
const VECTOR: i32 = 16;
const OUTPUT_VECTOR: i32 = 16;
/// The output rows of one parallel strip of `manual` (the collapse's finest level is computed
/// row by row within it).
const STRIP: i32 = 64;
/// The pyramid levels `manual` computes at full width in parallel strips; the coarser ones
/// are small and computed at root.
const FINE_LEVELS: usize = 5;

const SCHEDULES: &[Schedule<LocalLaplacianFuncs>] = &[
    Schedule {
        name: "manual",
        min_output: (OUTPUT_VECTOR as i64, 1),
        apply: manual,
    },
    Schedule {
        name: "root",
        min_output: (OUTPUT_VECTOR as i64, 1),
        apply: root,
    },
];

/// Halide's schedule, but for the collapse. At root: the remap table; gray; the fine levels
/// 1..=4 of the input's pyramid in parallel strips of 32 rows and of the processed pyramid in
/// strips of 8, stored and computed with k between x and y. Each strip of level 1 computes
/// the rows of level 0 it reads once, sliding down the strip with the x pass of the
/// downsampling (through a wrapper of level 0, which the collapse reads inlined). The
/// collapse's levels 1..=4 are computed whole too, in parallel strips of 8 rows (Halide's
/// schedule computes them within the output's strips: see below why not here); its level 0
/// is computed row by row within parallel strips of 64 output rows, the Laplacian levels
/// inlined into it. The coarse levels (5 and up) are small and computed at root. Everything
/// is vectorized over x. The intermediate stages round their rows and strips up to whole
/// vectors and strips (computing a little past the end, which the clamped input defines);
/// the output's strips stop at its last row.
fn manual(p: &LocalLaplacianFuncs) {
    let strips = |f: &Func, rows: i32| {
        f.split_with_tail("y", "y", "yi", rows, TailStrategy::RoundUp)
            .parallel("y")
            .vectorize_with_tail("x", VECTOR, TailStrategy::RoundUp);
    };
    p.remap
        .compute_root()
        .vectorize_with_tail("x", VECTOR, TailStrategy::RoundUp);
    p.output
        .reorder(["x", "c", "y"])
        .split_with_tail("y", "yo", "yi", STRIP, TailStrategy::GuardWithIf)
        .parallel("yo")
        .vectorize("x", OUTPUT_VECTOR);
    p.gray.compute_root();
    strips(&p.gray, 32);
    let levels = p.g_pyramid.len();
    // With fewer pyramid levels (the tests'), at least the coarsest is computed at root.
    let coarse_from = FINE_LEVELS.min(levels - 1).max(1);
    for j in 1..coarse_from {
        p.in_g_pyramid[j].compute_root();
        strips(&p.in_g_pyramid[j], 32);
        p.g_pyramid[j]
            .compute_root()
            .reorder_storage(["x", "k", "y"])
            .reorder(["x", "k", "y"]);
        strips(&p.g_pyramid[j], 8);
        // The x pass of the level's downsampling slides down each strip (two new rows per
        // row), so each of its points — four lookups of the finer level — is computed once
        // instead of once per output row that reads it. Level 0 is not stored (the collapse
        // reads it inlined, two values per pixel), but the copy of it level 1's x pass reads
        // (a wrapper) slides down the strip too, so each of its values — a remap lookup — is
        // computed once instead of twice, inlined into the x pass.
        let x_pass = format!("gPyramid_{j}_dx");
        let dx = pipeline_functions(&p.output)
            .into_iter()
            .find(|f| f.name().as_str() == x_pass)
            .expect("internal error: every downsampled level has its x pass");
        let dx = Func::from_function(dx);
        let mut sliding = vec![dx.clone()];
        if j == 1 {
            // All k of one vector of level 0 in a row, so the vector's gray values and
            // intensity index are loaded and computed once for its k remap lookups.
            let copy = p.g_pyramid[0].in_(&dx);
            copy.vectorize_with_tail("x", VECTOR, TailStrategy::RoundUp)
                .reorder(["x_vi", "k", "x", "y"]);
            sliding.push(copy);
        }
        for f in &sliding {
            f.store_at(&p.g_pyramid[j], "y")
                .compute_at(&p.g_pyramid[j], "yi");
        }
        dx.vectorize_with_tail("x", VECTOR, TailStrategy::RoundUp);
        // Unlike Halide's schedule, which computes them a few rows at a time within the
        // output's strips, the collapse levels are computed whole: each reads its own rows of
        // the processed pyramid at data-dependent k, and rows computed every few output rows,
        // between which the finer levels' data has passed through the cache, miss it on most
        // of those reads (level 4 cost about 20 times as much per point as level 0). Whole,
        // each level streams through its inputs once: the collapse takes a third less time.
        p.out_g_pyramid[j].compute_root();
        strips(&p.out_g_pyramid[j], 8);
    }
    p.out_g_pyramid[0]
        .compute_at(&p.output, "yi")
        .vectorize_with_tail("x", VECTOR, TailStrategy::RoundUp);
    for j in coarse_from..levels {
        p.in_g_pyramid[j].compute_root();
        p.g_pyramid[j].compute_root().parallel("k");
        p.out_g_pyramid[j].compute_root();
    }
}

/// Every stage at root, parallel over its outermost dimension and vectorized over x. The
/// intermediate stages round their rows up to whole vectors (computing a little past the end,
/// which the clamped input defines); `floating`, which reads the input image itself, and the
/// output shift their last vector inwards instead.
fn root(p: &LocalLaplacianFuncs) {
    let touch_buffers = [p.floating.name(), p.output.name()];
    for function in pipeline_functions(&p.output) {
        let f = Func::from_function(function);
        let tail = if touch_buffers.contains(&f.name()) {
            TailStrategy::Auto
        } else {
            TailStrategy::RoundUp
        };
        f.compute_root();
        schedule::parallel_vectorized_with_tail(&f, tail);
    }
}

/// The intensity levels the reference accepts: at least two (the interpolation needs a pair).
const REFERENCE_LEVELS: std::ops::RangeInclusive<i32> = 2..=256;

/// A closed range of coordinates, the same in x and y: the box of one pyramid level the
/// reference computes.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Span {
    lo: i64,
    hi: i64,
}

impl Span {
    /// The coordinates `upsample` reads for outputs in this span.
    fn upsample_reads(self) -> Span {
        Span {
            lo: (self.lo - 1).div_euclid(2),
            hi: (self.hi + 1).div_euclid(2),
        }
    }
    /// The coordinates `downsample` reads for outputs in this span.
    fn downsample_reads(self) -> Span {
        Span {
            lo: 2 * self.lo - 1,
            hi: 2 * self.hi + 2,
        }
    }
    fn hull(self, other: Span) -> Span {
        Span {
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
        }
    }
    fn extent(self) -> i64 {
        self.hi - self.lo + 1
    }
}

/// The boxes `(x, y)` one pyramid level is computed over.
#[derive(Clone, Copy, Debug)]
struct LevelBox {
    x: Span,
    y: Span,
}

impl LevelBox {
    fn map(self, f: impl Fn(Span) -> Span) -> LevelBox {
        LevelBox {
            x: f(self.x),
            y: f(self.y),
        }
    }
    fn hull(self, other: LevelBox) -> LevelBox {
        LevelBox {
            x: self.x.hull(other.x),
            y: self.y.hull(other.y),
        }
    }
    /// `layers` values per point over this box, each given by `f(x, y, k)`.
    fn fill(self, layers: i64, mut f: impl FnMut(i64, i64, i64) -> f32) -> Buffer<f32> {
        let mut out = Buffer::with_mins(
            &[self.x.lo, self.y.lo, 0],
            &[self.x.extent(), self.y.extent(), layers],
        );
        for k in 0..layers {
            for y in self.y.lo..=self.y.hi {
                for x in self.x.lo..=self.x.hi {
                    out.set(&[x, y, k], f(x, y, k));
                }
            }
        }
        out
    }
}

/// `downsample(f)` at `(x, y, k)`.
fn downsample_at(f: &Buffer<f32>, x: i64, y: i64, k: i64) -> f32 {
    let dx = |y: i64| {
        let at = |x: i64| f.get(&[x, y, k]);
        (at(2 * x - 1) + 3.0 * (at(2 * x) + at(2 * x + 1)) + at(2 * x + 2)) / 8.0
    };
    (dx(2 * y - 1) + 3.0 * (dx(2 * y) + dx(2 * y + 1)) + dx(2 * y + 2)) / 8.0
}

/// `upsample(f)` at `(x, y, k)`.
fn upsample_at(f: &Buffer<f32>, x: i64, y: i64, k: i64) -> f32 {
    let weight = |c: i64| (c.rem_euclid(2) * 2 + 1) as f32 / 4.0;
    let ux = |y: i64| {
        lerp_f32(
            f.get(&[(x + 1).div_euclid(2), y, k]),
            f.get(&[(x - 1).div_euclid(2), y, k]),
            weight(x),
        )
    };
    lerp_f32(
        ux((y + 1).div_euclid(2)),
        ux((y - 1).div_euclid(2)),
        weight(y),
    )
}

/// The pyramid whose level 0 is `base`: each next level downsampled over its box.
fn gaussian_pyramid(base: Buffer<f32>, boxes: &[LevelBox]) -> Vec<Buffer<f32>> {
    let layers = base.dim(2).extent;
    let mut pyramid = vec![base];
    for b in &boxes[1..] {
        let finer = pyramid.last().expect("level 0 is there");
        let level = b.fill(layers, |x, y, k| downsample_at(finer, x, y, k));
        pyramid.push(level);
    }
    pyramid
}

/// The parameters of the filter.
#[derive(Clone, Copy, Debug)]
pub struct Parameters {
    pub levels: i32,
    pub alpha: f32,
    pub beta: f32,
}

impl Parameters {
    /// The specification's defaults.
    pub const DEFAULT: Parameters = Parameters {
        levels: 8,
        alpha: 1.0,
        beta: 1.0,
    };
}

impl Default for Parameters {
    fn default() -> Parameters {
        Parameters::DEFAULT
    }
}

/// The local Laplacian filter in plain Rust loops, with the pipeline's f32 arithmetic in the
/// specification's order: the output over the input's box. Each pyramid level is computed
/// over the box the next finer levels read (a coarse level's box, mapped back to level 0 by
/// the downsampling, is far larger than the output). `levels` must be in 2..=256.
pub fn reference(input: &Buffer<u16>, p: Parameters, pyramid_levels: usize) -> Result<Buffer<u16>> {
    if pyramid_levels == 0 {
        return Err(Error::Definition(
            "local_laplacian needs at least one pyramid level".to_string(),
        ));
    }
    if !REFERENCE_LEVELS.contains(&p.levels) {
        return Err(Error::Definition(format!(
            "the local Laplacian reference needs levels in {REFERENCE_LEVELS:?}, not {}",
            p.levels
        )));
    }
    let coarsest = pyramid_levels - 1;
    let steps = p.levels - 1;
    let steps_f = steps as f32;
    let layers = i64::from(p.levels);
    let (x0, y0) = (input.dim(0).min, input.dim(1).min);
    let (x1, y1) = (x0 + input.width() - 1, y0 + input.height() - 1);

    // remap as a table over every argument gPyramid[0] uses: [-steps * 256, steps * 256].
    let a = p.alpha / steps_f;
    let remap_half = i64::from(steps) * 256;
    let remap: Vec<f32> = (-remap_half..=remap_half)
        .map(|i| {
            let fx = i as f32 / 256.0;
            a * fx * (-fx * fx / 2.0).exp()
        })
        .collect();
    let remap_at = |i: i64| remap[(i + remap_half) as usize];

    let clamped = |x: i64, y: i64, c: i64| {
        f32::from(input.get(&[x.clamp(x0, x1), y.clamp(y0, y1), c])) / 65535.0
    };
    let gray_at = |x: i64, y: i64| {
        0.299 * clamped(x, y, 0) + 0.587 * clamped(x, y, 1) + 0.114 * clamped(x, y, 2)
    };

    // Boxes: the collapse reads level j + 1 where upsampling level j reads it; the Gaussian
    // pyramids also cover what downsampling into the next level reads.
    let output_box = LevelBox {
        x: Span { lo: x0, hi: x1 },
        y: Span { lo: y0, hi: y1 },
    };
    let mut collapse_boxes = vec![output_box];
    for j in 1..pyramid_levels {
        collapse_boxes.push(collapse_boxes[j - 1].map(Span::upsample_reads));
    }
    let mut pyramid_boxes = collapse_boxes.clone();
    for j in (0..coarsest).rev() {
        pyramid_boxes[j] = collapse_boxes[j].hull(pyramid_boxes[j + 1].map(Span::downsample_reads));
    }

    let gray = pyramid_boxes[0].fill(1, |x, y, _| gray_at(x, y));
    let g0 = pyramid_boxes[0].fill(layers, |x, y, k| {
        let g = gray.get(&[x, y, 0]);
        let level = k as f32 * (1.0 / steps_f);
        let idx = ((g * steps_f * 256.0) as i32).clamp(0, steps * 256);
        p.beta * (g - level) + level + remap_at(i64::from(idx) - 256 * k)
    });
    let g_pyramid = gaussian_pyramid(g0, &pyramid_boxes);
    let in_g_pyramid = gaussian_pyramid(gray.clone(), &pyramid_boxes);

    let l_pyramid = |j: usize, x: i64, y: i64, k: i64| {
        let g = g_pyramid[j].get(&[x, y, k]);
        if j == coarsest {
            g
        } else {
            g - upsample_at(&g_pyramid[j + 1], x, y, k)
        }
    };
    let out_l_pyramid = |j: usize, x: i64, y: i64| {
        let lv = in_g_pyramid[j].get(&[x, y, 0]) * steps_f;
        let li = (lv as i32).clamp(0, p.levels - 2);
        let lf = lv - li as f32;
        let li = i64::from(li);
        (1.0 - lf) * l_pyramid(j, x, y, li) + lf * l_pyramid(j, x, y, li + 1)
    };
    let mut out_g = collapse_boxes[coarsest].fill(1, |x, y, _| out_l_pyramid(coarsest, x, y));
    for j in (0..coarsest).rev() {
        out_g = collapse_boxes[j].fill(1, |x, y, _| {
            upsample_at(&out_g, x, y, 0) + out_l_pyramid(j, x, y)
        });
    }

    Ok(Buffer::from_fn(&input.mins(), &input.extents(), |q| {
        let (x, y, c) = (q[0], q[1], q[2]);
        let color =
            out_g.get(&[x, y, 0]) * (clamped(x, y, c) + 0.01) / (gray.get(&[x, y, 0]) + 0.01);
        (clamp_f32(color, 0.0, 1.0) * 65535.0) as u16
    }))
}

/// local_laplacian as `tessera apps` lists it.
pub const DESCRIPTION: AppDescription = AppDescription {
    name: "local_laplacian",
    summary: "local Laplacian filters (detail and tone), u16 RGB",
    inputs: &[InputSpec {
        name: "input",
        ty: Type::u16(),
        shape: Shape::Channels(3),
        description: "u16 RGB, W × H × 3",
    }],
    rules: &[],
    output: Shape::Channels(3),
    params: &[
        ParamSpec {
            name: "levels",
            ty: Type::i32(),
            default: Value::Int(Parameters::DEFAULT.levels as i64),
            description: "the number of intensity levels the pyramid is remapped at (at least 2)",
        },
        ParamSpec {
            name: "alpha",
            ty: Type::f32(),
            default: Value::F32(Parameters::DEFAULT.alpha),
            description: "detail: how strongly local contrast is boosted",
        },
        ParamSpec {
            name: "beta",
            ty: Type::f32(),
            default: Value::F32(Parameters::DEFAULT.beta),
            description: "the global tone scale (below 1 compresses the range)",
        },
    ],
    default_size: (2560, 1536),
    // Measured: 21 KB per pixel at 256 x 256 (every level of every pyramid memoized).
    eval_bytes_per_pixel: 24 << 10,
};

impl AppDefinition for LocalLaplacian {
    type Funcs = LocalLaplacianFuncs;
    fn description(&self) -> &AppDescription {
        &DESCRIPTION
    }
    fn funcs(&self) -> Result<LocalLaplacianFuncs> {
        funcs(self.pyramid_levels)
    }
    fn schedules(&self) -> &[Schedule<LocalLaplacianFuncs>] {
        SCHEDULES
    }
    fn reference(&self, inputs: &[AnyBuffer], params: &[ParamBinding]) -> Result<AnyBuffer> {
        let (app, specs) = (DESCRIPTION.name, DESCRIPTION.params);
        let parameters = Parameters {
            levels: param_value(app, specs, params, "levels")?,
            alpha: param_value(app, specs, params, "alpha")?,
            beta: param_value(app, specs, params, "beta")?,
        };
        let input: Buffer<u16> = inputs[0].clone().try_into()?;
        Ok(reference(&input, parameters, self.pyramid_levels)?.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_of_resampling() {
        let s = Span { lo: 0, hi: 31 };
        assert_eq!(s.upsample_reads(), Span { lo: -1, hi: 16 });
        assert_eq!(s.downsample_reads(), Span { lo: -1, hi: 64 });
        assert_eq!(
            Span { lo: -1, hi: 1 }.upsample_reads(),
            Span { lo: -1, hi: 1 }
        );
    }

    #[test]
    fn a_flat_gray_image_is_unchanged_with_alpha_zero_and_beta_one() {
        // With alpha = 0 remap is 0 and beta = 1 makes every level the gray image itself,
        // so every Laplacian level but the coarsest is 0 and the collapse gives gray back.
        let input = Buffer::from_fn(&[0, 0, 0], &[6, 5, 3], |_| 30000u16);
        let p = Parameters {
            alpha: 0.0,
            ..Parameters::default()
        };
        let out = reference(&input, p, J).expect("valid levels");
        assert!(
            out.data().iter().all(|&v| v.abs_diff(30000) <= 2),
            "{:?}",
            out.data()
        );
    }

    #[test]
    fn too_few_levels_are_refused() {
        let input = Buffer::from_fn(&[0, 0, 0], &[2, 2, 3], |_| 0u16);
        let p = Parameters {
            levels: 1,
            ..Parameters::default()
        };
        assert!(reference(&input, p, J).is_err());
        assert!(reference(&input, Parameters::default(), 0).is_err());
    }
}
