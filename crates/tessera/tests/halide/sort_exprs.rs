//! Halide's `test/correctness/sort_exprs.cpp`: nine values `f(i) = sin(i)` of a root Func,
//! sorted by a bitonic network of `min`/`max` Exprs (padded to 16 with missing values that
//! sort last), are written in sorted order by one update each into a Func whose pure
//! definition is `undef`. Halide checks the result is strictly increasing; here it is also
//! compared with the nine sines sorted in plain Rust.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

/// Puts the smaller of `a` and `b` in `a`, a missing value counting as infinity.
fn order(a: &mut Option<Expr>, b: &mut Option<Expr>) {
    match (a.take(), b.take()) {
        (Some(p), Some(q)) => {
            *a = Some(min(p.clone(), q.clone()));
            *b = Some(max(p, q));
        }
        (None, q) => {
            *a = q;
        }
        (p, None) => {
            *a = p;
        }
    }
}

/// Sorts `v` (of a power-of-two length) ascending, or descending if `descending`.
fn bitonic(mut v: Vec<Option<Expr>>, descending: bool) -> Vec<Option<Expr>> {
    let n = v.len();
    if n < 2 {
        return v;
    }
    let upper = v.split_off(n / 2);
    let mut v = [bitonic(v, true), bitonic(upper, false)].concat();
    let mut stride = n / 2;
    while stride > 0 {
        for i in (0..n).filter(|i| i % (2 * stride) < stride) {
            let (lo, hi) = v.split_at_mut(i + stride);
            if descending {
                order(&mut hi[0], &mut lo[i]);
            } else {
                order(&mut lo[i], &mut hi[0]);
            }
        }
        stride /= 2;
    }
    v
}

fn sorted(values: Vec<Expr>) -> Vec<Expr> {
    let n = values.len();
    let mut padded: Vec<Option<Expr>> = values.into_iter().map(Some).collect();
    padded.resize(n.next_power_of_two(), None);
    bitonic(padded, false)
        .into_iter()
        .take(n)
        .flatten()
        .collect()
}

#[test]
fn nine_sines_sorted_by_a_network_of_min_and_max() {
    const N: i64 = 9;
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, sin(x)).unwrap();
    f.compute_root();
    let exprs = sorted((0..N as i32).map(|i| f.at(i)).collect());
    assert_eq!(exprs.len(), N as usize);
    let g = Func::new("g");
    g.define(x, undef::<f32>()).unwrap();
    for (i, e) in exprs.into_iter().enumerate() {
        g.update(i as i32, e).unwrap();
    }
    let run = check(&g, &TestInputs::new(), &[0], &[N]);
    let AnyBuffer::F32(out) = &run.realization.buffers[0] else {
        panic!("g is f32");
    };
    let result: Vec<f32> = (0..N).map(|i| out.get(&[i])).collect();
    for w in result.windows(2) {
        assert!(w[0] < w[1], "not in order: {result:?}");
    }
    let mut want: Vec<f32> = (0..N).map(|i| (i as f32).sin()).collect();
    want.sort_by(f32::total_cmp);
    for (got, want) in result.iter().zip(&want) {
        assert!((got - want).abs() < 1e-6, "{result:?} vs {want:?}");
    }
}
