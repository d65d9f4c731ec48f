//! Halide's `test/correctness/partial_application.cpp`: Funcs defined and called with
//! Halide's implicit arguments `_` (`Var::placeholder()`): `g(x, _) = f(x, _) + f(x - 1, _)`
//! and `h(_) = (g(_) + f(_)) * 6`, with a constant that takes no implicit arguments, realized
//! over 4x4: every value is 36.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn implicit_arguments() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let all = Var::placeholder();
    let f = Func::new("f");
    f.define((x, y), 2.0f32).unwrap();
    let g = Func::new("g");
    g.define((x, all), f.at((x, all)) + f.at((x - 1, all)))
        .unwrap();
    let h = Func::new("h");
    h.define(all, (g.at(all) + f.at(all)) * 6.0f32).unwrap();
    assert_eq!(h.dimensions(), 2);
    let run = check(&h, &TestInputs::new(), &[0, 0], &[4, 4]);
    let AnyBuffer::F32(im) = &run.realization.buffers[0] else {
        panic!("h is f32");
    };
    for yy in 0..4 {
        for xx in 0..4 {
            assert_eq!(im.get(&[xx, yy]), 36.0, "im({xx}, {yy})");
        }
    }
}
