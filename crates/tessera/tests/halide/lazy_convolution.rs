//! Halide's `test/correctness/lazy_convolution.cpp`: a convolution under a select is only
//! computed where the select takes it: `blur(x, y) = select(f(x, y) > 0, sum(f(x + r.x,
//! y + r.y)), 0)` over a 10x10 RDom with `f(x, y) = sin(3x + y)`. Halide counts the calls
//! of `f` through an extern C function (at most 51% of the full convolution's); Tessera has
//! no extern calls, so the count is of the points the inline `sum`'s Func computes, which
//! must be no more than one init and 100 updates for each point where `f > 0` — and the
//! values are checked against plain Rust. The 100x100 output is shrunk to 40x40.

use crate::realize;
use tessera::prelude::*;

const N: i64 = 40;

fn f_value(x: i64, y: i64) -> f32 {
    ((x * 3 + y) as f32).sin()
}

/// The blur, its values checked; returns the points the inline sum's Func computed and
/// the points where `f > 0`.
fn lazy_blur() -> (u64, u64) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), sin(cast_to::<f32>(x * 3 + y))).unwrap();
    let r = RDom::new([(-5, 10), (-5, 10)]);
    let blur = Func::new("blur");
    blur.define(
        (x, y),
        select(
            f.at((x, y)).gt(0.0f32),
            sum(f.at((x + r.x(), y + r.y()))),
            0.0f32,
        ),
    )
    .unwrap();
    let run = realize(&blur, &[N, N]);
    let AnyBuffer::F32(out) = &run.realization.buffers[0] else {
        panic!("blur is f32");
    };
    let mut positive = 0u64;
    for yy in 0..N {
        for xx in 0..N {
            let want = if f_value(xx, yy) > 0.0 {
                positive += 1;
                let mut s = 0f32;
                for ry in -5..5 {
                    for rx in -5..5 {
                        s += f_value(xx + rx, yy + ry);
                    }
                }
                s
            } else {
                0.0
            };
            let got = out.get(&[xx, yy]);
            assert!(
                (got - want).abs() <= 1e-4,
                "blur({xx}, {yy}) = {got}, not {want}"
            );
        }
    }
    let sums: u64 = run
        .unflattened
        .stats
        .provides
        .iter()
        .filter(|(name, _)| name.as_str().starts_with("sum"))
        .map(|(_, n)| *n)
        .sum();
    (sums, positive)
}

#[test]
fn the_convolution_values() {
    lazy_blur();
}

#[test]
fn the_convolution_is_skipped_where_the_select_does_not_take_it() {
    let (sums, positive) = lazy_blur();
    assert!(
        sums <= 101 * positive,
        "the sum computed {sums} points; {positive} points of f are positive"
    );
}
