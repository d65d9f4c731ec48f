//! Halide's `test/correctness/mux.cpp`: `mux(c, {x, 456, 789})` picks the value at index c
//! (the last for c past the end), from a list of Exprs and from the Tuple of a Func.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

fn check_result(run: &crate::lower_common::Checked) {
    let out = crate::i32_values(run);
    for x in 0..100i64 {
        let correct = [x as i32, 456, 789, 789];
        for (c, want) in correct.iter().enumerate() {
            assert_eq!(out.get(&[x, c as i64]), *want, "({x}, {c})");
        }
    }
}

#[test]
fn mux_of_a_list_of_values() {
    let (x, c) = (Var::new("x"), Var::new("c"));
    let f = Func::new("f");
    f.define((x, c), mux(c, [x.expr(), Expr::from(456), Expr::from(789)]))
        .unwrap();
    check_result(&check(&f, &TestInputs::new(), &[0, 0], &[100, 4]));
}

#[test]
fn mux_of_a_tuple() {
    let (x, c) = (Var::new("x"), Var::new("c"));
    let f = Func::new("f");
    f.define(x, vec![x.expr(), Expr::from(456), Expr::from(789)])
        .unwrap();
    let g = Func::new("g");
    g.define((x, c), mux(c, f.tuple_at(x))).unwrap();
    check_result(&check(&g, &TestInputs::new(), &[0, 0], &[100, 4]));
}
