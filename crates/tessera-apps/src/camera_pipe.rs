//! camera_pipe — the Halide/FCam camera pipeline (33 stages): a uint16 raw Bayer mosaic
//! (GRBG, 10-bit) to uint8 RGB by hot-pixel suppression, deinterleaving into four
//! half-resolution colour planes, edge-directed demosaicking, a fixed-point colour matrix, a
//! tone curve (a 1024-entry LUT computed in f64 from the runtime parameters) and an unsharp
//! mask. Specification: `../shared/apps/camera_pipe.md`.
//!
//! ```text
//! shifted(x, y)  = i16(input(x + 16, y + 12))                     (input read through repeat_edge)
//! denoised       = clamp(shifted, 0, max of the 4 same-colour neighbours at distance 2)
//! deinterleaved(x, y, c) = denoised at quad (x, y): [(2x, 2y), (2x+1, 2y), (2x, 2y+1), (2x+1, 2y+1)][c]
//! g_gr, r_r, b_b, g_gb = deinterleaved(.., 0 / 1 / 2 / 3)
//! g_r, g_b: green at R and B sites, averaging along the direction of least change
//! r_gr, b_gr, r_gb, b_gb, r_b, b_r: colour differences from green, averaged (all int16,
//!     avg(a, b) = i16((i32(a) + i32(b) + 1) / 2))
//! r, g, b = interleave_y(interleave_x(..), interleave_x(..))      (select on x % 2, y % 2)
//! corrected(x, y, c) = i16((M[c][3] + M[c][0]*r + M[c][1]*g + M[c][2]*b) / 256)   (int32)
//! curve(i)  = the tone curve, in f64, of gamma, contrast, black_level and white_level
//! curved    = curve(clamp(i32(corrected), 0, 1023))
//! unsharp_y, unsharp = 1-2-1 blurs by rounding averages of u8 (avg8)
//! output    = u8_sat(i16(curved) + (i16(curved) - i16(unsharp)) * i16(s32) / 32)    (int16)
//! s32       = sharpen_strength_x32() = u8_sat(sharpen_strength * 32)
//! ```
//!
//! Output pixel (x, y) sits on raw pixel (x + 16, y + 12); the output is W × H × 3 with
//! W = ((W_in − 32)/32)·32 and H = ((H_in − 24)/32)·32, so always a multiple of 32 in x and
//! y; inputs smaller than 64 × 56 are refused.
//!
//! Schedules: `manual` and `root`. `manual` is Halide's schedule reworked (see `manual`):
//! the output bounded to the rule's box from (0, 0), in 32-row strips in parallel, 2 rows
//! at a time, c unrolled; shifted, denoised, deinterleaved, g_r, g_b and curved computed
//! once per strip in 64-lane vectors, with curved aligned to quads and unrolled over their
//! parity (the demosaic and colour matrix inlined into it, the interleaving selects folded
//! away); unsharp_y per 2-row step; the tone curve at root. Halide computes its line
//! buffers per 2-row step and slides them down the strip; Tessera never slides a Func whose
//! y split rounds up, so there each step recomputed the whole window (5 times the needed
//! rows of deinterleaved and denoised, 7 times those of shifted, twice those of curved):
//! that, and the per-lane parity selects, made the schedule as Halide writes it 1.5 times
//! Halide's time. Measured at 2560 × 1920 on the 2-CPU machine shared with another job
//! (`python bench/compare.py --apps camera_pipe --threads 1,2 --runs 10 --rounds 3
//! --tessera-schedules manual --halide-schedules manual`, medians of per-round ratios):
//! `manual` / Halide 21 manual 0.71 at 1 thread (9.3 ms against 13.3 ms) and 0.70 at 2 (8.9
//! ms against 12.7 ms; the other job held the second CPU, so neither side scaled).
//! Computing the demosaicked colours per vector of curved (Halide's hint), inlining shifted
//! or denoised, strips of 16 or 64 rows and 16-lane vectors of curved measured no faster
//! (medians of paired ratios 1.28, 1.05, 1.06, 1.12, 1.01 and 1.01).

use tessera::eval::value::Value;
use tessera::lang::param::ParamBinding;
use tessera::lang::schedule::TailStrategy;
use tessera::prelude::*;

use crate::app::{pipeline_functions, AppDefinition, AppPipeline};
use crate::description::{
    extents, AppDescription, InputRule, InputSpec, ParamSpec, Shape, TYPICAL_EVAL_BYTES,
};
use crate::params::param_value;
use crate::schedule::{self, AppFuncs, Schedule};
use crate::spec_math::clamp_f32;
use crate::synthetic;

/// The app's name, as its errors and parameters name it.
const APP: &str = "camera_pipe";

/// The colour matrix for 3700 K in Q8.8 fixed point; row c gives output channel c as
/// `[r, g, b, offset]`.
pub const MATRIX: [[i32; 4]; 3] = [
    [548, -103, 7, -10220],
    [-96, 373, 61, -7254],
    [-30, -260, 882, -5562],
];

/// Where output pixel (0, 0) sits on the raw mosaic.
pub const RAW_OFFSET: (i64, i64) = (16, 12);
/// The output is a whole number of these in x and y.
pub const OUTPUT_MULTIPLE: i64 = 32;
/// The smallest input the pipeline accepts (x, y).
pub const MIN_INPUT: (i64, i64) = (64, 56);
/// The raw mosaic is 10-bit: the tone curve's table covers 0..=MAX_RAW.
pub const MAX_RAW: i32 = 1023;

/// The runtime parameters of the pipeline.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Parameters {
    pub gamma: f32,
    pub contrast: f32,
    pub sharpen_strength: f32,
    pub black_level: i32,
    pub white_level: i32,
}

impl Default for Parameters {
    fn default() -> Parameters {
        Parameters {
            gamma: 2.0,
            contrast: 50.0,
            sharpen_strength: 1.0,
            black_level: 25,
            white_level: 1023,
        }
    }
}

impl Parameters {
    /// The parameters bound in `given`, the defaults for those not given.
    pub fn from_bindings(given: &[ParamBinding]) -> Result<Parameters> {
        let specs = PARAMS;
        Ok(Parameters {
            gamma: param_value(APP, specs, given, "gamma")?,
            contrast: param_value(APP, specs, given, "contrast")?,
            sharpen_strength: param_value(APP, specs, given, "sharpen_strength")?,
            black_level: param_value(APP, specs, given, "black_level")?,
            white_level: param_value(APP, specs, given, "white_level")?,
        })
    }
}

/// The runtime parameters (`--param`s), with their defaults (`Parameters::default()`).
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "gamma",
        ty: Type::f32(),
        default: Value::F32(2.0),
        description: "the tone curve's gamma (the curve is x^(1/gamma))",
    },
    ParamSpec {
        name: "contrast",
        ty: Type::f32(),
        default: Value::F32(50.0),
        description: "the tone curve's contrast (0 leaves it linear, 100 is strongest)",
    },
    ParamSpec {
        name: "sharpen_strength",
        ty: Type::f32(),
        default: Value::F32(1.0),
        description: "the unsharp mask's strength, in [0, 8) in steps of 1/32",
    },
    ParamSpec {
        name: "black_level",
        ty: Type::i32(),
        default: Value::Int(25),
        description: "the raw value of black (mapped to 0)",
    },
    ParamSpec {
        name: "white_level",
        ty: Type::i32(),
        default: Value::Int(1023),
        description: "the raw value of white (mapped to 255)",
    },
];

/// Whether the raw mosaic (input 0) is at least `MIN_INPUT`.
fn large_enough(inputs: &[AnyBuffer]) -> bool {
    let e = extents(&inputs[0]);
    e[0] >= MIN_INPUT.0 && e[1] >= MIN_INPUT.1
}

pub const DESCRIPTION: AppDescription = AppDescription {
    name: APP,
    summary: "raw Bayer mosaic (GRBG, 10-bit) to 8-bit RGB, the Halide/FCam camera pipeline",
    inputs: &[InputSpec {
        name: "input",
        ty: Type::u16(),
        shape: Shape::Plane,
        description: "u16 raw GRBG mosaic, at least 64 × 56; (W+32)×(H+48) for a W × H output",
    }],
    rules: &[InputRule {
        input: "input",
        rule: "the raw mosaic must be at least 64 x 56 (the output is ((W_in - 32)/32)*32 x ((H_in - 24)/32)*32, at least 32 x 32)",
        holds: large_enough,
    }],
    output: Shape::Channels(3),
    params: PARAMS,
    default_size: DEFAULT_SIZE,
    eval_bytes_per_pixel: TYPICAL_EVAL_BYTES,
};

pub struct CameraPipe;

impl AppFuncs for CameraPipeFuncs {
    fn pipeline(&self) -> AppPipeline {
        AppPipeline {
            output: self.output.clone(),
            inputs: vec![self.input.clone()],
        }
    }
}

impl AppDefinition for CameraPipe {
    type Funcs = CameraPipeFuncs;
    fn description(&self) -> &AppDescription {
        &DESCRIPTION
    }
    fn funcs(&self) -> Result<CameraPipeFuncs> {
        funcs()
    }
    fn schedules(&self) -> &[Schedule<CameraPipeFuncs>] {
        SCHEDULES
    }
    fn input_extents(&self, width: i64, height: i64) -> Vec<Vec<i64>> {
        vec![input_extents(width, height)]
    }
    fn output_extents(&self, input_extents: &[Vec<i64>]) -> Option<Vec<i64>> {
        output_extents(input_extents.first()?).ok()
    }
    fn default_inputs(&self, width: i64, height: i64) -> Result<Vec<AnyBuffer>> {
        Ok(vec![default_input(width, height)?.into()])
    }
    fn reference(&self, inputs: &[AnyBuffer], params: &[ParamBinding]) -> Result<AnyBuffer> {
        let input: Buffer<u16> = inputs[0].clone().try_into()?;
        Ok(reference(&input, &Parameters::from_bindings(params)?)?.into())
    }
}

/// The Funcs of the camera pipeline, for schedules to direct. The six `*_rows` Funcs are
/// the `interleave_x` stages (a colour's even rows from its G/R quads, its odd rows from its
/// B/G quads); `r`, `g` and `b` interleave them in y.
pub struct CameraPipeFuncs {
    pub input: ImageParam,
    pub gamma: Param<f32>,
    pub contrast: Param<f32>,
    pub sharpen_strength: Param<f32>,
    pub black_level: Param<i32>,
    pub white_level: Param<i32>,
    pub clamped: Func,
    pub shifted: Func,
    pub denoised: Func,
    pub deinterleaved: Func,
    pub g_gr: Func,
    pub r_r: Func,
    pub b_b: Func,
    pub g_gb: Func,
    pub g_r: Func,
    pub g_b: Func,
    pub r_gr: Func,
    pub b_gr: Func,
    pub r_gb: Func,
    pub b_gb: Func,
    pub r_b: Func,
    pub b_r: Func,
    pub r_even_rows: Func,
    pub r_odd_rows: Func,
    pub g_even_rows: Func,
    pub g_odd_rows: Func,
    pub b_even_rows: Func,
    pub b_odd_rows: Func,
    pub r: Func,
    pub g: Func,
    pub b: Func,
    pub demosaiced: Func,
    pub corrected: Func,
    pub curve: Func,
    pub curved: Func,
    pub sharpen_strength_x32: Func,
    pub unsharp_y: Func,
    pub unsharp: Func,
    pub mask: Func,
    pub output: Func,
}

/// `avg(a, b)` = `(a + b + 1) / 2` computed one width up (int16 → int32), rounding up.
fn avg(a: Expr, b: Expr) -> Expr {
    let ty = a.ty();
    let wider = ty.with_bits(ty.bits * 2);
    cast(ty, (cast(wider, a) + cast(wider, b) + 1) / 2)
}

/// `u8(clamp(v, 0, 255))` (the bounds take `v`'s type).
fn u8_sat(v: Expr) -> Expr {
    cast_to::<u8>(clamp(v, 0, 255))
}

/// A Func named `name` of `(x, y)` equal to `value`.
fn define_2d(name: &str, x: Var, y: Var, value: Expr) -> Result<Func> {
    let f = Func::new(name);
    f.define((x, y), value)?;
    Ok(f)
}

/// `select(x % 2 == 0, a(x / 2, y), b(x / 2, y))`, named `name`.
fn interleave_x(name: &str, a: &Func, b: &Func, x: Var, y: Var) -> Result<Func> {
    let even = (x % 2).eq_(0);
    define_2d(name, x, y, select(even, a.at((x / 2, y)), b.at((x / 2, y))))
}

/// `select(y % 2 == 0, a(x, y / 2), b(x, y / 2))`, named `name`.
fn interleave_y(name: &str, a: &Func, b: &Func, x: Var, y: Var) -> Result<Func> {
    let even = (y % 2).eq_(0);
    define_2d(name, x, y, select(even, a.at((x, y / 2)), b.at((x, y / 2))))
}

/// The colour difference estimate `(g - avg(g1, g2)) + avg(c1, c2)`: a colour at a site
/// from the site's green and two neighbours' colour and green.
fn colour_from_green(g: Expr, g1: Expr, g2: Expr, c1: Expr, c2: Expr) -> Expr {
    (g - avg(g1, g2)) + avg(c1, c2)
}

/// The algorithm.
pub fn funcs() -> Result<CameraPipeFuncs> {
    let input = ImageParam::new(Type::u16(), 2, "input");
    let gamma = Param::<f32>::new("gamma");
    let contrast = Param::<f32>::new("contrast");
    let sharpen_strength = Param::<f32>::new("sharpen_strength");
    let black_level = Param::<i32>::new("black_level");
    let white_level = Param::<i32>::new("white_level");
    let (x, y, c, i) = (Var::new("x"), Var::new("y"), Var::new("c"), Var::new("i"));

    // 1. Hot-pixel suppression on the mosaic shifted to the output's origin.
    let clamped = repeat_edge(&input);
    let (dx, dy) = (RAW_OFFSET.0 as i32, RAW_OFFSET.1 as i32);
    let shifted = define_2d(
        "shifted",
        x,
        y,
        cast_to::<i16>(clamped.at((x + dx, y + dy))),
    )?;
    let s = |ox: i32, oy: i32| shifted.at((x + ox, y + oy));
    let neighbours = max(max(s(-2, 0), s(2, 0)), max(s(0, -2), s(0, 2)));
    let denoised = define_2d("denoised", x, y, clamp(s(0, 0), 0, neighbours))?;

    // 2. The four half-resolution planes.
    let deinterleaved = Func::new("deinterleaved");
    let quad = |ox: i32, oy: i32| denoised.at((2 * x + ox, 2 * y + oy));
    deinterleaved.define(
        (x, y, c),
        mux(c, [quad(0, 0), quad(1, 0), quad(0, 1), quad(1, 1)]),
    )?;
    let plane = |name: &str, k: i32| {
        define_2d(
            name,
            x,
            y,
            deinterleaved.at((x.expr(), y.expr(), Expr::i32(k))),
        )
    };
    let (g_gr, r_r, b_b, g_gb) = (
        plane("g_gr", 0)?,
        plane("r_r", 1)?,
        plane("b_b", 2)?,
        plane("g_gb", 3)?,
    );

    // 3. Demosaicking: green where it is missing, along the direction of least change.
    let at = |f: &Func, ox: i32, oy: i32| f.at((x + ox, y + oy));
    let directional = |a1: Expr, a2: Expr, b1: Expr, b2: Expr| {
        select(
            absd(a1.clone(), a2.clone()).lt(absd(b1.clone(), b2.clone())),
            avg(a1, a2),
            avg(b1, b2),
        )
    };
    let g_r = define_2d(
        "g_r",
        x,
        y,
        directional(
            at(&g_gr, 1, 0),
            at(&g_gr, 0, 0),
            at(&g_gb, 0, -1),
            at(&g_gb, 0, 0),
        ),
    )?;
    let g_b = define_2d(
        "g_b",
        x,
        y,
        directional(
            at(&g_gb, -1, 0),
            at(&g_gb, 0, 0),
            at(&g_gr, 0, 1),
            at(&g_gr, 0, 0),
        ),
    )?;
    // Red and blue at the green sites, from the two neighbours of that colour.
    let difference = |name: &str, green: &Func, g: &Func, c: &Func, o: (i32, i32)| {
        define_2d(
            name,
            x,
            y,
            colour_from_green(
                at(green, 0, 0),
                at(g, 0, 0),
                at(g, o.0, o.1),
                at(c, o.0, o.1),
                at(c, 0, 0),
            ),
        )
    };
    let r_gr = difference("r_gr", &g_gr, &g_r, &r_r, (-1, 0))?;
    let b_gr = difference("b_gr", &g_gr, &g_b, &b_b, (0, -1))?;
    let r_gb = difference("r_gb", &g_gb, &g_r, &r_r, (0, 1))?;
    let b_gb = difference("b_gb", &g_gb, &g_b, &b_b, (1, 0))?;
    // Red at blue sites and blue at red sites, along the diagonal of least change.
    // The two diagonals of quads that hold the other colour around the site: `(0, 0)`–
    // `(sx, -sx)` and `(sx, 0)`–`(0, -sx)`.
    let across = |name: &str, green: &Func, g: &Func, c: &Func, sx: i32| {
        let positive = [(0, 0), (sx, -sx)];
        let negative = [(sx, 0), (0, -sx)];
        let estimate = |[a, b]: [(i32, i32); 2]| {
            colour_from_green(
                at(green, 0, 0),
                at(g, a.0, a.1),
                at(g, b.0, b.1),
                at(c, a.0, a.1),
                at(c, b.0, b.1),
            )
        };
        let change = |[a, b]: [(i32, i32); 2]| absd(at(c, a.0, a.1), at(c, b.0, b.1));
        let along_positive = change(positive).lt(change(negative));
        define_2d(
            name,
            x,
            y,
            select(along_positive, estimate(positive), estimate(negative)),
        )
    };
    // r_b: rp from r at (0, 0), (-1, 1), rn from (-1, 0), (0, 1); b_r mirrored.
    let r_b = across("r_b", &g_b, &g_r, &r_r, -1)?;
    let b_r = across("b_r", &g_r, &g_b, &b_b, 1)?;

    let r_even_rows = interleave_x("r_even_rows", &r_gr, &r_r, x, y)?;
    let r_odd_rows = interleave_x("r_odd_rows", &r_b, &r_gb, x, y)?;
    let g_even_rows = interleave_x("g_even_rows", &g_gr, &g_r, x, y)?;
    let g_odd_rows = interleave_x("g_odd_rows", &g_b, &g_gb, x, y)?;
    let b_even_rows = interleave_x("b_even_rows", &b_gr, &b_r, x, y)?;
    let b_odd_rows = interleave_x("b_odd_rows", &b_b, &b_gb, x, y)?;
    let r = interleave_y("r", &r_even_rows, &r_odd_rows, x, y)?;
    let g = interleave_y("g", &g_even_rows, &g_odd_rows, x, y)?;
    let b = interleave_y("b", &b_even_rows, &b_odd_rows, x, y)?;
    let demosaiced = Func::new("demosaiced");
    demosaiced.define(
        (x, y, c),
        mux(c, [r.at((x, y)), g.at((x, y)), b.at((x, y))]),
    )?;

    // 4. Colour correction.
    let channel = |k: i32| cast_to::<i32>(demosaiced.at((x.expr(), y.expr(), Expr::i32(k))));
    let rows = MATRIX.map(|m| {
        let sum = m[3] + m[0] * channel(0) + m[1] * channel(1) + m[2] * channel(2);
        cast_to::<i16>(sum / 256)
    });
    let corrected = Func::new("corrected");
    corrected.define((x, y, c), mux(c, rows))?;

    // 5. The tone curve, in f64.
    let curve = Func::new("curve");
    let f64_of = cast_to::<f64>;
    let inv_range = 1.0f64 / f64_of(white_level.expr() - black_level.expr());
    let cb = 2.0f64 - pow(Expr::f64(2.0), f64_of(contrast.expr()) / 100.0f64);
    let ca = 2.0f64 - 2.0f64 * cb.clone();
    let xf = clamp(f64_of(i - black_level.expr()) * inv_range, 0.0f64, 1.0f64);
    let gv = pow(xf, 1.0f64 / f64_of(gamma.expr()));
    let one_minus = 1.0f64 - gv.clone();
    let z = select(
        gv.clone().gt(0.5f64),
        1.0f64 - (ca.clone() * one_minus.clone() * one_minus.clone() + cb.clone() * one_minus),
        ca * gv.clone() * gv.clone() + cb * gv,
    );
    let level = cast_to::<u8>(clamp(z * 255.0f64 + 0.5f64, 0.0f64, 255.0f64));
    curve.define(
        i,
        select(
            i.le(black_level.expr()),
            0,
            select(i.gt(white_level.expr()), 255, level),
        ),
    )?;
    let curved = Func::new("curved");
    curved.define(
        (x, y, c),
        curve.at(clamp(cast_to::<i32>(corrected.at((x, y, c))), 0, MAX_RAW)),
    )?;

    // 6. Sharpening.
    let sharpen_strength_x32 = Func::new("sharpen_strength_x32");
    sharpen_strength_x32.define((), u8_sat(sharpen_strength.expr() * 32.0f32))?;
    let avg8 = |a: Expr, b: Expr| cast_to::<u8>((cast_to::<u16>(a) + cast_to::<u16>(b) + 1) / 2);
    let cv = |ox: i32, oy: i32| curved.at((x + ox, y + oy, c.expr()));
    let unsharp_y = Func::new("unsharp_y");
    unsharp_y.define((x, y, c), avg8(avg8(cv(0, -1), cv(0, 1)), cv(0, 0)))?;
    let uy = |ox: i32| unsharp_y.at((x + ox, y.expr(), c.expr()));
    let unsharp = Func::new("unsharp");
    unsharp.define((x, y, c), avg8(avg8(uy(-1), uy(1)), uy(0)))?;
    let mask = Func::new("mask");
    mask.define(
        (x, y, c),
        cast_to::<i16>(cv(0, 0)) - cast_to::<i16>(unsharp.at((x, y, c))),
    )?;
    let output = Func::new("output");
    let s32 = cast_to::<i16>(sharpen_strength_x32.at(()));
    output.define(
        (x, y, c),
        u8_sat(cast_to::<i16>(cv(0, 0)) + mask.at((x, y, c)) * s32 / 32),
    )?;

    Ok(CameraPipeFuncs {
        input,
        gamma,
        contrast,
        sharpen_strength,
        black_level,
        white_level,
        clamped,
        shifted,
        denoised,
        deinterleaved,
        g_gr,
        r_r,
        b_b,
        g_gb,
        g_r,
        g_b,
        r_gr,
        b_gr,
        r_gb,
        b_gb,
        r_b,
        b_r,
        r_even_rows,
        r_odd_rows,
        g_even_rows,
        g_odd_rows,
        b_even_rows,
        b_odd_rows,
        r,
        g,
        b,
        demosaiced,
        corrected,
        curve,
        curved,
        sharpen_strength_x32,
        unsharp_y,
        unsharp,
        mask,
        output,
    })
}

/// The output's extents in x and y for the image bound to `input`, as expressions (the rule
/// of `output_extents`).
fn output_extent_exprs(input: &ImageParam) -> (Expr, Expr) {
    let whole = |extent: Expr, margin: i64| {
        (extent - (2 * margin) as i32) / OUTPUT_MULTIPLE as i32 * OUTPUT_MULTIPLE as i32
    };
    (
        whole(input.extent(0), RAW_OFFSET.0),
        whole(input.extent(1), RAW_OFFSET.1),
    )
}

/// Output rows per parallel strip of `manual` (64 rows: 0.94 of the time of 32 at 1 and 2
/// threads on an AVX-512 host, 2026-11-30; 128 rows: 0.92 at 1 thread, 0.96 at 2).
const STRIP: i32 = 64;
/// The lanes of `manual`'s vectors (two 256-bit vectors of u8, four of i16).
const VECTOR: i32 = 64;
/// The lanes of `manual`'s output vectors: the output's width is only a multiple of 32.
const OUTPUT_VECTOR: i32 = 32;
/// The lanes of the `root` schedule's widest vectors (u8 at the natural width).
const ROOT_VECTOR: i64 = 32;

pub const SCHEDULES: &[Schedule<CameraPipeFuncs>] = &[
    Schedule {
        name: "manual",
        min_output: (OUTPUT_MULTIPLE, OUTPUT_MULTIPLE),
        apply: manual,
    },
    Schedule {
        name: "root",
        min_output: (ROOT_VECTOR, 1),
        apply: root,
    },
];

/// Halide's schedule, reworked: the output in strips of 64 rows in parallel, 2 rows at a time
/// with c unrolled innermost; every stage up to curved computed once per strip (not per 2-row
/// step: a split of y that rounds up never slides, so per step each line buffer would
/// recompute its whole window); curved aligned to quads and unrolled over their parity, so
/// the demosaic's `x % 2` and `y % 2` selects fold away; unsharp_y per 2-row step; the tone
/// curve at root.
fn manual(p: &CameraPipeFuncs) {
    let (x, y, c) = (Var::new("x"), Var::new("y"), Var::new("c"));
    p.curve
        .compute_root()
        .vectorize_with_tail("i", 8, TailStrategy::RoundUp);
    p.sharpen_strength_x32.compute_root();
    // The output is exactly the rule's box from (0, 0) (as Halide's schedule bounds it).
    let (width, height) = output_extent_exprs(&p.input);
    p.output
        .bound(x, 0, width)
        .bound(y, 0, height)
        .bound(c, 0, 3)
        .reorder(["c", "x", "y"])
        .split_with_tail("y", "y", "yii", 2, TailStrategy::RoundUp)
        .split_with_tail("y", "yo", "yi", STRIP / 2, TailStrategy::GuardWithIf)
        .vectorize("x", OUTPUT_VECTOR)
        .unroll_loop("c")
        .parallel("yo");
    for f in [&p.shifted, &p.denoised, &p.g_r, &p.g_b] {
        f.compute_at(&p.output, "yo")
            .vectorize_with_tail("x", VECTOR, TailStrategy::RoundUp);
    }
    p.deinterleaved
        .compute_at(&p.output, "yo")
        .reorder(["c", "x", "y"])
        .vectorize_with_tail("x", VECTOR, TailStrategy::RoundUp)
        .unroll_loop("c");
    // Each vector holds one column parity (x = 2·(base + lane) + x_pair) and each unrolled
    // row one row parity: the interleaving selects fold, the half-resolution planes load
    // densely, and the two column parities' strided stores combine into one dense store.
    p.curved
        .compute_at(&p.output, "yo")
        .align_bounds(x, 2)
        .align_bounds(y, 2)
        .split_with_tail("x", "x", "x_pair", 2, TailStrategy::RoundUp)
        .split_with_tail("y", "y", "y_pair", 2, TailStrategy::RoundUp)
        .reorder(["x_pair", "c", "y_pair", "x", "y"])
        .vectorize_with_tail("x", VECTOR / 2, TailStrategy::RoundUp)
        .unroll_loop("x_pair")
        .unroll_loop("c")
        .unroll_loop("y_pair");
    p.unsharp_y
        .compute_at(&p.output, "yi")
        .reorder(["x", "c", "y"])
        .vectorize_with_tail("x", VECTOR, TailStrategy::RoundUp)
        .unroll_loop("c");
}

/// Every stage at root, parallel over its outermost dimension and vectorized over its
/// innermost at the natural width. The intermediate stages round their rows up to whole
/// vectors (every read of the input goes through the clamp, so computing past the end is
/// safe); the output shifts its last vector inwards.
fn root(p: &CameraPipeFuncs) {
    for function in pipeline_functions(&p.output) {
        let f = Func::from_function(function);
        let tail = if f.name() == p.output.name() {
            TailStrategy::Auto
        } else {
            TailStrategy::RoundUp
        };
        f.compute_root();
        schedule::parallel_vectorized_with_tail(&f, tail);
    }
}

/// The output extents `[W, H, 3]` for an input of `input_extents` (x, y):
/// W = ((W_in − 32)/32)·32 and H = ((H_in − 24)/32)·32; an error naming `input` and the rule
/// for an input smaller than 64 × 56 or not two-dimensional.
pub fn output_extents(input_extents: &[i64]) -> Result<Vec<i64>> {
    let &[w_in, h_in] = input_extents else {
        return Err(Error::Buffer(format!(
            "{APP} takes a two-dimensional raw mosaic `input`, but it has extents {input_extents:?}"
        )));
    };
    if w_in < MIN_INPUT.0 || h_in < MIN_INPUT.1 {
        return Err(Error::Buffer(format!(
            "{APP}'s `input` ({w_in} x {h_in}) is too small: it must be at least {} x {} (the output is ((W_in - 32)/32)*32 x ((H_in - 24)/32)*32, at least 32 x 32)",
            MIN_INPUT.0, MIN_INPUT.1
        )));
    }
    let whole = |e: i64, margin: i64| (e - margin) / OUTPUT_MULTIPLE * OUTPUT_MULTIPLE;
    Ok(vec![
        whole(w_in, 2 * RAW_OFFSET.0),
        whole(h_in, 2 * RAW_OFFSET.1),
        3,
    ])
}

/// The input extents of the default input for an output of `width × height`, each rounded
/// up to a multiple of 32 (the outputs the rule gives): the output plus 32 columns and 48
/// rows (2592 × 1968 for the default 2560 × 1920, as the app's raw test image).
pub fn input_extents(width: i64, height: i64) -> Vec<i64> {
    let whole = |e: i64| (e.max(1) + OUTPUT_MULTIPLE - 1) / OUTPUT_MULTIPLE * OUTPUT_MULTIPLE;
    vec![
        whole(width) + 2 * RAW_OFFSET.0,
        whole(height) + 4 * RAW_OFFSET.1,
    ]
}

/// The output size the benchmarks use.
pub const DEFAULT_SIZE: (i64, i64) = (2560, 1920);

/// One in this many raw pixels of the default input is a hot (or dead) pixel.
const HOT_PIXEL_ONE_IN: u64 = 997;

/// The deterministic raw mosaic for an output of `width × height`: the synthetic RGB test
/// image (smooth regions, edges and noise) sampled through the GRBG colour filter into
/// 10-bit values between the default black and white levels, with scattered hot and dead
/// pixels for the hot-pixel suppression to remove.
pub fn default_input(width: i64, height: i64) -> Result<Buffer<u16>> {
    let extents = input_extents(width, height);
    let rgb = synthetic::image(&[extents[0], extents[1], 3], synthetic::DEFAULT_SEED)?;
    let d = Parameters::default();
    let range = f64::from(d.white_level - d.black_level);
    Buffer::<u16>::try_from_fn(&[0, 0], &extents, |p| {
        let (x, y) = (p[0], p[1]);
        // GRBG: green on the diagonal of each quad, red right of it, blue below it.
        let colour = match (x % 2, y % 2) {
            (1, 0) => 0,
            (0, 1) => 2,
            _ => 1,
        };
        let linear = f64::from(rgb.get(&[x, y, colour]));
        let hash = (x as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (y as u64).wrapping_mul(31);
        match hash % HOT_PIXEL_ONE_IN {
            0 => MAX_RAW as u16,
            1 => 0,
            _ => (f64::from(d.black_level) + linear * range).round() as u16,
        }
    })
}

/// The tone curve's table, entry by entry as the spec computes it in f64.
fn curve_table(p: &Parameters) -> Vec<u8> {
    let inv_range = 1.0 / f64::from(p.white_level - p.black_level);
    let cb = 2.0 - 2.0f64.powf(f64::from(p.contrast) / 100.0);
    let ca = 2.0 - 2.0 * cb;
    (0..=MAX_RAW)
        .map(|i| {
            let xf = clamp_f64(f64::from(i - p.black_level) * inv_range, 0.0, 1.0);
            let g = xf.powf(1.0 / f64::from(p.gamma));
            let z = if g > 0.5 {
                1.0 - (ca * (1.0 - g) * (1.0 - g) + cb * (1.0 - g))
            } else {
                ca * g * g + cb * g
            };
            if i <= p.black_level {
                0
            } else if i > p.white_level {
                255
            } else {
                clamp_f64(z * 255.0 + 0.5, 0.0, 255.0) as u8
            }
        })
        .collect()
}

/// `clamp(x, lo, hi)` = `max(min(x, hi), lo)` with the pipeline's float min and max (a NaN
/// clamps to `lo`'s side as the compiled `x < hi ? x : hi` then `> lo` does).
fn clamp_f64(x: f64, lo: f64, hi: f64) -> f64 {
    let below_hi = if x < hi { x } else { hi };
    if below_hi > lo {
        below_hi
    } else {
        lo
    }
}

/// `avg` of the spec on int16.
fn avg_i16(a: i16, b: i16) -> i16 {
    (i32::from(a) + i32::from(b) + 1).div_euclid(2) as i16
}

/// `avg8` of the spec.
fn avg_u8(a: u8, b: u8) -> u8 {
    (u16::from(a) + u16::from(b)).div_ceil(2) as u8
}

/// A plane over `[x0, x1) × [y0, y1)` with values `f(x, y)`.
fn plane<T: Scalar>(
    (x0, x1): (i64, i64),
    (y0, y1): (i64, i64),
    mut f: impl FnMut(i64, i64) -> T,
) -> Buffer<T> {
    Buffer::from_fn(&[x0, y0], &[x1 - x0, y1 - y0], |p| f(p[0], p[1]))
}

/// The camera pipeline in plain Rust loops, in the spec's integer arithmetic, for an input
/// the extent rule accepts: the output over `W × H × 3` from the input's mins (output pixel
/// (x, y) on raw pixel (x + 16, y + 12), both in the input's coordinates). Each stage is
/// computed over the box the next reads, with a margin.
pub fn reference(input: &Buffer<u16>, p: &Parameters) -> Result<Buffer<u8>> {
    let out = output_extents(&input.extents())?;
    let (w, h) = (out[0], out[1]);
    let (mx, my) = (input.dim(0).min, input.dim(1).min);
    let (last_x, last_y) = (mx + input.width() - 1, my + input.height() - 1);
    // The output covers [mx, mx + w) × [my, my + h): the Bayer phase of a site is the parity
    // of its own coordinates. Each plane spans the output's box (halved for the quads) plus
    // a margin.
    let x_span = |margin: i64| (mx - margin, mx + w + margin);
    let y_span = |margin: i64| (my - margin, my + h + margin);
    let half = |(lo, hi): (i64, i64)| (lo.div_euclid(2), hi.div_euclid(2) + 1);
    let shifted = plane(x_span(12), y_span(12), |x, y| {
        let rx = (x + RAW_OFFSET.0).clamp(mx, last_x);
        let ry = (y + RAW_OFFSET.1).clamp(my, last_y);
        input.get(&[rx, ry]) as i16
    });
    let s = |x: i64, y: i64| shifted.get(&[x, y]);
    let denoised = plane(x_span(10), y_span(10), |x, y| {
        let most = s(x - 2, y)
            .max(s(x + 2, y))
            .max(s(x, y - 2).max(s(x, y + 2)));
        // clamp(v, lo, hi) = max(min(v, hi), lo), as the pipeline computes it.
        s(x, y).min(most).max(0)
    });
    let quads = |k: i64| {
        plane(half(x_span(8)), half(y_span(8)), |x, y| {
            denoised.get(&[2 * x + k % 2, 2 * y + k / 2])
        })
    };
    let (g_gr, r_r, b_b, g_gb) = (quads(0), quads(1), quads(2), quads(3));
    let at = |f: &Buffer<i16>, x: i64, y: i64| f.get(&[x, y]);
    let directional = |a1: i16, a2: i16, b1: i16, b2: i16| {
        if a1.abs_diff(a2) < b1.abs_diff(b2) {
            avg_i16(a1, a2)
        } else {
            avg_i16(b1, b2)
        }
    };
    let g_r = plane(half(x_span(6)), half(y_span(6)), |x, y| {
        directional(
            at(&g_gr, x + 1, y),
            at(&g_gr, x, y),
            at(&g_gb, x, y - 1),
            at(&g_gb, x, y),
        )
    });
    let g_b = plane(half(x_span(6)), half(y_span(6)), |x, y| {
        directional(
            at(&g_gb, x - 1, y),
            at(&g_gb, x, y),
            at(&g_gr, x, y + 1),
            at(&g_gr, x, y),
        )
    });
    // (g - avg(g1, g2)) + avg(c1, c2) in wrapping int16.
    let estimate = |g: i16, g1: i16, g2: i16, c1: i16, c2: i16| {
        g.wrapping_sub(avg_i16(g1, g2))
            .wrapping_add(avg_i16(c1, c2))
    };
    // The colour `c` (with its green estimate `gc`) at a site whose green is `green`,
    // interpolated from the quads at offsets `a` and `b`.
    let from = |green: i16,
                gc: &Buffer<i16>,
                c: &Buffer<i16>,
                x: i64,
                y: i64,
                a: (i64, i64),
                b: (i64, i64)| {
        estimate(
            green,
            at(gc, x + a.0, y + a.1),
            at(gc, x + b.0, y + b.1),
            at(c, x + a.0, y + a.1),
            at(c, x + b.0, y + b.1),
        )
    };
    // The colour `c` at a site of the other colour, from the diagonal pair of quads (offsets
    // `[pa, pb, na, nb]`: the positive diagonal, then the negative) along which `c` changes
    // less.
    let diagonal = |green: i16,
                    gc: &Buffer<i16>,
                    c: &Buffer<i16>,
                    x: i64,
                    y: i64,
                    [pa, pb, na, nb]: [(i64, i64); 4]| {
        let change = |a: (i64, i64), b: (i64, i64)| {
            at(c, x + a.0, y + a.1).abs_diff(at(c, x + b.0, y + b.1))
        };
        if change(pa, pb) < change(na, nb) {
            from(green, gc, c, x, y, pa, pb)
        } else {
            from(green, gc, c, x, y, na, nb)
        }
    };
    // Demosaicked colour `colour` (0 r, 1 g, 2 b) at site (x, y).
    let demosaic = |x: i64, y: i64, colour: usize| -> i16 {
        let (qx, qy) = (x.div_euclid(2), y.div_euclid(2));
        let site = (x.rem_euclid(2), y.rem_euclid(2));
        let gr = at(&g_gr, qx, qy);
        let gb = at(&g_gb, qx, qy);
        match (site, colour) {
            ((0, 0), 0) => from(gr, &g_r, &r_r, qx, qy, (0, 0), (-1, 0)),
            ((0, 0), 1) => gr,
            ((0, 0), _) => from(gr, &g_b, &b_b, qx, qy, (0, 0), (0, -1)),
            ((1, 0), 0) => at(&r_r, qx, qy),
            ((1, 0), 1) => at(&g_r, qx, qy),
            ((1, 0), _) => diagonal(
                at(&g_r, qx, qy),
                &g_b,
                &b_b,
                qx,
                qy,
                [(0, 0), (1, -1), (1, 0), (0, -1)],
            ),
            ((0, 1), 0) => diagonal(
                at(&g_b, qx, qy),
                &g_r,
                &r_r,
                qx,
                qy,
                [(0, 0), (-1, 1), (-1, 0), (0, 1)],
            ),
            ((0, 1), 1) => at(&g_b, qx, qy),
            ((0, 1), _) => at(&b_b, qx, qy),
            (_, 0) => from(gb, &g_r, &r_r, qx, qy, (0, 0), (0, 1)),
            (_, 1) => gb,
            (_, _) => from(gb, &g_b, &b_b, qx, qy, (0, 0), (1, 0)),
        }
    };
    let curve = curve_table(p);
    let curved: Vec<Buffer<u8>> = MATRIX
        .iter()
        .map(|m| {
            plane(x_span(1), y_span(1), |x, y| {
                let [r, g, b] = [0, 1, 2].map(|c| i32::from(demosaic(x, y, c)));
                let sum = m[3] + m[0] * r + m[1] * g + m[2] * b;
                let corrected = sum.div_euclid(256) as i16;
                curve[i32::from(corrected).clamp(0, MAX_RAW) as usize]
            })
        })
        .collect();
    let s32 = clamp_f32(p.sharpen_strength * 32.0, 0.0, 255.0) as u8;
    let mut output = Buffer::<u8>::with_mins(&[mx, my, 0], &[w, h, 3]);
    for (c, cv) in curved.iter().enumerate() {
        let v = |x: i64, y: i64| cv.get(&[x, y]);
        let unsharp_y = |x: i64, y: i64| avg_u8(avg_u8(v(x, y - 1), v(x, y + 1)), v(x, y));
        for y in my..my + h {
            for x in mx..mx + w {
                let unsharp = avg_u8(
                    avg_u8(unsharp_y(x - 1, y), unsharp_y(x + 1, y)),
                    unsharp_y(x, y),
                );
                let mask = i16::from(v(x, y)) - i16::from(unsharp);
                let sharpened = i16::from(v(x, y))
                    .wrapping_add(mask.wrapping_mul(i16::from(s32)).div_euclid(32));
                output.set(&[x, y, c as i64], sharpened.clamp(0, 255) as u8);
            }
        }
    }
    Ok(output)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    use tessera::pipeline::{Compiled, Inputs, Pipeline};
    use tessera::Target;

    /// A raw mosaic of `w × h` random values below `limit`, from a fixed seed.
    fn random_raw(w: i64, h: i64, limit: u32, seed: u64) -> Buffer<u16> {
        let mut rng = SmallRng::seed_from_u64(seed);
        Buffer::from_fn(&[0, 0], &[w, h], |_| rng.random_range(0..limit) as u16)
    }

    /// The pipeline's inputs: the mosaic and every parameter of `p`.
    fn inputs(f: &CameraPipeFuncs, raw: &Buffer<u16>, p: &Parameters) -> Inputs {
        Inputs::new()
            .image(&f.input, raw.clone())
            .param(f.gamma.bind(p.gamma))
            .param(f.contrast.bind(p.contrast))
            .param(f.sharpen_strength.bind(p.sharpen_strength))
            .param(f.black_level.bind(p.black_level))
            .param(f.white_level.bind(p.white_level))
    }

    /// The pipeline with schedule `schedule` applied.
    fn scheduled(schedule: &Schedule<CameraPipeFuncs>) -> CameraPipeFuncs {
        let f = funcs().expect("the algorithm builds");
        (schedule.apply)(&f);
        f
    }

    /// The output region for `raw`: its mins, and the extents of the rule.
    fn region(raw: &Buffer<u16>) -> (Vec<i64>, Vec<i64>) {
        let extents = output_extents(&raw.extents()).expect("a large enough input");
        (raw.mins().into_iter().chain([0]).collect(), extents)
    }

    /// The pipeline with schedule `schedule`, compiled, and its Funcs.
    fn compile(schedule: &Schedule<CameraPipeFuncs>) -> (CameraPipeFuncs, Compiled) {
        let f = scheduled(schedule);
        let compiled = Pipeline::new(&f.output)
            .compile_jit(&Target::host())
            .expect("compiles");
        (f, compiled)
    }

    fn jit(
        (f, compiled): &(CameraPipeFuncs, Compiled),
        raw: &Buffer<u16>,
        p: &Parameters,
    ) -> AnyBuffer {
        let (mins, extents) = region(raw);
        let mut out = compiled
            .realize(&inputs(f, raw, p), &mins, &extents)
            .expect("runs");
        out.swap_remove(0)
    }

    fn interp(schedule: &Schedule<CameraPipeFuncs>, raw: &Buffer<u16>) -> AnyBuffer {
        let f = scheduled(schedule);
        let (mins, extents) = region(raw);
        let p = Parameters::default();
        let mut run = Pipeline::new(&f.output)
            .realize_interp(&inputs(&f, raw, &p), &mins, &extents)
            .expect("runs");
        run.buffers.swap_remove(0)
    }

    fn assert_matches_reference(got: AnyBuffer, raw: &Buffer<u16>, p: &Parameters, what: &str) {
        let got: Buffer<u8> = got.try_into().expect("u8 output");
        let want = reference(raw, p).expect("the reference runs");
        assert_eq!(got.mins(), want.mins(), "{what}");
        assert_eq!(got.extents(), want.extents(), "{what}");
        if let Some((i, (g, w))) = got
            .data()
            .iter()
            .zip(want.data())
            .enumerate()
            .find(|(_, (g, w))| g != w)
        {
            let (width, height) = (want.width() as usize, want.height() as usize);
            let coord = [i % width, i / width % height, i / (width * height)];
            panic!("{what}: at {coord:?} the output is {g}, the reference says {w}");
        }
    }

    /// Inputs of odd sizes: the smallest (a 32 × 32 output), one a little wider and taller
    /// than a strip and a vector (a 96 × 96 output: one whole 64-row strip of `manual` and
    /// one guarded half strip), and full-range 16-bit values (negative as int16, so the
    /// int16 arithmetic wraps).
    fn test_inputs() -> Vec<(Buffer<u16>, &'static str)> {
        vec![
            (random_raw(67, 61, 1024, 0xca11), "67 x 61 10-bit noise"),
            (random_raw(133, 123, 1024, 0xca12), "133 x 123 10-bit noise"),
            (random_raw(99, 57, 65536, 0xca13), "99 x 57 16-bit noise"),
            (
                default_input(64, 64).expect("the default input"),
                "the default input",
            ),
        ]
    }

    #[test]
    fn every_schedule_compiled_matches_the_reference() {
        let p = Parameters::default();
        for schedule in SCHEDULES {
            let compiled = compile(schedule);
            for (raw, what) in test_inputs() {
                let what = format!("{} on {what}", schedule.name);
                assert_matches_reference(jit(&compiled, &raw, &p), &raw, &p, &what);
            }
        }
    }

    #[test]
    fn every_schedule_interpreted_matches_the_reference() {
        let p = Parameters::default();
        for schedule in SCHEDULES {
            let raw = random_raw(69, 59, 1024, 0xca14);
            let what = format!("{} interpreted", schedule.name);
            assert_matches_reference(interp(schedule, &raw), &raw, &p, &what);
        }
    }

    #[test]
    fn other_parameters_change_the_output_as_the_reference_does() {
        let p = Parameters {
            gamma: 1.7,
            contrast: 20.0,
            sharpen_strength: 2.5,
            black_level: 60,
            white_level: 900,
        };
        let raw = default_input(64, 32).expect("the default input");
        assert_ne!(
            reference(&raw, &p).ok(),
            reference(&raw, &Parameters::default()).ok()
        );
        for schedule in SCHEDULES {
            let compiled = compile(schedule);
            assert_matches_reference(jit(&compiled, &raw, &p), &raw, &p, schedule.name);
        }
    }

    #[test]
    fn the_evaluator_matches_the_reference() {
        let raw = random_raw(64, 56, 1024, 0xca15).translated(&[3, -2]);
        let f = funcs().expect("the algorithm builds");
        let p = Parameters::default();
        let mut evaluator = Evaluator::new().with_input(&f.input, raw.clone());
        for binding in inputs(&f, &raw, &p).params() {
            evaluator = evaluator.with_param(*binding);
        }
        let (mins, extents) = region(&raw);
        let mut out = evaluator
            .realize(&f.output, &mins, &extents)
            .expect("evaluates");
        assert_matches_reference(out.swap_remove(0), &raw, &p, "the evaluator");
    }

    #[test]
    fn extents_follow_the_rule_and_small_inputs_are_refused() {
        assert_eq!(output_extents(&[2592, 1968]), Ok(vec![2560, 1920, 3]));
        assert_eq!(output_extents(&[64, 56]), Ok(vec![32, 32, 3]));
        assert_eq!(output_extents(&[127, 87]), Ok(vec![64, 32, 3]));
        assert_eq!(input_extents(2560, 1920), vec![2592, 1968]);
        // Sizes that are not multiples of 32 round up to the next output the rule gives.
        assert_eq!(input_extents(48, 32), vec![96, 80]);
        assert_eq!(output_extents(&input_extents(48, 32)), Ok(vec![64, 32, 3]));
        for small in [[63, 56], [64, 55]] {
            let e = output_extents(&small).err().map(|e| e.to_string());
            let e = e.unwrap_or_default();
            assert!(
                e.contains("`input`") && e.contains("at least 64 x 56"),
                "{e}"
            );
        }
        assert!(output_extents(&[64, 56, 3]).is_err());
        let app = crate::find(APP).expect("camera_pipe is an app");
        let e = app
            .check_inputs(&[Buffer::<u16>::new(&[63, 56]).into()])
            .err();
        let e = e.map(|e| e.to_string()).unwrap_or_default();
        assert!(
            e.contains("input `input` of app camera_pipe does not fit: the raw mosaic must be at least 64 x 56"),
            "{e}"
        );
        assert!(reference(&Buffer::new(&[60, 60]), &Parameters::default()).is_err());
    }

    #[test]
    fn the_tone_curve_spans_black_to_white() {
        let table = curve_table(&Parameters::default());
        assert_eq!((table[0], table[25], table[1023]), (0, 0, 255));
        assert!(table.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn params_are_declared_with_their_defaults() {
        let p = Parameters::from_bindings(&[]).expect("defaults");
        assert_eq!(p, Parameters::default());
        let f = funcs().expect("the algorithm builds");
        let names: Vec<String> = PARAMS.iter().map(|s| s.name.to_string()).collect();
        let declared = [
            f.gamma.name(),
            f.contrast.name(),
            f.sharpen_strength.name(),
            f.black_level.name(),
            f.white_level.name(),
        ];
        let declared: Vec<String> = declared.iter().map(|n| n.as_str().to_string()).collect();
        assert_eq!(names, declared);
    }

    #[test]
    fn the_pipeline_has_33_stages_besides_the_boundary_condition() {
        let f = funcs().expect("the algorithm builds");
        assert_eq!(pipeline_functions(&f.output).len(), 34);
    }
}
