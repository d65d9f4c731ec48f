//! Lowering scales with pipeline depth: every Func's region is a let written in terms of its
//! consumers' region names, so the lowered IR of a chain of vectorized stencils (and of
//! harris computed at root) grows linearly with the number of stages instead of
//! geometrically. The sizes are checked on the printed IR (not by timing), and the pipelines
//! still match the evaluator.

mod lower_common;

use lower_common::{check, seeded_rng, TestInputs};
use rand::Rng;
use tessera::lower::LowerOptions;
use tessera::pipeline::Pipeline;
use tessera::prelude::*;

/// `f_0(x) = x`, `f_i(x) = f_{i-1}(x - 1) + f_{i-1}(x + 1)`, each computed at root and
/// vectorized by 8 (split with ShiftInwards, whose region expressions used to multiply).
fn vectorized_chain(n: usize) -> Func {
    let x = Var::new("x");
    let mut f = Func::new("f0");
    f.define([x], x.expr()).unwrap();
    f.compute_root().vectorize(x, 8);
    for i in 1..=n {
        let g = Func::new(&format!("f{i}"));
        g.define([x], f.at([x - 1]) + f.at([x + 1])).unwrap();
        g.compute_root().vectorize(x, 8);
        f = g;
    }
    f
}

/// The lengths of the printed IR after bounds inference and at the end of lowering.
fn ir_lengths(output: &Func) -> (usize, usize) {
    let lowered = Pipeline::new(output)
        .lower(&LowerOptions {
            record_ir: true,
            ..LowerOptions::default()
        })
        .unwrap_or_else(|e| panic!("lowering {} failed: {e}", output.name()));
    let bounds = lowered
        .ir_after("bounds_inference")
        .expect("the IR of every pass is recorded");
    (bounds.to_string().len(), lowered.stmt.to_string().len())
}

#[test]
fn a_deep_vectorized_chain_lowers_to_ir_linear_in_its_depth() {
    let (bounds_10, final_10) = ir_lengths(&vectorized_chain(10));
    let (bounds_20, final_20) = ir_lengths(&vectorized_chain(20));
    // About 1 200 (bounds) and 4 000 (final, each stage's allocation nesting the rest and
    // freed after its consumer) characters per stage; a geometric growth would exceed these
    // bounds by orders of magnitude.
    for (n, len) in [(10, bounds_10), (20, bounds_20)] {
        assert!(len < 2_500 * (n + 1), "{n} stages: {len} characters");
    }
    for (n, len) in [(10, final_10), (20, final_20)] {
        assert!(len < 4_500 * (n + 1), "{n} stages: {len} characters");
    }
    assert!(
        final_20 < 3 * final_10,
        "10 more stages grew the IR from {final_10} to {final_20} characters"
    );
    // And it computes the right thing, tails included.
    check(&vectorized_chain(6), &TestInputs::new(), &[-3], &[21]);
}

/// The harris corner response (as in tessera-apps): gradients of the edge-clamped input,
/// their products summed over 3 × 3 windows, `det - 0.04 · trace²`.
fn harris(input: &ImageParam) -> (Func, Vec<Func>) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let g = repeat_edge(input);
    let gradient = |name: &str, taps: [(i32, i32, f32); 6]| {
        let f = Func::new(name);
        let value = taps
            .iter()
            .map(|&(dx, dy, w)| g.at((x + dx, y + dy)) * (w / 12.0))
            .reduce(|a, b| a + b)
            .expect("six taps");
        f.define((x, y), value).unwrap();
        f
    };
    let iy = gradient(
        "Iy",
        [
            (-1, -1, -1.0),
            (-1, 1, 1.0),
            (0, -1, -2.0),
            (0, 1, 2.0),
            (1, -1, -1.0),
            (1, 1, 1.0),
        ],
    );
    let ix = gradient(
        "Ix",
        [
            (-1, -1, -1.0),
            (1, -1, 1.0),
            (-1, 0, -2.0),
            (1, 0, 2.0),
            (-1, 1, -1.0),
            (1, 1, 1.0),
        ],
    );
    let product = |name: &str, a: &Func, b: &Func| {
        let f = Func::new(name);
        f.define((x, y), a.at((x, y)) * b.at((x, y))).unwrap();
        f
    };
    let (ixx, iyy, ixy) = (
        product("Ixx", &ix, &ix),
        product("Iyy", &iy, &iy),
        product("Ixy", &ix, &iy),
    );
    let window_sum = |name: &str, f: &Func| {
        let s = Func::new(name);
        let value = (-1..=1)
            .flat_map(|dy| (-1..=1).map(move |dx| (dx, dy)))
            .map(|(dx, dy)| f.at((x + dx, y + dy)))
            .reduce(|a, b| a + b)
            .expect("nine taps");
        s.define((x, y), value).unwrap();
        s
    };
    let (sxx, syy, sxy) = (
        window_sum("Sxx", &ixx),
        window_sum("Syy", &iyy),
        window_sum("Sxy", &ixy),
    );
    let at = |f: &Func| f.at((x, y));
    let det = Func::new("det");
    det.define((x, y), at(&sxx) * at(&syy) - at(&sxy) * at(&sxy))
        .unwrap();
    let trace = Func::new("trace");
    trace.define((x, y), at(&sxx) + at(&syy)).unwrap();
    let output = Func::new("output");
    output
        .define((x, y), at(&det) - 0.04f32 * at(&trace) * at(&trace))
        .unwrap();
    let funcs = vec![g, iy, ix, ixx, iyy, ixy, sxx, syy, sxy, det, trace];
    (output, funcs)
}

#[test]
fn harris_computed_at_root_lowers_to_small_ir() {
    let input = ImageParam::new(Type::f32(), 2, "input");
    let (output, funcs) = harris(&input);
    // The `root` schedule of the apps: everything at root, parallel rows, vectors of 8.
    for f in funcs.iter().chain([&output]) {
        if f.name() != output.name() {
            f.compute_root();
        }
        let args = f.args();
        f.parallel(args[1]).vectorize(args[0], 8);
    }
    let (bounds, lowered) = ir_lengths(&output);
    // 12 stages of two dimensions; it used to be over 300 000 characters.
    assert!(
        bounds < 40_000,
        "{bounds} characters after bounds inference"
    );
    // (Each vectorized loop is partitioned into steady iterations and its last vector; the
    // checks that regions fit 32 bits add about a quarter.)
    assert!(lowered < 120_000, "{lowered} characters lowered");
    let mut rng = seeded_rng("harris_computed_at_root_lowers_to_small_ir", 11);
    let image = lower_common::random_buffer(&mut rng, &[0, 0], &[19, 7], |r| {
        r.random_range(-8..8) as f32 / 4.0
    });
    check(
        &output,
        &TestInputs::new().image(&input, image),
        &[0, 0],
        &[19, 7],
    );
}

/// `f_0(x, y) = x + 3y` at root, `f_i(x, y) = f_{i-1}(x - 1, y) + f_{i-1}(x + 1, y + 1)`,
/// each `f_{i-1}` computed inside the strips of rows of `f_i` (rows split by 2, columns
/// vectorized by 4): a nest `n` levels deep, whose every level's region depends on the
/// loops of all the levels around it, and whose root Func is read from the innermost one.
fn compute_at_nest(n: usize) -> Func {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (yo, yi) = (Var::new("yo"), Var::new("yi"));
    let mut f = Func::new("f0");
    f.define((x, y), x + y * 3).unwrap();
    f.compute_root();
    for i in 1..=n {
        let g = Func::new(&format!("f{i}"));
        g.define((x, y), f.at((x - 1, y.expr())) + f.at((x + 1, y + 1)))
            .unwrap();
        g.split(y, yo, yi, 2).vectorize(x, 4);
        if i > 1 {
            f.compute_at(&g, yo);
        }
        f = g;
    }
    f
}

#[test]
fn a_deep_compute_at_nest_lowers_to_ir_linear_in_its_depth() {
    let lengths: Vec<(usize, (usize, usize))> = [4, 8, 12]
        .into_iter()
        .map(|n| (n, ir_lengths(&compute_at_nest(n))))
        .collect();
    // A generous bound per level; expanding each level's lets into the next would exceed it
    // by orders of magnitude at 8 levels.
    for &(n, (bounds, lowered)) in &lengths {
        assert!(bounds < 6_000 * (n + 1), "{n} levels: {bounds} characters");
        assert!(lowered < 12_000 * (n + 1), "{n} levels: {lowered} lowered");
    }
    let (_, (_, at_8)) = lengths[1];
    let (_, (_, at_12)) = lengths[2];
    assert!(
        at_12 < 2 * at_8,
        "4 more levels grew the IR from {at_8} to {at_12} characters"
    );
    // And it computes the right thing, at a depth the evaluator checks quickly.
    check(&compute_at_nest(5), &TestInputs::new(), &[-3, 2], &[9, 5]);
}
