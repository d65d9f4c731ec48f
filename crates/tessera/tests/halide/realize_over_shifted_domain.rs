//! Halide's `test/correctness/realize_over_shifted_domain.cpp`: an input over [100, 200) x
//! [50, 100) read at `(2x, y / 2)` by an output realized over [50, 100) x [100, 200). Halide
//! checks the two corners; here every point is checked.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn an_input_and_an_output_away_from_the_origin() {
    let data = Buffer::<i32>::from_fn(&[100, 50], &[100, 50], |p| match (p[0], p[1]) {
        (100, 50) => 123,
        (198, 99) => 234,
        (x, y) => (x * 1000 + y) as i32,
    });
    let input = ImageParam::new(Type::i32(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), input.at((x * 2, y / 2))).unwrap();
    let run = check(
        &f,
        &TestInputs::new().image(&input, data.clone()),
        &[50, 100],
        &[50, 100],
    );
    let out = crate::i32_output(&run, 0);
    assert_eq!((out.get(&[50, 100]), out.get(&[99, 199])), (123, 234));
    crate::assert_i32_output(&run, 0, |p| i64::from(data.get(&[2 * p[0], p[1] / 2])));
}
