//! Halide's `test/correctness/stencil_chain_in_update_definitions.cpp`: an iterated 3-point
//! blur written with pure Vars only, on the diagonal of a 2-D Func: `g(x, x) = f(x)`, then 27
//! times `g(x, x + 1) = g(x, x)`, `g(x, x - 1) = g(x, x)` and `g(y, y) = (g(y, y) + g(y - 1,
//! y) + g(y + 1, y)) / 3`. Each update needs a different region of the pure Var (the region
//! shrinks by 2 per iteration, a trapezoid). Halide counts the stores into g (traced) for a
//! 19-point output and asks for exactly the trapezoid's; here the interpreter's count of
//! points g's definitions stored (before storage flattening: g's storage is zero-filled
//! first, as its pure definition is undef, and Halide's trace has no such stores) must be
//! at most that, and the output is checked against the blur computed in plain Rust.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

const ITERS: i64 = 27;
const OUTPUT: i64 = 19;

#[test]
fn an_iterated_stencil_on_a_diagonal() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define(x, sin(x)).unwrap();
    let g = Func::new("g");
    g.define((x, y), undef::<f32>()).unwrap();
    g.update((x, x), f.at(x)).unwrap();
    for _ in 0..ITERS {
        g.update((x.expr(), x + 1), g.at((x, x))).unwrap();
        g.update((x.expr(), x - 1), g.at((x, x))).unwrap();
        g.update(
            (y, y),
            (g.at((y, y)) + g.at((y - 1, y)) + g.at((y + 1, y))) / 3.0f32,
        )
        .unwrap();
    }
    g.compute_root();
    let h = Func::new("h");
    h.define(x, g.at((x, x))).unwrap();
    let run = check(&h, &TestInputs::new(), &[0], &[OUTPUT]);

    // The diagonal, blurred in plain Rust over a range wide enough for the trapezoid.
    let lo = -ITERS - 2;
    let mut diag: Vec<f32> = (lo..OUTPUT + ITERS + 2).map(|i| (i as f32).sin()).collect();
    for _ in 0..ITERS {
        let old = diag.clone();
        for i in 1..diag.len() - 1 {
            diag[i] = (old[i] + old[i - 1] + old[i + 1]) / 3.0;
        }
    }
    let AnyBuffer::F32(out) = &run.realization.buffers[0] else {
        panic!("h is f32");
    };
    for i in 0..OUTPUT {
        let want = diag[(i - lo) as usize];
        let got = out.get(&[i]);
        assert!((got - want).abs() < 1e-5, "h({i}) = {got}, expected {want}");
    }

    let (last, first) = (OUTPUT, OUTPUT + 2 * ITERS);
    let halide = first
        + ITERS * (last + 2 + first) / 2
        + ITERS * (last + 2 + first) / 2
        + ITERS * (last + first - 2) / 2;
    let stores = run.provides("g");
    assert!(
        stores <= halide as u64,
        "g stored {stores} points, Halide {halide}"
    );
}
