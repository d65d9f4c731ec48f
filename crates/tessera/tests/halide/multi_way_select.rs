//! Halide's `test/correctness/multi_way_select.cpp`: an eight-way select on `x` equals a Func
//! set to the same eight values by point updates; the sum of their absolute differences over
//! `[0, 8)`, computed by a zero-dimensional pipeline, must be 0. The select is also checked
//! against the values directly.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

const CASES: [i32; 8] = [3, 7, 24, 5, 37, 91, 33, 14];

#[test]
fn an_eight_way_select_equals_point_updates() {
    let x = Var::new("x");
    let f = Func::new("f");
    let cases = (0..7).map(|i| (x.eq_(i), Expr::from(CASES[i as usize])));
    f.define(x, select_cases(cases, CASES[7])).unwrap();
    let g = Func::new("g");
    g.define(x, 0).unwrap();
    for (i, v) in CASES.iter().enumerate() {
        g.update(Expr::from(i as i32), Expr::from(*v)).unwrap();
    }
    let r = RDom::new([(0, 8)]);
    let err = Func::new("err");
    err.define((), sum(abs(g.at(r.x()) - f.at(r.x())))).unwrap();
    let run = check(&err, &TestInputs::new(), &[], &[]);
    let AnyBuffer::U32(e) = &run.realization.buffers[0] else {
        panic!("err is u32");
    };
    assert_eq!(e.get(&[]), 0);

    let run = check(&f, &TestInputs::new(), &[0], &[10]);
    let out = crate::i32_values(&run);
    for i in 0..10 {
        assert_eq!(out.get(&[i]), CASES[(i as usize).min(7)], "f({i})");
    }
}
