//! Halide's `test/correctness/parallel_nested.cpp`: a 3-D Func (with a Param) whose three
//! loops are all parallel, nested inside one another. 16x16x16 instead of 64x64x64.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn three_nested_parallel_loops() {
    let (x, y, z) = (Var::new("x"), Var::new("y"), Var::new("z"));
    let k = Param::<i32>::new("k");
    let f = Func::new("f");
    f.define((x, y, z), x * y + z * k.expr() + 1).unwrap();
    f.parallel(x).parallel(y).parallel(z);
    let run = check(
        &f,
        &TestInputs::new().param(k.bind(3)),
        &[0, 0, 0],
        &[16, 16, 16],
    );
    let out = crate::i32_values(&run);
    for xx in 0..16 {
        for yy in 0..16 {
            for zz in 0..16 {
                assert_eq!(
                    out.get(&[xx, yy, zz]) as i64,
                    xx * yy + zz * 3 + 1,
                    "({xx}, {yy}, {zz})"
                );
            }
        }
    }
}
