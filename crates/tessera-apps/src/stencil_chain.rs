//! stencil_chain — 32 chained 5×5 stencils in uint16 arithmetic (Halide's stencil_chain app,
//! 33 stages; the specification is `../shared/apps/stencil_chain.md`):
//!
//! ```text
//! stage[0] = repeat_edge(input)
//! stage[s](x, y) = Σ_{i=-2..2} Σ_{j=-2..2} u16((i + 3) * (j + 7)) * stage[s-1](x + i, y + j)   s = 1..32
//! output = stage[32]
//! ```
//!
//! Every product and sum wraps modulo 2^16 (no normalisation: the weights sum to 525), so the
//! values are pseudo-random but exact. Only the input is clamped; every stage is defined on
//! the whole plane. The output covers the input (W × H).
//!
//! Schedules: `manual` and `root` (every stage at root, parallel rows, natural-width vectors).
//! `manual` computes the stencils in groups of 4: each group's last at root in parallel strips
//! of 64 rows, the three before it recomputed per strip with overlapping halos (compute_at the
//! strip, no store_at), u16 vectors of 32 lanes. The app is ALU-bound (25 multiply-adds per
//! pixel per stage); a group's strip (about 1536 × 76 u16, 230 KB, per stage) stays in the L2
//! cache where a whole stage (7.9 MB) only fits the L3. On this machine (2 shared cores, 1
//! thread, medians of alternating rounds, very noisy) it took 38–76 ms; Halide's schedule
//! (every stage at root in strips of 32 rows, 32 lanes, fastest in Halide) took 55–112 ms in
//! Tessera and 70–115 ms in Halide 21; `root` took 44–96 ms, groups of 2 or 8 stages 46–48 ms
//! where groups of 4 took 39–42 ms.

use tessera::lang::schedule::TailStrategy;
use tessera::prelude::*;

use tessera::lang::param::ParamBinding;

use crate::app::{AppDefinition, AppPipeline};
use crate::description::{AppDescription, InputSpec, Shape, TYPICAL_EVAL_BYTES};
use crate::schedule::{self, AppFuncs, Schedule};
use crate::synthetic;

/// The number of stencils, fixed when the pipeline is built.
pub const STAGES: usize = 32;
/// Each stencil reads `RADIUS` pixels either side in x and in y.
pub const RADIUS: i32 = 2;
/// The output size the benchmarks use, `(W, H)`.
pub const DEFAULT_SIZE: (i64, i64) = (1536, 2560);

/// The stencil's weight at x offset `i` and y offset `j`: `(i + 3)(j + 7)`, 5 to 45.
pub const fn weight(i: i32, j: i32) -> u16 {
    ((i + 3) * (j + 7)) as u16
}

/// The Funcs of the stencil chain: `stages[0]` is the clamped input, `stages[STAGES]` the
/// output.
pub struct StencilChainFuncs {
    pub input: ImageParam,
    pub stages: Vec<Func>,
}

impl StencilChainFuncs {
    /// The last stage, which the pipeline outputs.
    pub fn output(&self) -> &Func {
        self.stages
            .last()
            .expect("internal error: the chain has its clamped input")
    }
}

/// The algorithm, with `STAGES` stencils.
pub fn funcs() -> Result<StencilChainFuncs> {
    funcs_with_stages(STAGES)
}

/// The algorithm with `stages` stencils (tests run shorter chains on the interpreter).
pub fn funcs_with_stages(stages: usize) -> Result<StencilChainFuncs> {
    let input = ImageParam::new(Type::u16(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let mut chain = vec![repeat_edge(&input)];
    for s in 1..=stages {
        let previous = &chain[s - 1];
        let taps = (-RADIUS..=RADIUS)
            .flat_map(|i| (-RADIUS..=RADIUS).map(move |j| (i, j)))
            .map(|(i, j)| i32::from(weight(i, j)) * previous.at((x + i, y + j)));
        let sum = taps
            .reduce(|sum, term| sum + term)
            .expect("internal error: the stencil has taps");
        let stage = Func::new(&format!("stage_{s}"));
        stage.define((x, y), sum)?;
        chain.push(stage);
    }
    Ok(StencilChainFuncs {
        input,
        stages: chain,
    })
}

/// u16 lanes per vector in `manual`: one 512-bit register, as in Halide's schedule.
const VECTOR: i32 = 32;
/// Stencils `manual` computes together per parallel strip.
const GROUP: usize = 4;
/// Output rows per parallel strip of each group in `manual` (measured at 1 thread with early
/// frees: 64 rows 5% slower than 128, 256 no faster).
const STRIP: i32 = 128;
/// The u16 lanes `root` vectorizes with (`schedule::parallel_vectorized`'s natural width).
const ROOT_VECTOR: i64 = crate::schedule::natural_vector_width(Type::u16()) as i64;

pub const SCHEDULES: &[Schedule<StencilChainFuncs>] = &[
    Schedule {
        name: "manual",
        min_output: (VECTOR as i64, 1),
        apply: manual,
    },
    Schedule {
        name: "root",
        min_output: (ROOT_VECTOR, 1),
        apply: schedule::root,
    },
];

/// The stencils in groups of `GROUP`, counted back from the output: each group's last stencil
/// computed at root in parallel strips of `STRIP` rows (the last strip guarded, so any height
/// fits), the others recomputed per strip over the strip and its halo, all vectorized
/// `VECTOR` lanes wide; the clamp of the input is inlined into the first stencil.
pub fn manual(p: &StencilChainFuncs) {
    for group in p.stages[1..].rchunks(GROUP) {
        let (last, earlier) = group
            .split_last()
            .expect("internal error: chunks are not empty");
        last.compute_root()
            .split_with_tail("y", "yo", "yi", STRIP, TailStrategy::GuardWithIf)
            .parallel("yo")
            .vectorize("x", VECTOR);
        for stage in earlier {
            stage.compute_at(last, "yo").vectorize("x", VECTOR);
        }
    }
}

pub const DESCRIPTION: AppDescription = AppDescription {
    name: "stencil_chain",
    summary: "32 chained 5×5 stencils in wrapping u16 arithmetic",
    inputs: &[InputSpec {
        name: "input",
        ty: Type::u16(),
        shape: Shape::Plane,
        description: "u16, W × H",
    }],
    rules: &[],
    output: Shape::Plane,
    params: &[],
    default_size: DEFAULT_SIZE,
    eval_bytes_per_pixel: TYPICAL_EVAL_BYTES,
};

pub struct StencilChain;

impl AppFuncs for StencilChainFuncs {
    fn pipeline(&self) -> AppPipeline {
        AppPipeline {
            output: self.output().clone(),
            inputs: vec![self.input.clone()],
        }
    }
}

impl AppDefinition for StencilChain {
    type Funcs = StencilChainFuncs;
    fn description(&self) -> &AppDescription {
        &DESCRIPTION
    }
    fn funcs(&self) -> Result<StencilChainFuncs> {
        funcs()
    }
    fn schedules(&self) -> &[Schedule<StencilChainFuncs>] {
        SCHEDULES
    }
    fn default_inputs(&self, width: i64, height: i64) -> Result<Vec<AnyBuffer>> {
        Ok(vec![default_inputs(width, height)?.into()])
    }
    fn reference(&self, inputs: &[AnyBuffer], _params: &[ParamBinding]) -> Result<AnyBuffer> {
        let input: Buffer<u16> = inputs[0].clone().try_into()?;
        Ok(reference(&input)?.into())
    }
}

/// The input extents for a `width × height` output: the same.
pub fn input_extents(width: i64, height: i64) -> [i64; 2] {
    [width, height]
}

/// The output extents for an input of `input_extents`: the same.
pub fn output_extents(input_extents: [i64; 2]) -> [i64; 2] {
    input_extents
}

/// The default input for a `width × height` output: the synthetic image scaled to the full u16
/// range.
pub fn default_inputs(width: i64, height: i64) -> Result<Buffer<u16>> {
    let extents = input_extents(width, height);
    let image = synthetic::image(&extents, synthetic::DEFAULT_SEED)?;
    Buffer::try_from_fn(&[0, 0], &extents, |c| {
        (image.get(c) * 65535.0).round() as u16
    })
}

/// The stencil chain in plain Rust loops (`reference_with_stages` with `STAGES` stencils).
pub fn reference(input: &Buffer<u16>) -> Result<Buffer<u16>> {
    reference_with_stages(input, STAGES)
}

/// A chain of `stages` stencils in plain Rust loops, as the spec's grid formulation: the input
/// (any mins) padded by `stages * RADIUS` on every side with its edge values, then `stages`
/// 'valid' 5×5 correlations, each shrinking the grid by `RADIUS` per side, in wrapping u16
/// arithmetic.
pub fn reference_with_stages(input: &Buffer<u16>, stages: usize) -> Result<Buffer<u16>> {
    let (mins, extents) = (input.mins(), input.extents());
    if extents.contains(&0) {
        return Buffer::try_with_mins(&mins, &extents);
    }
    let pad = stages as i64 * i64::from(RADIUS);
    let clamp = |v: i64, d: usize| v.clamp(mins[d], mins[d] + extents[d] - 1);
    let mut grid = Buffer::try_from_fn(
        &[mins[0] - pad, mins[1] - pad],
        &[extents[0] + 2 * pad, extents[1] + 2 * pad],
        |c| input.get(&[clamp(c[0], 0), clamp(c[1], 1)]),
    )?;
    let r = i64::from(RADIUS);
    for _ in 0..stages {
        let (gm, ge) = (grid.mins(), grid.extents());
        let previous = &grid;
        grid = Buffer::try_from_fn(
            &[gm[0] + r, gm[1] + r],
            &[ge[0] - 2 * r, ge[1] - 2 * r],
            |c| {
                let mut sum = 0u16;
                for i in -RADIUS..=RADIUS {
                    for j in -RADIUS..=RADIUS {
                        let v = previous.get(&[c[0] + i64::from(i), c[1] + i64::from(j)]);
                        sum = sum.wrapping_add(weight(i, j).wrapping_mul(v));
                    }
                }
                sum
            },
        )?;
    }
    Ok(grid)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    use tessera::pipeline::{Inputs, Pipeline};
    use tessera::Target;

    /// A `w × h` input of uniformly random u16 values at mins `(3, -2)`, from a fixed seed.
    fn random_input(w: i64, h: i64, seed: u64) -> Buffer<u16> {
        let mut rng = SmallRng::seed_from_u64(seed);
        Buffer::from_fn(&[3, -2], &[w, h], |_| rng.random())
    }

    #[test]
    fn weights_match_the_spec_table() {
        assert_eq!(
            [
                weight(-2, -2),
                weight(2, -2),
                weight(0, 0),
                weight(-2, 2),
                weight(2, 2)
            ],
            [5, 25, 21, 9, 45]
        );
        let total: u32 = (-2..=2)
            .flat_map(|i| (-2..=2).map(move |j| u32::from(weight(i, j))))
            .sum();
        assert_eq!(total, 525);
    }

    #[test]
    fn reference_of_a_constant_image_is_525_to_the_32nd_mod_65536() {
        let flat = Buffer::from_fn(&[0, 0], &[3, 2], |_| 1u16);
        let expected = (0..STAGES).fold(1u16, |v, _| v.wrapping_mul(525));
        let out = reference(&flat).expect("the reference runs");
        assert!(out.data().iter().all(|&v| v == expected), "{out:?}");
    }

    /// Stencils in the chains the interpreter and the checked JIT run: enough for stages
    /// computed from stages (the full chain takes seconds to interpret).
    const SHORT_CHAIN: usize = 3;
    /// 45 × 37 and 67 × 71: neither a multiple of a vector nor of a strip, both within one
    /// strip of `manual` (`manual_over_several_strips_matches_the_reference` covers more).
    const SIZES: [(i64, i64); 2] = [(45, 37), (67, 71)];

    /// `stages` stencils with schedule `s`, and the inputs bound for `input`.
    fn scheduled(s: &Schedule<StencilChainFuncs>, stages: usize) -> (Pipeline, StencilChainFuncs) {
        let p = funcs_with_stages(stages).expect("the algorithm builds");
        (s.apply)(&p);
        (Pipeline::new(p.output()), p)
    }

    #[test]
    fn every_schedule_of_the_full_chain_matches_the_reference_natively() {
        for s in SCHEDULES {
            let (pipeline, p) = scheduled(s, STAGES);
            let native = pipeline.compile_jit(&Target::host()).expect("compiles");
            for (k, &(w, h)) in SIZES.iter().enumerate() {
                assert!(w >= s.min_output.0 && h >= s.min_output.1);
                let input = random_input(w, h, 0x5c + k as u64);
                let inputs = Inputs::new().image(&p.input, input.clone());
                let got = native
                    .realize(&inputs, &input.mins(), &input.extents())
                    .expect("runs");
                let want: AnyBuffer = reference(&input).expect("reference").into();
                assert_eq!(got[0], want, "schedule {}, {w} x {h}", s.name);
            }
        }
    }

    #[test]
    fn every_schedule_of_a_short_chain_matches_checked_and_interpreted() {
        let checked = Target::host().with_bounds_checks(true);
        for s in SCHEDULES {
            let (pipeline, p) = scheduled(s, SHORT_CHAIN);
            let compiled = pipeline.compile_jit(&checked).expect("compiles checked");
            for (k, &(w, h)) in SIZES.iter().enumerate() {
                let input = random_input(w, h, 0x6c + k as u64);
                let want: AnyBuffer = reference_with_stages(&input, SHORT_CHAIN)
                    .expect("reference")
                    .into();
                let inputs = Inputs::new().image(&p.input, input.clone());
                let (mins, extents) = (input.mins(), input.extents());
                let context = format!("schedule {}, {w} x {h}", s.name);
                let got = compiled.realize(&inputs, &mins, &extents).expect(&context);
                assert_eq!(got[0], want, "{context} (checked JIT)");
                let interp = pipeline
                    .realize_interp(&inputs, &mins, &extents)
                    .expect(&context);
                assert_eq!(interp.buffers[0], want, "{context} (interpreter)");
            }
        }
    }

    /// Two groups of `manual` (a whole one and a single stencil before it) over two whole
    /// strips and a guarded partial one: every strip computes its halo afresh and the last
    /// stops at the output's edge.
    #[test]
    fn manual_over_several_strips_matches_the_reference() {
        let stages = GROUP + 1;
        let (pipeline, p) = scheduled(&SCHEDULES[0], stages);
        let compiled = pipeline
            .compile_jit(&Target::host().with_bounds_checks(true))
            .expect("compiles checked");
        let input = random_input(45, 2 * i64::from(STRIP) + 29, 0x7c);
        let inputs = Inputs::new().image(&p.input, input.clone());
        let got = compiled
            .realize(&inputs, &input.mins(), &input.extents())
            .expect("runs");
        let want: AnyBuffer = reference_with_stages(&input, stages)
            .expect("reference")
            .into();
        assert_eq!(got[0], want);
    }

    #[test]
    fn manual_refuses_an_output_narrower_than_its_vector() {
        let (pipeline, p) = scheduled(&SCHEDULES[0], SHORT_CHAIN);
        let compiled = pipeline.compile_jit(&Target::host()).expect("compiles");
        let input = random_input(31, 5, 1);
        let inputs = Inputs::new().image(&p.input, input.clone());
        let ran = compiled.realize_into(
            &inputs,
            &mut [Buffer::<u16>::with_mins(&input.mins(), &[31, 5]).into()],
        );
        assert!(ran.is_err(), "a 31-wide output fits 32-lane vectors");
    }

    #[test]
    fn the_evaluator_agrees_on_a_small_crop() {
        let input = random_input(7, 5, 9);
        let p = funcs().expect("the algorithm builds");
        let got = Evaluator::new()
            .with_input(&p.input, input.clone())
            .realize(p.output(), &input.mins(), &input.extents())
            .expect("evaluates");
        assert_eq!(got[0], reference(&input).expect("reference").into());
    }

    #[test]
    fn default_input_is_sized_and_spans_the_range() {
        assert_eq!(output_extents(input_extents(30, 20)), [30, 20]);
        let input = default_inputs(30, 20).expect("the default input");
        assert_eq!(input.extents(), vec![30, 20]);
        assert!(input.data().iter().any(|&v| v > 40000) && input.data().iter().any(|&v| v < 20000));
    }
}
