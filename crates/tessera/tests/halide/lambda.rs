//! Halide's `test/correctness/lambda.cpp`: `lambda(vars..., expr)` makes an anonymous Func,
//! usable with implicit arguments: `lambda(f(_) - g(_) + lambda(x, y, x + y)(_))` over
//! 10x10, where `f(x, y) = x * y` and `g = lambda(x, y, x * y)`, is `x + y`; and
//! `lambda(_, z, h(_, z))` of a 3-D `h(x, y, z) = x + y² + z³` keeps h's argument order.
//! Tessera has no `lambda`, so the anonymous Funcs are written as the named Funcs they stand
//! for, with the implicit arguments (`Var::placeholder()`) Halide's test uses, and the values
//! Halide's test checks are checked on them.

use crate::{i32_values, realize};
use tessera::prelude::*;

#[test]
fn anonymous_funcs_combined_with_implicit_arguments() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x * y).unwrap();
    let g = Func::new("lambda_g");
    g.define((x, y), x * y).unwrap();
    let sum = Func::new("lambda_sum");
    sum.define((x, y), x + y).unwrap();
    let out = Func::new("lambda_out");
    let all = Var::placeholder();
    out.define(all, f.at(all) - g.at(all) + sum.at(all))
        .unwrap();
    let run = realize(&out, &[10, 10]);
    let im = i32_values(&run);
    for yy in 0..10 {
        for xx in 0..10 {
            assert_eq!(im.get(&[xx, yy]), (xx + yy) as i32, "im({xx}, {yy})");
        }
    }
}

#[test]
fn an_anonymous_func_keeping_the_argument_order() {
    let (x, y, z) = (Var::new("x"), Var::new("y"), Var::new("z"));
    let h = Func::new("h");
    h.define((x, y, z), x + y * y + z * z * z).unwrap();
    let out = Func::new("lambda_h");
    let all = Var::placeholder();
    out.define((all, z), h.at((all, z))).unwrap();
    assert_eq!(out.dimensions(), 3);
    let run = realize(&out, &[10, 10, 10]);
    let im = i32_values(&run);
    for zz in 0..10 {
        for yy in 0..10 {
            for xx in 0..10 {
                let want = xx + yy * yy + zz * zz * zz;
                assert_eq!(im.get(&[xx, yy, zz]), want as i32, "im2({xx}, {yy}, {zz})");
            }
        }
    }
}
