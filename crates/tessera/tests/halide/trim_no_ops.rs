//! Halide's `test/correctness/trim_no_ops.cpp`: loop iterations that would do nothing are
//! trimmed off, so no `select` or `if` is left in the code computing a Func: updates adding
//! `select(x > 10 && x < 20, 1, 0)` and the like over a 100-point line; an update adding
//! `select(x == 10 && x < y, 1, 0)` over a square; a tiled histogram whose RDom (10⁴ points)
//! covers a 74 x 74 image clamped and masked by a select; and a tiled triangle
//! `select(2x < y, 5, undef)`. Halide counts the `Select` and `IfThenElse` nodes inside
//! producers and asks for none; here the same count is taken of the lowered statement, and
//! the values are checked with plain Rust (the triangle realized into data holding -1, where
//! undef leaves it). Halide's GPU case is left out. The square is 40 x 40 instead of
//! 100 x 100; the histogram's input is an image rather than Halide's `random_int()` Func.

use crate::lower_common::{check, check_in_place, TestInputs};
use tessera::ir::visit::visit_exprs;
use tessera::ir::{ExprKind, Stmt, StmtKind};
use tessera::lower::LowerOptions;
use tessera::pipeline::Pipeline;
use tessera::prelude::*;

/// The `select`s and `if`s inside the producers of `s`.
fn conditionals(s: &Stmt) -> usize {
    fn count(s: &Stmt, in_produce: bool, n: &mut usize) {
        let in_produce = in_produce
            || matches!(
                s.kind(),
                StmtKind::ProducerConsumer {
                    is_producer: true,
                    ..
                }
            );
        if in_produce {
            *n += usize::from(matches!(s.kind(), StmtKind::IfThenElse { .. }));
        }
        let mut children = Vec::new();
        s.for_each_child(
            |e| {
                if in_produce {
                    visit_exprs(e, &mut |e| {
                        *n += usize::from(matches!(e.kind(), ExprKind::Select(..)));
                        true
                    })
                }
            },
            |c| children.push(c.clone()),
        );
        for c in &children {
            count(c, in_produce, n);
        }
    }
    let mut n = 0;
    count(s, false, &mut n);
    n
}

fn assert_no_conditionals(f: &Func) {
    let lowered = Pipeline::new(f)
        .lower(&LowerOptions::default())
        .expect("lowers");
    let n = conditionals(&lowered.stmt);
    assert_eq!(
        n, 0,
        "{n} selects and ifs in the producers:\n{}",
        lowered.stmt
    );
}

#[test]
fn inequality_conditions() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, x).unwrap();
    f.update(x, f.at(x) + select(x.gt(10).and(x.lt(20)), 1, 0))
        .unwrap();
    f.update(x, f.at(x) + select(x.lt(10), 0, 1)).unwrap();
    f.update(x, f.at(x) * select(x.gt(20).and(x.lt(30)), 2, 1))
        .unwrap();
    f.update(x, select(x.ge(60).and(x.le(100)), 100 - f.at(x), f.at(x)))
        .unwrap();
    let run = check(&f, &TestInputs::new(), &[0], &[100]);
    let out = crate::i32_values(&run);
    for i in 0..100 {
        let mut want = i;
        want += i32::from(i > 10 && i < 20);
        want += i32::from(i >= 10);
        want *= if i > 20 && i < 30 { 2 } else { 1 };
        if (60..=100).contains(&i) {
            want = 100 - want;
        }
        assert_eq!(out.get(&[i64::from(i)]), want, "f({i})");
    }
    assert_no_conditionals(&f);
}

#[test]
fn an_equality_condition() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x + y).unwrap();
    f.update((x, y), f.at((x, y)) + select(x.eq_(10).and(x.lt(y)), 1, 0))
        .unwrap();
    let run = check(&f, &TestInputs::new(), &[0, 0], &[40, 40]);
    let out = crate::i32_values(&run);
    for yy in 0..40 {
        for xx in 0..40 {
            let want = xx + yy + i64::from(xx == 10 && xx < yy);
            assert_eq!(i64::from(out.get(&[xx, yy])), want, "f({xx}, {yy})");
        }
    }
    assert_no_conditionals(&f);
}

#[test]
fn a_tiled_histogram() {
    let input = ImageParam::new(Type::u8(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), input.at((x, y))).unwrap();
    f.compute_root();
    let r = RDom::new([(0, 10), (0, 10), (0, 10), (0, 10)]);
    let xi = r.var(0) + r.var(2) * 10;
    let yi = r.var(1) + r.var(3) * 10;
    let hist = Func::new("hist");
    hist.define(x, 0).unwrap();
    let bin = cast_to::<i32>(f.at((clamp(xi.clone(), 0, 73), clamp(yi.clone(), 0, 73))));
    hist.update(
        bin.clone(),
        hist.at(bin)
            + select(
                xi.clone()
                    .ge(0)
                    .and(xi.le(73))
                    .and(yi.clone().ge(0))
                    .and(yi.le(73)),
                1,
                0,
            ),
    )
    .unwrap();
    let image = crate::lower_common::u8_image(&[0, 0], &[74, 74], 0, 255, 7);
    let run = check(
        &hist,
        &TestInputs::new().image(&input, image.clone()),
        &[0],
        &[256],
    );
    let out = crate::i32_values(&run);
    let mut want = [0i32; 256];
    for yy in 0..74 {
        for xx in 0..74 {
            want[usize::from(image.get(&[xx, yy]))] += 1;
        }
    }
    for (i, w) in want.iter().enumerate() {
        assert_eq!(out.get(&[i as i64]), *w, "hist({i})");
    }
    assert_no_conditionals(&hist);
}

#[test]
fn a_tiled_triangle() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), select((2 * x).lt(y), 5, undef::<i32>()))
        .unwrap();
    f.tile_in_place(x, y, "xi", "yi", 4, 4);
    let data = Buffer::<i32>::from_fn(&[0, 0], &[32, 32], |_| -1);
    let out = check_in_place(&f, &TestInputs::new(), &[data.into()]);
    let AnyBuffer::I32(out) = &out[0] else {
        panic!("f is i32");
    };
    for yy in 0..32 {
        for xx in 0..32 {
            let want = if 2 * xx < yy { 5 } else { -1 };
            assert_eq!(out.get(&[xx, yy]), want, "f({xx}, {yy})");
        }
    }
    assert_no_conditionals(&f);
}
