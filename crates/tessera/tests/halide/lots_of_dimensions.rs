//! Halide's `test/correctness/lots_of_dimensions.cpp`: an 8-dimensional u64 image (Halide's
//! extents 2..9 shrunk to 2 and 3 alternately, 1296 points instead of 362880) with its origin moved to (90, 80, 70, 60, 50, 40, 30, 20) goes through
//! `f = pow(input, 2)`, `g = f - 2` (both at root, parallel over the last dimension) and
//! `h = g - 1` realized over the same box: every point must be `input² - 3`, wrapping.
//!
//! `pow` with the constant integer exponent 2 keeps the u64 type (it expands to a product, as
//! in Halide); a second case squares with `*`. `h(_) = g(_) - 1` is written with Halide's
//! implicit arguments (`Var::placeholder()`), so h has g's eight dimensions.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

const MINS: [i64; 8] = [90, 80, 70, 60, 50, 40, 30, 20];
const EXTENTS: [i64; 8] = [2, 3, 2, 3, 2, 3, 2, 3];

fn value(c: &[i64]) -> u64 {
    let u: Vec<u64> = c.iter().map(|&v| v as u64).collect();
    (((u[0] + u[1]) * u[2] + u[3]) * u[4] + u[5]) * u[6] + u[7]
}

fn eight_dimensions(square: fn(Expr) -> Expr) {
    let input = ImageParam::new(Type::u64(), 8, "input");
    let v: Vec<Var> = (0..8).map(|i| Var::new(&format!("v{i}"))).collect();
    let args = v.as_slice();
    let f = Func::new("f");
    f.define(args, square(input.at(args))).unwrap();
    let g = Func::new("g");
    g.define(args, f.at(args) - 2).unwrap();
    let h = Func::new("h");
    let all = Var::placeholder();
    h.define(all, g.at(all) - 1).unwrap();
    assert_eq!(h.dimensions(), 8);
    f.compute_root().parallel(v[7]);
    g.compute_root().parallel(v[7]);
    let data = Buffer::<u64>::from_fn(&MINS, &EXTENTS, value);
    let run = check(&h, &TestInputs::new().image(&input, data), &MINS, &EXTENTS);
    let AnyBuffer::U64(out) = &run.realization.buffers[0] else {
        panic!("h is u64, not {}", run.realization.buffers[0].ty());
    };
    tessera::lang::buffer::for_each_coord_in(&MINS, &EXTENTS, &mut |c| {
        let i = value(c);
        let want = i.wrapping_mul(i).wrapping_sub(3);
        assert_eq!(out.get(c), want, "h{c:?}");
    });
}

#[test]
fn squared_with_pow() {
    eight_dimensions(|e| pow(e, 2));
}

#[test]
fn squared_with_a_product() {
    eight_dimensions(|e| e.clone() * e);
}
