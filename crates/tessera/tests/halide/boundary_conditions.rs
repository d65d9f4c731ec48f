//! Halide's `test/correctness/boundary_conditions.cpp`: the five boundary conditions
//! (`repeat_edge`, `constant_exterior`, `repeat_image`, `mirror_image`, `mirror_interior`)
//! of a 16 x 16 u8 image, read through a Func that is vectorized by each width from 1 to 32,
//! over a region reaching far outside the image on every side, each against its coordinate
//! mapping written out in plain Rust. Each condition is tried on a Func with explicit bounds,
//! on the image with its own bounds, and with only the first dimension bounded (the second
//! passes through, realized over the image's rows).
//!
//! Left out or reduced: Halide's GPU and HVX schedules; Halide also applies explicit bounds
//! to the image itself (Tessera's `_with_bounds` forms take a Func, so that case is the Func
//! case); bounding only the *second* dimension (an undefined first bound) uses the
//! `_with_optional_bounds` forms. Halide's region is 50 x vector-width wide on each
//! side (up to 1600 x 1600); here widths 1, 4, 8 and 32 are tried over 50 x 50 (64 x 64 for
//! width 32), to keep the test fast.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

const W: i64 = 16;
const H: i64 = 16;
const TEST_MIN: i64 = -25;
const WIDTHS: [i32; 4] = [1, 4, 8, 32];

fn image() -> Buffer<u8> {
    Buffer::from_fn(&[0, 0], &[W, H], |p| (p[0] + p[1] * W) as u8)
}

fn extent_for(width: i32) -> i64 {
    50.max(2 * width as i64)
}

/// Where a condition reads the image for an outside coordinate, or `None` for the exterior.
type Mapping = fn(x: i64, y: i64) -> Option<(i64, i64)>;

fn repeat_edge_ref(x: i64, y: i64) -> Option<(i64, i64)> {
    Some((x.clamp(0, W - 1), y.clamp(0, H - 1)))
}

fn constant_exterior_ref(x: i64, y: i64) -> Option<(i64, i64)> {
    (x >= 0 && y >= 0 && x < W && y < H).then_some((x, y))
}

fn repeat_image_ref(x: i64, y: i64) -> Option<(i64, i64)> {
    let wrap = |mut v: i64, n: i64| {
        while v < 0 {
            v += n;
        }
        while v > n - 1 {
            v -= n;
        }
        v
    };
    Some((wrap(x, W), wrap(y, H)))
}

fn mirror_image_ref(x: i64, y: i64) -> Option<(i64, i64)> {
    let mirror = |v: i64, n: i64| {
        let m = if v < 0 { -(v + 1) } else { v } % (2 * n);
        if m > n - 1 {
            2 * n - 1 - m
        } else {
            m
        }
    };
    Some((mirror(x, W), mirror(y, H)))
}

fn mirror_interior_ref(x: i64, y: i64) -> Option<(i64, i64)> {
    let mirror = |v: i64, n: i64| {
        let m = v.abs() % (2 * n - 2);
        if m > n - 1 {
            2 * n - 2 - m
        } else {
            m
        }
    };
    Some((mirror(x, W), mirror(y, H)))
}

/// Realizes `bounded` through a Func vectorized by `width` over the box and checks it.
fn check_region(
    input: &ImageParam,
    bounded: &Func,
    mapping: Mapping,
    (min_x, ext_x, min_y, ext_y): (i64, i64, i64, i64),
    width: i32,
    what: &str,
) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), bounded.at((x, y))).unwrap();
    if width != 1 {
        f.vectorize(x, width);
    }
    let img = image();
    let run = check(
        &f,
        &TestInputs::new().image(input, img.clone()),
        &[min_x, min_y],
        &[ext_x, ext_y],
    );
    let AnyBuffer::U8(out) = &run.realization.buffers[0] else {
        panic!("f is u8");
    };
    for yy in min_y..min_y + ext_y {
        for xx in min_x..min_x + ext_x {
            let want = match mapping(xx, yy) {
                Some((mx, my)) => img.get(&[mx, my]),
                None => 42,
            };
            assert_eq!(
                out.get(&[xx, yy]),
                want,
                "{what}, width {width}, at ({xx}, {yy})"
            );
        }
    }
}

/// The three forms of one condition at every width.
fn check_condition(
    name: &str,
    with_bounds: fn(&Func, &[(Expr, Expr)]) -> Func,
    of_image: fn(&ImageParam) -> Func,
    mapping: Mapping,
) {
    for width in WIDTHS {
        let ext = extent_for(width);
        let input = ImageParam::new(Type::u8(), 2, "input");
        let (x, y) = (Var::new("x"), Var::new("y"));
        let input_f = Func::new("input_f");
        input_f.define((x, y), input.at((x, y))).unwrap();
        let both = [
            (Expr::from(0), Expr::from(W as i32)),
            (Expr::from(0), Expr::from(H as i32)),
        ];
        let full = (TEST_MIN, ext, TEST_MIN, ext);
        check_region(
            &input,
            &with_bounds(&input_f, &both),
            mapping,
            full,
            width,
            &format!("{name} of a Func"),
        );
        check_region(
            &input,
            &of_image(&input),
            mapping,
            full,
            width,
            &format!("{name} of the image"),
        );
        check_region(
            &input,
            &with_bounds(&input_f, &both[..1]),
            mapping,
            (TEST_MIN, ext, 0, H),
            width,
            &format!("{name} bounded in x only"),
        );
    }
}

#[test]
fn repeat_edge_at_every_width() {
    check_condition(
        "repeat_edge",
        |f, b| repeat_edge_with_bounds(f, b).unwrap(),
        repeat_edge,
        repeat_edge_ref,
    );
}

#[test]
fn constant_exterior_at_every_width() {
    check_condition(
        "constant_exterior",
        |f, b| constant_exterior_with_bounds(f, 42, b).unwrap(),
        |i| constant_exterior(i, 42).unwrap(),
        constant_exterior_ref,
    );
}

#[test]
fn repeat_image_at_every_width() {
    check_condition(
        "repeat_image",
        |f, b| repeat_image_with_bounds(f, b).unwrap(),
        repeat_image,
        repeat_image_ref,
    );
}

#[test]
fn mirror_image_at_every_width() {
    check_condition(
        "mirror_image",
        |f, b| mirror_image_with_bounds(f, b).unwrap(),
        mirror_image,
        mirror_image_ref,
    );
}

#[test]
fn mirror_interior_at_every_width() {
    check_condition(
        "mirror_interior",
        |f, b| mirror_interior_with_bounds(f, b).unwrap(),
        mirror_interior,
        mirror_interior_ref,
    );
}

/// Halide's `{{Expr(), Expr()}, {0, H}}`: the first dimension passes through (realized
/// over the image's columns), the second is bounded, for every condition at every width
/// up to the image's 16 columns (a wider vector reads past them; Halide's image is 32 wide).
#[test]
fn bounded_in_y_only() {
    type OptionalForm = fn(&Func, &[Option<(Expr, Expr)>]) -> Func;
    let conditions: [(&str, OptionalForm, Mapping); 5] = [
        (
            "repeat_edge",
            |f, b| repeat_edge_with_optional_bounds(f, b).unwrap(),
            repeat_edge_ref,
        ),
        (
            "constant_exterior",
            |f, b| constant_exterior_with_optional_bounds(f, 42, b).unwrap(),
            constant_exterior_ref,
        ),
        (
            "repeat_image",
            |f, b| repeat_image_with_optional_bounds(f, b).unwrap(),
            repeat_image_ref,
        ),
        (
            "mirror_image",
            |f, b| mirror_image_with_optional_bounds(f, b).unwrap(),
            mirror_image_ref,
        ),
        (
            "mirror_interior",
            |f, b| mirror_interior_with_optional_bounds(f, b).unwrap(),
            mirror_interior_ref,
        ),
    ];
    for (name, with_bounds, mapping) in conditions {
        for width in WIDTHS.into_iter().filter(|&w| i64::from(w) <= W) {
            let input = ImageParam::new(Type::u8(), 2, "input");
            let (x, y) = (Var::new("x"), Var::new("y"));
            let input_f = Func::new("input_f");
            input_f.define((x, y), input.at((x, y))).unwrap();
            let y_only = [None, Some((Expr::from(0), Expr::from(H as i32)))];
            check_region(
                &input,
                &with_bounds(&input_f, &y_only),
                mapping,
                (0, W, TEST_MIN, extent_for(width)),
                width,
                &format!("{name} bounded in y only"),
            );
        }
    }
}
