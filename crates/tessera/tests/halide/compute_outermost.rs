//! Halide's `test/correctness/compute_outermost.cpp`: a 3 x 3 box blur whose horizontal pass
//! is computed at `Var::outermost()` of the vertical one — wherever the vertical pass is
//! computed — used twice, each computed per tile of an output tiled 16 x 16 with the tile
//! loops fused and parallel. Halide's output is 256 x 256; this uses 64 x 64 (16 tiles) to
//! keep the test fast. The equivalent placement (the output's fused tile loop, where the
//! vertical pass is computed) runs too.

use crate::i32_values;
use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

/// A 3 x 3 box blur of `input`, its horizontal pass placed by `place_blurx(blurx, blury)`.
fn blur(input: &Func, name: &str, place_blurx: &dyn Fn(&Func, &Func)) -> Func {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let blurx = Func::new(&format!("{name}_x"));
    blurx
        .define(
            (x, y),
            input.at((x - 1, y)) + input.at((x, y)) + input.at((x + 1, y)),
        )
        .unwrap();
    let blury = Func::new(&format!("{name}_y"));
    blury
        .define(
            (x, y),
            (blurx.at((x, y - 1)) + blurx.at((x, y)) + blurx.at((x, y + 1))) / 9,
        )
        .unwrap();
    place_blurx(&blurx, &blury);
    blury
}

fn run_blurs(place_blurx: &dyn Fn(&Func, &Func, &Func)) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let fn1 = Func::new("fn1");
    fn1.define((x, y), x + y).unwrap();
    let fn2 = Func::new("fn2");
    fn2.define((x, y), 2 * x + 3 * y).unwrap();
    let out = Func::new("out");
    let blur1 = blur(&fn1, "blur1", &|bx, by| place_blurx(bx, by, &out));
    let blur2 = blur(&fn2, "blur2", &|bx, by| place_blurx(bx, by, &out));
    out.define((x, y), blur1.at((x, y)) + blur2.at((x, y)))
        .unwrap();
    out.tile(x, y, x, y, "xi", "yi", 16, 16)
        .fuse(x, y, "t")
        .parallel("t");
    blur1.compute_at(&out, "t");
    blur2.compute_at(&out, "t");
    let run = check(&out, &TestInputs::new(), &[0, 0], &[64, 64]);
    let result = i32_values(&run);
    for yy in 0..64 {
        for xx in 0..64 {
            // The 3 x 3 mean of a linear function is its centre value.
            let correct = 3 * xx + 4 * yy;
            assert_eq!(result.get(&[xx, yy]), correct as i32, "out({xx}, {yy})");
        }
    }
}

#[test]
fn blurx_at_the_level_of_blury() {
    run_blurs(&|blurx, _blury, out| {
        blurx.compute_at(out, "t");
    });
}

#[test]
fn blurx_at_var_outermost() {
    run_blurs(&|blurx, blury, _out| {
        blurx.compute_at(blury, Var::outermost());
    });
}
