//! Halide's `test/correctness/unsafe_dedup_lets.cpp`: Euclid's algorithm as a reduction into a
//! zero-dimensional Tuple Func `(a, b, step)` over an RDom of `max(pa, pb)` steps restricted
//! to `b != 0`, unrolled by 4. Unrolling once merged lets and `if`s with equal text whose
//! values changed in between (loads of the Func being updated). The GCD of 131·151·2 and
//! 131·157·3 must be 131.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn an_unrolled_gcd() {
    let (pa, pb) = (Param::<i32>::new("pa"), Param::<i32>::new("pb"));
    let (a, b) = (max(pa.expr(), pb.expr()), min(pa.expr(), pb.expr()));
    let f = Func::new("f");
    f.define((), Tuple(vec![a.clone(), b, Expr::from(0)]))
        .unwrap();
    let r = RDom::new([(Expr::from(0), a)]);
    let (a, b) = (f.value_at((), 0), f.value_at((), 1));
    r.where_(b.clone().ne_(0));
    f.update((), Tuple(vec![b.clone(), a % b, r.x().expr()]))
        .unwrap();
    f.update_stage(0).unroll(r.x(), 4);
    let (x, y) = (131 * 151 * 2, 131 * 157 * 3);
    let inputs = TestInputs::new().param(pa.bind(x)).param(pb.bind(y));
    let run = check(&f, &inputs, &[], &[]);
    let gcd = |mut a: i32, mut b: i32| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    assert_eq!(gcd(y, x), 131);
    assert_eq!(run.realization.buffers[0].get_value(&[]).as_f64(), 131.0);
}
