//! Halide's `test/correctness/parameter_constraints.cpp`: a float Param with a declared
//! range [1, 10] divides x before a cast to int: `f(x, y) = g(int(x / p), y)`. The range
//! bounds g's region (without it `x / p` is unbounded: p may be 0). Realized with p = 2 there
//! is no error (checked here with the values: `g(x / 2, y)`); with p = 0, outside the range,
//! every backend reports an error naming p. Halide's 100 x 100 sizes are kept.

use crate::lower_common::{check, errors_of_every_backend, TestInputs};
use tessera::prelude::*;

/// `f` and its input, and the Param `p` (range [1, 10]).
fn pipeline() -> (Func, ImageParam, Param<f32>) {
    let input = ImageParam::new(Type::f32(), 2, "input");
    let mut p = Param::<f32>::new("p");
    p.set_range(1.0, 10.0).unwrap();
    let (x, y) = (Var::new("x"), Var::new("y"));
    let g = Func::new("g");
    g.define((x, y), input.at((x, y)) + 1.0f32).unwrap();
    g.compute_root();
    let f = Func::new("f");
    f.define((x, y), g.at((cast(Type::i32(), x / p.expr()), y)))
        .unwrap();
    (f, input, p)
}

fn image() -> Buffer<f32> {
    Buffer::from_fn(&[0, 0], &[100, 100], |p| (p[0] * 3 + p[1] * 7) as f32)
}

#[test]
fn a_param_inside_its_range() {
    let (f, input, p) = pipeline();
    let inputs = TestInputs::new().image(&input, image()).param(p.bind(2.0));
    let run = check(&f, &inputs, &[0, 0], &[100, 100]);
    let AnyBuffer::F32(out) = &run.realization.buffers[0] else {
        panic!("f is f32");
    };
    let data = image();
    out.for_each_coord(|q| assert_eq!(out.get(q), data.get(&[q[0] / 2, q[1]]) + 1.0, "f{q:?}"));
}

#[test]
fn a_param_outside_its_range_is_an_error() {
    let (f, input, p) = pipeline();
    let inputs = TestInputs::new().image(&input, image()).param(p.bind(0.0));
    for error in errors_of_every_backend(&f, &inputs, &[0, 0], &[100, 100]) {
        assert!(
            error.contains("parameter p is 0, outside its range [1, 10]"),
            "{error}"
        );
    }
}
