//! harris — the Harris corner response (11 stages) of a float32 grayscale image: Sobel-like
//! gradients, their products summed over 3 × 3 windows, and `det - 0.04 · trace²` of the
//! resulting structure tensor.
//!
//! ```text
//! g = repeat_edge(input)
//! Iy(x, y) = g(x-1,y-1)*(-1/12) + g(x-1,y+1)*(1/12) + g(x,y-1)*(-2/12) + g(x,y+1)*(2/12)
//!          + g(x+1,y-1)*(-1/12) + g(x+1,y+1)*(1/12)                      // summed left to right
//! Ix(x, y) = g(x-1,y-1)*(-1/12) + g(x+1,y-1)*(1/12) + g(x-1,y)*(-2/12) + g(x+1,y)*(2/12)
//!          + g(x-1,y+1)*(-1/12) + g(x+1,y+1)*(1/12)
//! Ixx = Ix*Ix;  Iyy = Iy*Iy;  Ixy = Ix*Iy                                  // pointwise
//! Sxx(x, y) = Σ_{dy=-1..1} Σ_{dx=-1..1} Ixx(x+dx, y+dy)   (dy outer, dx inner; same for Syy, Sxy)
//! det = Sxx*Syy - Sxy*Sxy;  trace = Sxx + Syy
//! output(x, y) = det - 0.04 * trace * trace
//! ```
//!
//! All constants are f32 (−1/12 is f32(−1.0/12)); the output covers the input (W × H).
//!
//! Schedules: `manual` (Halide's: parallel strips of 32 rows, Ix and Iy a sliding window over
//! each strip's rows computed in one fused loop, everything else inlined; 32-lane vectors),
//! `root` and `inline`.

use tessera::lang::param::ParamBinding;
use tessera::prelude::*;

use crate::app::{AppDefinition, AppPipeline};
use crate::description::{AppDescription, InputSpec, Shape, TYPICAL_EVAL_BYTES};
use crate::schedule::{self, AppFuncs, Schedule};

pub struct Harris;

/// One term of a gradient: the input at offset `(dx, dy)` times `twelfths / 12`.
#[derive(Clone, Copy, Debug)]
pub struct Tap {
    pub dx: i32,
    pub dy: i32,
    pub twelfths: f64,
}

const fn tap(dx: i32, dy: i32, twelfths: f64) -> Tap {
    Tap { dx, dy, twelfths }
}

/// The vertical gradient's terms, in the order they are summed.
pub const IY_TAPS: [Tap; 6] = [
    tap(-1, -1, -1.0),
    tap(-1, 1, 1.0),
    tap(0, -1, -2.0),
    tap(0, 1, 2.0),
    tap(1, -1, -1.0),
    tap(1, 1, 1.0),
];

/// The horizontal gradient's terms, in the order they are summed.
pub const IX_TAPS: [Tap; 6] = [
    tap(-1, -1, -1.0),
    tap(1, -1, 1.0),
    tap(-1, 0, -2.0),
    tap(1, 0, 2.0),
    tap(-1, 1, -1.0),
    tap(1, 1, 1.0),
];

impl Tap {
    /// The f32 weight, `f32(twelfths / 12)`.
    pub fn weight(self) -> f32 {
        (self.twelfths / 12.0) as f32
    }
}

/// The weight of the squared trace in the response.
pub const TRACE_WEIGHT: f32 = 0.04;

/// The Funcs of the harris pipeline.
pub struct HarrisFuncs {
    pub input: ImageParam,
    pub g: Func,
    pub iy: Func,
    pub ix: Func,
    pub ixx: Func,
    pub iyy: Func,
    pub ixy: Func,
    pub sxx: Func,
    pub syy: Func,
    pub sxy: Func,
    pub det: Func,
    pub trace: Func,
    pub output: Func,
}

impl AppFuncs for HarrisFuncs {
    fn pipeline(&self) -> AppPipeline {
        AppPipeline {
            output: self.output.clone(),
            inputs: vec![self.input.clone()],
        }
    }
}

/// Sums `terms` left to right.
fn sum_in_order(terms: impl IntoIterator<Item = Expr>) -> Expr {
    terms
        .into_iter()
        .reduce(|sum, term| sum + term)
        .expect("internal error: a sum of no terms")
}

/// The 3 × 3 window offsets, dy outer and dx inner.
fn window() -> impl Iterator<Item = (i32, i32)> {
    (-1..=1).flat_map(|dy| (-1..=1).map(move |dx| (dx, dy)))
}

/// The algorithm.
pub fn funcs() -> Result<HarrisFuncs> {
    let input = ImageParam::new(Type::f32(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let g = repeat_edge(&input);
    let gradient = |name: &str, taps: &[Tap]| -> Result<Func> {
        let f = Func::new(name);
        let terms = taps.iter().map(|t| g.at((x + t.dx, y + t.dy)) * t.weight());
        f.define((x, y), sum_in_order(terms))?;
        Ok(f)
    };
    let iy = gradient("Iy", &IY_TAPS)?;
    let ix = gradient("Ix", &IX_TAPS)?;
    let product = |name: &str, a: &Func, b: &Func| -> Result<Func> {
        let f = Func::new(name);
        f.define((x, y), a.at((x, y)) * b.at((x, y)))?;
        Ok(f)
    };
    let ixx = product("Ixx", &ix, &ix)?;
    let iyy = product("Iyy", &iy, &iy)?;
    let ixy = product("Ixy", &ix, &iy)?;
    let window_sum = |name: &str, f: &Func| -> Result<Func> {
        let s = Func::new(name);
        s.define(
            (x, y),
            sum_in_order(window().map(|(dx, dy)| f.at((x + dx, y + dy)))),
        )?;
        Ok(s)
    };
    let sxx = window_sum("Sxx", &ixx)?;
    let syy = window_sum("Syy", &iyy)?;
    let sxy = window_sum("Sxy", &ixy)?;
    let at = |f: &Func| f.at((x, y));
    let det = Func::new("det");
    det.define((x, y), at(&sxx) * at(&syy) - at(&sxy) * at(&sxy))?;
    let trace = Func::new("trace");
    trace.define((x, y), at(&sxx) + at(&syy))?;
    let output = Func::new("output");
    output.define((x, y), at(&det) - TRACE_WEIGHT * at(&trace) * at(&trace))?;
    Ok(HarrisFuncs {
        input,
        g,
        iy,
        ix,
        ixx,
        iyy,
        ixy,
        sxx,
        syy,
        sxy,
        det,
        trace,
        output,
    })
}

/// f32 lanes per vector, as in Halide's schedule: two 512-bit registers (0.93 of the time of
/// 16 lanes on an AVX-512 host at 1 and 2 threads, 2026-11-30).
const VECTOR: i32 = 32;
/// Rows per parallel strip in the manual schedule.
const STRIP: i32 = 32;

/// The f32 lanes of the `root` schedule's vectors (the natural width).
const ROOT_VECTOR: i64 = 8;

const SCHEDULES: &[Schedule<HarrisFuncs>] = &[
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

/// Halide's schedule: strips of 32 rows in parallel; within a strip, Ix and Iy are stored for
/// the strip and computed one row at a time as the output's rows need them (a sliding
/// window: each gradient row is computed once per strip), both in one loop over x
/// (`compute_with`), which loads the input pixels they share once; everything else is
/// inlined. The output, larger than the caches, is written past them.
pub fn manual(p: &HarrisFuncs) {
    p.output
        .store_nontemporal()
        .split("y", "yo", "yi", STRIP)
        .parallel("yo")
        .vectorize("x", VECTOR);
    for gradient in [&p.ix, &p.iy] {
        gradient
            .store_at(&p.output, "yo")
            .compute_at(&p.output, "yi")
            .vectorize("x", VECTOR);
    }
    p.ix.compute_with(&p.iy, "x");
}

/// The Harris response in plain Rust loops over a `W × H` f32 image (any mins), in the spec's
/// order of f32 operations.
pub fn reference(input: &Buffer<f32>) -> Buffer<f32> {
    let (mins, extents) = (input.mins(), input.extents());
    let g = |x: i64, y: i64| {
        let clamp = |v: i64, d: usize| v.clamp(mins[d], mins[d] + extents[d] - 1);
        input.get(&[clamp(x, 0), clamp(y, 1)])
    };
    // The gradients over the input's box widened by one pixel on every side.
    let gradient = |taps: &[Tap; 6]| {
        Buffer::from_fn(
            &[mins[0] - 1, mins[1] - 1],
            &[extents[0] + 2, extents[1] + 2],
            |p| {
                let term = |t: &Tap| g(p[0] + i64::from(t.dx), p[1] + i64::from(t.dy)) * t.weight();
                taps[1..]
                    .iter()
                    .fold(term(&taps[0]), |sum, t| sum + term(t))
            },
        )
    };
    let (ix, iy) = (gradient(&IX_TAPS), gradient(&IY_TAPS));
    let window_sum = |x: i64, y: i64, product: &dyn Fn(i64, i64) -> f32| {
        let mut terms = window().map(|(dx, dy)| product(x + i64::from(dx), y + i64::from(dy)));
        let first = terms.next().expect("internal error: the window has points");
        terms.fold(first, |sum, term| sum + term)
    };
    Buffer::from_fn(&mins, &extents, |p| {
        let (x, y) = (p[0], p[1]);
        let sxx = window_sum(x, y, &|u, v| ix.get(&[u, v]) * ix.get(&[u, v]));
        let syy = window_sum(x, y, &|u, v| iy.get(&[u, v]) * iy.get(&[u, v]));
        let sxy = window_sum(x, y, &|u, v| ix.get(&[u, v]) * iy.get(&[u, v]));
        let det = sxx * syy - sxy * sxy;
        let trace = sxx + syy;
        det - TRACE_WEIGHT * trace * trace
    })
}

/// harris as `tessera apps` lists it.
pub const DESCRIPTION: AppDescription = AppDescription {
    name: "harris",
    summary: "Harris corner response, f32",
    inputs: &[InputSpec {
        name: "input",
        ty: Type::f32(),
        shape: Shape::Plane,
        description: "f32 grayscale, W × H",
    }],
    rules: &[],
    output: Shape::Plane,
    params: &[],
    default_size: (6400, 6400),
    eval_bytes_per_pixel: TYPICAL_EVAL_BYTES,
};

impl AppDefinition for Harris {
    type Funcs = HarrisFuncs;
    fn description(&self) -> &AppDescription {
        &DESCRIPTION
    }
    fn funcs(&self) -> Result<HarrisFuncs> {
        funcs()
    }
    fn schedules(&self) -> &[Schedule<HarrisFuncs>] {
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
    fn gradients_are_antisymmetric_sobel_filters() {
        for taps in [IX_TAPS, IY_TAPS] {
            let total: f64 = taps.iter().map(|t| t.twelfths.abs()).sum();
            assert_eq!(total, 8.0);
            assert!(taps.iter().all(|t| taps
                .iter()
                .any(|u| (u.dx, u.dy, u.twelfths) == (-t.dx, -t.dy, -t.twelfths))));
        }
        assert_eq!(IY_TAPS[2].weight(), (-2.0f64 / 12.0) as f32);
    }

    #[test]
    fn reference_by_hand() {
        // A constant image has no gradient, so no response.
        let flat = Buffer::from_fn(&[0, 0], &[6, 5], |_| 0.7f32);
        assert!(reference(&flat).data().iter().all(|&v| v == 0.0));
        // A horizontal ramp v = x / 4 has Ix = 4/12 · (v(x+1) - v(x-1)) = 1/6 and Iy = 0
        // inside: Sxx = 9/36, Syy = Sxy = 0, det = 0, and the response is -0.04 · (1/4)²
        // (negative along an edge, as Harris responses are).
        let ramp = Buffer::from_fn(&[0, 0], &[8, 8], |c| c[0] as f32 / 4.0);
        let v = reference(&ramp).get(&[4, 4]);
        assert!((v - -0.04 / 16.0).abs() < 1e-7, "{v}");
    }
}
