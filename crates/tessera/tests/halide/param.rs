//! Halide's `test/correctness/param.cpp`: a Func returning a float Param, realized with the
//! Param set to 17 and then to 123. Halide's check that a Param built without a name gets a
//! generated one is left out (a Tessera Param always has the name it is given); so is its
//! GPU schedule.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn a_func_of_a_param_set_twice() {
    let x = Var::new("x");
    let u = Param::<f32>::new("u");
    let f = Func::new("f");
    f.define(x, u.expr()).unwrap();
    for value in [17.0f32, 123.0] {
        let run = check(&f, &TestInputs::new().param(u.bind(value)), &[0], &[1024]);
        let AnyBuffer::F32(out) = &run.realization.buffers[0] else {
            panic!("f is f32");
        };
        out.for_each_coord(|p| assert_eq!(out.get(p), value, "f{p:?}"));
    }
}
