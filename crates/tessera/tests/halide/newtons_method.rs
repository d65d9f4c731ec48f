//! Halide's `test/correctness/newtons_method.cpp`: pi as the zero of `sin` near 3, by ten
//! f64 Newton steps of a zero-dimensional Func's update (over an RDom used only through
//! `r * 0`) and by ten secant steps of a four-element Tuple tracking the bracketing interval;
//! both must give `std::f64::consts::PI` exactly.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

fn f64_value(run: &crate::lower_common::Checked, i: usize) -> f64 {
    match &run.realization.buffers[i] {
        AnyBuffer::F64(b) => b.get(&[]),
        _ => panic!("output {i} is f64"),
    }
}

#[test]
fn newtons_method_finds_pi() {
    let f = Func::new("f");
    f.define((), cast_to::<f64>(Expr::from(3))).unwrap();
    let value = sin(f.at(()));
    let deriv = cos(f.at(()));
    let r = RDom::new([(0, 10)]);
    f.update((), f.at(()) - (value / deriv + cast_to::<f64>(r.x() * 0)))
        .unwrap();
    let run = check(&f, &TestInputs::new(), &[], &[]);
    let mut reference = 3.0f64;
    for _ in 0..10 {
        reference -= reference.sin() / reference.cos();
    }
    assert_eq!(reference, std::f64::consts::PI, "the reference itself");
    assert_eq!(f64_value(&run, 0), std::f64::consts::PI);
}

#[test]
fn the_secant_method_finds_pi() {
    let g = Func::new("g");
    let three = cast_to::<f64>(Expr::from(3));
    let four = cast_to::<f64>(Expr::from(4));
    g.define((), vec![three.clone(), sin(three), four.clone(), sin(four)])
        .unwrap();
    let (x1, y1) = (g.value_at((), 0), g.value_at((), 1));
    let (x2, y2) = (g.value_at((), 2), g.value_at((), 3));
    let x0 = x1.clone() - y1.clone() * (x1.clone() - x2) / (y1.clone() - y2.clone());
    let baseline = abs(y2 - y1.clone());
    let r = RDom::new([(0, 10)]);
    let x0 = select(baseline.gt(0.0f64), x0, x1.clone()) + cast_to::<f64>(r.x() * 0);
    let y0 = sin(x0.clone());
    g.update((), vec![x0, y0, x1, y1]).unwrap();
    let run = check(&g, &TestInputs::new(), &[], &[]);
    assert_eq!(f64_value(&run, 0), std::f64::consts::PI);
}
