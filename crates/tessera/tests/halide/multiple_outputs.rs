//! Halide's `test/correctness/multiple_outputs.cpp`: Funcs producing several values. An
//! internal root Func of Tuple type `{x, sin(x)}` read element by element; and an argmax of
//! `sin(x * y)` over [0, 100)² as a three-element Tuple reduction (`(best x, best y, best
//! value)`, updated with a select on all three elements), whose best value must be within
//! 1e-4 of 1 — and equal to the argmax plain Rust finds, coordinates included.
//!
//! Halide's other two cases realize pipelines with several output Funcs
//! (`Pipeline::with_outputs`, Halide's `Pipeline({f, g})`) into buffers of the caller's, one
//! per value of each output: two independent outputs of different sizes; and three outputs
//! of different dimensionalities, two of them Tuples, that read each other (`h` and `g` read
//! the output `f`, `g` reads the output `h`). Both run compiled (`realize_into`) and on the
//! interpreter, each output over its own box. Halide's `tuple_select` is written as one
//! select per element.

use crate::{realize, realize_outputs};
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

#[test]
fn independent_outputs_of_different_sizes() {
    let x = Var::new("x");
    let (f, g) = (Func::new("f"), Func::new("g"));
    f.define(x, x * 100).unwrap();
    g.define(x, x).unwrap();
    let out = realize_outputs(
        &Inputs::new(),
        &Pipeline::with_outputs(&[&f, &g]),
        &[(&[0], &[100]), (&[0], &[10])],
    );
    let (f_im, g_im) = (
        out[0].clone().into_typed::<i32>().unwrap(),
        out[1].clone().into_typed::<i32>().unwrap(),
    );
    assert_eq!(f_im.extents(), vec![100]);
    for i in 0..100 {
        assert_eq!(f_im.get(&[i]), (100 * i) as i32, "f({i})");
    }
    assert_eq!(g_im.extents(), vec![10]);
    for i in 0..10 {
        assert_eq!(g_im.get(&[i]), i as i32, "g({i})");
    }
}

#[test]
fn outputs_of_different_dimensionalities_reading_each_other() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (f, g, h) = (Func::new("f"), Func::new("g"), Func::new("h"));
    f.define(x, x).unwrap();
    h.define(x, Tuple(vec![f.at(x) + 17, f.at(x) - 17]))
        .unwrap();
    let hx = h.tuple_at(x);
    g.define(
        (x, y),
        Tuple(vec![f.at(x + y) * 2, hx[0].clone() * y, hx[1].clone() - 2]),
    )
    .unwrap();
    let out = realize_outputs(
        &Inputs::new(),
        &Pipeline::with_outputs(&[&h, &g, &f]),
        &[(&[0], &[50]), (&[0, 0], &[20, 20]), (&[0], &[100])],
    );
    let typed: Vec<Buffer<i32>> = out.into_iter().map(|b| b.into_typed().unwrap()).collect();
    let [h0, h1, g0, g1, g2, f_im] = typed.as_slice() else {
        panic!("h and g have 2 and 3 values, f one");
    };
    for i in 0..100 {
        assert_eq!(f_im.get(&[i]), i as i32, "f({i})");
    }
    for i in 0..50 {
        let (c0, c1) = (f_im.get(&[i]) + 17, f_im.get(&[i]) - 17);
        assert_eq!((h0.get(&[i]), h1.get(&[i])), (c0, c1), "h({i})");
    }
    for i in 0..20 {
        for j in 0..20 {
            let want = (
                f_im.get(&[i + j]) * 2,
                h0.get(&[i]) * j as i32,
                h1.get(&[i]) - 2,
            );
            let got = (g0.get(&[i, j]), g1.get(&[i, j]), g2.get(&[i, j]));
            assert_eq!(got, want, "g({i}, {j})");
        }
    }
}
