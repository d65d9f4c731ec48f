//! Halide's `test/correctness/widening_reduction.cpp`: a 3 x 3 convolution of a u8 image
//! (edges repeated) with an i8 kernel over [-1, 1]², summed in i16 and narrowed by
//! `u8_sat(sum / 16)`; the same as a Tuple reduction of an i16 sum and an i8 sum of the
//! kernel; and a widening average of neighbours narrowed back to u8, into an output 2 points
//! narrower than the image. Each is vectorized by 16 (Halide: the natural vector size of u8;
//! its GPU and HVX schedules are left out). Halide checks the interior; here every point is
//! checked against plain Rust with the edges repeated. 64 x 64 instead of 256 x 256; Halide's
//! output-buffer bounds of the last case are the realized box here.

use crate::lower_common::{check, seeded_rng, TestInputs};
use rand::Rng;
use tessera::prelude::*;

const W: i64 = 64;
const H: i64 = 64;

struct Setup {
    kernel_param: ImageParam,
    input: Func,
    r: RDom,
    inputs: TestInputs,
    pixels: Buffer<u8>,
    kernel: Buffer<i8>,
}

fn setup() -> Setup {
    let mut rng = seeded_rng("widening_reduction", 256);
    let pixels = Buffer::<u8>::from_fn(&[0, 0], &[W, H], |_| rng.random::<u8>());
    let kernel = Buffer::<i8>::from_fn(&[-1, -1], &[3, 3], |_| rng.random_range(-4..4));
    let image = ImageParam::new(Type::u8(), 2, "in");
    let kernel_param = ImageParam::new(Type::i8(), 2, "kernel");
    let input = repeat_edge(&image);
    input.compute_root();
    let inputs = TestInputs::new()
        .image(&image, pixels.clone())
        .image(&kernel_param, kernel.clone());
    Setup {
        kernel_param,
        input,
        r: RDom::new([(-1, 3), (-1, 3)]),
        inputs,
        pixels,
        kernel,
    }
}

impl Setup {
    fn pixel(&self, x: i64, y: i64) -> i32 {
        i32::from(self.pixels.get(&[x.clamp(0, W - 1), y.clamp(0, H - 1)]))
    }
    /// The convolution at (x, y) in i16 arithmetic, plus the kernel's sum if `with_kernel_sum`.
    fn convolution(&self, x: i64, y: i64, with_kernel_sum: bool) -> i16 {
        let mut total = 0i16;
        for ry in -1..=1 {
            for rx in -1..=1 {
                let k = i16::from(self.kernel.get(&[rx, ry]));
                total = total.wrapping_add((self.pixel(x + rx, y + ry) as i16).wrapping_mul(k));
                if with_kernel_sum {
                    total = total.wrapping_add(k);
                }
            }
        }
        total
    }
}

/// `u8_sat(v / 16)`, Halide's division rounding down.
fn narrow(v: i16) -> u8 {
    v.div_euclid(16).clamp(0, 255) as u8
}

/// Realizes the u8 `output` over `[0, w) x [0, H)` and checks it against `want`.
fn check_u8(output: &Func, inputs: &TestInputs, w: i64, want: impl Fn(i64, i64) -> u8) {
    let run = check(output, inputs, &[0, 0], &[w, H]);
    let AnyBuffer::U8(out) = &run.realization.buffers[0] else {
        panic!("the output is u8");
    };
    for yy in 0..H {
        for xx in 0..w {
            assert_eq!(out.get(&[xx, yy]), want(xx, yy), "at ({xx}, {yy})");
        }
    }
}

#[test]
fn a_widening_convolution_narrowed() {
    let s = setup();
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (rx, ry) = (s.r.x().expr(), s.r.y().expr());
    let f = Func::new("f");
    let term =
        cast_to::<i16>(s.input.at((x + rx.clone(), y + ry.clone()))) * s.kernel_param.at((rx, ry));
    f.define((x, y), saturating_cast(Type::u8(), sum(term) / 16))
        .unwrap();
    f.vectorize(x, 16);
    check_u8(&f, &s.inputs, W, |x, y| narrow(s.convolution(x, y, false)));
}

#[test]
fn a_widening_tuple_reduction_narrowed() {
    let s = setup();
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (rx, ry) = (s.r.x().expr(), s.r.y().expr());
    let f = Func::new("f");
    f.define((x, y), Tuple(vec![cast_to::<i16>(0), cast_to::<i8>(0)]))
        .unwrap();
    let k = s.kernel_param.at((rx.clone(), ry.clone()));
    f.update(
        (x, y),
        Tuple(vec![
            f.value_at((x, y), 0)
                + cast_to::<i16>(s.input.at((x + rx.clone(), y + ry.clone()))) * k.clone(),
            f.value_at((x, y), 1) + k,
        ]),
    )
    .unwrap();
    let g = Func::new("g");
    g.define(
        (x, y),
        saturating_cast(
            Type::u8(),
            (f.value_at((x, y), 0) + f.value_at((x, y), 1)) / 16,
        ),
    )
    .unwrap();
    g.vectorize(x, 16);
    check_u8(&g, &s.inputs, W, |x, y| narrow(s.convolution(x, y, true)));
}

#[test]
fn a_widening_average_into_an_unaligned_output() {
    let s = setup();
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), cast_to::<i16>(s.input.at((x, y))))
        .unwrap();
    let g = Func::new("g");
    g.define(
        (x, y),
        saturating_cast(Type::u8(), (f.at((x, y)) + f.at((x + 1, y))) / 2),
    )
    .unwrap();
    g.vectorize(x, 16);
    check_u8(&g, &s.inputs, W - 2, |x, y| {
        ((s.pixel(x, y) + s.pixel(x + 1, y)) / 2) as u8
    });
}
