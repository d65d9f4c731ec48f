//! Halide's `test/correctness/lots_of_loop_invariants.cpp`: a stress test of hoisting loop
//! invariants, `f(x, y, c) = Σ_{i < 500} (c + i)² (x + i)`, whose 500 squares depend only on
//! the outermost loop. Halide only realizes it; here the values are checked against the sum
//! in Rust (wrapping, as i32 arithmetic does). Halide's 1024 x 1024 x 3 output is shrunk to
//! 16 x 4 x 3; its GPU schedule is left out.

use crate::realize;
use tessera::prelude::*;

const TERMS: i32 = 500;

#[test]
fn five_hundred_loop_invariants() {
    let (x, y, c) = (Var::new("x"), Var::new("y"), Var::new("c"));
    let mut e = Expr::from(0);
    for i in 0..TERMS {
        let invariant = (c + i) * (c + i);
        e += invariant * (x + i);
    }
    let f = Func::new("f");
    f.define((x, y, c), e).unwrap();
    let run = realize(&f, &[16, 4, 3]);
    crate::assert_i32_output(&run, 0, |p| {
        let (x, c) = (p[0] as i32, p[2] as i32);
        let sum = (0..TERMS).fold(0i32, |acc, i| {
            let invariant = (c + i).wrapping_mul(c + i);
            acc.wrapping_add(invariant.wrapping_mul(x + i))
        });
        i64::from(sum)
    });
}
