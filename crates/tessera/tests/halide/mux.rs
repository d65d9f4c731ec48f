//! Halide's `test/correctness/mux.cpp`: `mux(c, {x, 456, 789})` picks the value at index c
//! (the last for c past the end), from a list of Exprs and from the Tuple of a Func. Tessera
//! has no `mux`, so both cases are ignored; they are written with the API Halide's test uses,
//! spelled out with `select_cases` (what `mux` means) only so that they compile.

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

/// What `mux(c, values)` means: `values[c]`, the last value for any c past the end.
fn mux_by_select(c: Var, values: Vec<Expr>) -> Expr {
    let last = values.last().unwrap().clone();
    let n = values.len() - 1;
    let cases = values
        .into_iter()
        .take(n)
        .enumerate()
        .map(|(i, v)| (c.eq_(i as i32), v));
    select_cases(cases, last)
}

#[test]
#[ignore = "no API for mux(index, values)"]
fn mux_of_a_list_of_values() {
    let (x, c) = (Var::new("x"), Var::new("c"));
    let f = Func::new("f");
    f.define(
        (x, c),
        mux_by_select(c, vec![x.expr(), Expr::from(456), Expr::from(789)]),
    )
    .unwrap();
    check_result(&check(&f, &TestInputs::new(), &[0, 0], &[100, 4]));
    unimplemented!("f(x, c) = mux(c, {{x, 456, 789}})");
}

#[test]
#[ignore = "no API for mux(index, Tuple)"]
fn mux_of_a_tuple() {
    let (x, c) = (Var::new("x"), Var::new("c"));
    let f = Func::new("f");
    f.define(x, vec![x.expr(), Expr::from(456), Expr::from(789)])
        .unwrap();
    let g = Func::new("g");
    g.define((x, c), mux_by_select(c, f.tuple_at(x))).unwrap();
    check_result(&check(&g, &TestInputs::new(), &[0, 0], &[100, 4]));
    unimplemented!("g(x, c) = mux(c, f(x))");
}
