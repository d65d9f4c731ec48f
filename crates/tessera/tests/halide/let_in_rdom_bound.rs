//! Halide's `test/correctness/let_in_rdom_bound.cpp`: an RDom's extent may be a `Let`
//! binding a name (here the same name as a Var of the Func) to a Param expression: the
//! bound name is not a free variable. `f(x) += r` over `r` in `[0, ((p + 8) / p)²)` with
//! `p = 3` is the sum 0 + 1 + ... + 8 at every point.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn a_let_in_an_rdom_extent() {
    let p = Param::<i32>::new("p");
    let x = Var::new("x");
    let extent = Expr::let_in(x.name(), (p.expr() + 8) / p.expr(), x * x);
    let r = RDom::new([(Expr::from(0), extent)]);
    let f = Func::new("f");
    f.define(x, Expr::from(0)).unwrap();
    f.update(x, f.at(x) + r.x()).unwrap();
    let run = check(&f, &TestInputs::new().param(p.bind(3)), &[0], &[10]);
    let bound = ((3 + 8) / 3) * ((3 + 8) / 3);
    crate::assert_i32_output(&run, 0, |_| bound * (bound - 1) / 2);
}
