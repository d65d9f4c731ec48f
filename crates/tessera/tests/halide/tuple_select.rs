//! Halide's `test/correctness/tuple_select.cpp`: `select` of Tuples, two-way and multi-way,
//! with one condition for every element or a Tuple of conditions, one per element. Tessera
//! has no Tuple `select`: each is written as the `select` of each element that Halide's
//! defines it to be. 120 x 120 instead of 200 x 200 (every branch is still taken).

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

const N: i64 = 120;

fn check_tuple(a: Expr, b: Expr, want: impl Fn(i64, i64) -> (i64, i64), x: Var, y: Var) {
    let f = Func::new("f");
    f.define((x, y), Tuple(vec![a, b])).unwrap();
    let run = check(&f, &TestInputs::new(), &[0, 0], &[N, N]);
    crate::assert_outputs_2d(&run, N, |x, y| {
        let (a, b) = want(x, y);
        vec![a, b]
    });
}

#[test]
fn a_two_way_select_on_one_condition() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let c = (x + y).lt(30);
    check_tuple(
        select(c.clone(), x, x - 1),
        select(c, y, y - 2),
        |x, y| if x + y < 30 { (x, y) } else { (x - 1, y - 2) },
        x,
        y,
    );
}

#[test]
fn a_two_way_select_on_a_tuple_of_conditions() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    check_tuple(
        select(x.lt(30), x, x - 1),
        select(y.lt(30), y, y - 2),
        |x, y| {
            (
                if x < 30 { x } else { x - 1 },
                if y < 30 { y } else { y - 2 },
            )
        },
        x,
        y,
    );
}

#[test]
fn a_multi_way_select_on_one_condition() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (c1, c2) = ((x + y).lt(30), (x + y).lt(100));
    check_tuple(
        select_cases([(c1.clone(), x.expr()), (c2.clone(), x - 1)], x - 100),
        select_cases([(c1, y.expr()), (c2, y - 2)], y - 200),
        |x, y| {
            if x + y < 30 {
                (x, y)
            } else if x + y < 100 {
                (x - 1, y - 2)
            } else {
                (x - 100, y - 200)
            }
        },
        x,
        y,
    );
}

#[test]
fn a_multi_way_select_on_tuples_of_conditions() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    check_tuple(
        select_cases([(x.lt(30), x.expr()), (x.lt(100), x - 1)], x - 100),
        select_cases([(y.lt(30), y.expr()), (y.lt(100), y - 2)], y - 200),
        |x, y| {
            let pick = |v: i64, small: i64, mid: i64, big: i64| {
                if v < 30 {
                    small
                } else if v < 100 {
                    mid
                } else {
                    big
                }
            };
            (pick(x, x, x - 1, x - 100), pick(y, y, y - 2, y - 200))
        },
        x,
        y,
    );
}
