//! Halide's `test/correctness/cast.cpp`: the types of arithmetic on mixed integer and float
//! types. Two integers of different widths give the wider; a signed and an unsigned give the
//! signed of the wider width; an integer literal takes the other operand's type; a float
//! literal makes the result f32; and `a += b` keeps the type of `a`. Halide's test checks
//! only types; this also realizes a few of the expressions and checks their values.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

fn int_exprs(x: Var) -> Vec<Expr> {
    [8, 16, 32, 64].map(|b| cast(Type::int(b), x)).to_vec()
}

fn uint_exprs(x: Var) -> Vec<Expr> {
    [8, 16, 32, 64].map(|b| cast(Type::uint(b), x)).to_vec()
}

#[test]
fn types_of_mixed_arithmetic() {
    let x = Var::new("x");
    let (int_e, uint_e) = (int_exprs(x), uint_exprs(x));
    for i in 0..4 {
        for j in 0..i {
            let (ti, ui) = (int_e[i].ty(), uint_e[i].ty());
            assert_eq!((int_e[i].clone() + int_e[j].clone()).ty(), ti);
            assert_eq!((uint_e[i].clone() + uint_e[j].clone()).ty(), ui);
            assert_eq!((int_e[i].clone() + uint_e[j].clone()).ty(), ti);
            assert_eq!((uint_e[i].clone() + int_e[j].clone()).ty(), ti);
        }
        assert_eq!((int_e[i].clone() + 1).ty(), int_e[i].ty());
        assert_eq!((int_e[i].clone() + 1.0f32).ty(), Type::f32());
        assert_eq!((uint_e[i].clone() + 1.0f32).ty(), Type::f32());
    }
}

#[test]
fn a_literal_on_the_left_takes_the_other_type() {
    let x = Var::new("x");
    for e in int_exprs(x).into_iter().chain(uint_exprs(x)) {
        assert_eq!((1 + e.clone()).ty(), e.ty());
    }
}

#[test]
fn add_assign_keeps_the_type() {
    let x = Var::new("x");
    let (int_e, uint_e) = (int_exprs(x), uint_exprs(x));
    for i in 0..4 {
        let mut a = int_e[i].clone();
        a += Expr::from(1.0f32) + uint_e[i].clone();
        assert_eq!(a.ty(), int_e[i].ty(), "int{} += f32", 8 << i);
    }
}

/// Values of the mixed expressions over x in [0, 60), where none of them overflows (60² fits
/// in 16 bits; the product of two u8s is only taken at 16 bits or more).
#[test]
fn values_of_mixed_arithmetic() {
    let x = Var::new("x");
    let (int_e, uint_e) = (int_exprs(x), uint_exprs(x));
    for i in 0..4 {
        for j in 0..i {
            let cases = [
                int_e[i].clone() + uint_e[j].clone(),
                uint_e[i].clone() + int_e[j].clone(),
                uint_e[i].clone() * uint_e[j].clone(),
            ];
            for (k, e) in cases.into_iter().enumerate() {
                let f = Func::new("f");
                f.define(x, cast_to::<i64>(e)).unwrap();
                let run = check(&f, &TestInputs::new(), &[0], &[60]);
                let AnyBuffer::I64(out) = &run.realization.buffers[0] else {
                    panic!("f is i64");
                };
                for v in 0..60i64 {
                    let want = if k == 2 { v * v } else { 2 * v };
                    assert_eq!(out.get(&[v]), want, "case {k} of {i}, {j} at {v}");
                }
            }
        }
        let f = Func::new("g");
        f.define(x, int_e[i].clone() + 1.5f32).unwrap();
        let run = check(&f, &TestInputs::new(), &[0], &[60]);
        let AnyBuffer::F32(out) = &run.realization.buffers[0] else {
            panic!("g is f32");
        };
        for v in 0..60 {
            assert_eq!(out.get(&[v]), v as f32 + 1.5, "int{} + 1.5 at {v}", 8 << i);
        }
    }
}
