//! histeq — histogram equalization (5 stages: a histogram reduction over the whole input, a
//! cumulative scan, a minimum reduction, a lookup table and a data-dependent gather), the
//! example of the Halide paper §2. Every integer stage is int32; u8 input and output.
//!
//! ```text
//! N = W * H
//! hist(i) = 0;       hist(i32(input(r.x, r.y))) += 1     for r over the whole input
//! cdf(i) = hist(i);  cdf(s) = cdf(s-1) + cdf(s)          for s = 1..=255, in order
//! cmin() = N;        cmin() = min(cmin(), select(hist(b) > 0, cdf(b), N))   for b = 0..=255
//! scale = f32(255) / f32(max(N - cmin(), 1))
//! lut(i) = u8(clamp(round(f32(cdf(i) - cmin()) * scale), 0.0, 255.0))   // half to even
//! output(x, y) = lut(i32(input(x, y)))
//! ```
//!
//! Schedules: `manual` (the histogram factored with rfactor into partial histograms per
//! strip of rows and x lane, strips in parallel, summed in vectors; cdf, cmin and lut computed
//! at root, the CDF's update a serial scan; the output parallel over rows, 64 pixels a
//! vector: on AVX-512 VBMI its gather from the 256-byte table is four in-register permutes,
//! with AVX2 sixteen byte shuffles per 32 pixels), `root`, and `inline` (lut inlined; the
//! Funcs with updates — hist, cdf, cmin — computed at root).

use tessera::lang::param::ParamBinding;
use tessera::prelude::*;

use crate::app::{AppDefinition, AppPipeline};
use crate::description::{AppDescription, InputSpec, Shape, TYPICAL_EVAL_BYTES};
use crate::schedule::{self, AppFuncs, Schedule};
use crate::synthetic;

pub struct Histeq;

/// The Funcs of the histeq pipeline.
pub struct HisteqFuncs {
    pub input: ImageParam,
    pub hist: Func,
    pub cdf: Func,
    pub cmin: Func,
    pub lut: Func,
    pub output: Func,
}

impl AppFuncs for HisteqFuncs {
    fn pipeline(&self) -> AppPipeline {
        AppPipeline {
            output: self.output.clone(),
            inputs: vec![self.input.clone()],
        }
    }
}

/// The algorithm. `n` is the pixel count; `cmin` the CDF at the darkest occupied bin.
pub fn funcs() -> Result<HisteqFuncs> {
    let input = ImageParam::new(Type::u8(), 2, "input");
    let (x, y, i) = (Var::new("x"), Var::new("y"), Var::new("i"));
    let n = input.width() * input.height();

    let hist = Func::new("hist");
    let r = RDom::named(
        "r",
        [
            (input.min(0), input.width()),
            (input.min(1), input.height()),
        ],
    );
    let bin = cast_to::<i32>(input.at((r.x(), r.y())));
    hist.define(i, 0)?;
    hist.update(bin.clone(), hist.at(bin) + 1)?;

    let cdf = Func::new("cdf");
    let s = RDom::named("s", [(1, 255)]);
    cdf.define(i, hist.at(i))?;
    cdf.update(s.x(), cdf.at(s.x() - 1) + cdf.at(s.x()))?;

    let cmin = Func::new("cmin");
    let b = RDom::named("b", [(0, 256)]);
    cmin.define((), n.clone())?;
    cmin.update(
        (),
        min(
            cmin.at(()),
            select(hist.at(b.x()).gt(0), cdf.at(b.x()), n.clone()),
        ),
    )?;

    let scale = 255.0f32 / cast_to::<f32>(max(n - cmin.at(()), 1));
    let lut = Func::new("lut");
    let equalized = round(cast_to::<f32>(cdf.at(i) - cmin.at(())) * scale);
    lut.define(i, cast_to::<u8>(clamp(equalized, 0.0f32, 255.0f32)))?;

    let output = Func::new("output");
    output.define((x, y), lut.at(cast_to::<i32>(input.at((x, y)))))?;
    Ok(HisteqFuncs {
        input,
        hist,
        cdf,
        cmin,
        lut,
        output,
    })
}

/// u8 lanes in a 256-bit vector: the output's vector width in `root`.
const OUTPUT_VECTOR: i32 = 32;
/// u8 lanes in a 512-bit vector: the output's vector width in `manual`, one permute's worth.
const LOOKUP_VECTOR: i32 = 64;

const SCHEDULES: &[Schedule<HisteqFuncs>] = &[
    Schedule {
        name: "manual",
        min_output: (LOOKUP_VECTOR as i64, 1),
        apply: manual,
    },
    Schedule {
        name: "root",
        min_output: (OUTPUT_VECTOR as i64, 1),
        apply: schedule::root,
    },
    Schedule {
        name: "inline",
        min_output: (1, 1),
        apply: schedule::inline,
    },
];

/// The 256-entry tables at root, their pure definitions in 8-lane (i32 and f32) vectors; the
/// histogram factored into parallel partial histograms (below), the CDF's scan serial. The
/// output, a gather from the lookup table, runs rows in parallel, 64 pixels a vector (the
/// table sits in registers and the gather is byte permutes with AVX-512 VBMI, byte shuffles
/// with AVX2; Halide's schedule gathers scalar bytes instead).
fn manual(p: &HisteqFuncs) {
    // The histogram is factored (rfactor) into partial histograms, one per strip of 32 rows
    // and per x modulo 4 (so runs of equal pixels do not serialize on one counter; the four
    // lanes unrolled), the strips built in parallel, then summed bin-vector by bin-vector.
    // The split of x need not divide the width: loop partitioning leaves the guard of the
    // points past the end to the last iteration of each row.
    let (strip, lane) = (Var::new("strip"), Var::new("lane"));
    p.hist
        .update_stage(0)
        .split("r.x", "rxo", "rxi", 4)
        .split("r.y", "ryo", "ryi", 32);
    let partial = p
        .hist
        .update_stage(0)
        .rfactor(&[("ryo".into(), strip), ("rxi".into(), lane)])
        .expect("internal error: histeq's histogram is an integer sum");
    partial.compute_root().vectorize("i", 8).parallel(strip);
    partial
        .update_stage(0)
        .reorder((lane, "rxo", "ryi", strip))
        .unroll_loop(lane)
        .parallel(strip);
    p.hist.compute_root().vectorize("i", 8);
    p.hist
        .update_stage(0)
        .reorder(["i", "ryo", "rxi"])
        .vectorize("i", 8);
    p.cdf.compute_root().vectorize("i", 8);
    p.cmin.compute_root();
    p.lut.compute_root().vectorize("i", 8);
    p.output.parallel("y").vectorize("x", LOOKUP_VECTOR);
}

/// Histogram equalization in plain Rust loops, with the pipeline's int32 wrapping arithmetic
/// and f32 rounding (half to even).
pub fn reference(input: &Buffer<u8>) -> Buffer<u8> {
    let n = (input.width() as i32).wrapping_mul(input.height() as i32);
    let mut hist = [0i32; 256];
    input.for_each_coord(|c| {
        let bin = usize::from(input.get(c));
        hist[bin] = hist[bin].wrapping_add(1);
    });
    let mut cdf = hist;
    for s in 1..256 {
        cdf[s] = cdf[s - 1].wrapping_add(cdf[s]);
    }
    let mut cmin = n;
    for b in 0..256 {
        cmin = cmin.min(if hist[b] > 0 { cdf[b] } else { n });
    }
    let scale = 255.0f32 / (n.wrapping_sub(cmin).max(1) as f32);
    let lut: Vec<u8> = cdf
        .iter()
        .map(|&c| {
            let equalized = (c.wrapping_sub(cmin) as f32 * scale).round_ties_even();
            equalized.clamp(0.0, 255.0) as u8
        })
        .collect();
    Buffer::from_fn(&input.mins(), &input.extents(), |c| {
        lut[usize::from(input.get(c))]
    })
}

/// histeq as `tessera apps` lists it.
pub const DESCRIPTION: AppDescription = AppDescription {
    name: "histeq",
    summary: "histogram equalization, u8",
    inputs: &[InputSpec {
        name: "input",
        ty: Type::u8(),
        shape: Shape::Plane,
        description: "u8 grayscale, W × H",
    }],
    rules: &[],
    output: Shape::Plane,
    params: &[],
    default_size: (4096, 4096),
    eval_bytes_per_pixel: TYPICAL_EVAL_BYTES,
};

impl AppDefinition for Histeq {
    type Funcs = HisteqFuncs;
    fn description(&self) -> &AppDescription {
        &DESCRIPTION
    }
    fn funcs(&self) -> Result<HisteqFuncs> {
        funcs()
    }
    fn schedules(&self) -> &[Schedule<HisteqFuncs>] {
        SCHEDULES
    }
    /// A low-contrast image (values 40..=160), which equalization visibly stretches.
    fn default_inputs(&self, width: i64, height: i64) -> Result<Vec<AnyBuffer>> {
        let extents = &AppDefinition::input_extents(self, width, height)[0];
        let input = synthetic::default_image_as(extents, |v| (40.0 + v * 120.0).round() as u8)?;
        Ok(vec![input])
    }
    fn reference(&self, inputs: &[AnyBuffer], _params: &[ParamBinding]) -> Result<AnyBuffer> {
        let input: Buffer<u8> = inputs[0].clone().try_into()?;
        Ok(reference(&input).into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn equalize(values: &[u8]) -> Vec<u8> {
        let input = Buffer::from_fn(&[0, 0], &[values.len() as i64, 1], |c| {
            values[c[0] as usize]
        });
        reference(&input).data().to_vec()
    }

    #[test]
    fn reference_by_hand() {
        // cdf(10) = 2 = cmin, cdf(20) = 3, cdf(30) = 4; scale = 255 / 2.
        assert_eq!(equalize(&[10, 10, 20, 30]), vec![0, 0, 128, 255]);
        // N - cmin = 6, so scale = 42.5 and lut(6) = round(42.5) = 42 (half to even).
        assert_eq!(
            equalize(&[5, 6, 7, 7, 7, 7, 7]),
            vec![0, 42, 255, 255, 255, 255, 255]
        );
        // A constant image: N - cmin = 0 is clamped to 1, every pixel maps to 0.
        assert_eq!(equalize(&[9, 9, 9]), vec![0, 0, 0]);
    }

    #[test]
    fn default_input_has_low_contrast() {
        let inputs = Histeq.default_inputs(40, 30).expect("the default input");
        let [AnyBuffer::U8(input)] = inputs.as_slice() else {
            panic!("histeq's one input is u8");
        };
        assert_eq!(input.extents(), vec![40, 30]);
        assert!(input.data().iter().all(|&v| (40..=160).contains(&v)));
    }
}
