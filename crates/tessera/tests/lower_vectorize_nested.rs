//! Nested vectorization: a tile with both of its loops vectorized computes what plain Rust
//! loops compute, its rows are dense vector loads and stores (not gathers and scatters), a
//! producer computed inside the vectorized loops (its region differing between lanes) is
//! right, and vectors wider than the limit are refused naming the loop.

mod lower_common;

use lower_common::{check, schedule_error, TestInputs};
use tessera::codegen::{emit_llvm_ir, Target};
use tessera::lang::schedule::TailStrategy;
use tessera::pipeline::signature;
use tessera::prelude::*;

fn input_image(w: i64, h: i64) -> Buffer<i32> {
    Buffer::from_fn(&[0, 0], &[w, h], |c| ((c[0] * 7 + c[1] * 13) % 101) as i32)
}

/// `f` tiled `fx` x `fy`, both tile loops vectorized (vectors of `fx * fy` lanes).
fn vectorized_tiles(f: &Func, x: Var, y: Var, fx: i32, fy: i32, tail: TailStrategy) {
    f.split_with_tail(x, x, "xi", fx, tail)
        .split_with_tail(y, y, "yi", fy, tail)
        .reorder(("xi", "yi", x, y))
        .vectorize_loop("xi")
        .vectorize_loop("yi");
}

#[test]
fn a_vectorized_tile_reads_and_writes_its_rows_densely() {
    let input = ImageParam::new(Type::i32(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), input.at((x, y)) * 2 + input.at((x + 1, y)))
        .unwrap();
    vectorized_tiles(&f, x, y, 8, 4, TailStrategy::GuardWithIf);
    let image = input_image(42, 23);
    let inputs = TestInputs::new().image(&input, image.clone());
    let run = check(&f, &inputs, &[0, 0], &[41, 23]);
    let out = run.i32_values(0);
    out.for_each_coord(|p| {
        let want = image.get(&[p[0], p[1]]) * 2 + image.get(&[p[0] + 1, p[1]]);
        assert_eq!(out.get(p), want, "{p:?}");
    });
    let ir = emit_llvm_ir(
        &run.lowered.stmt,
        &signature(&run.lowered),
        &Target::host(),
        "tile",
    )
    .expect("compiles");
    assert!(
        !ir.contains("masked.gather") && !ir.contains("masked.scatter"),
        "{ir}"
    );
    // Each row of the tile is one (masked, where a tail may cut it) 8-lane access.
    let rows = |plain: &str, masked: &str| ir.contains(plain) || ir.contains(masked);
    assert!(
        rows("load <8 x i32>", "masked.load.v8i32")
            && rows("store <8 x i32>", "masked.store.v8i32"),
        "{ir}"
    );
}

fn producer_inside_vectorized_tiles(tail: TailStrategy) {
    let input = ImageParam::new(Type::i32(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (f, g) = (Func::new("f"), Func::new("g"));
    f.define((x, y), input.at((x, y)) + input.at((x, y + 1)))
        .unwrap();
    // Each point reads f over a row of its own length: f's region differs between lanes.
    let r = RDom::new([(0, 3)]);
    g.define((x, y), sum(f.at((x + r.x() * (x % 3), y))))
        .unwrap();
    vectorized_tiles(&g, x, y, 4, 2, tail);
    f.compute_at(&g, "xi");
    let image = input_image(40, 12);
    let inputs = TestInputs::new().image(&input, image.clone());
    let run = check(&g, &inputs, &[0, 0], &[13, 11]);
    let out = run.i32_values(0);
    out.for_each_coord(|p| {
        let fv = |x: i64, y: i64| image.get(&[x, y]) + image.get(&[x, y + 1]);
        let want: i32 = (0..3).map(|r| fv(p[0] + r * (p[0] % 3), p[1])).sum();
        assert_eq!(out.get(p), want, "{p:?}");
    });
}

#[test]
fn a_producer_computed_inside_guarded_vectorized_tiles() {
    producer_inside_vectorized_tiles(TailStrategy::GuardWithIf);
}

#[test]
fn a_producer_computed_inside_predicated_vectorized_tiles() {
    producer_inside_vectorized_tiles(TailStrategy::Predicate);
}

#[test]
fn vectors_wider_than_the_limit_are_refused() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x + y).unwrap();
    vectorized_tiles(&f, x, y, 64, 32, TailStrategy::RoundUp);
    let message = schedule_error(&f);
    assert!(
        message.contains("f.s0.x.xi") && message.contains("2048 lanes"),
        "{message}"
    );
}
