//! Halide's `test/correctness/skip_stages.cpp`: a Func used only under a Param condition that
//! does not hold is not computed. Halide counts the calls of an extern function in each
//! stage; here the interpreter counts the points each Func computes, which must be at most
//! Halide's count, and the output is checked with plain Rust. Cases: a diamond with one side
//! used, a diamond whose two sides are each toggled, a Tuple Func with one element used
//! (Halide computes both), a Tuple Func not used at all, the toggled diamond under a split
//! schedule with sliding and storage hoisting, and a sliding window whose consumer is not
//! used at one point (every point of the producer is still needed). A Tuple Func's count is
//! of its points (Halide counts each element's calls: 10 and 10 for 10 points).

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

const N: i64 = 10;

/// Realizes `output` over [0, N) with the toggles bound, checks its values against
/// `expected` and returns the points computed by each of `funcs`.
fn counts(
    output: &Func,
    toggles: &[(&Param<bool>, bool)],
    funcs: &[&str],
    expected: impl Fn(i64) -> i64,
) -> Vec<u64> {
    let inputs = toggles
        .iter()
        .fold(TestInputs::new(), |acc, (p, v)| acc.param(p.bind(*v)));
    let run = check(output, &inputs, &[0], &[N]);
    let out = crate::i32_values(&run);
    for i in 0..N {
        assert_eq!(i64::from(out.get(&[i])), expected(i), "at {i}");
    }
    funcs.iter().map(|f| run.provides(f)).collect()
}

fn assert_at_most(got: &[u64], halide: &[u64], what: &str) {
    for (i, (g, h)) in got.iter().zip(halide).enumerate() {
        assert!(
            g <= h,
            "{what}: Func {} computed {g} points, Halide {h} (all: {got:?} vs {halide:?})",
            i + 1
        );
    }
}

#[test]
fn a_diamond_with_one_side_used() {
    let x = Var::new("x");
    let toggle1 = Param::<bool>::new("toggle1");
    let f1 = Func::new("f1");
    f1.define(x, x).unwrap();
    let f2 = Func::new("f2");
    f2.define(x, f1.at(x) + 1).unwrap();
    let f3 = Func::new("f3");
    f3.define(x, f1.at(x) + 2).unwrap();
    let f4 = Func::new("f4");
    f4.define(x, select(toggle1.expr(), f2.at(x), f3.at(x)))
        .unwrap();
    for f in [&f1, &f2, &f3] {
        f.compute_root();
    }
    for (t, halide) in [(true, [10, 0]), (false, [0, 10])] {
        let got = counts(&f4, &[(&toggle1, t)], &["f2", "f3"], |i| {
            i + if t { 1 } else { 2 }
        });
        assert_at_most(&got, &halide, &format!("toggle1 = {t}"));
    }
}

/// `f4 = select(toggle1, f2, 0) + select(toggle2, f3, 0)` over `f2 = f1 + 1`, `f3 = f1 + 1`,
/// `f1(x) = x`, scheduled by `schedule`; Halide computes f1, f2 and f3 only where used.
fn toggled_diamond(schedule: impl Fn(&Func, &Func, &Func, &Func)) {
    let x = Var::new("x");
    let (toggle1, toggle2) = (Param::<bool>::new("toggle1"), Param::<bool>::new("toggle2"));
    let f1 = Func::new("f1");
    f1.define(x, x).unwrap();
    let f2 = Func::new("f2");
    f2.define(x, f1.at(x) + 1).unwrap();
    let f3 = Func::new("f3");
    f3.define(x, f1.at(x) + 1).unwrap();
    let f4 = Func::new("f4");
    f4.define(
        x,
        select(toggle1.expr(), f2.at(x), 0) + select(toggle2.expr(), f3.at(x), 0),
    )
    .unwrap();
    schedule(&f1, &f2, &f3, &f4);
    for (t1, t2) in [(true, true), (false, true), (true, false), (false, false)] {
        let halide = [
            if t1 || t2 { 10 } else { 0 },
            if t1 { 10 } else { 0 },
            if t2 { 10 } else { 0 },
        ];
        let got = counts(
            &f4,
            &[(&toggle1, t1), (&toggle2, t2)],
            &["f1", "f2", "f3"],
            |i| i64::from(t1) * (i + 1) + i64::from(t2) * (i + 1),
        );
        assert_at_most(&got, &halide, &format!("toggles {t1}, {t2}"));
    }
}

#[test]
fn a_diamond_with_each_side_toggled() {
    toggled_diamond(|f1, f2, f3, _| {
        for f in [f1, f2, f3] {
            f.compute_root();
        }
    });
}

#[test]
fn a_toggled_diamond_under_a_split_schedule() {
    toggled_diamond(|f1, f2, f3, f4| {
        f4.split("x", "xo", "xi", 5);
        f1.compute_at(f4, "xo");
        f2.store_root().compute_at(f4, "xo");
        f3.store_at(f4, "xo").compute_at(f4, "xi");
    });
}

/// `f1(x) = (x, x + 1)` computed at root and `f2` from `second(f1)` — one element used or
/// not by `used`.
fn tuple_producer(use_second: bool) -> (Func, Param<bool>) {
    let x = Var::new("x");
    let toggle1 = Param::<bool>::new("toggle1");
    let f1 = Func::new("f1");
    f1.define(x, Tuple(vec![x.expr(), x + 1])).unwrap();
    f1.compute_root();
    let f2 = Func::new("f2");
    let first = select(toggle1.expr(), f1.value_at(x, 0), 0);
    let value = if use_second {
        first + f1.value_at(x, 1)
    } else {
        first
    };
    f2.define(x, value).unwrap();
    (f2, toggle1)
}

#[test]
fn a_tuple_with_one_element_used() {
    let (f2, toggle1) = tuple_producer(true);
    for t in [true, false] {
        let got = counts(&f2, &[(&toggle1, t)], &["f1"], |i| {
            if t {
                2 * i + 1
            } else {
                i + 1
            }
        });
        assert_at_most(&got, &[10], &format!("toggle1 = {t}"));
    }
}

#[test]
fn a_tuple_not_used() {
    let (f2, toggle1) = tuple_producer(false);
    for (t, halide) in [(true, 10), (false, 0)] {
        let got = counts(&f2, &[(&toggle1, t)], &["f1"], |i| if t { i } else { 0 });
        assert_at_most(&got, &[halide], &format!("toggle1 = {t}"));
    }
}

#[test]
fn a_sliding_window_with_an_unused_point() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, x).unwrap();
    let g = Func::new("g");
    g.define(x, f.at(x) + f.at(x - 1)).unwrap();
    let h = Func::new("h");
    h.define(x, select(x.eq_(5), 0, g.at(x))).unwrap();
    f.store_root().compute_at(&g, x);
    g.compute_at(&h, x);
    let got = counts(&h, &[], &["f"], |i| if i == 5 { 0 } else { 2 * i - 1 });
    assert_at_most(&got, &[11], "sliding");
}
