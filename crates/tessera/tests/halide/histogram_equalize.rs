//! Halide's `test/correctness/histogram_equalize.cpp`: the histogram of an 8-bit image with
//! a very biased histogram (values in [64, 191]), integrated into a cdf, remaps the image so
//! its own histogram is roughly flat: each of 16 buckets holds between half and twice its
//! share. Here the output is also checked value by value with plain Rust. The image is 100 x
//! 100 instead of 1000 x 1000.

use crate::lower_common::{check, u8_image, TestInputs};
use tessera::prelude::*;

#[test]
fn equalizing_a_biased_histogram() {
    const N: i64 = 100;
    let in_img = ImageParam::new(Type::u8(), 2, "in");
    let image = u8_image(&[0, 0], &[N, N], 64, 191, 17);
    let r = RDom::named(
        "r",
        [
            (Expr::from(0), in_img.width()),
            (Expr::from(0), in_img.height()),
        ],
    );
    let ri = RDom::named("ri", [(0, 255)]);
    let (x, y, i) = (Var::new("x"), Var::new("y"), Var::new("i"));
    let hist = Func::new("hist");
    hist.define(i, 0).unwrap();
    let bin = cast_to::<i32>(in_img.at((r.x(), r.y())));
    hist.update(bin.clone(), hist.at(bin) + 1).unwrap();
    let cdf = Func::new("cdf");
    cdf.define(i, 0).unwrap();
    cdf.update(ri.x(), cdf.at(ri.x() - 1) + hist.at(ri.x()))
        .unwrap();
    let equalized = Func::new("equalized");
    equalized
        .define((x, y), cdf.at(cast_to::<i32>(in_img.at((x, y)))))
        .unwrap();
    hist.compute_root();
    cdf.compute_root();
    let pixels = (N * N) as i32;
    let rescaled = Func::new("rescaled");
    rescaled
        .define(
            (x, y),
            cast(Type::u8(), (equalized.at((x, y)) * 256) / pixels),
        )
        .unwrap();
    let run = check(
        &rescaled,
        &TestInputs::new().image(&in_img, image.clone()),
        &[0, 0],
        &[N, N],
    );
    let AnyBuffer::U8(out) = &run.realization.buffers[0] else {
        panic!("rescaled is u8");
    };
    let mut counts = [0i64; 256];
    image.for_each_coord(|p| counts[image.get(p) as usize] += 1);
    // cdf(255) is never updated (ri covers [0, 255)).
    let mut cdf_values = [0i64; 256];
    for v in 0..255 {
        cdf_values[v] = if v == 0 { 0 } else { cdf_values[v - 1] } + counts[v];
    }
    let mut out_hist = [0i64; 16];
    image.for_each_coord(|p| {
        let want = ((cdf_values[image.get(p) as usize] * 256) / (N * N)) as u8;
        assert_eq!(out.get(p), want, "at {p:?}");
        out_hist[usize::from(want / 16)] += 1;
    });
    let correct = N * N / 16;
    for (bucket, &n) in out_hist.iter().enumerate() {
        assert!(
            n >= correct / 2 && n <= 2 * correct,
            "bucket {bucket} holds {n}, ~{correct}"
        );
    }
}
