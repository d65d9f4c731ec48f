//! Halide's `test/correctness/shared_self_references.cpp`: one expression calling a Func
//! (`e = f(2)`) used by two of its own updates (`f(0) = e`, `f(1) = e`). Halide checks under
//! valgrind that the Func is freed despite referring to itself; that check is left out (it
//! is about Halide's reference counting). Here the Func is realized and its values
//! checked: `f(0) = f(1) = 2`, the rest `x`.

use crate::realize;
use tessera::prelude::*;

#[test]
fn one_call_of_a_func_in_two_of_its_updates() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, Expr::from(x)).unwrap();
    let e = f.at(2);
    f.update(0, e.clone()).unwrap();
    f.update(1, e).unwrap();
    let run = realize(&f, &[5]);
    crate::assert_i32_output(&run, 0, |p| if p[0] < 2 { 2 } else { p[0] });
}
