//! Halide's `test/correctness/deinterleave4.cpp`: two stages of upsampling (`u(x) =
//! f(x / 2 + 1)`) of a compute-root Func, vectorized across the whole 64-point output, give the
//! values of the unvectorized pipeline. Checked against both that pipeline and plain Rust.

use crate::{i32_values, realize};
use tessera::prelude::*;

fn build(x: Var, name: &str) -> Func {
    let input = Func::new(&format!("{name}_in"));
    input.define(x, x).unwrap();
    input.compute_root();
    let up1 = Func::new(&format!("{name}_up1"));
    up1.define(x, input.at(x / 2 + 1)).unwrap();
    let up2 = Func::new(name);
    up2.define(x, up1.at(x / 2 + 1)).unwrap();
    up2
}

#[test]
fn vectorized_upsampling_of_upsampling() {
    let x = Var::new("x");
    let f1 = build(x, "f1");
    let f2 = build(x, "f2");
    f2.bound(x, 0, 64).vectorize_loop(x);
    let (o1, o2) = (realize(&f1, &[64]), realize(&f2, &[64]));
    let (o1, o2) = (i32_values(&o1), i32_values(&o2));
    for i in 0..64 {
        assert_eq!(o1.get(&[i]), o2.get(&[i]), "at {i}");
        assert_eq!(i64::from(o2.get(&[i])), (i / 2 + 1) / 2 + 1, "at {i}");
    }
}
