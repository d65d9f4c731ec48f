//! Halide's `test/correctness/argmax.cpp`: the position of a maximum, found by a zero-dimensional
//! Func's update over an RDom — a one-dimensional scan keeping the best index so far, a
//! two-dimensional scan keeping a Tuple of (x, y, value) over a compute_root producer, the
//! inline `argmax`/`argmin` reductions, and an in-place scan that keeps its best so far at one
//! point of a Tuple-valued Func, tried with the start point inside, at the edges of and outside
//! the scanned range. Halide's GPU variants (`evaluate_may_gpu`) are left out; every value is
//! checked against plain-Rust scans.

use crate::lower_common::{check, Checked, TestInputs};
use tessera::prelude::*;

/// Value `i` of a zero-dimensional i32 realization.
fn scalar(run: &Checked, i: usize) -> i32 {
    match &run.realization.buffers[i] {
        AnyBuffer::I32(b) => b.get(&[]),
        _ => panic!("value {i} is i32"),
    }
}

fn realize_scalar(f: &Func) -> Checked {
    check(f, &TestInputs::new(), &[], &[])
}

fn f_ref(x: i32) -> i32 {
    x * (100 - x)
}

fn g_ref(x: i32, y: i32) -> i32 {
    x * (100 - x) + y * (80 - y)
}

/// The first (x fastest) extremum of g over [0, 100)², with `better(candidate, best)`.
fn g_extremum(better: fn(i32, i32) -> bool) -> (i32, i32, i32) {
    let mut best: Option<(i32, i32, i32)> = None;
    for y in 0..100 {
        for x in 0..100 {
            let v = g_ref(x, y);
            if best.is_none_or(|(_, _, b)| better(v, b)) {
                best = Some((x, y, v));
            }
        }
    }
    best.unwrap()
}

#[test]
fn a_one_dimensional_scan_keeping_the_best_index() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, x * (Expr::from(100) - x)).unwrap();
    let r = RDom::new([(0, 100)]);
    let arg_max_f = Func::new("arg_max_f");
    arg_max_f.define((), 0).unwrap();
    let best_so_far = f.at(clamp(arg_max_f.at(()), 0, 100));
    arg_max_f
        .update(
            (),
            select(f.at(r.x()).gt(best_so_far), r.x(), arg_max_f.at(())),
        )
        .unwrap();
    let run = realize_scalar(&arg_max_f);
    let mut best = 0;
    for i in 0..100 {
        if f_ref(i) > f_ref(best.clamp(0, 100)) {
            best = i;
        }
    }
    assert_eq!(best, 50);
    assert_eq!(scalar(&run, 0), best);
}

#[test]
fn a_two_dimensional_scan_keeping_a_tuple() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let g = Func::new("g");
    g.define((x, y), x * (Expr::from(100) - x) + y * (Expr::from(80) - y))
        .unwrap();
    g.compute_root();
    let r = RDom::new([(0, 100), (0, 100)]);
    let arg_max_g = Func::new("arg_max_g");
    arg_max_g
        .define((), Tuple(vec![Expr::from(0), Expr::from(0), g.at((0, 0))]))
        .unwrap();
    let here = g.at((r.x(), r.y()));
    let better = here.clone().gt(arg_max_g.value_at((), 2));
    arg_max_g
        .update(
            (),
            Tuple(vec![
                select(better.clone(), r.x(), arg_max_g.value_at((), 0)),
                select(better.clone(), r.y(), arg_max_g.value_at((), 1)),
                select(better, here, arg_max_g.value_at((), 2)),
            ]),
        )
        .unwrap();
    let run = realize_scalar(&arg_max_g);
    let want = g_extremum(|a, b| a > b);
    assert_eq!(want, (50, 40, 4100));
    let got = (scalar(&run, 0), scalar(&run, 1), scalar(&run, 2));
    assert_eq!(got, want);
}

#[test]
fn inline_argmax_and_argmin() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let g = Func::new("g");
    g.define((x, y), x * (Expr::from(100) - x) + y * (Expr::from(80) - y))
        .unwrap();
    g.compute_root();
    let r = RDom::new([(0, 100), (0, 100)]);
    let best = Func::new("best");
    best.define((), Tuple(argmax(g.at((r.x(), r.y())))))
        .unwrap();
    let run = realize_scalar(&best);
    let want = g_extremum(|a, b| a > b);
    assert_eq!(want, (50, 40, 4100));
    assert_eq!((scalar(&run, 0), scalar(&run, 1), scalar(&run, 2)), want);

    let worst = Func::new("worst");
    worst
        .define((), Tuple(argmin(g.at((r.x(), r.y())))))
        .unwrap();
    let run = realize_scalar(&worst);
    let want = g_extremum(|a, b| a < b);
    assert_eq!(want, (0, 99, -1881));
    assert_eq!((scalar(&run, 0), scalar(&run, 1), scalar(&run, 2)), want);
}

#[test]
fn an_in_place_scan_from_several_start_points() {
    for init in [-1, 0, 1, 5, 99, 100, 101] {
        let x = Var::new("x");
        let h = Func::new("h");
        h.define(x, Tuple(vec![x * (Expr::from(100) - x), Expr::from(x)]))
            .unwrap();
        let r = RDom::new([(0, 100)]);
        let keep = h.value_at(init, 0).ge(h.value_at(r.x(), 0));
        h.update(
            init,
            Tuple(vec![
                select(keep.clone(), h.value_at(init, 0), h.value_at(r.x(), 0)),
                select(keep, h.value_at(init, 1), h.value_at(r.x(), 1)),
            ]),
        )
        .unwrap();
        let arg_max_h = Func::new("arg_max_h");
        arg_max_h.define((), Tuple(h.tuple_at(init))).unwrap();
        let run = realize_scalar(&arg_max_h);
        // h over [min(init, 0), max(init, 99)], then the scan at h(init).
        let (lo, hi) = (init.min(0), init.max(99));
        let mut h_ref: Vec<(i32, i32)> = (lo..=hi).map(|i| (f_ref(i), i)).collect();
        let at = (init - lo) as usize;
        for i in 0..100 {
            let cand = h_ref[(i - lo) as usize];
            if h_ref[at].0 < cand.0 {
                h_ref[at] = cand;
            }
        }
        assert_eq!(h_ref[at], (2500, 50), "reference from init {init}");
        assert_eq!(
            (scalar(&run, 0), scalar(&run, 1)),
            h_ref[at],
            "from init {init}"
        );
    }
}
