//! Halide's `test/correctness/explicit_inline_reductions.cpp`: inline reductions over
//! explicit RDoms (`sum_over`, `product_over`), nested, their expressions using RVars of
//! the enclosing reductions and of the update's own RDom. Halide's test only realizes the
//! pipeline; here the values are checked against plain Rust (in wrapping i32 arithmetic, as
//! Halide's `int`), and the other explicit reductions too.

use crate::{assert_i32_output, realize};
use tessera::prelude::*;

#[test]
fn nested_explicit_reductions() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let r1 = RDom::named("r1", [(0, 10)]);
    let r2 = RDom::named("r2", [(0, 10)]);
    let r3 = RDom::named("r3", [(0, 10)]);
    let (r1x, r2x, r3x) = (r1.x().expr(), r2.x().expr(), r3.x().expr());
    let f = Func::new("f");
    // The product is implicit: over r3, the one RDom left free by the two sums.
    f.define(
        (x, y),
        product(
            sum_over(&r1, r1x.clone() + r3x.clone()) + sum_over(&r2, r2x.clone() * 2 + r3x.clone()),
        ),
    )
    .unwrap();
    f.update_add(
        (r1x.clone(), y.expr()),
        product_over(&r3, sum_over(&r2, r1x + r2x + r3x)),
    )
    .unwrap();
    let run = realize(&f, &[10, 10]);
    let pure = (0..10).fold(1i32, |acc, k| {
        let sum1: i32 = (0..10).map(|i| i + k).sum();
        let sum2: i32 = (0..10).map(|j| j * 2 + k).sum();
        acc.wrapping_mul(sum1 + sum2)
    });
    assert_i32_output(&run, 0, |p| {
        let added = (0..10).fold(1i32, |acc, k| {
            acc.wrapping_mul((0..10).map(|j| p[0] as i32 + j + k).sum::<i32>())
        });
        i64::from(pure.wrapping_add(added))
    });
}

/// Beyond Halide's test: each explicit reduction over a 2-D RDom, its expression using a
/// pure Var and an RVar of another RDom, against plain Rust; and the implicit form's error
/// for RVars of two RDoms points to the explicit one.
#[test]
fn every_explicit_reduction() {
    let x = Var::new("x");
    let r = RDom::named("r", [(0, 4), (0, 3)]);
    let k = RDom::named("k", [(1, 5)]);
    let value = |rx: i64, ry: i64, x: i64, k: i64| (rx * 7 + ry * 5 + x * 3 + k) % 11;
    let e = (r.x() * 7 + r.y() * 5 + x * 3 + k.x()) % 11;
    let f = Func::new("every");
    let argmax = argmax_over(&r, e.clone());
    let argmin = argmin_over(&r, e.clone());
    f.define(
        x,
        Tuple(vec![
            sum_over(&k, sum_over(&r, e.clone())),
            product_over(&k, maximum_over(&r, e.clone()) + 1),
            sum_over(&k, minimum_over(&r, e.clone())),
            sum_over(
                &k,
                argmax[0].clone() * 100 + argmax[1].clone() * 10 + argmax[2].clone(),
            ),
            sum_over(
                &k,
                argmin[0].clone() * 100 + argmin[1].clone() * 10 + argmin[2].clone(),
            ),
        ]),
    )
    .unwrap();
    let run = realize(&f, &[6]);
    let points: Vec<(i64, i64)> = (0..3)
        .flat_map(|ry| (0..4).map(move |rx| (rx, ry)))
        .collect();
    for (index, reduce) in [
        |vals: &[(i64, i64, i64)]| vals.iter().map(|v| v.2).sum::<i64>(),
        |vals: &[(i64, i64, i64)]| vals.iter().map(|v| v.2).max().unwrap(),
        |vals: &[(i64, i64, i64)]| vals.iter().map(|v| v.2).min().unwrap(),
    ]
    .into_iter()
    .enumerate()
    {
        crate::assert_i32_output(&run, index, |p| {
            let per_k = (1..6).map(|kk| {
                let vals: Vec<(i64, i64, i64)> = points
                    .iter()
                    .map(|&(rx, ry)| (rx, ry, value(rx, ry, p[0], kk)))
                    .collect();
                reduce(&vals)
            });
            if index == 1 {
                per_k.map(|m| m + 1).product()
            } else {
                per_k.sum()
            }
        });
    }
    for (index, better) in [(3, i64::gt as fn(&i64, &i64) -> bool), (4, i64::lt)] {
        assert_i32_output(&run, index, |p| {
            (1..6)
                .map(|kk| {
                    // The first extremum in iteration order (r.x innermost).
                    let mut best = (0, 0, if index == 3 { i64::MIN } else { i64::MAX });
                    for &(rx, ry) in &points {
                        let v = value(rx, ry, p[0], kk);
                        if better(&v, &best.2) {
                            best = (rx, ry, v);
                        }
                    }
                    best.0 * 100 + best.1 * 10 + best.2
                })
                .sum()
        });
    }
    let g = Func::new("two_domains");
    let err = g.define(x, sum(r.x() + k.x())).unwrap_err();
    assert!(err.to_string().contains("or sum_over"), "{err}");
}
