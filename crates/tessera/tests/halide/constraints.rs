//! Halide's `test/correctness/constraints.cpp`: constraints on buffers are checked at run
//! time — an input promised to span [0, 128) in x is accepted when it does and rejected when
//! it spans [0, 144); an output whose x stride is constrained to 2 is rejected for a dense
//! buffer; an output constrained to stride 1, an x extent that is a multiple of 8 and the
//! image's height is accepted. Halide catches the errors with a custom error handler; here
//! realizing returns them.
//!
//! Tessera has no API to constrain a buffer's bounds or strides (`dim(d).set_bounds`,
//! `set_stride`), so every case is kept as an ignored test.

use crate::lower_common::{try_check, TestInputs};
use crate::missing_api;
use tessera::prelude::*;

#[test]
#[ignore = "no API to constrain an input's bounds (param.dim(0).set_bounds)"]
fn an_input_constrained_to_its_bounds() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let param = ImageParam::new(Type::i32(), 2, "param");
    let f = Func::new("f");
    f.define((x, y), param.at((x, y)) * 2).unwrap();
    missing_api("param.dim(0).set_bounds(0, 128)");
    let image = |w: i64, h: i64| Buffer::<i32>::from_fn(&[0, 0], &[w, h], |c| (c[0] + c[1]) as i32);
    let fits = TestInputs::new().image(&param, image(128, 73));
    assert!(try_check(&f, &fits, &[0, 0], &[20, 20]).is_ok());
    let breaks = TestInputs::new().image(&param, image(144, 23));
    assert!(try_check(&f, &breaks, &[0, 0], &[20, 20]).is_err());
}

#[test]
#[ignore = "no API to constrain an output's stride (output_buffer().dim(0).set_stride)"]
fn an_output_constrained_to_stride_2() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let g = Func::new("g");
    g.define((x, y), x * y).unwrap();
    missing_api("g.output_buffer().dim(0).set_stride(2)");
    assert!(try_check(&g, &TestInputs::new(), &[0, 0], &[128, 73]).is_err());
}

#[test]
#[ignore = "no API to constrain an output's stride and bounds (output_buffer().dim(d))"]
fn an_output_constrained_to_its_buffer() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let h = Func::new("h");
    h.define((x, y), x * y).unwrap();
    missing_api("h.output_buffer().dim(0).set_stride(1).set_bounds(0, extent / 8 * 8)");
    missing_api("h.output_buffer().dim(1).set_bounds(0, 73)");
    let run = try_check(&h, &TestInputs::new(), &[0, 0], &[128, 73]).unwrap();
    let out = crate::i32_values(&run);
    assert_eq!(out.get(&[127, 72]), 127 * 72);
}
