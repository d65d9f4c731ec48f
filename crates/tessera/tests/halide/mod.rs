//! Halide's `test/correctness/mod.cpp`: `%` of every numeric type. `cast<T>(x) % 2` over 0..16,
//! and `cast<T>(-x) % 4` (for unsigned types, the wrapped value) over 1..16, which in Halide
//! is never negative: the pattern 0, 3, 2, 1 repeats across the number line. Types: f32,
//! f64, i32, u32, i16, u16, i8, u8.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

fn check_type(ty: Type) {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, cast(ty, x) % 2).unwrap();
    let run = check(&f, &TestInputs::new(), &[0], &[16]);
    let out = &run.realization.buffers[0];
    assert_eq!(out.ty(), ty);
    for i in 0..16i64 {
        assert_eq!(
            out.get_value(&[i]).as_f64(),
            (i % 2) as f64,
            "{ty}: {i} % 2"
        );
    }
    let nf = Func::new("nf");
    nf.define(x, cast(ty, -x) % 4).unwrap();
    let run = check(&nf, &TestInputs::new(), &[0], &[16]);
    let out = &run.realization.buffers[0];
    for i in 1..16i64 {
        assert_eq!(
            out.get_value(&[i]).as_f64(),
            ((4 - i % 4) % 4) as f64,
            "{ty}: {ty}(-{i}) % 4"
        );
    }
}

#[test]
fn mod_of_every_type() {
    for ty in [
        Type::f32(),
        Type::f64(),
        Type::i32(),
        Type::u32(),
        Type::i16(),
        Type::u16(),
        Type::i8(),
        Type::u8(),
    ] {
        check_type(ty);
    }
}
