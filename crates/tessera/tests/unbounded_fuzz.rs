//! Random pipelines that access a stored Func at a coordinate taken, unclamped, from a value
//! of an image: a gather `out(x, y) = h(i32(index(x, y)), y)` (or the same in y) or a scatter
//! `hist(i32(index(r.x, r.y)), r.y) += 1`, where `index` is the image itself or a pointwise
//! Func of it, inlined or computed at root.
//!
//! An i32 value bounds nothing, so no storage can hold what the access needs: lowering must
//! refuse the pipeline with a schedule error naming the stored Func and telling to clamp the
//! coordinate. A u8 or u16 value is bounded by its type, so the pipeline must lower, and its
//! interpreter runs and checked native code must match the evaluator (`try_check_on`, at `fuzz_target`).
//!
//! The stored Func is computed at root or in the output's row loop (storage there or at
//! root), sometimes vectorized or parallel; the output is sometimes vectorized (a gather of
//! vector lanes). `TESSERA_SEED` sets the first case's seed (case `i` uses seed + i) and
//! `TESSERA_FUZZ_CASES` the number of cases.

mod lower_common;

use std::fmt::Write as _;

use lower_common::{fuzz_seeds, fuzz_target, try_check_on, TestInputs};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tessera::lower::LowerOptions;
use tessera::pipeline::Pipeline;
use tessera::prelude::*;

const DEFAULT_SEED: u64 = 20_251_125;
const DEFAULT_CASES: u64 = 40;

/// How a case ended when it did not fail.
#[derive(Debug, PartialEq)]
enum Outcome {
    /// An i32 coordinate: lowering refused it, naming the Func and asking for a clamp.
    Refused,
    /// A u8 or u16 coordinate: every run matched the evaluator.
    Checked,
}

/// An image of `ty` over `[mins, mins + extents)`, values over the whole range of the type.
fn random_index_image(rng: &mut SmallRng, ty: Type, mins: &[i64], extents: &[i64]) -> AnyBuffer {
    if ty == Type::u8() {
        Buffer::<u8>::from_fn(mins, extents, |_| rng.random()).into()
    } else if ty == Type::u16() {
        Buffer::<u16>::from_fn(mins, extents, |_| rng.random()).into()
    } else {
        Buffer::<i32>::from_fn(mins, extents, |_| rng.random()).into()
    }
}

/// Builds case `seed`, lowers it and checks what it must do; the error describes the case.
fn run_case(seed: u64) -> Result<Outcome, String> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut log = String::new();
    // u16 coordinates make the stored Func 65536 wide: rarer, they cost the most.
    let ty = match rng.random_range(0..5) {
        0 | 1 => Type::i32(),
        2 | 3 => Type::u8(),
        _ => Type::u16(),
    };
    let image = ImageParam::new(ty, 2, "idx");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (dx, dy) = (rng.random_range(-1..=1), rng.random_range(-1..=1));
    let _ = writeln!(log, "idx: {ty}");

    // The index at (cx, cy): the image, or a Func of it in its own type (so a u8 or u16
    // value stays bounded by its type, and an i32 one stays unbounded).
    let index_func = rng.random_bool(0.5).then(|| {
        let d = Func::new("index");
        let k = rng.random_range(1..=9);
        let value = image.at((x + dx, y + dy)) + cast(ty, Expr::from(k));
        let _ = writeln!(log, "index(x, y) = {value}");
        d.define((x, y), value).expect("a valid definition");
        if rng.random_bool(0.5) {
            d.compute_root();
            let _ = writeln!(log, "index: compute_root");
        }
        d
    });
    let index_at = |cx: Expr, cy: Expr| -> Expr {
        let read = match &index_func {
            Some(d) => d.at((cx, cy)),
            None => image.at((cx + dx, cy + dy)),
        };
        cast_to::<i32>(read)
    };

    let out = Func::new("out");
    let scatter = rng.random_bool(0.3);
    let stored = if scatter {
        let hist = Func::new("hist");
        hist.define((x, y), 0).expect("a valid definition");
        let (w, h) = (rng.random_range(1..=6), rng.random_range(1..=3));
        let r = RDom::new([(0, w), (0, h)]);
        let bin = index_at(r.x().expr(), r.y().expr());
        let count = hist.at((bin.clone(), r.y().expr())) + 1;
        let _ = writeln!(
            log,
            "hist(x, y) = 0; hist({bin}, {}) += 1 over [0, {w}) x [0, {h})",
            r.y().name()
        );
        hist.update((bin, r.y().expr()), count)
            .expect("a valid update");
        out.define((x, y), hist.at((x, y)) * 2)
            .expect("a valid definition");
        hist
    } else {
        let h = Func::new("h");
        let (a, b) = (rng.random_range(1..=5), rng.random_range(-3..=3));
        h.define((x, y), x * a + y * b).expect("a valid definition");
        let read = if rng.random_bool(0.5) {
            h.at((index_at(x.expr(), y.expr()), y.expr()))
        } else {
            h.at((x.expr(), index_at(x.expr(), y.expr())))
        };
        let value = read + 1;
        let _ = writeln!(log, "h(x, y) = x * {a} + y * {b}; out(x, y) = {value}");
        out.define((x, y), value).expect("a valid definition");
        if rng.random_bool(0.3) {
            let width = rng.random_range(2..=8);
            h.vectorize(x, width);
            let _ = writeln!(log, "h.vectorize(x, {width})");
        }
        h
    };
    if rng.random_bool(0.5) {
        stored.compute_root();
        let _ = writeln!(log, "{}: compute_root", stored.name());
    } else {
        stored.compute_at(&out, y);
        let _ = writeln!(log, "{}: compute_at(out, y)", stored.name());
        if rng.random_bool(0.3) {
            stored.store_root();
            let _ = writeln!(log, "{}: store_root", stored.name());
        }
    }
    if rng.random_bool(0.3) {
        stored.parallel(y);
        let _ = writeln!(log, "{}.parallel(y)", stored.name());
    }
    // Output widths of 4 and more, so a vector of 4 never shifts outside the output.
    let mins = [rng.random_range(-3..=3), rng.random_range(-3..=3)];
    let extents = [rng.random_range(4..=8), rng.random_range(1..=4)];
    if rng.random_bool(0.4) {
        out.vectorize(x, 4);
        let _ = writeln!(log, "out.vectorize(x, 4)");
    }
    let _ = writeln!(log, "output box: mins {mins:?}, extents {extents:?}");
    let describe = |e: &str| {
        format!("case seed {seed} (re-run alone with TESSERA_SEED={seed} TESSERA_FUZZ_CASES=1)\n{log}{e}")
    };

    if ty == Type::i32() {
        return match Pipeline::new(&out).lower(&LowerOptions::default()) {
            Err(Error::Schedule(e))
                if e.message.contains(stored.name().as_str()) && e.message.contains("clamp") =>
            {
                Ok(Outcome::Refused)
            }
            Err(other) => Err(describe(&format!(
                "expected a schedule error naming {} and asking for a clamp, got: {other}",
                stored.name()
            ))),
            Ok(lowered) => Err(describe(&format!(
                "an unbounded i32 coordinate was lowered:\n{}",
                lowered.stmt
            ))),
        };
    }
    // The index is read around the output box and the scatter's RDom (at [0, 6) x [0, 3)).
    let index_mins = [-8, -8];
    let index_extents = [24, 24];
    let buffer = random_index_image(&mut rng, ty, &index_mins, &index_extents);
    let inputs = TestInputs::new().image(&image, buffer);
    try_check_on(&out, &inputs, &mins, &extents, &fuzz_target(seed))
        .map(|_| Outcome::Checked)
        .map_err(|e| describe(&e))
}

#[test]
fn unclamped_data_dependent_coordinates_are_refused_when_unbounded_and_run_when_bounded() {
    let (seed, cases) = fuzz_seeds("unbounded fuzz", DEFAULT_SEED, DEFAULT_CASES);
    let mut failures = Vec::new();
    let (mut refused, mut checked) = (0, 0);
    for case_seed in (0..cases).map(|i| seed.wrapping_add(i)) {
        match run_case(case_seed) {
            Ok(Outcome::Refused) => refused += 1,
            Ok(Outcome::Checked) => checked += 1,
            Err(e) => failures.push((case_seed, e)),
        }
    }
    eprintln!(
        "unbounded fuzz: {cases} cases, {refused} refused (i32), {checked} checked (u8, u16), {} failed",
        failures.len()
    );
    if let Some((_, first)) = failures.first() {
        let seeds: Vec<u64> = failures.iter().map(|(seed, _)| *seed).collect();
        panic!(
            "{} of {cases} cases failed, seeds {seeds:?}; the first:\n{first}",
            failures.len()
        );
    }
}
