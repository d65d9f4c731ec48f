//! Halide's `test/correctness/fibonacci.cpp`: `fib(x) = 1`, then one update over
//! `r` in [2, 20) with `fib(r) = fib(r - 2) + fib(r - 1)`, computed at root and read by
//! `g(x) = fib(x + 10)` over 10 points: g must hold Fibonacci numbers 10 to 19.

use crate::{i32_values, realize};
use tessera::prelude::*;

#[test]
fn a_root_fibonacci_read_with_an_offset() {
    let x = Var::new("x");
    let r = RDom::new([(2, 18)]);
    let fib = Func::new("fib");
    fib.define(x, 1).unwrap();
    fib.update(r.x(), fib.at(r.x() - 2) + fib.at(r.x() - 1))
        .unwrap();
    let g = Func::new("g");
    g.define(x, fib.at(x + 10)).unwrap();
    fib.compute_root();
    let run = realize(&g, &[10]);
    let out = i32_values(&run);
    let mut reference = [1i32; 20];
    for i in 2..20 {
        reference[i] = reference[i - 1] + reference[i - 2];
    }
    for (i, want) in reference.iter().enumerate().skip(10) {
        assert_eq!(out.get(&[i as i64 - 10]), *want, "g({})", i - 10);
    }
}
