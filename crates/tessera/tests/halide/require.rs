//! Halide's `test/correctness/require.cpp`: `require(condition, value, message...)` fails
//! the realization with the message where the condition does not hold and is the value
//! where it does: Params that must add up to a prime (scalar, and vectorized by 4 and 32
//! with the sum computed at root), and a boundary condition whose extent requires two
//! Params to be equal. Each failure is checked on every backend, each success's values
//! against plain Rust.

use crate::lower_common::{check, errors_of_every_backend, TestInputs};
use tessera::prelude::*;

const PRIME1: i32 = 7829;
const PRIME2: i32 = 7919;

fn params() -> (Param<i32>, Param<i32>) {
    (Param::new("p1"), Param::new("p2"))
}

/// `f(x) = require(s(x) == PRIME1, s(x) * PRIME2 + x, ...)` with `s(x) = p1 + p2`.
fn requirement_on_params(vector_width: i64) {
    let (p1, p2) = params();
    let x = Var::new("x");
    let (s, f) = (Func::new("s"), Func::new("f"));
    s.define(x, p1.expr() + p2.expr()).unwrap();
    f.define(
        x,
        require(
            s.at(x).eq_(PRIME1),
            s.at(x) * PRIME2 + x,
            &[
                "The parameters should add to exactly".into(),
                Expr::from(PRIME1).into(),
                "but were".into(),
                s.at(x).into(),
                "for vector_width".into(),
                Expr::from(vector_width as i32).into(),
            ],
        ),
    )
    .unwrap();
    if vector_width > 0 {
        s.vectorize(x, vector_width as i32).compute_root();
        f.vectorize(x, vector_width as i32);
    }
    let width = vector_width.max(1);
    let failing = TestInputs::new().param(p1.bind(1)).param(p2.bind(2));
    for error in errors_of_every_backend(&f, &failing, &[0], &[width]) {
        assert!(
            error.contains(&format!(
                "The parameters should add to exactly 7829 but were 3 for vector_width {vector_width}"
            )) || error.contains("[3, 3"),
            "{error}"
        );
        assert!(error.contains("requirement failed"), "{error}");
    }
    let passing = TestInputs::new()
        .param(p1.bind(1))
        .param(p2.bind(PRIME1 - 1));
    let run = check(&f, &passing, &[0], &[width]);
    let AnyBuffer::I32(out) = &run.realization.buffers[0] else {
        panic!("f is i32");
    };
    for i in 0..width {
        let want = PRIME1.wrapping_mul(PRIME2) + i as i32;
        assert_eq!(out.get(&[i]), want, "f({i}), vector width {vector_width}");
    }
}

#[test]
fn a_requirement_on_params() {
    for vector_width in [0, 4, 32] {
        requirement_on_params(vector_width);
    }
}

#[test]
fn a_requirement_in_a_boundary_condition_extent() {
    let (p1, p2) = params();
    let input = ImageParam::new(Type::i32(), 2, "input");
    let h = require(p1.expr().eq_(p2.expr()), p1.expr(), &[]);
    // Halide's repeat_edge of an image over explicit bounds: of a Func reading it here.
    let (x, y) = (Var::new("x"), Var::new("y"));
    let source = Func::new("source");
    source.define((x, y), input.at((x, y))).unwrap();
    let clamped =
        repeat_edge_with_bounds(&source, &[(0.into(), 64.into()), (0.into(), h)]).unwrap();
    let image = Buffer::<i32>::from_fn(&[0, 0], &[64, 64], |_| 0);
    let failing = TestInputs::new()
        .image(&input, image.clone())
        .param(p1.bind(16))
        .param(p2.bind(15));
    for error in errors_of_every_backend(&clamped, &failing, &[0, 0], &[64, 3]) {
        assert!(error.contains("requirement failed"), "{error}");
    }
    let passing = TestInputs::new()
        .image(&input, image)
        .param(p1.bind(16))
        .param(p2.bind(16));
    let run = check(&clamped, &passing, &[0, 0], &[64, 3]);
    let AnyBuffer::I32(out) = &run.realization.buffers[0] else {
        panic!("clamped is i32");
    };
    out.for_each_coord(|q| assert_eq!(out.get(q), 0, "clamped{q:?}"));
}
