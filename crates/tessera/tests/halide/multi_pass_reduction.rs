//! Halide's `test/correctness/multi_pass_reduction.cpp`: Funcs with several update stages —
//! scans in both directions, point updates and a range overwritten from another Func
//! computed inside the update, an unrolled Fibonacci of single-point updates, and an
//! integral image whose scans are vectorized and parallel — each against plain Rust.

use crate::lower_common::{check, Checked, TestInputs};
use tessera::prelude::*;

fn realize(output: &Func, extents: &[i64]) -> Checked {
    let mins = vec![0; extents.len()];
    check(output, &TestInputs::new(), &mins, extents)
}

#[test]
fn scans_in_both_directions() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, sin(cast_to::<f32>(Expr::from(x)))).unwrap();
    let r1 = RDom::new([(1, 10)]);
    let xl = r1.x() + 0;
    let xr = Expr::from(10) - r1.x();
    f.update(xl.clone(), f.at(xl.clone() - 1) + f.at(xl))
        .unwrap();
    f.update(xr.clone(), f.at(xr.clone() + 1) + f.at(xr))
        .unwrap();
    let run = realize(&f, &[11]);
    let AnyBuffer::F32(out) = &run.realization.buffers[0] else {
        panic!("f is f32");
    };
    let mut reference: Vec<f32> = (0..11).map(|i| (i as f32).sin()).collect();
    for i in 1..11 {
        reference[i] += reference[i - 1];
    }
    for i in (0..10).rev() {
        reference[i] += reference[i + 1];
    }
    for (i, want) in reference.iter().enumerate() {
        let got = out.get(&[i as i64]);
        assert!((got - want).abs() <= 1e-4, "f({i}) = {got}, not {want}");
    }
}

#[test]
fn point_updates_and_a_range_from_another_func() {
    let x = Var::new("x");
    let g = Func::new("g");
    g.define(x, x * x).unwrap();
    let f = Func::new("f");
    f.define(x, Expr::from(x)).unwrap();
    let r = RDom::new([(1, 10)]);
    f.update(r.x(), f.at(r.x()) + f.at(r.x() - 1)).unwrap();
    f.update(Expr::from(17), Expr::from(8)).unwrap();
    f.update(Expr::from(109), Expr::from(4)).unwrap();
    let r2 = RDom::new([(4, 5)]);
    f.update(r2.x(), g.at(r2.x())).unwrap();
    g.compute_at(f.update_stage(3), r2.x().name().as_str());
    let run = realize(&f, &[110]);
    let AnyBuffer::I32(out) = &run.realization.buffers[0] else {
        panic!("f is i32");
    };
    let mut correct: Vec<i64> = (0..110).collect();
    for i in 1..11 {
        correct[i] += correct[i - 1];
    }
    correct[17] = 8;
    correct[109] = 4;
    for (i, c) in correct.iter_mut().enumerate().take(9).skip(4) {
        *c = (i * i) as i64;
    }
    for (i, want) in correct.iter().enumerate() {
        assert_eq!(out.get(&[i as i64]) as i64, *want, "f({i})");
    }
    assert_eq!(run.provides("g"), 5, "g computed once per point of r2");
}

#[test]
fn an_unrolled_fibonacci() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, Expr::from(1)).unwrap();
    for i in 2..20 {
        f.update(
            Expr::from(i),
            f.at(Expr::from(i - 1)) + f.at(Expr::from(i - 2)),
        )
        .unwrap();
    }
    let run = realize(&f, &[20]);
    let AnyBuffer::I32(out) = &run.realization.buffers[0] else {
        panic!("f is i32");
    };
    let mut reference = [1i64; 20];
    for i in 2..20 {
        reference[i] = reference[i - 1] + reference[i - 2];
        assert_eq!(out.get(&[i as i64]) as i64, reference[i], "fibonacci({i})");
    }
}

#[test]
// The reference loops mirror Halide's C loops, indices and all.
#[allow(clippy::needless_range_loop)]
fn an_integral_image_vectorized_and_parallel() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), sin(cast_to::<f32>(x + y))).unwrap();
    let r = RDom::new([(1, 99)]);
    f.update((x, r.x()), f.at((x, r.x())) + f.at((x, r.x() - 1)))
        .unwrap();
    f.update((r.x(), y), f.at((r.x(), y)) + f.at((r.x() - 1, y)))
        .unwrap();
    f.update_stage(0).vectorize(x, 4);
    f.update_stage(1).reorder((r.x(), y)).parallel(y);
    let run = realize(&f, &[100, 100]);
    let AnyBuffer::F32(out) = &run.realization.buffers[0] else {
        panic!("f is f32");
    };
    let mut reference = vec![vec![0f32; 100]; 100];
    for (yy, row) in reference.iter_mut().enumerate() {
        for (xx, v) in row.iter_mut().enumerate() {
            *v = ((xx + yy) as f32).sin();
        }
    }
    for yy in 1..100 {
        for xx in 0..100 {
            reference[yy][xx] += reference[yy - 1][xx];
        }
    }
    for row in reference.iter_mut() {
        for xx in 1..100 {
            row[xx] += row[xx - 1];
        }
    }
    for yy in 0..100 {
        for xx in 0..100 {
            let (got, want) = (out.get(&[xx as i64, yy as i64]), reference[yy][xx]);
            assert!(
                (got - want).abs() <= 1e-4,
                "at ({xx}, {yy}): {got}, not {want}"
            );
        }
    }
}
