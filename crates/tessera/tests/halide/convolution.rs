//! Halide's `test/correctness/convolution.cpp`: a 3 x 3 tent filter over a clamped u16 image
//! (values below 256), written two ways — an update that accumulates over an RDom covering
//! the kernel's buffer, its pure stage tiled 6 x 6 and its update tiled 4 x 4, vectorized
//! and parallel; and an inline `sum`, vectorized by 4 and parallel — both checked on the
//! interior against the weighted sum in plain Rust, at Halide's size (128 x 48). Halide's GPU
//! and HVX schedules are left out; a CPU analogue of the GPU schedule of the update (kernel
//! loops outermost, image loops tiled and parallel inside them) is checked too. The inline
//! sum also runs parallel but not vectorized.

use crate::lower_common::{check, u16_image, TestInputs};
use tessera::lang::stage::DimName;
use tessera::prelude::*;

const W: i64 = 128;
const H: i64 = 48;

/// The clamped input, the tent kernel and the images bound to them.
struct Setup {
    input: Func,
    tent: ImageParam,
    image: Buffer<u16>,
    inputs: TestInputs,
}

const WEIGHTS: [[u16; 3]; 3] = [[1, 2, 1], [2, 4, 2], [1, 2, 1]];

fn setup() -> Setup {
    let input_image = ImageParam::new(Type::u16(), 2, "in");
    let tent = ImageParam::new(Type::u16(), 2, "tent");
    // 12-bit values masked to 8 bits, like Halide's `rand() & 0xff`.
    let mut image = u16_image(&[0, 0], &[W, H], 7);
    image.data_mut().iter_mut().for_each(|v| *v &= 0xff);
    let tent_image =
        Buffer::<u16>::from_fn(&[0, 0], &[3, 3], |p| WEIGHTS[p[0] as usize][p[1] as usize]);
    let (x, y) = (Var::new("x"), Var::new("y"));
    let input = Func::new("input");
    input
        .define(
            (x, y),
            input_image.at((clamp(x, 0, W as i32 - 1), clamp(y, 0, H as i32 - 1))),
        )
        .unwrap();
    input.compute_root();
    let inputs = TestInputs::new()
        .image(&input_image, image.clone())
        .image(&tent, tent_image);
    Setup {
        input,
        tent,
        image,
        inputs,
    }
}

/// The kernel's RDom (which must outlive the definitions using it) and the term
/// `tent(r) * input(x + r - 1)`.
fn term(s: &Setup, x: Var, y: Var) -> (RDom, Expr) {
    let r = RDom::new([
        (s.tent.min(0), s.tent.extent(0)),
        (s.tent.min(1), s.tent.extent(1)),
    ]);
    let t = s.tent.at((r.x(), r.y())) * s.input.at((x + r.x() - 1, y + r.y() - 1));
    (r, t)
}

fn check_blur(s: &Setup, blur: &Func) {
    let run = check(blur, &s.inputs, &[0, 0], &[W, H]);
    let AnyBuffer::U16(out) = &run.realization.buffers[0] else {
        panic!("{} is u16", blur.name());
    };
    for yy in 1..H - 1 {
        for xx in 1..W - 1 {
            let mut correct = 0u16;
            for (dx, column) in WEIGHTS.iter().enumerate() {
                for (dy, w) in column.iter().enumerate() {
                    correct += w * s.image.get(&[xx + dx as i64 - 1, yy + dy as i64 - 1]);
                }
            }
            assert_eq!(out.get(&[xx, yy]), correct, "{}({xx}, {yy})", blur.name());
        }
    }
}

#[test]
fn an_update_over_the_kernel_tiled_vectorized_and_parallel() {
    let s = setup();
    let (x, y) = (Var::new("x"), Var::new("y"));
    let blur1 = Func::new("blur1");
    blur1
        .define((x, y), Expr::make_const(Type::u16(), 0))
        .unwrap();
    let (_r, t) = term(&s, x, y);
    blur1.update((x, y), blur1.at((x, y)) + t).unwrap();
    blur1.tile_in_place(x, y, "xi", "yi", 6, 6);
    blur1
        .update_stage(0)
        .tile_in_place(x, y, "xi", "yi", 4, 4)
        .vectorize_loop(DimName::from("xi"))
        .parallel(y);
    check_blur(&s, &blur1);
}

/// The CPU analogue of Halide's GPU schedule: the update's kernel loops outermost, the image
/// loops inside them tiled 16 x 16 with the tile rows parallel (Halide's GPU blocks).
#[test]
fn an_update_with_the_kernel_loops_outermost() {
    let s = setup();
    let (x, y) = (Var::new("x"), Var::new("y"));
    let blur1 = Func::new("blur1");
    blur1
        .define((x, y), Expr::make_const(Type::u16(), 0))
        .unwrap();
    let (r, t) = term(&s, x, y);
    blur1.update((x, y), blur1.at((x, y)) + t).unwrap();
    blur1.tile_in_place(x, y, "xi", "yi", 16, 16).parallel(y);
    blur1
        .update_stage(0)
        .reorder((x, y, r.x(), r.y()))
        .tile_in_place(x, y, "xi", "yi", 16, 16)
        .parallel(y);
    check_blur(&s, &blur1);
}

#[test]
fn an_inline_sum_vectorized_and_parallel() {
    let s = setup();
    let (x, y) = (Var::new("x"), Var::new("y"));
    let blur2 = Func::new("blur2");
    let (_r, t) = term(&s, x, y);
    blur2.define((x, y), sum(t)).unwrap();
    blur2.vectorize(x, 4).parallel(y);
    check_blur(&s, &blur2);
}

#[test]
fn an_inline_sum_parallel() {
    let s = setup();
    let (x, y) = (Var::new("x"), Var::new("y"));
    let blur2 = Func::new("blur2");
    let (_r, t) = term(&s, x, y);
    blur2.define((x, y), sum(t)).unwrap();
    blur2.parallel(y);
    check_blur(&s, &blur2);
}
