//! Halide's `test/correctness/bounds_of_cast.cpp`: an input indexed by a cast of x to a
//! narrow type is needed only over that type's range (`u8`: [0, 256), `i8`: [-128, 128),
//! and the same for 16 bits), whatever the output's size. Halide infers the input's bounds for
//! 12345 outputs from -1234 and checks them; here the input given covers exactly that
//! region (so Tessera must need no more) and the values are checked with plain Rust.

use crate::check_input_region;
use crate::lower_common::TestInputs;
use tessera::prelude::*;

/// Halide's output: 12345 points from -1234.
const OUTPUT: (i64, i64) = (-1234, 12345);

fn indexed_by_cast(ty: Type, name: &str) -> (Func, ImageParam) {
    let input = ImageParam::new(Type::i32(), 1, "input");
    let x = Var::new("x");
    let f = Func::new(name);
    f.define(x, input.at(cast(ty, x))).unwrap();
    (f, input)
}

#[test]
fn a_u8_index() {
    let (f, input) = indexed_by_cast(Type::u8(), "f1");
    check_input_region(&f, &input, TestInputs::new(), OUTPUT, (0, 256), |x| {
        x as u8 as i64
    });
}

#[test]
fn an_i8_index() {
    let (f, input) = indexed_by_cast(Type::i8(), "f2");
    check_input_region(&f, &input, TestInputs::new(), OUTPUT, (-128, 256), |x| {
        x as i8 as i64
    });
}

#[test]
fn a_u16_index() {
    let (f, input) = indexed_by_cast(Type::u16(), "f3");
    check_input_region(&f, &input, TestInputs::new(), OUTPUT, (0, 65536), |x| {
        x as u16 as i64
    });
}

#[test]
fn an_i16_index() {
    let (f, input) = indexed_by_cast(Type::i16(), "f4");
    check_input_region(
        &f,
        &input,
        TestInputs::new(),
        OUTPUT,
        (-32768, 65536),
        |x| x as i16 as i64,
    );
}
