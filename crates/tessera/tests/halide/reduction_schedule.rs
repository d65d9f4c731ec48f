//! Halide's `test/correctness/reduction_schedule.cpp`: a seam-carving energy over a 32x32
//! noise image — the first row copied by an update over a pure Var, then a two-dimensional
//! RDom whose row-major order makes each row add the minimum of the three neighbours above
//! — against the same recurrence in plain Rust.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn a_seam_carving_energy() {
    const SIZE: i64 = 32;
    let noise = ImageParam::new(Type::f32(), 2, "noise");
    let mut state = 12345u64;
    let data = Buffer::<f32>::from_fn(&[0, 0], &[SIZE, SIZE], |_| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 40) as f32 / (1u64 << 24) as f32
    });
    let (x, y) = (Var::new("x"), Var::new("y"));
    let r = RDom::new([(0, SIZE as i32), (1, SIZE as i32 - 1)]);
    let xm = max(r.x() - 1, 0);
    let xp = min(r.x() + 1, SIZE as i32 - 1);
    let energy = Func::new("energy");
    energy.define((x, y), 0.0f32).unwrap();
    energy
        .update(
            (x.expr(), Expr::from(0)),
            noise.at((x.expr(), Expr::from(0))),
        )
        .unwrap();
    let above = |e: Expr| energy.at((e, r.y() - 1));
    energy
        .update(
            (r.x().expr(), r.y().expr()),
            noise.at((r.x(), r.y())) + min(min(above(xm), above(r.x().expr())), above(xp)),
        )
        .unwrap();
    let run = check(
        &energy,
        &TestInputs::new().image(&noise, data.clone()),
        &[0, 0],
        &[SIZE, SIZE],
    );
    let AnyBuffer::F32(out) = &run.realization.buffers[0] else {
        panic!("energy is f32");
    };
    let mut reference = vec![vec![0f32; SIZE as usize]; SIZE as usize];
    for yy in 0..SIZE as usize {
        for xx in 0..SIZE as usize {
            let (m, p) = (xx.saturating_sub(1), (xx + 1).min(SIZE as usize - 1));
            let incr = if yy > 0 {
                let row = &reference[yy - 1];
                row[m].min(row[xx].min(row[p]))
            } else {
                0.0
            };
            reference[yy][xx] = data.get(&[xx as i64, yy as i64]) + incr;
            let got = out.get(&[xx as i64, yy as i64]);
            assert!(
                (got - reference[yy][xx]).abs() <= 1e-5,
                "energy({xx}, {yy}) = {got}, not {}",
                reference[yy][xx]
            );
        }
    }
}
