//! Halide's `test/correctness/vector_reductions.cpp`: reductions of `reduce_factor` (2, 3
//! or 4) consecutive inputs into each of `dst_lanes` (1 or 3) outputs, vectorized across both
//! with `atomic()` so that they become horizontal vector reductions: sums, products, max,
//! min, `||`, `&&` and dot products, of u8 through i32 and f32 inputs widened 1, 2 or 4 times,
//! compared with the same reduction unvectorized (within 1e-3).
//!
//! It runs every combination,
//! comparing each with the same reduction computed in plain Rust (in f64: the inputs are
//! small integers, so every value is exact; Halide's are random). Left out: 64-bit types and
//! f16 (Tessera has no f16), and Halide's runs at lesser x86 SIMD levels. 32 outputs instead
//! of 128.

use crate::lower_common::{check, seeded_rng, TestInputs};
use rand::Rng;
use tessera::prelude::*;

const N: i64 = 32;

/// The reductions Halide's test makes, by its `op` number.
#[derive(Clone, Copy, Debug)]
enum Op {
    Sum,
    Product,
    Max,
    Min,
    Or,
    And,
    Dot,
}

fn reduction(op: Op, src: Type, dst: Type, dst_lanes: i32, factor: i32) {
    let mut rng = seeded_rng("vector_reductions", 7);
    // Small values, so sums and products of a few are exact in every type.
    let values: Vec<i32> = (0..N * 4 + 40).map(|_| rng.random_range(0..4)).collect();
    let input = ImageParam::new(Type::i32(), 1, "values");
    let image = Buffer::<i32>::from_fn(&[0], &[values.len() as i64], |p| values[p[0] as usize]);
    let x = Var::new("x");
    let r = RDom::new([(0, factor)]);
    let in_ = Func::new("in");
    in_.define(x, cast(src, input.at(x))).unwrap();
    in_.compute_root();
    let mut rhs = cast(dst, in_.at(x * factor + r.x()));
    let rhs2 = cast(dst, in_.at(x * factor + r.x() + 32));
    let f = Func::new("f");
    let fx = || f.at(x);
    match op {
        Op::Sum => {
            f.define(x, cast(dst, 0)).unwrap();
            f.update(x, fx() + rhs).unwrap();
        }
        Op::Product => {
            f.define(x, cast(dst, 1)).unwrap();
            f.update(x, fx() * rhs).unwrap();
        }
        Op::Max => {
            f.define(x, cast(dst, 0)).unwrap();
            f.update(x, max(fx(), rhs)).unwrap();
        }
        Op::Min => {
            f.define(x, cast(dst, 100)).unwrap();
            f.update(x, min(fx(), rhs)).unwrap();
        }
        Op::Or | Op::And => {
            rhs = rhs.gt(cast(dst, 1));
            let start = matches!(op, Op::And);
            f.define(x, Expr::from(start)).unwrap();
            let v = if start { fx().and(rhs) } else { fx().or(rhs) };
            f.update(x, v).unwrap();
        }
        Op::Dot => {
            f.define(x, cast(dst, 0)).unwrap();
            f.update(x, fx() + rhs * rhs2).unwrap();
        }
    }
    f.compute_root()
        .update_stage(0)
        .split(x, "xo", "xi", dst_lanes)
        .fuse(r.x(), "xi", "rx")
        .atomic()
        .vectorize_loop("rx");
    let run = check(&f, &TestInputs::new().image(&input, image), &[0], &[N]);
    let out = &run.realization.buffers[0];
    for i in 0..N {
        let terms = (0..i64::from(factor)).map(|k| (i * i64::from(factor) + k) as usize);
        let v = |j: usize| f64::from(values[j]);
        let want = match op {
            Op::Sum => terms.map(v).sum(),
            Op::Product => terms.map(v).product(),
            Op::Max => terms.map(v).fold(0.0, f64::max),
            Op::Min => terms.map(v).fold(100.0, f64::min),
            Op::Or => f64::from(u8::from(terms.map(v).any(|t| t > 1.0))),
            Op::And => f64::from(u8::from(terms.map(v).all(|t| t > 1.0))),
            Op::Dot => terms.map(|j| v(j) * v(j + 32)).sum(),
        };
        let got = out.get_value(&[i]).as_f64();
        assert!(
            (got - want).abs() <= 1e-3,
            "{op:?} of {factor} x {src} into {dst_lanes} x {dst} at {i}: {got}, expected {want}"
        );
    }
}

#[test]
fn horizontal_vector_reductions() {
    let types = [
        Type::u8(),
        Type::i8(),
        Type::u16(),
        Type::i16(),
        Type::u32(),
        Type::i32(),
        Type::f32(),
    ];
    for dst_lanes in [1, 3] {
        for factor in [2, 3, 4] {
            for src in types {
                for widen in [1, 2, 4] {
                    let Some(dst) = types.into_iter().find(|t| {
                        t.is_float() == src.is_float()
                            && t.is_int() == src.is_int()
                            && t.bits == src.bits * widen
                    }) else {
                        continue;
                    };
                    for op in [
                        Op::Sum,
                        Op::Product,
                        Op::Max,
                        Op::Min,
                        Op::Or,
                        Op::And,
                        Op::Dot,
                    ] {
                        let narrow_only = matches!(op, Op::Max | Op::Min | Op::Or | Op::And);
                        if narrow_only && widen != 1 {
                            continue;
                        }
                        reduction(op, src, dst, dst_lanes, factor);
                    }
                }
            }
        }
    }
}
