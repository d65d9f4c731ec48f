//! Halide's `test/correctness/median3x3.cpp`: the median of each 3x3 patch of a u8 image
//! (with a constant-0 exterior, computed at the root), from the row-wise minimum, maximum and
//! middle of three, vectorized along x; interior pixels are checked against sorting the nine
//! values. The image is 64x64 instead of 256x256, and the GPU and HVX schedules are left out.

use crate::lower_common::{check, u8_image, TestInputs};
use tessera::prelude::*;

fn max3(a: Expr, b: Expr, c: Expr) -> Expr {
    max(max(a, b), c)
}

fn min3(a: Expr, b: Expr, c: Expr) -> Expr {
    min(min(a, b), c)
}

/// The middle of three values.
fn mid3(a: Expr, b: Expr, c: Expr) -> Expr {
    max(min(max(a.clone(), b.clone()), c), min(a, b))
}

#[test]
fn the_median_of_each_3x3_patch() {
    const W: i64 = 64;
    const H: i64 = 64;
    let image = ImageParam::new(Type::u8(), 2, "in");
    let data = u8_image(&[0, 0], &[W, H], 0, 255, 7);
    let input = constant_exterior(&image, 0).unwrap();
    input.compute_root();
    let (x, y) = (Var::new("x"), Var::new("y"));
    let row = |x: Var, y: Var| (input.at((x - 1, y)), input.at((x, y)), input.at((x + 1, y)));
    let (max_x, min_x, mid_x) = (Func::new("max_x"), Func::new("min_x"), Func::new("mid_x"));
    let (a, b, c) = row(x, y);
    max_x
        .define((x, y), max3(a.clone(), b.clone(), c.clone()))
        .unwrap();
    min_x
        .define((x, y), min3(a.clone(), b.clone(), c.clone()))
        .unwrap();
    mid_x.define((x, y), mid3(a, b, c)).unwrap();
    let column = |f: &Func| (f.at((x, y - 1)), f.at((x, y)), f.at((x, y + 1)));
    let (min_max, max_min, mid_mid) = (
        Func::new("min_max"),
        Func::new("max_min"),
        Func::new("mid_mid"),
    );
    let (a, b, c) = column(&max_x);
    min_max.define((x, y), min3(a, b, c)).unwrap();
    let (a, b, c) = column(&min_x);
    max_min.define((x, y), max3(a, b, c)).unwrap();
    let (a, b, c) = column(&mid_x);
    mid_mid.define((x, y), mid3(a, b, c)).unwrap();
    let median = Func::new("median3x3");
    median
        .define(
            (x, y),
            mid3(min_max.at((x, y)), max_min.at((x, y)), mid_mid.at((x, y))),
        )
        .unwrap();
    median.vectorize(x, 32);
    let run = check(
        &median,
        &TestInputs::new().image(&image, data.clone()),
        &[0, 0],
        &[W, H],
    );
    let AnyBuffer::U8(out) = &run.realization.buffers[0] else {
        panic!("median3x3 is u8");
    };
    for yy in 1..H - 1 {
        for xx in 1..W - 1 {
            let mut patch: Vec<u8> = (-1..=1)
                .flat_map(|dy| (-1..=1).map(move |dx| (dx, dy)))
                .map(|(dx, dy)| data.get(&[xx + dx, yy + dy]))
                .collect();
            patch.sort_unstable();
            assert_eq!(out.get(&[xx, yy]), patch[4], "median3x3({xx}, {yy})");
        }
    }
}
