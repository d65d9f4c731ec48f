//! Halide's `test/correctness/multiple_outputs.cpp`: Funcs producing several values. An
//! internal root Func of Tuple type `{x, sin(x)}` read element by element; and an argmax of
//! `sin(x * y)` over [0, 100)² as a three-element Tuple reduction (`(best x, best y, best
//! value)`, updated with a select on all three elements), whose best value must be within
//! 1e-4 of 1 — and equal to the argmax plain Rust finds, coordinates included.
//!
//! Halide's other two cases realize pipelines with several output Funcs (`Pipeline({f,
//! g})`, of different sizes and dimensionalities); Tessera's pipelines have one output
//! Func, so they are left out. Halide's `tuple_select` is written as one select per element.

use crate::realize;
use tessera::prelude::*;

#[test]
fn an_internal_tuple_func() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, Tuple(vec![Expr::from(x), sin(x)])).unwrap();
    f.compute_root();
    let g = Func::new("g");
    let t = f.tuple_at(x);
    g.define(x, t[0].clone() + t[1].clone()).unwrap();
    let run = realize(&g, &[100]);
    let AnyBuffer::F32(out) = &run.realization.buffers[0] else {
        panic!("g is f32");
    };
    for i in 0..100 {
        let want = i as f32 + (i as f32).sin();
        assert_eq!(out.get(&[i]), want, "g({i})");
    }
}

#[test]
fn an_argmax_as_a_tuple_reduction() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), sin(x * y)).unwrap();
    f.compute_root();
    let r = RDom::new([(0, 100), (0, 100)]);
    let g = Func::new("g");
    g.define((), Tuple(vec![Expr::from(0), Expr::from(0), f.at((0, 0))]))
        .unwrap();
    let best = g.tuple_at(());
    let next = f.at((r.x(), r.y()));
    let better = next.clone().gt(best[2].clone());
    g.update(
        (),
        Tuple(vec![
            select(better.clone(), r.x(), best[0].clone()),
            select(better.clone(), r.y(), best[1].clone()),
            select(better, next, best[2].clone()),
        ]),
    )
    .unwrap();
    let run = realize(&g, &[]);
    let b = &run.realization.buffers;
    let (AnyBuffer::I32(bx), AnyBuffer::I32(by), AnyBuffer::F32(bv)) = (&b[0], &b[1], &b[2]) else {
        panic!("g is (i32, i32, f32)");
    };
    let (mut rx, mut ry, mut rv) = (0, 0, 0f32.sin());
    for yy in 0..100 {
        for xx in 0..100 {
            let v = ((xx * yy) as f32).sin();
            if v > rv {
                (rx, ry, rv) = (xx, yy, v);
            }
        }
    }
    assert!(bv.get(&[]) >= 0.9999, "the best value is {}", bv.get(&[]));
    assert_eq!((bx.get(&[]), by.get(&[]), bv.get(&[])), (rx, ry, rv));
}
