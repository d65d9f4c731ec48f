//! Halide's `test/correctness/left_shift_negative.cpp`: `a << b` is `a * (1 << b)` even
//! when the i16 `a` is negative: `h1(x) = f(x) << g(x)` and `h2(x) = f(x) * powers(x)`, with
//! `f(x) = i16(-x)`, `g(x) = u16(x % 8)` and `powers(x) = i16(1) << g(x)` computed at root,
//! both vectorized by 16, agree over 1024 points — and both equal plain Rust's wrapping
//! product.

use crate::lower_common::{check, Checked, TestInputs};
use tessera::prelude::*;

fn i16_values(run: &Checked) -> &Buffer<i16> {
    match &run.realization.buffers[0] {
        AnyBuffer::I16(b) => b,
        _ => panic!("the output is i16"),
    }
}

#[test]
fn shifting_a_negative_value_left_is_multiplying_by_a_power_of_two() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, cast_to::<i16>(-x)).unwrap();
    let g = Func::new("g");
    g.define(x, cast_to::<u16>(x % 8)).unwrap();
    f.compute_root();
    g.compute_root();

    let h1 = Func::new("h1");
    h1.define(x, f.at(x) << g.at(x)).unwrap();
    let powers = Func::new("powers");
    powers.define(x, cast_to::<i16>(1) << g.at(x)).unwrap();
    powers.compute_root();
    let h2 = Func::new("h2");
    h2.define(x, f.at(x) * powers.at(x)).unwrap();
    h1.vectorize(x, 16);
    h2.vectorize(x, 16);

    let run1 = check(&h1, &TestInputs::new(), &[0], &[1024]);
    let run2 = check(&h2, &TestInputs::new(), &[0], &[1024]);
    let (im1, im2) = (i16_values(&run1), i16_values(&run2));
    for i in 0..1024i64 {
        let want = (-(i as i16)).wrapping_mul(1i16 << (i % 8));
        assert_eq!(im1.get(&[i]), im2.get(&[i]), "h1({i}) and h2({i})");
        assert_eq!(im1.get(&[i]), want, "h1({i})");
    }
}
