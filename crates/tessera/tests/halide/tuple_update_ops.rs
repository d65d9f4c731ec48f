//! Halide's `test/correctness/tuple_update_ops.cpp`: the update operators `+=`, `*=`, `/=`,
//! `-=` on Tuples. Tessera has no update operators: each is written as the update it stands
//! for (`f(x, y) = f(x, y) + e`), and `+=` on a Func with no definition yet first defines it as
//! zero, as Halide does. Cases: `+=` of a one-element Tuple; the four operators in turn on a
//! pair; an i16 and i32 pair over implicit arguments (`f(x, _)`); a pair multiplied by itself;
//! and a one-element Tuple added to and then squared. 64 x 64 instead of 1024 x 1024, and
//! 16 x 16 x 16 instead of 100³.

use crate::lower_common::{check, Checked, TestInputs};
use tessera::prelude::*;

const N: i64 = 64;

/// `f(x, y)[i] = f(x, y)[i] op e[i]` for each element.
fn apply(f: &Func, x: Var, y: Var, values: Vec<Expr>, op: fn(Expr, Expr) -> Expr) {
    let updated = values
        .into_iter()
        .enumerate()
        .map(|(i, e)| op(f.value_at((x, y), i), e))
        .collect();
    f.update((x, y), Tuple(updated)).unwrap();
}

fn realize(f: &Func) -> Checked {
    check(f, &TestInputs::new(), &[0, 0], &[N, N])
}

#[test]
fn plus_equals_a_one_element_tuple() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), Tuple(vec![Expr::from(0)])).unwrap();
    apply(&f, x, y, vec![x + y], |a, b| a + b);
    crate::assert_outputs_2d(&realize(&f), N, |x, y| vec![x + y]);
}

#[test]
fn the_four_operators_on_a_pair() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), Tuple(vec![Expr::from(0), Expr::from(0)]))
        .unwrap();
    apply(&f, x, y, vec![4.into(), 8.into()], |a, b| a + b);
    apply(&f, x, y, vec![x + y, x + 13], |a, b| a * b);
    apply(&f, x, y, vec![2.into(), 2.into()], |a, b| a / b);
    apply(&f, x, y, vec![x.expr(), y.expr()], |a, b| a - b);
    crate::assert_outputs_2d(&realize(&f), N, |x, y| vec![x + 2 * y, 4 * (x + 13) - y]);
}

#[test]
fn plus_equals_over_implicit_arguments() {
    const M: i64 = 16;
    let (x, i, j) = (Var::new("x"), Var::new("i"), Var::new("j"));
    let g = Func::new("g");
    g.define((i, j), i + j).unwrap();
    let f = Func::new("f");
    let (x_, rest) = (x.expr(), Var::placeholder());
    f.define(
        (x, rest),
        Tuple(vec![cast_to::<i16>(x_.clone()), cast_to::<i32>(g.at(rest))]),
    )
    .unwrap();
    f.update(
        (x, rest),
        Tuple(vec![
            f.value_at((x, rest), 0) + cast_to::<i16>(2 * x),
            f.value_at((x, rest), 1) + cast_to::<i32>(x_),
        ]),
    )
    .unwrap();
    let run = check(&f, &TestInputs::new(), &[0, 0, 0], &[M, M, M]);
    let (AnyBuffer::I16(a), AnyBuffer::I32(b)) =
        (&run.realization.buffers[0], &run.realization.buffers[1])
    else {
        panic!("f is (i16, i32)");
    };
    for jj in 0..M {
        for ii in 0..M {
            for xx in 0..M {
                let p = [xx, ii, jj];
                assert_eq!(i64::from(a.get(&p)), 3 * xx, "at {p:?}");
                assert_eq!(i64::from(b.get(&p)), xx + ii + jj, "at {p:?}");
            }
        }
    }
}

#[test]
fn a_pair_times_itself() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), Tuple(vec![x + 13, x + y])).unwrap();
    let itself = f.tuple_at((x, y));
    apply(&f, x, y, itself, |a, b| a * b);
    crate::assert_outputs_2d(&realize(&f), N, |x, y| {
        vec![(x + 13) * (x + 13), (x + y) * (x + y)]
    });
}

#[test]
fn a_one_element_tuple_added_to_and_squared() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), Tuple(vec![x + y])).unwrap();
    apply(&f, x, y, vec![x.expr()], |a, b| a + b);
    let itself = f.tuple_at((x, y));
    apply(&f, x, y, itself, |a, b| a * b);
    crate::assert_outputs_2d(&realize(&f), N, |x, y| vec![(2 * x + y) * (2 * x + y)]);
}
