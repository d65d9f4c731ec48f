//! Halide's `test/correctness/histogram.cpp`: the 256-bin histogram of a 128 x 128 f32 image
//! of integer values 0..=255, an update over an RDom covering the image that increments the
//! bin `clamp(int(in(r)), 0, 255)`, computed at the root and read at bins 10..20 by a
//! consumer; the ten bins are checked against a histogram counted in plain Rust, and the
//! histogram's storage is at most the 256 bins. (Halide's commented-out GPU schedule is left
//! out.)

use crate::lower_common::{check, u8_image, TestInputs};
use tessera::prelude::*;

#[test]
fn ten_bins_of_a_histogram_computed_at_the_root() {
    let (w, h) = (128, 128);
    let bytes = u8_image(&[0, 0], &[w, h], 0, 255, 9);
    let image = Buffer::<f32>::from_fn(&[0, 0], &[w, h], |p| bytes.get(p) as f32);
    let mut reference = [0i32; 256];
    for yy in 0..h {
        for xx in 0..w {
            reference[image.get(&[xx, yy]) as u8 as usize] += 1;
        }
    }
    let input = ImageParam::new(Type::f32(), 2, "in");
    let x = Var::new("x");
    let r = RDom::new([
        (input.min(0), input.extent(0)),
        (input.min(1), input.extent(1)),
    ]);
    let hist = Func::new("hist");
    hist.define(x, 0).unwrap();
    let bin = clamp(cast_to::<i32>(input.at((r.x(), r.y()))), 0, 255);
    hist.update(bin.clone(), hist.at(bin) + 1).unwrap();
    hist.compute_root();
    let g = Func::new("g");
    g.define(x, hist.at(x + 10)).unwrap();
    let run = check(&g, &TestInputs::new().image(&input, image), &[0], &[10]);
    let AnyBuffer::I32(out) = &run.realization.buffers[0] else {
        panic!("g is i32");
    };
    for i in 10..20 {
        assert_eq!(out.get(&[i - 10]), reference[i as usize], "bucket {i}");
    }
    // The update can write any of the 256 bins, so hist covers them all, and no more.
    let bins = run.allocation("hist");
    assert!(bins <= 256, "hist allocates {bins} bins");
}
