//! Halide's `test/correctness/constraints.cpp`: constraints on buffers are checked at run
//! time — an input promised to span [0, 128) in x is accepted when it does and rejected when
//! it spans [0, 144); an output whose x stride is constrained to 2 is rejected for a dense
//! buffer; an output constrained to stride 1, an x extent that is a multiple of 8 and the
//! image's height is accepted. Halide catches the errors with a custom error handler; here
//! realizing returns them.
//! Each error names the buffer, the dimension and the constraint broken.

use crate::lower_common::{try_check, TestInputs};
use tessera::prelude::*;

#[test]
fn an_input_constrained_to_its_bounds() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let param = ImageParam::new(Type::i32(), 2, "param");
    let f = Func::new("f");
    f.define((x, y), param.at((x, y)) * 2).unwrap();
    param.dim(0).set_bounds(0, 128);
    let image = |w: i64, h: i64| Buffer::<i32>::from_fn(&[0, 0], &[w, h], |c| (c[0] + c[1]) as i32);
    let fits = TestInputs::new().image(&param, image(128, 73));
    let run = try_check(&f, &fits, &[0, 0], &[20, 20]).unwrap();
    let out = crate::i32_values(&run);
    out.for_each_coord(|p| assert_eq!(out.get(p) as i64, (p[0] + p[1]) * 2, "f{p:?}"));
    let breaks = TestInputs::new().image(&param, image(144, 23));
    let Err(error) = try_check(&f, &breaks, &[0, 0], &[20, 20]) else {
        panic!("the constraint is broken");
    };
    assert!(
        error.contains("input `param` breaks a constraint: its extent in dimension 0 is 144, but it must be 128"),
        "{error}"
    );
}

#[test]
fn an_output_constrained_to_stride_2() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let g = Func::new("g");
    g.define((x, y), x * y).unwrap();
    g.output_buffer().dim(0).set_stride(2);
    let Err(error) = try_check(&g, &TestInputs::new(), &[0, 0], &[128, 73]) else {
        panic!("the constraint is broken");
    };
    assert!(
        error.contains(
            "output `g` breaks a constraint: its stride in dimension 0 is 1, but it must be 2"
        ),
        "{error}"
    );
}

#[test]
fn an_output_constrained_to_its_buffer() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let h = Func::new("h");
    h.define((x, y), x * y).unwrap();
    let out = h.output_buffer();
    out.dim(0)
        .set_stride(1)
        .set_bounds(0, (out.dim(0).extent() / 8) * 8);
    out.dim(1).set_bounds(0, 73);
    let run = try_check(&h, &TestInputs::new(), &[0, 0], &[128, 73]).unwrap();
    let values = crate::i32_values(&run);
    values.for_each_coord(|p| assert_eq!(values.get(p) as i64, p[0] * p[1], "h{p:?}"));
    // 127 is not a multiple of 8: the same constraint refuses it.
    let Err(error) = try_check(&h, &TestInputs::new(), &[0, 0], &[127, 73]) else {
        panic!("the constraint is broken");
    };
    assert!(
        error.contains(
            "output `h` breaks a constraint: its extent in dimension 0 is 127, but it must be"
        ),
        "{error}"
    );
}
