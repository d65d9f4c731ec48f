//! Halide's `test/correctness/convolution_multiple_kernels.cpp`: a 3 x 3 convolution with
//! two kernels of different types (u16 and u32, both computed at root) summed by inline
//! reductions, of a clamped 64 x 16 u16 image. The values away from the border are checked
//! with plain Rust, as Halide does. The GPU and HVX schedules are left out.

use crate::lower_common::{check, u8_image, TestInputs};
use tessera::prelude::*;

#[test]
fn two_kernels_of_different_types() {
    const W: i64 = 64;
    const H: i64 = 16;
    let in_img = ImageParam::new(Type::u16(), 2, "in");
    let bytes = u8_image(&[0, 0], &[W, H], 0, 255, 3);
    let image = Buffer::<u16>::from_fn(&[0, 0], &[W, H], |c| u16::from(bytes.get(c)));
    let (x, y) = (Var::new("x"), Var::new("y"));
    let input = Func::new("input");
    input
        .define(
            (x, y),
            in_img.at((clamp(x, 0, W as i32 - 1), clamp(y, 0, H as i32 - 1))),
        )
        .unwrap();
    input.compute_root();
    let box1 = Func::new("box1");
    box1.define((x, y), cast(Type::u16(), 1)).unwrap();
    let box2 = Func::new("box2");
    box2.define((x, y), cast(Type::u32(), 2)).unwrap();
    box1.compute_root();
    box2.compute_root();
    let r = RDom::named("r", [(-1, 3), (-1, 3)]);
    let (rx, ry) = (r.x(), r.y());
    let tap = input.at((x + rx.clone(), y + ry.clone()));
    let blur = Func::new("blur");
    blur.define(
        (x, y),
        sum(box1.at((rx.clone(), ry.clone())) * tap.clone())
            + sum(cast(Type::u16(), box2.at((rx, ry))) * tap),
    )
    .unwrap();
    let run = check(
        &blur,
        &TestInputs::new().image(&in_img, image.clone()),
        &[0, 0],
        &[W, H],
    );
    let AnyBuffer::U16(out) = &run.realization.buffers[0] else {
        panic!("blur is u16");
    };
    for yy in 2..H - 2 {
        for xx in 2..W - 2 {
            let window: u16 = (-1..=1)
                .flat_map(|dy| (-1..=1).map(move |dx| (dx, dy)))
                .map(|(dx, dy)| image.get(&[xx + dx, yy + dy]))
                .sum();
            assert_eq!(out.get(&[xx, yy]), window * 3, "at ({xx}, {yy})");
        }
    }
}
