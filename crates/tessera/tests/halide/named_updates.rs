//! Halide's `test/correctness/named_updates.cpp`: the definitions of a Func are scheduled
//! through handles to its stages (Halide keeps the `Stage` each definition returns; here
//! `pure_stage()` and `update_stage(k)`), each update parallelized or vectorized over its
//! reduction variable (one left unscheduled), and the result must equal the same
//! definitions unscheduled — here computed by plain Rust. The same handles with the
//! reduction loops unrolled instead are checked too.

use crate::realize;
use tessera::prelude::*;

/// Halide's schedule if `as_halide`, else with each parallel or vectorized reduction
/// variable unrolled by the same factor instead.
fn scheduled_through_stages(as_halide: bool) {
    let x = Var::new("x");
    let r = RDom::new([(0, 16)]);
    let f = Func::new("f");
    f.define(x, Expr::from(x)).unwrap();
    // Each update: the coordinate (as a multiple of r, or the fixed point 0) and the value.
    let updates: [(Option<i32>, i32); 6] = [
        (None, 1),
        (Some(2), 13),
        (Some(4), 14),
        (Some(3), 4),
        (Some(2), 8),
        (Some(5), 2),
    ];
    for (scale, value) in updates {
        match scale {
            None => f.update(0, value).unwrap(),
            Some(s) => f.update(r.x() * s, value).unwrap(),
        }
    }
    let pure = f.pure_stage();
    let (fix_first, rewrites, more_updates) = (
        f.update_stage(0),
        [f.update_stage(1), f.update_stage(2)],
        [f.update_stage(3), f.update_stage(4), f.update_stage(5)],
    );
    f.compute_root();
    pure.vectorize(x, 4);
    if as_halide {
        rewrites[0].parallel(r.x());
        rewrites[1].vectorize(r.x(), 4);
        for stage in &more_updates {
            stage.vectorize(r.x(), 4);
        }
    } else {
        rewrites[0].unroll(r.x(), 2);
        for stage in rewrites[1..].iter().chain(&more_updates) {
            stage.unroll(r.x(), 4);
        }
    }
    // fix_first is not scheduled.
    let _ = fix_first;

    let mut expected: Vec<i64> = (0..128).collect();
    for (scale, value) in updates {
        match scale {
            None => expected[0] = i64::from(value),
            Some(s) => (0..16).for_each(|r| expected[(r * s) as usize] = i64::from(value)),
        }
    }
    let run = realize(&f, &[128]);
    crate::assert_i32_output(&run, 0, |p| expected[p[0] as usize]);
}

#[test]
fn updates_scheduled_through_their_stages() {
    scheduled_through_stages(true);
}

#[test]
fn updates_unrolled_through_their_stages() {
    scheduled_through_stages(false);
}
