//! Instructions ordered as late as their uses allow (`codegen::llvm::late_order`): an output
//! whose three window sums share the vectors they load (harris's shape) compiles to a loop
//! that keeps every vector in registers on AVX2 at 16 lanes, and computes what plain Rust
//! loops compute.

use tessera::codegen::aot::emit_assembly;
use tessera::codegen::Target;
use tessera::lower::LowerOptions;
use tessera::pipeline::{signature, Inputs, Pipeline};
use tessera::prelude::*;

/// Lanes per vector: two AVX2 registers per value, as harris's manual schedule.
const LANES: i32 = 16;

/// `a(x, y) = in(x + 1, y) - in(x, y)`, `b(x, y) = in(x, y + 1) - in(x, y)`, both computed
/// at the root; `out = Saa · Sbb - Sab · Sab` where `Sfg(x, y)` sums `f · g` over the 3 × 3
/// window around `(x, y)` (dy outer, dx inner, left to right), vectorized by `LANES`.
fn pipeline(name: &str) -> (ImageParam, Func) {
    let input = ImageParam::new(Type::f32(), 2, &format!("{name}_in"));
    let (x, y) = (Var::new("x"), Var::new("y"));
    let a = Func::new(&format!("{name}_a"));
    a.define((x, y), input.at((x + 1, y)) - input.at((x, y)))
        .expect("a valid definition");
    let b = Func::new(&format!("{name}_b"));
    b.define((x, y), input.at((x, y + 1)) - input.at((x, y)))
        .expect("a valid definition");
    let window_sum = |f: &Func, g: &Func| {
        (-1..=1)
            .flat_map(|dy| (-1..=1).map(move |dx| (dx, dy)))
            .map(|(dx, dy)| f.at((x + dx, y + dy)) * g.at((x + dx, y + dy)))
            .reduce(|sum, term| sum + term)
            .expect("the window has points")
    };
    let out = Func::new(name);
    out.define(
        (x, y),
        window_sum(&a, &a) * window_sum(&b, &b) - window_sum(&a, &b) * window_sum(&a, &b),
    )
    .expect("a valid definition");
    for f in [&a, &b] {
        f.compute_root().vectorize("x", LANES);
    }
    out.vectorize("x", LANES);
    (input, out)
}

/// The pipeline's output over `[x0, x0 + w) × [y0, y0 + h)` in plain Rust, in the same f32
/// operations and order.
fn reference(image: &Buffer<f32>, x0: i64, y0: i64, w: i64, h: i64) -> Buffer<f32> {
    let input = |x: i64, y: i64| image.get(&[x, y]);
    let a = |x: i64, y: i64| input(x + 1, y) - input(x, y);
    let b = |x: i64, y: i64| input(x, y + 1) - input(x, y);
    let window_sum = |x: i64, y: i64, f: &dyn Fn(i64, i64) -> f32, g: &dyn Fn(i64, i64) -> f32| {
        let mut terms = (-1..=1)
            .flat_map(|dy| (-1..=1).map(move |dx| (dx, dy)))
            .map(|(dx, dy)| f(x + dx, y + dy) * g(x + dx, y + dy));
        let first = terms.next().expect("the window has points");
        terms.fold(first, |sum, term| sum + term)
    };
    Buffer::from_fn(&[x0, y0], &[w, h], |c| {
        let (x, y) = (c[0], c[1]);
        window_sum(x, y, &a, &a) * window_sum(x, y, &b, &b)
            - window_sum(x, y, &a, &b) * window_sum(x, y, &a, &b)
    })
}

#[test]
fn window_sums_sharing_loads_compute_what_plain_loops_compute() {
    let (input, out) = pipeline("late_values");
    let compiled = Pipeline::new(&out)
        .compile_jit(&Target::host())
        .expect("compiles");
    // A width of whole vectors, one whose last vector shifts inwards, and an origin off zero.
    for (x0, y0, w, h) in [(0, 0, 64, 5), (3, -2, 37, 7)] {
        let image = Buffer::from_fn(&[x0 - 1, y0 - 1], &[w + 3, h + 3], |c| {
            ((c[0] * 7 + c[1] * 13) % 29) as f32 * 0.25 - 3.0
        });
        let inputs = Inputs::new().image(&input, image.clone());
        let got = compiled.realize(&inputs, &[x0, y0], &[w, h]).expect("runs");
        assert_eq!(
            got[0],
            AnyBuffer::from(reference(&image, x0, y0, w, h)),
            "{w} x {h} at ({x0}, {y0})"
        );
    }
}

#[test]
fn window_sums_sharing_loads_keep_their_vectors_in_registers_on_avx2() {
    let (_, out) = pipeline("late_asm");
    let lowered = Pipeline::new(&out)
        .lower(&LowerOptions::default())
        .expect("lowers");
    let target = Target::x86_64("znver3", "+avx,+avx2,+fma");
    let assembly =
        emit_assembly(&lowered.stmt, &signature(&lowered), &target, "late_asm").expect("compiles");
    // Vector spills and reloads are the moves between a ymm register and the stack.
    let spills: Vec<&str> = assembly
        .lines()
        .filter(|line| line.contains("%ymm") && line.contains("(%rsp)"))
        .collect();
    assert!(spills.is_empty(), "{}", spills.join("\n"));
}
