//! Halide's `rfactor.cpp`, its simple case: `g(x, y) = 40; g(r.x, r.y) += f(r.x, r.y)` over
//! `r` in [10, 30) × [30, 50), the update factored over `r.y` into a pure dimension `u` of an
//! intermediate computed at root; checked against plain Rust. (The other cases — tuples,
//! argmin, histograms, parallel and vectorized intermediates — are not ported yet.)

use crate::lower_common::{check, TestInputs};
use tessera::lang::stage::DimName;
use tessera::prelude::*;

#[test]
fn a_simple_rfactor_of_r_y() {
    let (x, y, u) = (Var::new("x"), Var::new("y"), Var::new("u"));
    let f = Func::new("f");
    f.define((x, y), x - y).unwrap();
    f.compute_root();
    let r = RDom::new([(10, 20), (30, 20)]);
    let g = Func::new("g");
    g.define((x, y), Expr::from(40)).unwrap();
    g.update((r.x(), r.y()), g.at((r.x(), r.y())) + f.at((r.x(), r.y())))
        .unwrap();
    let intm = g
        .update_stage(0)
        .rfactor(&[(DimName(r.y().name()), u)])
        .unwrap();
    intm.compute_root();
    let run = check(&g, &TestInputs::new(), &[0, 0], &[80, 80]);
    let out = crate::i32_values(&run);
    for yy in 0..80i64 {
        for xx in 0..80i64 {
            let inside = (10..30).contains(&xx) && (30..50).contains(&yy);
            let want = if inside { 40 + xx - yy } else { 40 };
            assert_eq!(out.get(&[xx, yy]) as i64, want, "at ({xx}, {yy})");
        }
    }
}

/// The update `g(x, x) = ..` writes the diagonal: `x` is a pure dimension at its own
/// position and an ordinary coordinate at the other.
#[test]
fn an_update_of_the_diagonal() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let g = Func::new("g");
    g.define((x, y), x * 10 + y).unwrap();
    g.update((x, x), g.at((x, x)) * -1).unwrap();
    let run = check(&g, &TestInputs::new(), &[0, 0], &[8, 8]);
    let out = crate::i32_values(&run);
    for yy in 0..8i64 {
        for xx in 0..8i64 {
            let pure = xx * 10 + yy;
            let want = if xx == yy { -pure } else { pure };
            assert_eq!(out.get(&[xx, yy]) as i64, want, "at ({xx}, {yy})");
        }
    }
}
