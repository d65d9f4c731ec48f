//! Halide's `test/correctness/constant_type.cpp`: a Func defined as `cast<T>(1)` has type
//! `T` (and realizes to ones), and adding the integer literal 1 to a value of type `T`, on
//! either side, keeps type `T`, for u8, u16, u32, i8, i16, i32, f32 and f64. Halide adds
//! the literal to the realized buffer; here the buffer is the input of a second pipeline
//! (an ImageParam of type `T`), whose sums are realized and checked to be 2.

use crate::lower_common::{check, TestInputs};
use crate::realize;
use tessera::prelude::*;

fn check_type<T: Scalar>(one: T, two: T) {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, cast_to::<T>(1)).unwrap();
    assert_eq!(f.output_type(), Some(T::TYPE), "f = cast<{}>(1)", T::TYPE);
    let run = realize(&f, &[10]);
    let ones = &run.realization.buffers[0];
    assert_eq!(ones.ty(), T::TYPE);
    for i in 0..10 {
        assert_eq!(T::from_value(ones.get_value(&[i])), one, "f({i})");
    }

    let im = ImageParam::new(T::TYPE, 1, "im");
    let add_one = im.at(x) + 1;
    assert_eq!(add_one.ty(), T::TYPE, "im(x) + 1 changed the type");
    let one_add = 1 + im.at(x);
    assert_eq!(one_add.ty(), T::TYPE, "1 + im(x) changed the type");
    let g = Func::new("g");
    g.define(x, Tuple(vec![add_one, one_add])).unwrap();
    let run = check(&g, &TestInputs::new().image(&im, ones.clone()), &[0], &[10]);
    for b in &run.realization.buffers {
        assert_eq!(b.ty(), T::TYPE);
        for i in 0..10 {
            assert_eq!(T::from_value(b.get_value(&[i])), two, "g({i})");
        }
    }
}

#[test]
fn adding_one_keeps_the_type() {
    check_type::<u8>(1, 2);
    check_type::<u16>(1, 2);
    check_type::<u32>(1, 2);
    check_type::<i8>(1, 2);
    check_type::<i16>(1, 2);
    check_type::<i32>(1, 2);
    check_type::<f32>(1.0, 2.0);
    check_type::<f64>(1.0, 2.0);
}
