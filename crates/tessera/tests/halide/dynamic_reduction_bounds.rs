//! Halide's `test/correctness/dynamic_reduction_bounds.cpp`: an update writing
//! `f(x, y, dom / d)` where the reduction domain's extent (8 × the input's width) and `d`
//! (`hypot` of the input's sizes, cast to int) depend on the input. Halide only checks that
//! it runs; here the values are checked with plain Rust over 10 x 10 x 16 instead of
//! 100 x 100 x 16 (the input is 32 x 32, as Halide's).

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn a_reduction_bounded_by_the_input() {
    let input = ImageParam::new(Type::f32(), 2, "input");
    let (x, y, z) = (Var::new("x"), Var::new("y"), Var::new("z"));
    let dom = RDom::named("dom", [(Expr::from(0), input.width() * 8)]);
    let hard_to_reason_about = cast_to::<i32>(hypot(input.width(), input.height()));
    let f = Func::new("f");
    f.define((x, y, z), 1).unwrap();
    let at = (x, y, dom.x() / hard_to_reason_about);
    f.update(at.clone(), f.at(at) + 1).unwrap();
    let image = Buffer::<f32>::from_fn(&[0, 0], &[32, 32], |_| 0.0);
    let run = check(
        &f,
        &TestInputs::new().image(&input, image),
        &[0, 0, 0],
        &[10, 10, 16],
    );
    let out = crate::i32_values(&run);
    // d = 45: z in [0, 4] is hit 45 times, z = 5 by the last 31 of the 256 iterations.
    let d = (32f32.hypot(32.0)) as i64;
    for zz in 0..16 {
        let hits = (0..256).filter(|i| i / d == zz).count() as i32;
        for yy in 0..10 {
            for xx in 0..10 {
                assert_eq!(out.get(&[xx, yy, zz]), 1 + hits, "at ({xx}, {yy}, {zz})");
            }
        }
    }
}
