//! Halide's `test/correctness/tuple_partial_update.cpp`: updates of one element of a Tuple
//! Func (`f(x, y)[0] += 3`), which leave the other elements as they are (Halide writes them
//! `undef`, as here). First over a pure definition `Tuple(x + y, undef)` whose second element
//! is only set by a later update, then over `Tuple(x, y)` with an update adding a `select`
//! with an `undef` arm (no store where `x >= 20`: undef spreads out of the sum), also checked
//! with the `select` outside the sum. 64 x 64 instead of 1024 x 1024.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

const N: i64 = 64;

#[test]
fn updates_of_one_element_over_an_undef_element() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    let at = |i| f.value_at((x, y), i);
    f.define((x, y), Tuple(vec![x + y, undef::<i32>()]))
        .unwrap();
    f.update((x, y), Tuple(vec![at(0) + 3, undef::<i32>()]))
        .unwrap();
    f.update((x, y), Tuple(vec![undef::<i32>(), x.expr()]))
        .unwrap();
    f.update((x, y), Tuple(vec![at(0) - 1, undef::<i32>()]))
        .unwrap();
    f.update((x, y), Tuple(vec![undef::<i32>(), at(1) * 4]))
        .unwrap();
    f.update((x, y), Tuple(vec![undef::<i32>(), at(1) / 2]))
        .unwrap();
    let run = check(&f, &TestInputs::new(), &[0, 0], &[N, N]);
    crate::assert_outputs_2d(&run, N, |x, y| vec![x + y + 2, x * 2]);
}

#[test]
fn an_update_of_one_element_with_an_undef_select_arm() {
    one_element_with_an_undef_arm(|x, old| old + select(x.lt(20), 20 * x, undef::<i32>()));
}

/// The same update with the `select` outside the sum, as Halide's definition reads.
#[test]
fn an_update_of_one_element_under_a_select_with_an_undef_arm() {
    one_element_with_an_undef_arm(|x, old| select(x.lt(20), old + 20 * x, undef::<i32>()));
}

fn one_element_with_an_undef_arm(update: impl Fn(Var, Expr) -> Expr) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), Tuple(vec![x.expr(), y.expr()])).unwrap();
    f.update(
        (x, y),
        Tuple(vec![undef::<i32>(), update(x, f.value_at((x, y), 1))]),
    )
    .unwrap();
    let run = check(&f, &TestInputs::new(), &[0, 0], &[N, N]);
    crate::assert_outputs_2d(&run, N, |x, y| vec![x, if x < 20 { 20 * x + y } else { y }]);
}
