//! Halide's `test/correctness/func_lifetime.cpp`: a Func stays usable after another Func,
//! defined and realized in an inner scope, is dropped: `f(x, y) = x * y + 1` is realized
//! over 32x32, then `g(x, y) = x * y + 2` in a scope of its own, then `f` again, each
//! checked point by point. Halide's GPU-tile and Hexagon schedules for its GPU/HVX targets
//! are left out.

use crate::{i32_values, realize};
use tessera::prelude::*;

fn validate(f: &Func, add: i32) {
    let run = realize(f, &[32, 32]);
    let out = i32_values(&run);
    for j in 0..32i64 {
        for i in 0..32i64 {
            assert_eq!(
                out.get(&[i, j]),
                (i * j) as i32 + add,
                "{}({i}, {j})",
                f.name()
            );
        }
    }
}

#[test]
fn a_func_outlives_a_dropped_one() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x * y + 1).unwrap();
    validate(&f, 1);
    {
        let g = Func::new("g");
        g.define((x, y), x * y + 2).unwrap();
        validate(&g, 2);
    }
    validate(&f, 1);
}
