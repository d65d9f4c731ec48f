//! Loop-structure directives against the evaluator: vectorize (with widths that do not
//! divide the extent), unroll (also of loops whose extent is only bounded by a constant),
//! fuse, reorder, tile and parallel (each parallel schedule run under several iteration
//! orders), and the boundary conditions under vectorized and
//! parallel schedules (Halide's boundary_conditions, vectorize_nested, vector_cast); `mux`
//! and fixed-point `lerp` vectorized, against plain Rust.

mod lower_common;

use lower_common::{check, u16_image, TestInputs};
use tessera::lang::schedule::TailStrategy;
use tessera::prelude::*;

/// A two-stage pipeline with a stencil and a cast: `g(x, y) = f32(input(x, y)) * 0.5`,
/// `out(x, y) = u16(g(x - 1, y) + g(x + 1, y + 1)) + y`, over an input big enough.
struct Stencil {
    input: ImageParam,
    g: Func,
    out: Func,
    x: Var,
    y: Var,
}

fn stencil() -> Stencil {
    let input = ImageParam::new(Type::u16(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let g = Func::new("g");
    g.define((x, y), cast_to::<f32>(input.at((x, y))) * 0.5f32)
        .unwrap();
    let out = Func::new("out");
    out.define(
        (x, y),
        cast_to::<u16>(g.at((x - 1, y)) + g.at((x + 1, y + 1))) + cast_to::<u16>(y),
    )
    .unwrap();
    Stencil {
        input,
        g,
        out,
        x,
        y,
    }
}

const MINS: [i64; 2] = [-4, 7];
const EXTENTS: [i64; 2] = [19, 6];

fn run(s: &Stencil) -> lower_common::Checked {
    let image = u16_image(&[-5, 7], &[21, 7], 3);
    check(
        &s.out,
        &TestInputs::new().image(&s.input, image),
        &MINS,
        &EXTENTS,
    )
}

#[test]
fn vectorize_widths_that_do_not_divide_the_extent() {
    for width in [2, 3, 4, 5, 8, 16] {
        let s = stencil();
        s.out.vectorize(s.x, width);
        s.g.compute_root().vectorize(s.x, width);
        let c = run(&s);
        // ShiftInwards keeps full vectors: ceil(19 / w) vectors per row of out.
        let vectors = (EXTENTS[0] + width as i64 - 1) / width as i64;
        assert_eq!(
            c.stores("out"),
            (vectors * width as i64 * EXTENTS[1]) as u64,
            "width {width}"
        );
    }
}

#[test]
fn vectorize_wider_than_the_extent_with_a_guard() {
    let s = stencil();
    s.out
        .split_with_tail(s.y, s.y, "yv", 8, TailStrategy::GuardWithIf)
        .vectorize_loop("yv");
    s.g.compute_at(&s.out, s.y)
        .split_with_tail(s.x, s.x, "xv", 32, TailStrategy::GuardWithIf)
        .vectorize_loop("xv");
    let c = run(&s);
    assert_eq!(c.stores("out"), (EXTENTS[0] * EXTENTS[1]) as u64);
}

#[test]
fn vectorize_an_outer_loop() {
    // The lanes run across rows, with the x loop inside the vectorized loop.
    let s = stencil();
    s.out
        .split_with_tail(s.y, "yo", "yv", 4, TailStrategy::GuardWithIf)
        .reorder((s.x, "yv", "yo"))
        .vectorize_loop("yv");
    s.g.compute_root();
    run(&s);
}

#[test]
fn unroll_with_and_without_tails() {
    for factor in [2, 3, 5] {
        let s = stencil();
        s.out.unroll(s.x, factor).unroll(s.y, 2);
        s.g.compute_at(&s.out, s.y).unroll(s.x, factor);
        run(&s);
    }
    let s = stencil();
    s.out
        .split(s.x, s.x, "xi", 4)
        .unroll_loop("xi")
        .vectorize(s.x, 2);
    run(&s);
}

#[test]
fn unroll_and_vectorize_a_producer_over_the_guarded_pieces_of_a_split() {
    // g, computed per 8-wide piece of a GuardWithIf split of out, needs 10 points per piece
    // but fewer in the last one: its loop's extent is not a constant, only bounded by 10.
    // Widths below, at, and past one piece, with a short last piece or none.
    for unroll in [true, false] {
        for width in [1, 5, 8, 13, 16, 19] {
            let s = stencil();
            s.out
                .split_with_tail(s.x, "xo", "xi", 8, TailStrategy::GuardWithIf);
            let g = s.g.compute_at(&s.out, "xo");
            if unroll {
                g.unroll_loop(s.x);
            } else {
                g.vectorize_loop(s.x);
            }
            let image = u16_image(&[-5, 7], &[width + 2, 7], 3);
            check(
                &s.out,
                &TestInputs::new().image(&s.input, image),
                &[-4, 7],
                &[width, 6],
            );
        }
    }
}

#[test]
fn fuse_the_output_dimensions() {
    // The fused loop's extent is symbolic, so the bounds of x and y come from a division and
    // a remainder by it; the output must still be covered exactly.
    let s = stencil();
    s.out.fuse(s.x, s.y, "xy");
    s.g.compute_root();
    let c = run(&s);
    assert_eq!(c.stores("out"), (EXTENTS[0] * EXTENTS[1]) as u64);

    let s = stencil();
    s.out
        .fuse(s.x, s.y, "xy")
        .split_with_tail("xy", "xyo", "xyi", 7, TailStrategy::GuardWithIf)
        .parallel("xyo");
    s.g.compute_at(&s.out, "xyo").vectorize(s.x, 4);
    run(&s);
}

#[test]
fn fuse_and_vectorize_a_producer() {
    let s = stencil();
    s.g.compute_root().fuse(s.x, s.y, "xy").vectorize("xy", 8);
    let c = run(&s);
    // g covers 21 × 7 points; the fused loop of 147 is vectorized by 8 with ShiftInwards.
    assert_eq!(c.stores("g"), 19 * 8);
}

#[test]
fn reorder_loops_of_producer_and_consumer() {
    let s = stencil();
    s.out.reorder((s.y, s.x));
    s.g.store_root().compute_at(&s.out, s.x).reorder((s.y, s.x));
    let c = run(&s);
    // Sliding along x (the outer loop of out): each point of g is computed once.
    assert_eq!(c.stores("g"), 21 * 7);
}

#[test]
fn tile_parallel_and_vectorize_together() {
    let s = stencil();
    s.out
        .tile(s.x, s.y, "xo", "yo", "xi", "yi", 8, 4)
        .fuse("xo", "yo", "tile")
        .parallel("tile")
        .vectorize("xi", 4);
    s.g.compute_at(&s.out, "tile").vectorize(s.x, 4);
    run(&s);
}

#[test]
fn parallel_at_every_level() {
    for level in 0..3 {
        let s = stencil();
        s.out.split(s.y, "yo", "yi", 2).parallel(s.x);
        match level {
            0 => s.out.parallel("yo"),
            1 => s.out.parallel("yi"),
            _ => s.out.parallel("yo").parallel("yi"),
        };
        s.g.compute_at(&s.out, "yi").parallel(s.y);
        run(&s);
    }
}

#[test]
fn producer_stored_inside_a_parallel_loop_computed_deeper() {
    let s = stencil();
    s.out.parallel(s.y);
    s.g.store_at(&s.out, s.y).compute_at(&s.out, s.x);
    let c = run(&s);
    // Per row, g slides along x: 2 columns for the first point, then 1 new column of 2 rows.
    assert_eq!(c.allocations("g"), EXTENTS[1] as u64);
    assert_eq!(c.stores("g"), (EXTENTS[1] * 2 * (EXTENTS[0] + 2)) as u64);
}

/// `out(x, y) = bc(x - 1, y) + bc(x + 2, y - 1) * 2` over a box extending past a small input
/// on every side, for a boundary condition `bc` on an input of type `T`.
fn check_boundary<T: Scalar>(
    condition: &str,
    make: impl Fn(&ImageParam) -> Func,
    schedule: usize,
    value: impl Fn(i64) -> T,
) where
    Buffer<T>: Into<AnyBuffer>,
{
    let input = ImageParam::new(T::TYPE, 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let bc = make(&input);
    let out = Func::new("out");
    out.define((x, y), bc.at((x - 1, y)) + bc.at((x + 2, y - 1)) * 2)
        .unwrap();
    match schedule {
        0 => {
            out.vectorize(x, 8);
        }
        1 => {
            out.vectorize(x, 4).parallel(y);
            bc.compute_root().vectorize(bc.args()[0], 8);
        }
        2 => {
            out.split_with_tail(x, x, "xv", 16, TailStrategy::GuardWithIf)
                .vectorize_loop("xv");
            bc.compute_at(&out, y).vectorize(bc.args()[0], 3);
        }
        _ => {
            out.tile(x, y, "xo", "yo", "xi", "yi", 4, 4)
                .vectorize("xi", 4)
                .parallel("yo");
            bc.compute_at(&out, "xo");
        }
    }
    let mut k = 0;
    let image = Buffer::<T>::from_fn(&[2, -1], &[5, 4], |_| {
        k += 1;
        value(k)
    });
    let inputs = TestInputs::new().image(&input, image);
    lower_common::try_check(&out, &inputs, &[-6, -5], &[20, 13])
        .unwrap_or_else(|e| panic!("{condition} with schedule {schedule}: {e}"));
}

#[test]
fn boundary_conditions_under_vectorized_schedules() {
    type Condition = (&'static str, fn(&ImageParam) -> Func);
    let conditions: [Condition; 5] = [
        ("repeat_edge", repeat_edge),
        ("repeat_image", repeat_image),
        ("mirror_image", mirror_image),
        ("mirror_interior", mirror_interior),
        ("constant_exterior", |i| {
            if i.ty().is_float() {
                constant_exterior(i, 0.25f32).unwrap()
            } else {
                constant_exterior(i, 9).unwrap()
            }
        }),
    ];
    for (name, make) in conditions {
        for schedule in 0..4 {
            check_boundary::<u8>(name, make, schedule, |k| (k * 37 % 256) as u8);
            check_boundary::<i16>(name, make, schedule, |k| (k * 1001 % 3000 - 1500) as i16);
            check_boundary::<f32>(name, make, schedule, |k| k as f32 * 0.375 - 3.0);
        }
    }
}

/// `mux` with an index that varies across the lanes of a vector, negative and past the end
/// included, against plain Rust: `values[i]`, and the last value for any other i.
#[test]
fn mux_vectorized_over_its_index() {
    let input = ImageParam::new(Type::u8(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let out = Func::new("out");
    let index = x % 5 - 1 + y;
    out.define(
        (x, y),
        mux(
            index,
            [input.at((x, y)), input.at((x, y)) / 2, Expr::from(200)],
        ),
    )
    .unwrap();
    out.vectorize(x, 8);
    let image = lower_common::u8_image(&[0, 0], &[32, 4], 0, 255, 5);
    let run = check(
        &out,
        &TestInputs::new().image(&input, image.clone()),
        &[0, 0],
        &[32, 4],
    );
    for yv in 0..4i64 {
        for xv in 0..32i64 {
            let v = image.get(&[xv, yv]);
            let want = match xv % 5 - 1 + yv {
                0 => v,
                1 => v / 2,
                _ => 200,
            };
            let got = run.realization.buffers[0].get_value(&[xv, yv]);
            // The u8 values and the i32 200 meet in i32.
            assert_eq!(got, Value::Int(i64::from(want)), "({xv}, {yv})");
        }
    }
}

/// `lerp` with fixed-point weights varying across the lanes of a vector, on u8 and i16
/// values, against the blend computed in f64 and rounded to nearest (there are no ties).
#[test]
fn fixed_point_lerp_vectorized() {
    let input = ImageParam::new(Type::u8(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let weight = cast_to::<u8>(x * 37 + y * 11);
    let (a, b) = (input.at((x, y)), input.at((x + 1, y)));
    let bytes = Func::new("bytes");
    bytes
        .define((x, y), lerp(a.clone(), b.clone(), weight.clone()))
        .unwrap();
    bytes.vectorize(x, 16);
    let signed = |v: Expr| cast_to::<i16>(v) * 128 - 16384;
    let shorts = Func::new("shorts");
    shorts
        .define(
            (x, y),
            lerp(signed(a), signed(b), cast_to::<u16>(weight) * 200),
        )
        .unwrap();
    shorts.vectorize(x, 8);
    let image = lower_common::u8_image(&[0, 0], &[33, 4], 0, 255, 9);
    let inputs = TestInputs::new().image(&input, image.clone());
    let (bytes_run, shorts_run) = (
        check(&bytes, &inputs, &[0, 0], &[32, 4]),
        check(&shorts, &inputs, &[0, 0], &[32, 4]),
    );
    let blend = |a: f64, b: f64, w: f64, max: f64| (a * (max - w) + b * w) / max;
    for yv in 0..4i64 {
        for xv in 0..32i64 {
            let (av, bv) = (image.get(&[xv, yv]), image.get(&[xv + 1, yv]));
            let w = ((xv * 37 + yv * 11) & 255) as f64;
            let want = blend(f64::from(av), f64::from(bv), w, 255.0).round();
            let got = bytes_run.realization.buffers[0].get_value(&[xv, yv]);
            assert_eq!(got.as_f64(), want, "u8 at ({xv}, {yv})");
            let s = |v: u8| f64::from(v) * 128.0 - 16384.0;
            let want = blend(s(av), s(bv), w * 200.0, 65535.0).round();
            let got = shorts_run.realization.buffers[0].get_value(&[xv, yv]);
            assert_eq!(got.as_f64(), want, "i16 at ({xv}, {yv})");
        }
    }
}
