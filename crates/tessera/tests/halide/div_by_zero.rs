//! Halide's `test/correctness/div_by_zero.cpp`: integer division by zero is defined to give
//! zero, and so is the remainder (keeping the Euclidean identity); the most negative value of
//! a narrow signed type divided by -1 gives itself, with remainder zero — for i8, i16, i32, u8,
//! u16 and u32 Params; and a vectorized `256 / (x + 1)` over 5 points, which ShiftInwards
//! evaluates at x = 0 and below, runs. Halide also checks its simplifier folds the same
//! constants; here each quotient and remainder is computed from Params by a pipeline (on the
//! evaluator, the interpreter and natively) and checked with plain Rust.

use crate::lower_common::{check, TestInputs};
use crate::realize;
use tessera::lang::schedule::TailStrategy;
use tessera::prelude::*;

/// `a / b` and `a % b` of Params bound to `a` and `b` are `quotient` and `remainder`.
fn check_div<T: Scalar>(a: T, b: T, quotient: T, remainder: T) {
    let (pa, pb) = (Param::<T>::new("a"), Param::<T>::new("b"));
    let inputs = TestInputs::new().param(pa.bind(a)).param(pb.bind(b));
    for (op, expected) in [("div", quotient), ("mod", remainder)] {
        let f = Func::new(op);
        let e = if op == "div" {
            pa.expr() / pb.expr()
        } else {
            pa.expr() % pb.expr()
        };
        f.define((), e).unwrap();
        let run = check(&f, &inputs, &[], &[]);
        let got = T::from_value(run.realization.buffers[0].get_value(&[]));
        assert_eq!(got, expected, "{a:?} {op} {b:?}");
    }
}

#[test]
fn division_by_zero_is_zero() {
    check_div::<i8>(5, 0, 0, 0);
    check_div::<i16>(5, 0, 0, 0);
    check_div::<i32>(5, 0, 0, 0);
    check_div::<u8>(5, 0, 0, 0);
    check_div::<u16>(5, 0, 0, 0);
    check_div::<u32>(5, 0, 0, 0);
}

#[test]
fn the_most_negative_value_over_minus_one_is_itself() {
    check_div::<i8>(i8::MIN, -1, i8::MIN, 0);
    check_div::<i16>(i16::MIN, -1, i16::MIN, 0);
}

#[test]
fn shift_inwards_over_computes_a_division_by_zero() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, Expr::from(256) / (x + 1)).unwrap();
    f.vectorize_with_tail(x, 8, TailStrategy::ShiftInwards);
    let run = realize(&f, &[5]);
    let out = crate::i32_values(&run);
    for i in 0..5 {
        assert_eq!(out.get(&[i]), 256 / (i as i32 + 1), "at {i}");
    }
}
