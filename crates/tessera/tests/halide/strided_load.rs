//! Halide's `test/correctness/strided_load.cpp`: vectorized stride-2 loads at the very end of
//! an image (`f(x) = im(2x)`, 849 points of a 1697-point image, vectorized by 16) must not
//! read past it, and from an internal allocation (`g(x) = f(2x)`, 425 points) likewise.
//! Halide's test only runs it (valgrind would catch an overread); here the output is checked
//! and every load of the native code is bounds-checked (`check` compiles in checked mode).

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn stride_two_vector_loads_stay_inside_their_buffers() {
    let im = ImageParam::new(Type::i8(), 1, "im");
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, im.at(2 * x)).unwrap();
    f.compute_root().vectorize(x, 16).bound(x, 0, 849);
    let g = Func::new("g");
    g.define(x, f.at(2 * x)).unwrap();
    g.compute_root().vectorize(x, 16).bound(x, 0, 425);
    let image = Buffer::<i8>::from_fn(&[0], &[1697], |p| (p[0] % 251) as i8);
    let run = check(&g, &TestInputs::new().image(&im, image), &[0], &[425]);
    let AnyBuffer::I8(out) = &run.realization.buffers[0] else {
        panic!("g is i8");
    };
    for i in 0..425 {
        assert_eq!(out.get(&[i]), ((4 * i) % 251) as i8, "g({i})");
    }
}
