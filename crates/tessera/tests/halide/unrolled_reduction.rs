//! Halide's `test/correctness/unrolled_reduction.cpp`: a reduction over an input of 32 values,
//! computed per row of its consumer with its RVar split by 2 and the inner half unrolled,
//! and the consumer's z loop unrolled by 2. Halide's test only realizes it (64x64x4); this
//! realizes 16x16x4 and checks the values: `f(x, y, z) = g(x) + g(x + 1)` with `g(x)` the
//! input at x inside [0, 32) and 0 outside.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn a_reduction_with_an_unrolled_split_rvar() {
    let noise = ImageParam::new(Type::f32(), 1, "noise");
    let data = Buffer::<f32>::from_fn(&[0], &[32], |c| ((c[0] * 37 % 101) as f32) / 101.0);
    let (x, y, z) = (Var::new("x"), Var::new("y"), Var::new("z"));
    let r = RDom::new([(0, 32)]);
    let g = Func::new("g");
    g.define((x, y), 0.0f32).unwrap();
    g.update((r.x().expr(), y.expr()), g.at((r.x(), y)) + noise.at(r.x()))
        .unwrap();
    let f = Func::new("f");
    f.define((x, y, z), g.at((x, y)) + g.at((x + 1, y)))
        .unwrap();
    g.compute_at(&f, y);
    g.update_stage(0)
        .split(r.x(), "rxo", "rxi", 2)
        .unroll_loop("rxi");
    f.unroll(z, 2);
    let run = check(
        &f,
        &TestInputs::new().image(&noise, data.clone()),
        &[0, 0, 0],
        &[16, 16, 4],
    );
    let AnyBuffer::F32(out) = &run.realization.buffers[0] else {
        panic!("f is f32");
    };
    let g_ref = |x: i64| {
        if (0..32).contains(&x) {
            data.get(&[x])
        } else {
            0.0
        }
    };
    out.for_each_coord(|p| {
        assert_eq!(out.get(p), g_ref(p[0]) + g_ref(p[0] + 1), "f{p:?}");
    });
}
