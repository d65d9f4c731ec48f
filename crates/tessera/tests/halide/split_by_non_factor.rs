//! Halide's `test/correctness/split_by_non_factor.cpp`: updates split by factors that do not
//! divide the realized extent — an update over a pure Var unrolled by 2 with GuardWithIf over
//! 3 points; an update vectorized by 8 (GuardWithIf) followed by a point update summing over a
//! Param-sized RDom unrolled by 4, realized at many sizes; producers computed inside and
//! outside a guarded split of an update; and a split's inner loop split again by a factor
//! larger than its extent. Halide's second case only realizes (at every size 1..20 and every
//! sum size below it); here the values are checked too, on a sample of those sizes (each
//! `check` compiles the pipeline anew).

use crate::lower_common::{check, TestInputs};
use tessera::lang::schedule::TailStrategy;
use tessera::prelude::*;

#[test]
fn an_update_unrolled_by_a_non_factor() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, 0).unwrap();
    f.update(x, f.at(x) + x).unwrap();
    f.update_stage(0)
        .split_with_tail(x, x, "xi", 2, TailStrategy::GuardWithIf)
        .unroll_loop("xi");
    let run = check(&f, &TestInputs::new(), &[0], &[3]);
    let out = crate::i32_values(&run);
    for i in 0..3 {
        assert_eq!(out.get(&[i]), i as i32, "f({i})");
    }
}

#[test]
fn a_vectorized_update_then_an_unrolled_sum_of_any_size() {
    let x = Var::new("x");
    let sum_size = Param::<i32>::new("sum_size");
    let f = Func::new("f");
    f.define(x, x).unwrap();
    f.update(x, f.at(x) + 3).unwrap();
    let r = RDom::new([(Expr::from(0), sum_size.expr())]);
    f.update(Expr::from(0), f.at(0) + f.at(r.x())).unwrap();
    f.update_stage(0)
        .split_with_tail(x, x, "xv", 8, TailStrategy::GuardWithIf)
        .vectorize_loop("xv");
    f.update_stage(1).unroll(r.x(), 4);
    for (size, sum) in [(2, 1), (5, 3), (8, 7), (9, 4), (13, 12), (19, 1), (19, 18)] {
        let run = check(
            &f,
            &TestInputs::new().param(sum_size.bind(sum)),
            &[0],
            &[size],
        );
        let out = crate::i32_values(&run);
        let mut reference: Vec<i32> = (0..size as i32).map(|v| v + 3).collect();
        for k in 0..sum as usize {
            reference[0] += reference[k];
        }
        for (i, want) in reference.iter().enumerate() {
            assert_eq!(
                out.get(&[i as i64]),
                *want,
                "size {size}, sum {sum}: f({i})"
            );
        }
    }
}

#[test]
fn producers_inside_and_outside_a_guarded_split_of_an_update() {
    let x = Var::new("x");
    let (g, h, f) = (Func::new("g"), Func::new("h"), Func::new("f"));
    g.define(x, x - 3).unwrap();
    h.define(x, x * 7).unwrap();
    f.define(x, 0).unwrap();
    f.update(x, f.at(x) + g.at(x) + h.at(x)).unwrap();
    f.update_stage(0)
        .split_with_tail(x, "xo", "xi", 7, TailStrategy::GuardWithIf);
    g.compute_at(f.update_stage(0), "xo");
    h.compute_at(f.update_stage(0), "xi");
    let run = check(&f, &TestInputs::new(), &[0], &[15]);
    let out = crate::i32_values(&run);
    for i in 0..15 {
        assert_eq!(out.get(&[i]), (i as i32 - 3) + i as i32 * 7, "f({i})");
    }
}

#[test]
fn an_inner_split_by_more_than_its_extent() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, x).unwrap();
    f.update(x, f.at(x) + 1).unwrap();
    f.compute_root();
    f.update_stage(0)
        .split(x, "xo", "xi", 4)
        .split("xi", "xio", "xii", 6);
    let g = Func::new("g");
    g.define(x, f.at(x)).unwrap();
    let run = check(&g, &TestInputs::new(), &[0], &[32]);
    let out = crate::i32_values(&run);
    for i in 0..32 {
        assert_eq!(out.get(&[i]), i as i32 + 1, "g({i})");
    }
}
