//! Halide's `test/correctness/obscure_image_references.cpp`: images referenced only through
//! their width (`f(x) = x + im1.width()`) and through a value read at a Param coordinate in
//! an RDom's extent (`RDom r(0, clamp(im2(j), 0, 99))`, then `f(r) = 37`). With a 20-wide
//! im1 and `im2(3) = 10`, `f(i)` is 37 below 10 and `i + 20` above. Halide's im2 is a buffer
//! embedded in the pipeline; here it is a second ImageParam.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn an_image_width_and_an_image_value_in_an_rdom_extent() {
    let im1 = ImageParam::new(Type::u8(), 1, "im1");
    let im2 = ImageParam::new(Type::u8(), 1, "im2");
    let j = Param::<i32>::new("j");
    assert_eq!((im1.dimensions(), im2.dimensions()), (1, 1));
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, x + im1.width()).unwrap();
    let r = RDom::new([(
        Expr::from(0),
        clamp(cast(Type::i32(), im2.at(j.expr())), 0, 99),
    )]);
    f.update(r.x(), 37).unwrap();
    let im2_data = Buffer::<u8>::from_fn(&[0], &[10], |p| if p[0] == 3 { 10 } else { 0 });
    let inputs = TestInputs::new()
        .image(&im1, Buffer::<u8>::new(&[20]))
        .image(&im2, im2_data)
        .param(j.bind(3));
    let run = check(&f, &inputs, &[0], &[100]);
    crate::assert_i32_output(&run, 0, |p| if p[0] < 10 { 37 } else { p[0] + 20 });
}
