//! blur — the separable 3×3 box blur of the Halide paper (2 stages), in uint16 arithmetic:
//!
//! ```text
//! blur_x(x, y) = (input(x, y) + input(x+1, y) + input(x+2, y)) / 3
//! blur_y(x, y) = (blur_x(x, y) + blur_x(x, y+1) + blur_x(x, y+2)) / 3      (the output)
//! ```
//!
//! A W × H output reads a (W+2) × (H+2) input, so there is no boundary condition. Sums wrap
//! in u16; test inputs use 12-bit values, where they cannot.
//!
//! Schedules: `manual` (Halide's best: parallel strips of 32 rows, a sliding window within
//! each), `root`, `inline`, and the five strategies of the Halide paper: `breadth_first`,
//! `full_fusion`, `sliding_window`, `tiled` (32 × 32 tiles), `sliding_tiles` (strips of 8
//! rows). Every stage is vectorized over x, 16 lanes, and parallel where the strategy allows.

use tessera::lang::param::ParamBinding;
use tessera::prelude::*;

use crate::app::{AppDefinition, AppPipeline};
use crate::description::{AppDescription, InputSpec, Shape, TYPICAL_EVAL_BYTES};
use crate::schedule::{self, parallel_vectorized, AppFuncs, Schedule};
use crate::synthetic;

pub struct Blur;

/// The Funcs of the blur pipeline.
pub struct BlurFuncs {
    pub input: ImageParam,
    pub blur_x: Func,
    pub blur_y: Func,
}

impl AppFuncs for BlurFuncs {
    fn pipeline(&self) -> AppPipeline {
        AppPipeline {
            output: self.blur_y.clone(),
            inputs: vec![self.input.clone()],
        }
    }
}

/// The algorithm: `blur_x` averages three columns, `blur_y` three rows of `blur_x`.
pub fn funcs() -> Result<BlurFuncs> {
    let input = ImageParam::new(Type::u16(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let blur_x = Func::new("blur_x");
    let blur_y = Func::new("blur_y");
    blur_x.define(
        (x, y),
        (input.at((x, y)) + input.at((x + 1, y)) + input.at((x + 2, y))) / 3,
    )?;
    blur_y.define(
        (x, y),
        (blur_x.at((x, y)) + blur_x.at((x, y + 1)) + blur_x.at((x, y + 2))) / 3,
    )?;
    Ok(BlurFuncs {
        input,
        blur_x,
        blur_y,
    })
}

/// u16 lanes in a 512-bit (AVX-512) vector: the schedules written here use it.
const VECTOR: i32 = 32;
/// The width `root` and `full_fusion` vectorize with (`schedule::parallel_vectorized`).
const ROOT_VECTOR: i32 = schedule::natural_vector_width(Type::u16());
/// The rows of a strip in `manual` and in `sliding_tiles`.
const MANUAL_STRIP: i32 = 32;
const SLIDING_TILES_STRIP: i32 = 8;
/// The side of blur_y's square tiles in `tiled`.
const TILE: i32 = 32;

/// The schedules: `manual`, `root`, `inline`, then the five strategies of the Halide paper
/// (§3.1, Fig. 3), each with the same thread and vector parallelism where it allows them.
const SCHEDULES: &[Schedule<BlurFuncs>] = &[
    Schedule {
        name: "manual",
        min_output: (VECTOR as i64, MANUAL_STRIP as i64),
        apply: manual,
    },
    Schedule {
        name: "root",
        min_output: (ROOT_VECTOR as i64, 1),
        apply: schedule::root,
    },
    Schedule {
        name: "inline",
        min_output: (1, 1),
        apply: schedule::inline,
    },
    // With two stages, breadth-first is exactly `root`: blur_x computed at root.
    Schedule {
        name: "breadth_first",
        min_output: (ROOT_VECTOR as i64, 1),
        apply: schedule::root,
    },
    Schedule {
        name: "full_fusion",
        min_output: (ROOT_VECTOR as i64, 1),
        apply: full_fusion,
    },
    Schedule {
        name: "sliding_window",
        min_output: (VECTOR as i64, 1),
        apply: sliding_window,
    },
    Schedule {
        name: "tiled",
        min_output: (TILE as i64, TILE as i64),
        apply: tiled,
    },
    Schedule {
        name: "sliding_tiles",
        min_output: (VECTOR as i64, SLIDING_TILES_STRIP as i64),
        apply: sliding_tiles,
    },
];

/// Halide's best: strips of 32 rows in parallel, each a sliding window over its rows; the
/// output, larger than the caches, written past them.
fn manual(p: &BlurFuncs) {
    sliding_window_in_strips(p, MANUAL_STRIP);
    p.blur_y.store_nontemporal();
}

/// blur_x inlined into blur_y: each output recomputes the three blur_x values it reads.
fn full_fusion(p: &BlurFuncs) {
    p.blur_x.compute_inline();
    parallel_vectorized(&p.blur_y);
}

/// blur_x stored for the whole image but computed one row at a time as blur_y's y loop needs
/// it, so each row is computed once; the y loop must stay serial, and storage folds to the few
/// rows alive at once.
fn sliding_window(p: &BlurFuncs) {
    p.blur_y.vectorize("x", VECTOR);
    p.blur_x
        .store_root()
        .compute_at(&p.blur_y, "y")
        .vectorize("x", VECTOR);
}

/// blur_y in parallel rows of 32 × 32 tiles; blur_x computed per tile, with its two-row halo.
fn tiled(p: &BlurFuncs) {
    p.blur_y
        .tile("x", "y", "xo", "yo", "xi", "yi", TILE, TILE)
        .vectorize("xi", VECTOR)
        .parallel("yo");
    p.blur_x.compute_at(&p.blur_y, "xo").vectorize("x", VECTOR);
}

/// Strips of 8 rows in parallel, each a sliding window over its rows.
fn sliding_tiles(p: &BlurFuncs) {
    sliding_window_in_strips(p, SLIDING_TILES_STRIP);
}

/// blur_y split into parallel strips of `rows` rows; blur_x stored per strip and computed per
/// row, so within a strip each row is computed once (two rows are recomputed per strip).
fn sliding_window_in_strips(p: &BlurFuncs, rows: i32) {
    p.blur_y
        .split("y", "y", "yi", rows)
        .parallel("y")
        .vectorize("x", VECTOR);
    p.blur_x
        .store_at(&p.blur_y, "y")
        .compute_at(&p.blur_y, "yi")
        .vectorize("x", VECTOR);
}

/// The blur in plain Rust loops: a `(W-2) × (H-2)` output at the input's mins, every sum
/// wrapping in u16 as the pipeline's arithmetic does.
pub fn reference(input: &Buffer<u16>) -> Buffer<u16> {
    let (x0, y0) = (input.dim(0).min, input.dim(1).min);
    let (w, h) = ((input.width() - 2).max(0), (input.height() - 2).max(0));
    let at = |x: i64, y: i64| input.get(&[x0 + x, y0 + y]);
    let blur_x = |x: i64, y: i64| {
        at(x, y)
            .wrapping_add(at(x + 1, y))
            .wrapping_add(at(x + 2, y))
            / 3
    };
    let mut out = Buffer::with_mins(&[x0, y0], &[w, h]);
    for y in 0..h {
        for x in 0..w {
            let sum = blur_x(x, y)
                .wrapping_add(blur_x(x, y + 1))
                .wrapping_add(blur_x(x, y + 2));
            out.set(&[x0 + x, y0 + y], sum / 3);
        }
    }
    out
}

/// blur as `tessera apps` lists it.
pub const DESCRIPTION: AppDescription = AppDescription {
    name: "blur",
    summary: "the separable 3×3 box blur, in u16",
    inputs: &[InputSpec {
        name: "input",
        ty: Type::u16(),
        shape: Shape::Plane,
        description: "u16 grayscale, (W+2) × (H+2) for a W × H output",
    }],
    rules: &[],
    output: Shape::Plane,
    params: &[],
    default_size: (6400, 4800),
    eval_bytes_per_pixel: TYPICAL_EVAL_BYTES,
};

impl AppDefinition for Blur {
    type Funcs = BlurFuncs;
    fn description(&self) -> &AppDescription {
        &DESCRIPTION
    }
    fn funcs(&self) -> Result<BlurFuncs> {
        funcs()
    }
    fn schedules(&self) -> &[Schedule<BlurFuncs>] {
        SCHEDULES
    }
    fn input_extents(&self, width: i64, height: i64) -> Vec<Vec<i64>> {
        vec![vec![width + 2, height + 2]]
    }
    fn output_extents(&self, input_extents: &[Vec<i64>]) -> Option<Vec<i64>> {
        let out: Vec<i64> = input_extents.first()?.iter().map(|e| e - 2).collect();
        out.iter().all(|&e| e >= 0).then_some(out)
    }
    /// 12-bit values, as the spec's test inputs, so the u16 sums do not wrap.
    fn default_inputs(&self, width: i64, height: i64) -> Result<Vec<AnyBuffer>> {
        let extents = &AppDefinition::input_extents(self, width, height)[0];
        let input = synthetic::default_image_as(extents, |v| (v * 4095.0).round() as u16)?;
        Ok(vec![input])
    }
    fn reference(&self, inputs: &[AnyBuffer], _params: &[ParamBinding]) -> Result<AnyBuffer> {
        let input: Buffer<u16> = inputs[0].clone().try_into()?;
        Ok(reference(&input).into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_by_hand() {
        // Rows 0 1 2 / 3 4 5 / 6 7 8: blur_x is 1, 4, 7 and blur_y (1 + 4 + 7) / 3 = 4.
        let input = Buffer::from_fn(&[0, 0], &[3, 3], |c| (3 * c[1] + c[0]) as u16);
        let out = reference(&input);
        assert_eq!((out.extents(), out.get(&[0, 0])), (vec![1, 1], 4));
    }

    #[test]
    fn default_input_is_twelve_bit_and_sized_for_the_output() {
        let inputs = Blur.default_inputs(30, 20).expect("the default input");
        let [AnyBuffer::U16(input)] = inputs.as_slice() else {
            panic!("blur's one input is u16");
        };
        assert_eq!(input.extents(), vec![32, 22]);
        assert!(input.data().iter().all(|&v| v < 4096));
        assert!(input.data().iter().any(|&v| v > 3000) && input.data().iter().any(|&v| v < 1000));
    }
}
