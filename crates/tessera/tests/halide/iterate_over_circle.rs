//! Halide's `test/correctness/iterate_over_circle.cpp`: `f(x, y) += select(x inside a circle of
//! radius 10, in(x, y), 0)` after `f(x, y) = 0`. The update does nothing outside the circle,
//! so Halide trims its loops to the circle and loads `in` only at the points inside it,
//! which its test counts with a load-tracing callback. Tessera has no load tracing; the
//! interpreter counts the points each Func computes, so the bound checked is on f's update:
//! at most 20x20 points of the pure definition plus one per point inside the circle (Tessera
//! guards the update by the select's condition rather than trimming its loops). The values
//! are checked as well.

use crate::i32_values;
use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

fn circle_sum() -> Func {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let input = Func::new("in");
    input.define((x, y), x + y).unwrap();
    input.compute_root();
    let f = Func::new("f");
    f.define((x, y), 0).unwrap();
    let t = cast_to::<i32>(ceil(sqrt(max(0, 10 * 10 - y * y))));
    let inside = x.gt(-t.clone()).and(x.lt(t));
    f.update((x, y), f.at((x, y)) + select(inside, input.at((x, y)), 0))
        .unwrap();
    f
}

fn inside_circle(x: i64, y: i64) -> bool {
    x * x + y * y < 100
}

#[test]
fn the_values_over_a_circle() {
    let run = check(&circle_sum(), &TestInputs::new(), &[0, 0], &[20, 20]);
    let out = i32_values(&run);
    for yy in 0..20 {
        for xx in 0..20 {
            let want = if inside_circle(xx, yy) { xx + yy } else { 0 };
            assert_eq!(out.get(&[xx, yy]) as i64, want, "f({xx}, {yy})");
        }
    }
}

#[test]
fn the_update_runs_only_inside_the_circle() {
    let run = check(&circle_sum(), &TestInputs::new(), &[0, 0], &[20, 20]);
    let inside = (0..20)
        .flat_map(|y| (0..20).map(move |x| (x, y)))
        .filter(|&(x, y)| inside_circle(x, y))
        .count() as u64;
    let computed = run.provides("f");
    assert!(
        computed <= 400 + inside,
        "f computed {computed} points, Halide {}",
        400 + inside
    );
}
