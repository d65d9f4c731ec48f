//! Halide's `test/correctness/reorder_rvars.cpp`: reordering the loops of update stages —
//! RVars with each other (legal for an associative update) and with pure Vars — does not
//! change the result; and a summed-area table whose column scan is vectorized across
//! columns and whose row scan runs rows in parallel.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

fn i32_values(output: &Func, extents: &[i64]) -> Buffer<i32> {
    let mins = vec![0; extents.len()];
    match &check(output, &TestInputs::new(), &mins, extents)
        .realization
        .buffers[0]
    {
        AnyBuffer::I32(b) => b.clone(),
        _ => panic!("{} is i32", output.name()),
    }
}

#[test]
fn reordering_rvars_keeps_the_meaning() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let r1 = RDom::new([(0, 10), (1, 10)]);
    let r2 = RDom::new([(0, 10), (3, 10), (0, 5)]);
    let define = |name: &str| {
        let f = Func::new(name);
        f.define((x, y), x + y).unwrap();
        f.update((x, y), f.at((x, y)) + r1.x() * r1.y()).unwrap();
        f.update(
            (x, r2.x()),
            f.at((x, r2.x())) - r2.z() * f.at((x, r2.x() + r2.y())),
        )
        .unwrap();
        f
    };
    let f = define("f");
    let g = define("g");
    g.reorder((y, x));
    g.update_stage(0).reorder((r1.y(), y, x, r1.x()));
    g.update_stage(1).reorder((r2.x(), x, r2.y(), r2.z()));
    f.compute_root();
    g.compute_root();
    // Halide sums |f - g| over 20 x 20 and expects 0: every f - g is 0.
    let difference = Func::new("difference");
    difference
        .define((x, y), f.at((x, y)) - g.at((x, y)))
        .unwrap();
    let out = i32_values(&difference, &[20, 20]);
    for yy in 0..20 {
        for xx in 0..20 {
            assert_eq!(out.get(&[xx, yy]), 0, "at ({xx}, {yy})");
        }
    }
}

#[test]
fn a_summed_area_table_vectorized_and_parallel() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let input = Func::new("input");
    input.define((x, y), x * y).unwrap();
    let sat = Func::new("sat");
    sat.define((x, y), input.at((x, y))).unwrap();
    let r = RDom::new([(1, 99)]);
    sat.update((x, r.x()), sat.at((x, r.x())) + sat.at((x, r.x() - 1)))
        .unwrap();
    sat.update((r.x(), y), sat.at((r.x(), y)) + sat.at((r.x() - 1, y)))
        .unwrap();
    sat.update_stage(0)
        .split(x, "xo", "xi", 4)
        .reorder(("xi", r.x(), "xo"))
        .vectorize_loop("xi")
        .parallel("xo");
    sat.update_stage(1).parallel(y);
    let out = i32_values(&sat, &[100, 100]);
    // The summed-area table of x * y: (sum of x up to X) * (sum of y up to Y).
    for yy in 0..100i64 {
        for xx in 0..100i64 {
            let want = (xx * (xx + 1) / 2) * (yy * (yy + 1) / 2);
            assert_eq!(out.get(&[xx, yy]) as i64, want, "at ({xx}, {yy})");
        }
    }
}
