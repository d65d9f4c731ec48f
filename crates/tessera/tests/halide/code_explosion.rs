//! Halide's `test/correctness/code_explosion.cpp`: 100 inlined Funcs each calling the two
//! before it (a Fibonacci recurrence), and the same recurrence as one expression DAG, must
//! compile without expanding into a tree of 2^100 nodes. Halide only checks that they run
//! over 10 points; here the values (u32, wrapping) are checked with plain Rust.
//!
//! Both are trees of about 2^69 nodes written out: `define` computes the DAG's repeated
//! parts once, by lets, and inlining does the same once the inlined trees grow large and
//! mostly repeat (`schedule_functions::inline_shared`).

use crate::realize;
use tessera::prelude::*;

const SIZE: usize = 100;

/// `x * fib(SIZE - 1)` in u32, with `fib(0) = fib(1) = 1`.
fn expected(x: u32) -> u32 {
    let (mut a, mut b) = (x, x);
    for _ in 2..SIZE {
        (a, b) = (b, a.wrapping_add(b));
    }
    b
}

fn assert_values(f: &Func) {
    let run = realize(f, &[10]);
    let AnyBuffer::U32(out) = &run.realization.buffers[0] else {
        panic!("the output is u32");
    };
    for i in 0..10 {
        assert_eq!(out.get(&[i]), expected(i as u32), "at {i}");
    }
}

#[test]
fn a_nest_of_connected_inline_funcs() {
    let x = Var::new("x");
    let mut funcs: Vec<Func> = Vec::new();
    for i in 0..SIZE {
        let f = Func::new(&format!("f{i}"));
        let value = if i < 2 {
            cast_to::<u32>(x)
        } else {
            funcs[i - 1].at(x) + funcs[i - 2].at(x)
        };
        f.define(x, value).unwrap();
        funcs.push(f);
    }
    let g = Func::new("g");
    g.define(x, funcs[SIZE - 1].at(x)).unwrap();
    assert_values(&g);
}

#[test]
fn a_nest_of_connected_exprs() {
    let x = Var::new("x");
    let mut e = vec![cast_to::<u32>(x), cast_to::<u32>(x)];
    for i in 2..SIZE {
        let next = e[i - 1].clone() + e[i - 2].clone();
        e.push(next);
    }
    let f = Func::new("f");
    f.define(x, e[SIZE - 1].clone()).unwrap();
    assert_values(&f);
}
