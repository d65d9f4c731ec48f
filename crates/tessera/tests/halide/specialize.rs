//! Halide's `specialize.cpp`: alternative schedules chosen at run time by conditions on
//! Params and buffer sizes. The cases ported check values against plain Rust, and that an
//! input read only under a condition that does not hold need not cover anything.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn an_input_unused_by_the_branch_taken_is_not_bounds_checked() {
    let im = ImageParam::new(Type::f32(), 1, "im");
    let param = Param::<bool>::new("param");
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, select(param.expr(), im.at(x), 0.0f32)).unwrap();
    f.specialize(param.expr());
    // The image is too small for the output, but param is false: it is never read.
    let image = Buffer::<f32>::from_fn(&[0], &[10], |c| c[0] as f32);
    let inputs = TestInputs::new().image(&im, image).param(param.bind(false));
    let run = check(&f, &inputs, &[0], &[100]);
    let AnyBuffer::F32(out) = &run.realization.buffers[0] else {
        panic!("f is f32");
    };
    for i in 0..100 {
        assert_eq!(out.get(&[i]), 0.0, "at {i}");
    }
}

/// `f(x) = select(param, im(x + 10), im(x - 10))` specialized on `param`, realized over
/// [0, 100) with an image covering exactly what the branch taken reads.
fn shifted_read(param_value: bool, image_min: i64) {
    let im = ImageParam::new(Type::f32(), 1, "im");
    let param = Param::<bool>::new("param");
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, select(param.expr(), im.at(x + 10), im.at(x - 10)))
        .unwrap();
    f.specialize(param.expr());
    let image = Buffer::<f32>::from_fn(&[image_min], &[100], |c| c[0] as f32);
    let inputs = TestInputs::new()
        .image(&im, image)
        .param(param.bind(param_value));
    let run = check(&f, &inputs, &[0], &[100]);
    let AnyBuffer::F32(out) = &run.realization.buffers[0] else {
        panic!("f is f32");
    };
    let shift = if param_value { 10 } else { -10 };
    for i in 0..100 {
        assert_eq!(out.get(&[i]), (i + shift) as f32, "at {i}");
    }
}

#[test]
fn the_input_bounds_follow_the_branch_taken() {
    shifted_read(true, 10);
    shifted_read(false, -10);
}

/// `f(x) = select(test, im(x, 0), im(0, x))` for a 10-wide output, specialized on `test`
/// (or, `implied`, on a condition that implies it): with `test` true only a 10 x 1 row of
/// the image is read.
fn row_or_column(implied: bool) {
    let im = ImageParam::new(Type::i32(), 2, "im");
    let p = Param::<i32>::new("p");
    let x = Var::new("x");
    let test = p
        .expr()
        .gt(73)
        .or((p.expr() * p.expr() + p.expr() + 1).eq_(0));
    let (select_on, specialize_on) = if implied {
        (p.expr().gt(50), p.expr().gt(73))
    } else {
        (test.clone(), test)
    };
    let f = Func::new("f");
    f.define(x, select(select_on, im.at((x, 0)), im.at((0, x))))
        .unwrap();
    f.specialize(specialize_on);
    let row = Buffer::<i32>::from_fn(&[0, 0], &[10, 1], |c| (c[0] * 3) as i32);
    let inputs = TestInputs::new().image(&im, row).param(p.bind(100));
    let run = check(&f, &inputs, &[0], &[10]);
    let out = crate::i32_values(&run);
    for i in 0..10 {
        assert_eq!(out.get(&[i]), (i * 3) as i32, "at {i}");
    }
}

#[test]
fn a_compound_condition_selects_a_row_of_the_input() {
    row_or_column(false);
}

#[test]
fn an_implied_condition_selects_a_row_of_the_input() {
    row_or_column(true);
}

#[test]
fn an_update_specialized_on_the_size_of_its_domain() {
    let x = Var::new("x");
    let (start, size) = (Param::<i32>::new("start"), Param::<i32>::new("size"));
    let r = RDom::new([(start.expr(), size.expr())]);
    let f = Func::new("f");
    f.define(x, Expr::from(x)).unwrap();
    f.update(r.x(), 10 - r.x()).unwrap();
    f.update_stage(0).specialize(size.expr().eq_(1));
    f.update_stage(0).specialize(size.expr().eq_(0));
    for (s, n) in [(0, 1), (3, 0), (2, 5)] {
        let inputs = TestInputs::new().param(start.bind(s)).param(size.bind(n));
        let run = check(&f, &inputs, &[0], &[100]);
        let out = crate::i32_values(&run);
        for i in 0..100i64 {
            let want = if (s as i64..(s + n) as i64).contains(&i) {
                10 - i
            } else {
                i
            };
            assert_eq!(out.get(&[i]) as i64, want, "start {s}, size {n}, at {i}");
        }
    }
}
