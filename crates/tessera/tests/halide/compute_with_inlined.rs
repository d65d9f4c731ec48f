//! Halide's `test/correctness/compute_with_inlined.cpp`: Funcs computed with another
//! (`compute_with(two[0], Var::outermost())`) that call inlined Funcs (which once gave a
//! wrong realization order). Halide only checks that it runs over 1024 x 1024; here the
//! values are checked with plain Rust over 64 x 64.
//!
//! Both Halide's form (`Var::outermost()`, with `one` computed at two[0]'s outermost level,
//! which the group shares: `one` is computed once for all four, where the group is) and one
//! fusing the outermost real loop (y) with `one` at root are run.

use crate::lower_common::Checked;
use crate::{i32_values, realize};
use tessera::prelude::*;

const STAGES: usize = 4;
const N: i64 = 64;

/// `three = Σ two[j] / 4` with `two[0] = one` and `two[j] = ((one >> 2) >> 2) + j` (through
/// two inlined Funcs); `schedule` gets one, the stages and y.
fn run(schedule: impl Fn(&Func, &[Func], Var)) -> Checked {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let one = Func::new("one");
    one.define((x, y), x + y).unwrap();
    let two: Vec<Func> = (0..STAGES)
        .map(|j| {
            let t = Func::new(&format!("two{j}"));
            if j == 0 {
                t.define((x, y), one.at((x, y))).unwrap();
            } else {
                let f = Func::new(&format!("f{j}"));
                f.define((x, y), one.at((x, y)) >> 2).unwrap();
                let g = Func::new(&format!("g{j}"));
                g.define((x, y), f.at((x, y)) >> 2).unwrap();
                t.define((x, y), g.at((x, y)) + j as i32).unwrap();
            }
            t
        })
        .collect();
    let temp = two
        .iter()
        .fold(Expr::from(0), |acc, t| acc + t.at((x, y)) / STAGES as i32);
    let three = Func::new("three");
    three.define((x, y), temp).unwrap();
    two[0].compute_root();
    schedule(&one, &two, y);
    three.compute_root();
    realize(&three, &[N, N])
}

fn assert_values(run: &Checked) {
    let out = i32_values(run);
    for yy in 0..N {
        for xx in 0..N {
            let one = xx + yy;
            let want = one / 4
                + (1..STAGES as i64)
                    .map(|j| ((one >> 4) + j) / 4)
                    .sum::<i64>();
            assert_eq!(i64::from(out.get(&[xx, yy])), want, "at ({xx}, {yy})");
        }
    }
}

#[test]
fn funcs_calling_inlined_funcs_computed_together() {
    let run = run(|one, two, y| {
        for t in &two[1..] {
            t.compute_root().compute_with(&two[0], y);
        }
        one.compute_root();
    });
    assert_values(&run);
}

#[test]

fn at_var_outermost() {
    let run = run(|one, two, _| {
        for t in &two[1..] {
            t.compute_root().compute_with(&two[0], Var::outermost());
        }
        one.compute_at(&two[0], Var::outermost());
    });
    assert_values(&run);
}
