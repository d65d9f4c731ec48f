//! bilateral_grid — the fast bilateral filter on a 3-D grid (7 stages): an s × s block of
//! pixels scatters into each grid column, binned by intensity (a data-dependent coordinate),
//! the grid is blurred, and each pixel takes a trilinear sample of it. float32 grayscale in
//! [0, 1], W × H in and out; `s_sigma` = 8 is fixed when the pipeline is built, `r_sigma`
//! (default 0.1) is a runtime f32 Param.
//!
//! ```text
//! clamped = repeat_edge(input)
//! r over [0, s) × [0, s)
//! histogram(x, y, z, c) = 0.0
//!   val = clamp(clamped(x*s + r.x - s/2, y*s + r.y - s/2), 0.0, 1.0)
//!   zi  = i32(val * (1.0 / r_sigma) + 0.5)                       // i32() truncates toward zero
//! histogram(x, y, zi, c) += select(c == 0, val, 1.0)             // c ∈ {0, 1}: value, weight
//! blurz(x, y, z, c) = h(z-2) + 4*h(z-1) + 6*h(z) + 4*h(z+1) + h(z+2)      (h = histogram(x, y, ·, c))
//! blurx(x, y, z, c) = same over x of blurz;   blury(x, y, z, c) = same over y of blurx
//! val = clamp(input(x, y), 0.0, 1.0);  zv = val * (1.0 / r_sigma);  zi = i32(zv);  zf = zv - f32(zi)
//! xf = f32(x % s) / f32(s);  yf = f32(y % s) / f32(s);  xi = x / s;  yi = y / s
//! interpolated(x, y, c) = lerp(lerp(lerp(B(xi,yi,zi), B(xi+1,yi,zi), xf), lerp(B(xi,yi+1,zi), B(xi+1,yi+1,zi), xf), yf),
//!                              lerp(lerp(B(xi,yi,zi+1), B(xi+1,yi,zi+1), xf), lerp(B(xi,yi+1,zi+1), B(xi+1,yi+1,zi+1), xf), yf), zf)
//!                         (B(a, b, d) = blury(a, b, d, c);  lerp(a, b, t) = a * (1 - t) + b * t)
//! output(x, y) = interpolated(x, y, 0) / interpolated(x, y, 1)
//! ```
//!
//! Coordinates are absolute (an input whose mins are not 0 is sliced at `x / s` of its own
//! coordinates), `%` and `/` round toward −∞.
//!
//! Schedules: `manual` (Halide's: the histogram computed per row of blurz, the three blurs at
//! root in parallel, vectorized over x with c unrolled; the output in parallel rows, the
//! slice inlined) and `root`. No `inline`: the three 5-tap blurs substituted into each of the
//! slice's 16 grid samples are past lowering's limit on the size of an inlined expression.

use tessera::eval::value::Value;
use tessera::lang::buffer::for_each_coord_in;
use tessera::lang::param::ParamBinding;
use tessera::lang::schedule::TailStrategy;
use tessera::prelude::*;

use crate::app::{AppDefinition, AppPipeline};
use crate::description::{AppDescription, InputSpec, ParamSpec, Shape, TYPICAL_EVAL_BYTES};
use crate::params::param_value;
use crate::schedule::{self, AppFuncs, Schedule};
use crate::spec_math::{clamp_f32, lerp_f32};

pub struct BilateralGrid;

/// The spatial sigma: each grid column gathers an `S_SIGMA × S_SIGMA` block of pixels.
pub const S_SIGMA: i32 = 8;

/// The weights of the grid blur, from offset -2 to 2.
const BLUR_TAPS: [f32; 5] = [1.0, 4.0, 6.0, 4.0, 1.0];

/// The Funcs of the bilateral grid, for schedules to direct.
pub struct BilateralGridFuncs {
    pub input: ImageParam,
    pub r_sigma: Param<f32>,
    pub clamped: Func,
    pub histogram: Func,
    pub blurz: Func,
    pub blurx: Func,
    pub blury: Func,
    pub interpolated: Func,
    pub output: Func,
}

impl AppFuncs for BilateralGridFuncs {
    fn pipeline(&self) -> AppPipeline {
        AppPipeline {
            output: self.output.clone(),
            inputs: vec![self.input.clone()],
        }
    }
}

/// `f` blurred by the 5-tap `[1 4 6 4 1]` filter along dimension `dim` (of x, y, z, c),
/// summed left to right from offset -2.
fn blur_along(f: &Func, name: &str, dim: usize) -> Result<Func> {
    let vars: Vec<Var> = ["x", "y", "z", "c"].map(Var::new).to_vec();
    let tap = |offset: i32| {
        let args: Vec<Expr> = vars
            .iter()
            .enumerate()
            .map(|(d, &v)| if d == dim { v + offset } else { v.expr() })
            .collect();
        f.at(args)
    };
    let sum = (-2..=2)
        .zip(BLUR_TAPS)
        .map(|(offset, weight)| {
            if weight == 1.0 {
                tap(offset)
            } else {
                weight * tap(offset)
            }
        })
        .reduce(|acc, term| acc + term)
        .expect("five taps");
    let blurred = Func::new(name);
    blurred.define(vars, sum)?;
    Ok(blurred)
}

/// The algorithm.
pub fn funcs() -> Result<BilateralGridFuncs> {
    let input = ImageParam::new(Type::f32(), 2, "input");
    let r_sigma = Param::<f32>::new("r_sigma");
    let (x, y, z, c) = (Var::new("x"), Var::new("y"), Var::new("z"), Var::new("c"));
    let s = S_SIGMA;
    let inverse_r_sigma = || 1.0f32 / r_sigma.expr();

    let clamped = repeat_edge(&input);
    let r = RDom::named("r", [(0, s), (0, s)]);
    let val = clamp(
        clamped.at((x * s + r.x() - s / 2, y * s + r.y() - s / 2)),
        0.0f32,
        1.0f32,
    );
    let zi = cast_to::<i32>(val.clone() * inverse_r_sigma() + 0.5f32);
    let histogram = Func::new("histogram");
    histogram.define((x, y, z, c), 0.0f32)?;
    histogram.update(
        (x.expr(), y.expr(), zi.clone(), c.expr()),
        histogram.at((x.expr(), y.expr(), zi, c.expr())) + select(c.eq_(0), val, 1.0f32),
    )?;

    let blurz = blur_along(&histogram, "blurz", 2)?;
    let blurx = blur_along(&blurz, "blurx", 0)?;
    let blury = blur_along(&blurx, "blury", 1)?;

    let val = clamp(input.at((x, y)), 0.0f32, 1.0f32);
    let zv = val * inverse_r_sigma();
    let zi = cast_to::<i32>(zv.clone());
    let zf = zv - cast_to::<f32>(zi.clone());
    let xf = cast_to::<f32>(x % s) / s as f32;
    let yf = cast_to::<f32>(y % s) / s as f32;
    let (xi, yi) = (x / s, y / s);
    let offset = |e: &Expr, d: i32| if d == 0 { e.clone() } else { e + d };
    let corner = |dx: i32, dy: i32, dz: i32| {
        blury.at((offset(&xi, dx), offset(&yi, dy), offset(&zi, dz), c.expr()))
    };
    let bilinear = |dz: i32| {
        lerp(
            lerp(corner(0, 0, dz), corner(1, 0, dz), xf.clone()),
            lerp(corner(0, 1, dz), corner(1, 1, dz), xf.clone()),
            yf.clone(),
        )
    };
    let interpolated = Func::new("interpolated");
    interpolated.define((x, y, c), lerp(bilinear(0), bilinear(1), zf))?;

    let output = Func::new("output");
    output.define(
        (x, y),
        interpolated.at((x.expr(), y.expr(), Expr::i32(0)))
            / interpolated.at((x.expr(), y.expr(), Expr::i32(1))),
    )?;
    Ok(BilateralGridFuncs {
        input,
        r_sigma,
        clamped,
        histogram,
        blurz,
        blurx,
        blury,
        interpolated,
        output,
    })
}

/// f32 lanes per vector in `manual`: one 512-bit register, or two 256-bit ones (0.88 of the
/// time of 8 lanes at 1 thread and 0.83 at 2 on an AVX-512 host, 2026-11-30).
const VECTOR: i32 = 16;

const SCHEDULES: &[Schedule<BilateralGridFuncs>] = &[
    Schedule {
        name: "manual",
        min_output: (VECTOR as i64, 1),
        apply: manual,
    },
    Schedule {
        name: "root",
        min_output: (schedule::natural_vector_width(Type::f32()) as i64, 1),
        apply: root,
    },
];

/// Halide's schedule, but for the histogram's loop order. The histogram is computed for one
/// row of grid cells at a time, as blurz needs it: the scatter of a row's blocks, c unrolled,
/// with the cells innermost (Halide: each block's pixels innermost), so consecutive
/// read-modify-writes go to different cells instead of waiting on each other through the
/// same bin (0.90 of the time). The blurs are computed at root,
/// rows (blurz) or intensity planes (blurx, blury) in parallel, vectorized over x with c
/// unrolled; the output in parallel rows, vectorized, with the trilinear slice inlined. The
/// grid's rows are rounded up to whole vectors (computing a few cells past the end, which
/// the clamped input defines), which also keeps the bounds of the chained stages simple.
fn manual(p: &BilateralGridFuncs) {
    p.histogram
        .compute_at(&p.blurz, "y")
        .vectorize_with_tail("x", VECTOR, TailStrategy::RoundUp);
    p.histogram
        .update_stage(0)
        .reorder(["c", "x", "r.x", "r.y", "y"])
        .unroll("c", 2);
    p.blurz
        .compute_root()
        .reorder(["x", "c", "z", "y"])
        .parallel("y")
        .vectorize_with_tail("x", VECTOR, TailStrategy::RoundUp)
        .unroll("c", 2);
    for blur in [&p.blurx, &p.blury] {
        blur.compute_root()
            .reorder(["x", "c", "y", "z"])
            .parallel("z")
            .vectorize_with_tail("x", VECTOR, TailStrategy::RoundUp)
            .unroll("c", 2);
    }
    p.output.parallel("y").vectorize("x", VECTOR);
}

/// Every stage at root, parallel over its outermost dimension and vectorized over x. The grid
/// stages round their rows up to whole vectors; the slice and the output, which read the
/// input image itself, shift their last vector inwards instead.
fn root(p: &BilateralGridFuncs) {
    for grid_stage in [&p.clamped, &p.histogram, &p.blurz, &p.blurx, &p.blury] {
        grid_stage.compute_root();
        schedule::parallel_vectorized_with_tail(grid_stage, TailStrategy::RoundUp);
    }
    p.interpolated.compute_root();
    schedule::parallel_vectorized(&p.interpolated);
    schedule::parallel_vectorized(&p.output);
}

/// The largest `|1 / r_sigma|` the reference accepts: the number of intensity bins, which
/// keeps the grid finite and `zi + 1` far from overflowing.
const MAX_BINS: f32 = 65536.0;

/// A 4-D f32 array over `[mins, mins + extents)`, zero-initialized.
fn grid(mins: [i64; 4], extents: [i64; 4]) -> Buffer<f32> {
    Buffer::with_mins(&mins, &extents)
}

/// `f` blurred along dimension `dim` by the 5-tap filter, over the box `[mins, mins +
/// extents)` (which `f` must cover, widened by 2 in `dim`).
fn blur_reference(f: &Buffer<f32>, dim: usize, mins: [i64; 4], extents: [i64; 4]) -> Buffer<f32> {
    let mut out = grid(mins, extents);
    for_each_coord_in(&mins, &extents, &mut |p| {
        let mut q = p.to_vec();
        let mut tap = |offset: i64, weight: f32| {
            q[dim] = p[dim] + offset;
            if weight == 1.0 {
                f.get(&q)
            } else {
                weight * f.get(&q)
            }
        };
        let first = tap(-2, BLUR_TAPS[0]);
        let total = (-1..=2)
            .zip(&BLUR_TAPS[1..])
            .fold(first, |total, (offset, &weight)| {
                total + tap(offset, weight)
            });
        out.set(p, total);
    });
    out
}

/// The bilateral grid in plain Rust loops: the output over the input's box, with the
/// pipeline's f32 arithmetic in the specification's order. `r_sigma` must be finite with
/// `|1 / r_sigma| <= 65536`.
pub fn reference(input: &Buffer<f32>, r_sigma: f32) -> Result<Buffer<f32>> {
    let inverse = 1.0f32 / r_sigma;
    if !inverse.is_finite() || inverse.abs() > MAX_BINS || !r_sigma.is_finite() {
        return Err(Error::Definition(format!(
            "the bilateral grid reference needs a finite r_sigma with |1 / r_sigma| <= {MAX_BINS}, not {r_sigma}"
        )));
    }
    let s = i64::from(S_SIGMA);
    let (x0, y0) = (input.dim(0).min, input.dim(1).min);
    let (x1, y1) = (x0 + input.width() - 1, y0 + input.height() - 1);
    let clamped = |x: i64, y: i64| input.get(&[x.clamp(x0, x1), y.clamp(y0, y1)]);

    // Per pixel of the output: the sample's grid cell, its fractions, and the value.
    struct Sample {
        xi: i64,
        yi: i64,
        zi: i64,
        xf: f32,
        yf: f32,
        zf: f32,
    }
    let sample = |x: i64, y: i64| {
        let val = clamp_f32(input.get(&[x, y]), 0.0, 1.0);
        let zv = val * inverse;
        let zi = zv as i32;
        Sample {
            xi: x.div_euclid(s),
            yi: y.div_euclid(s),
            zi: i64::from(zi),
            xf: x.rem_euclid(s) as f32 / s as f32,
            yf: y.rem_euclid(s) as f32 / s as f32,
            zf: zv - zi as f32,
        }
    };

    // The grid cells the slice reads: x and y cells and their right/lower neighbours, the
    // bins of every pixel and the next bin.
    let mut z_range = (i64::MAX, i64::MIN);
    for y in y0..=y1 {
        for x in x0..=x1 {
            let zi = sample(x, y).zi;
            z_range = (z_range.0.min(zi), z_range.1.max(zi + 1));
        }
    }
    let (gx0, gx1) = (x0.div_euclid(s), x1.div_euclid(s) + 1);
    let (gy0, gy1) = (y0.div_euclid(s), y1.div_euclid(s) + 1);
    let (gz0, gz1) = z_range;
    let blury_box = (
        [gx0, gy0, gz0, 0],
        [gx1 - gx0 + 1, gy1 - gy0 + 1, gz1 - gz0 + 1, 2],
    );
    let widen = |(mut mins, mut extents): ([i64; 4], [i64; 4]), dim: usize| {
        mins[dim] -= 2;
        extents[dim] += 4;
        (mins, extents)
    };
    let blurx_box = widen(blury_box, 1);
    let blurz_box = widen(blurx_box, 0);
    let histogram_box = widen(blurz_box, 2);

    // Scatter: each cell's block of pixels, r.x fastest; bins outside the box are never read.
    let mut histogram = grid(histogram_box.0, histogram_box.1);
    for c in 0..2 {
        for gy in histogram_box.0[1]..histogram_box.0[1] + histogram_box.1[1] {
            for gx in histogram_box.0[0]..histogram_box.0[0] + histogram_box.1[0] {
                for ry in 0..s {
                    for rx in 0..s {
                        let val =
                            clamp_f32(clamped(gx * s + rx - s / 2, gy * s + ry - s / 2), 0.0, 1.0);
                        let zi = i64::from((val * inverse + 0.5) as i32);
                        let bin = [gx, gy, zi, c];
                        if histogram.contains(&bin) {
                            let weight = if c == 0 { val } else { 1.0 };
                            histogram.set(&bin, histogram.get(&bin) + weight);
                        }
                    }
                }
            }
        }
    }
    let blurz = blur_reference(&histogram, 2, blurz_box.0, blurz_box.1);
    let blurx = blur_reference(&blurz, 0, blurx_box.0, blurx_box.1);
    let blury = blur_reference(&blurx, 1, blury_box.0, blury_box.1);

    let mut out = Buffer::with_mins(&[x0, y0], &[input.width(), input.height()]);
    for y in y0..=y1 {
        for x in x0..=x1 {
            let p = sample(x, y);
            let interpolated = |c: i64| {
                let b =
                    |dx: i64, dy: i64, dz: i64| blury.get(&[p.xi + dx, p.yi + dy, p.zi + dz, c]);
                let bilinear = |dz: i64| {
                    lerp_f32(
                        lerp_f32(b(0, 0, dz), b(1, 0, dz), p.xf),
                        lerp_f32(b(0, 1, dz), b(1, 1, dz), p.xf),
                        p.yf,
                    )
                };
                lerp_f32(bilinear(0), bilinear(1), p.zf)
            };
            out.set(&[x, y], interpolated(0) / interpolated(1));
        }
    }
    Ok(out)
}

/// bilateral_grid as `tessera apps` lists it.
pub const DESCRIPTION: AppDescription = AppDescription {
    name: "bilateral_grid",
    summary: "the bilateral filter on a bilateral grid, f32",
    inputs: &[InputSpec {
        name: "input",
        ty: Type::f32(),
        shape: Shape::Plane,
        description: "f32 grayscale in [0, 1], W × H",
    }],
    rules: &[],
    output: Shape::Plane,
    params: &[ParamSpec {
        name: "r_sigma",
        ty: Type::f32(),
        default: Value::F32(0.1),
        description: "the range sigma: the width of the grid's intensity bins",
    }],
    default_size: (2560, 1536),
    eval_bytes_per_pixel: TYPICAL_EVAL_BYTES,
};

impl AppDefinition for BilateralGrid {
    type Funcs = BilateralGridFuncs;
    fn description(&self) -> &AppDescription {
        &DESCRIPTION
    }
    fn funcs(&self) -> Result<BilateralGridFuncs> {
        funcs()
    }
    fn schedules(&self) -> &[Schedule<BilateralGridFuncs>] {
        SCHEDULES
    }
    fn reference(&self, inputs: &[AnyBuffer], params: &[ParamBinding]) -> Result<AnyBuffer> {
        let r_sigma = param_value::<f32>(DESCRIPTION.name, DESCRIPTION.params, params, "r_sigma")?;
        let input: Buffer<f32> = inputs[0].clone().try_into()?;
        Ok(reference(&input, r_sigma)?.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flat_image_stays_flat() {
        // Every block holds one value, so every sample averages that value.
        let input = Buffer::from_fn(&[0, 0], &[20, 12], |_| 0.37f32);
        let out = reference(&input, 0.1).expect("valid r_sigma");
        assert!(out.data().iter().all(|&v| (v - 0.37).abs() < 1e-6));
    }

    #[test]
    fn a_step_edge_is_preserved() {
        // Values 0.1 and 0.9 are 8 bins apart: the blur in z (radius 2) never mixes them.
        let input = Buffer::from_fn(&[0, 0], &[32, 16], |c| if c[0] < 16 { 0.1f32 } else { 0.9 });
        let out = reference(&input, 0.1).expect("valid r_sigma");
        assert!((out.get(&[15, 8]) - 0.1).abs() < 1e-5 && (out.get(&[16, 8]) - 0.9).abs() < 1e-5);
    }

    #[test]
    fn degenerate_r_sigma_is_refused() {
        let input = Buffer::from_fn(&[0, 0], &[4, 4], |_| 0.5f32);
        assert!(reference(&input, 0.0).is_err());
        assert!(reference(&input, 1e-9).is_err());
    }
}
