//! The vector width each materialized Func is computed at: its natural vector (one register
//! of its widest type) or two registers' worth per step of its innermost loop
//! (`FuncInfo::vectors`). Two registers per step halve the loop's own instructions and give
//! the core two independent dependency chains to interleave; they cost the lanes wasted in a
//! row's last, partial step, which the cost model charges (`plan::predict` rounds rows up to
//! whole steps), and registers.
//!
//! Measured on an AVX2 host at 2 threads (BENCHMARKS.md, "Two-register vectors"): harris's,
//! unsharp's and stencil_chain's plans ran faster with every Func at 16 f32 / 32 u16 lanes
//! (a first comparison, on a loaded machine); camera_pipe's `curved`, already unrolled by
//! parity and channels, ran slower doubled (its output and `unsharp_y` faster), and histeq's
//! output, a gather from a table, twice as long. So a Func already computing several vectors
//! per step (`FuncInfo::parity`, `FuncInfo::channels`) keeps its natural width: its steps
//! have independent chains already, and doubling each doubles its live registers; so does a
//! Func working lane by lane (gathers, libm calls: camera_pipe's plan with its tone curve
//! widened among others ran 1.13 of the time in alternating rounds). No vector grows past
//! `WIDEST_VECTOR_BITS`: on AVX-512 the natural vector is that wide already, and the expert
//! schedules, tuned there, vectorize at one register.

use super::model::Term;
use super::plan::round_up;
use super::problem::{FuncInfo, Problem};

/// The widest vector a step computes, in bits: two AVX2 registers, one AVX-512 register.
const WIDEST_VECTOR_BITS: u32 = 512;

/// The most natural vectors one step computes.
const MOST_VECTORS: i64 = 2;

/// The lanes one step of `f`'s innermost vector loop computes over a row of `extent` points:
/// its chosen width, or its natural width where the row is narrower than that.
pub fn step_lanes(f: &FuncInfo, extent: i64) -> i64 {
    let wide = f.lanes * f.vectors;
    if extent >= wide {
        wide
    } else {
        f.lanes
    }
}

/// Chooses every materialized Func's `vectors` (1 for all without the `wide_vectors`
/// ingredient): the width whose rows, rounded up to whole steps, cost least with the
/// per-step cost, among the widths `f` may take (`widths_allowed`).
pub(super) fn choose_widths(problem: &mut Problem) {
    for i in 0..problem.funcs.len() {
        let f = &problem.funcs[i];
        let allowed = if problem.ingredients.wide_vectors && !problem.inlined[i] {
            widths_allowed(f, problem.machine.vector_bits)
        } else {
            1
        };
        let point_ns = problem.model.time(&f.point);
        let step_ns = problem.model.coefficient(Term::VectorStep);
        let extent = f.region.first().map_or(1, |s| s.extent().max(1));
        let row_ns = |vectors: i64| {
            let lanes = f.lanes * vectors;
            let points = round_up(extent, lanes);
            points as f64 * point_ns + (points / lanes) as f64 * step_ns
        };
        let vectors = (1..=allowed)
            .filter(|v| extent >= f.lanes * v)
            .min_by(|&a, &b| row_ns(a).total_cmp(&row_ns(b)))
            .unwrap_or(1);
        problem.funcs[i].vectors = vectors;
    }
}

/// The most natural vectors per step `f` may compute on vectors of `vector_bits`: one for a
/// Func with updates (its loops are `reductions`'), computing several vectors per step
/// already (unrolled residues or channels), or working lane by lane (gathers, transcendental
/// calls: no vector chain to interleave, and a gather through a table held in one register
/// is split: histeq's lookup ran twice as long at 64 u8 lanes on AVX2); else as many as fit
/// in `WIDEST_VECTOR_BITS`, at most `MOST_VECTORS`.
fn widths_allowed(f: &FuncInfo, vector_bits: u32) -> i64 {
    let unrolled = f.parity.iter().any(|&(_, k)| k > 1) || f.channels.is_some();
    let by_lane = f.point.get(Term::Gather) > 0.0 || f.point.get(Term::Transcendental) > 0.0;
    if f.has_updates || unrolled || by_lane {
        1
    } else {
        i64::from(WIDEST_VECTOR_BITS / vector_bits.max(1)).clamp(1, MOST_VECTORS)
    }
}
