//! Vectorized pipelines, lowered: after vectorization and simplification every vector load and
//! store of the blur (`blur_y.vectorize(x, 8)`) is addressed by a single `ramp(base, stride,
//! 8)` with a scalar base and stride 1 — for the Funcs' own storage and for the input and output
//! buffers alike, which lowering requires to be dense in x — which is what code generation
//! turns into dense vector loads and stores. And the lowered pipeline, run on the
//! interpreter, still computes what the definition-level evaluator computes.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tessera::ir::visit::visit_stmt_exprs;
use tessera::ir::{Expr, ExprKind, Stmt, StmtKind, Symbol, Type};
use tessera::lower::LowerOptions;
use tessera::pipeline::{Inputs, Pipeline};
use tessera::prelude::*;

/// The blur of the Halide paper, `blur_y` vectorized by 8 in x; with `sliding`, `blur_x`
/// computed per row of `blur_y` into storage for the whole image (which sliding window and
/// storage folding turn into 4 rows), vectorized too; otherwise inlined.
fn blur(sliding: bool) -> (ImageParam, Func) {
    let input = ImageParam::new(Type::u16(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let blur_x = Func::new("blur_x");
    let blur_y = Func::new("blur_y");
    blur_x
        .define(
            (x, y),
            (input.at((x, y)) + input.at((x + 1, y)) + input.at((x + 2, y))) / 3,
        )
        .expect("blur_x is well defined");
    blur_y
        .define(
            (x, y),
            (blur_x.at((x, y)) + blur_x.at((x, y + 1)) + blur_x.at((x, y + 2))) / 3,
        )
        .expect("blur_y is well defined");
    blur_y.vectorize(x, 8);
    if sliding {
        blur_x.store_root().compute_at(&blur_y, y).vectorize(x, 8);
    }
    (input, blur_y)
}

/// Every load and store in `s`: what it accesses, the buffer and the index.
fn accesses(s: &Stmt) -> Vec<(&'static str, Symbol, Expr)> {
    let mut found = Vec::new();
    visit_stmt_exprs(s, &mut |e| {
        if let ExprKind::Load { buffer, index, .. } = e.kind() {
            found.push(("load", *buffer, index.clone()));
        }
        true
    });
    collect_stores(s, &mut found);
    found
}

fn collect_stores(s: &Stmt, out: &mut Vec<(&'static str, Symbol, Expr)>) {
    if let StmtKind::Store { buffer, index, .. } = s.kind() {
        out.push(("store", *buffer, index.clone()));
    }
    s.for_each_child(|_| {}, |c| collect_stores(c, out));
}

/// The stride of a ramp with a scalar base, or `None` if `index` is not one.
fn ramp_stride(index: &Expr) -> Option<&Expr> {
    match index.kind() {
        ExprKind::Ramp(base, stride) if base.ty().is_scalar() => Some(stride),
        _ => None,
    }
}

/// Checks that every access of `s` is a vector access through a single ramp of stride 1.
/// Returns how many accesses there are.
fn check_ramp_accesses(s: &Stmt) -> usize {
    let found = accesses(s);
    for (what, buffer, index) in &found {
        let stride = ramp_stride(index)
            .unwrap_or_else(|| panic!("{what} of {buffer} at {index} is not one ramp:\n{s}"));
        assert_eq!(stride, &Expr::i32(1), "{what} of {buffer} at {index}:\n{s}");
    }
    found.len()
}

#[test]
fn vectorized_blur_accesses_are_single_ramps() {
    for sliding in [false, true] {
        let (_, blur_y) = blur(sliding);
        let lowered = Pipeline::new(&blur_y)
            .lower(&LowerOptions::default())
            .expect("the blur lowers");
        // Inlined: 9 input loads and the store; with blur_x: 3 input loads, blur_x's store,
        // 3 blur_x loads and blur_y's store. Each vectorized loop is partitioned into its
        // steady iterations and the last, shifted-inwards vector: every access twice.
        let count = check_ramp_accesses(&lowered.stmt);
        assert_eq!(count, 2 * if sliding { 8 } else { 10 }, "{}", lowered.stmt);
    }
}

#[test]
fn vectorized_blur_matches_the_evaluator() {
    let seed = tessera::testing::test_seed("vectorized blur", 0x5eed);
    let mut rng = SmallRng::seed_from_u64(seed);
    // Widths that are and are not multiples of the vector width (at least one vector).
    let shapes = [
        (8, 1, [0, 0]),
        (13, 5, [0, 0]),
        (16, 3, [-3, 7]),
        (29, 6, [5, -2]),
    ];
    for sliding in [false, true] {
        let (input, blur_y) = blur(sliding);
        for (w, h, mins) in shapes {
            let image =
                Buffer::<u16>::from_fn(&mins, &[w + 2, h + 2], |_| rng.random_range(0..4096));
            let interp = Pipeline::new(&blur_y)
                .realize_interp(&Inputs::new().image(&input, image.clone()), &mins, &[w, h])
                .expect("the lowered blur runs");
            let got: Buffer<u16> = interp.buffers[0].clone().try_into().expect("blur_y is u16");
            let want: Buffer<u16> = Evaluator::new()
                .with_input(&input, image)
                .realize_as(&blur_y, &mins, &[w, h])
                .expect("the evaluator computes the blur");
            assert_eq!(
                (got.extents(), got.data()),
                (want.extents(), want.data()),
                "{w}x{h} at {mins:?}, sliding window {sliding} (TESSERA_SEED={seed})"
            );
        }
    }
}
