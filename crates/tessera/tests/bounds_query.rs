//! Bounds queries (`Pipeline::infer_input_bounds`, `infer_input_buffers`): the region of each
//! input image a run reads, checked against regions computed by hand (stencils,
//! downsampling, a clamped access, a Param offset), through the images' constraints (a
//! constrained min, an extent rounded up, bounds that cannot cover the region, constraints
//! no bounds meet), and the
//! buffers allocated over them running the pipeline to the values plain Rust computes.

use tessera::pipeline::{Inputs, Pipeline};
use tessera::prelude::*;

/// `(mins, extents)` inferred for `image` over the output box.
fn inferred(
    f: &Func,
    inputs: &Inputs,
    image: &ImageParam,
    mins: &[i64],
    extents: &[i64],
) -> (Vec<i64>, Vec<i64>) {
    let bounds = Pipeline::new(f)
        .infer_input_bounds(inputs, mins, extents)
        .unwrap();
    let found = bounds
        .input(image)
        .expect("the image is read and not given");
    (found.mins.clone(), found.extents.clone())
}

fn image(name: &str, dims: usize) -> ImageParam {
    ImageParam::new(Type::i32(), dims, name)
}

/// `out(x, y) = in(x - 1, y - 1) + in(x + 1, y + 1)`.
fn diagonal_stencil() -> (Func, ImageParam) {
    let input = image("in", 2);
    let (x, y) = (Var::new("x"), Var::new("y"));
    let out = Func::new("out");
    out.define((x, y), input.at((x - 1, y - 1)) + input.at((x + 1, y + 1)))
        .unwrap();
    (out, input)
}

#[test]
fn a_stencil_reads_one_more_on_each_side() {
    let (out, input) = diagonal_stencil();
    // x in [0, 9], y in [5, 12]: x +- 1 in [-1, 10], y +- 1 in [4, 13].
    assert_eq!(
        inferred(&out, &Inputs::new(), &input, &[0, 5], &[10, 8]),
        (vec![-1, 4], vec![12, 10])
    );
}

#[test]
fn a_downsampling_reads_twice_the_width() {
    let input = image("in", 1);
    let x = Var::new("x");
    let out = Func::new("out");
    out.define(x, input.at(2 * x) + input.at(2 * x + 1))
        .unwrap();
    // x in [3, 12]: 2x in [6, 24], 2x + 1 in [7, 25].
    assert_eq!(
        inferred(&out, &Inputs::new(), &input, &[3], &[10]),
        (vec![6], vec![20])
    );
}

#[test]
fn a_clamped_access_reads_the_clamp_range() {
    let input = image("in", 1);
    let x = Var::new("x");
    let out = Func::new("out");
    out.define(x, input.at(clamp(x.expr(), 0, 99))).unwrap();
    assert_eq!(
        inferred(&out, &Inputs::new(), &input, &[-5], &[200]),
        (vec![0], vec![100])
    );
    // Inside the clamp range, only what the box reads.
    assert_eq!(
        inferred(&out, &Inputs::new(), &input, &[10], &[5]),
        (vec![10], vec![5])
    );
}

#[test]
fn a_param_offset_needs_its_value() {
    let input = image("in", 1);
    let p = Param::<i32>::new("offset");
    let x = Var::new("x");
    let out = Func::new("out");
    out.define(x, input.at(x + p.expr())).unwrap();
    let with_p = Inputs::new().param(p.bind(3));
    assert_eq!(
        inferred(&out, &with_p, &input, &[0], &[10]),
        (vec![3], vec![10])
    );
    let err = Pipeline::new(&out)
        .infer_input_bounds(&Inputs::new(), &[0], &[10])
        .unwrap_err()
        .to_string();
    assert!(err.contains("offset") && err.contains("in"), "{err}");
}

/// `out(x) = in(x + 2)`, whose run over [0, 10) reads [2, 11].
fn shifted() -> (Func, ImageParam) {
    let input = image("in", 1);
    let x = Var::new("x");
    let out = Func::new("out");
    out.define(x, input.at(x + 2)).unwrap();
    (out, input)
}

#[test]
fn a_constrained_min_widens_the_extent_to_cover() {
    let (out, input) = shifted();
    input.dim(0).set_min(0);
    assert_eq!(
        inferred(&out, &Inputs::new(), &input, &[0], &[10]),
        (vec![0], vec![12])
    );
}

#[test]
fn an_extent_rounded_up_by_its_constraint() {
    let (out, input) = shifted();
    input.dim(0).set_extent((input.dim(0).extent() + 7) / 8 * 8);
    assert_eq!(
        inferred(&out, &Inputs::new(), &input, &[0], &[10]),
        (vec![2], vec![16])
    );
}

#[test]
fn constraints_that_cannot_cover_the_region_are_an_error() {
    let (out, input) = shifted();
    input.dim(0).set_bounds(0, 5);
    let err = Pipeline::new(&out)
        .infer_input_bounds(&Inputs::new(), &[0], &[10])
        .unwrap_err()
        .to_string();
    assert!(err.contains("`in`") && err.contains("[2, 11]"), "{err}");
}

#[test]
fn constraints_no_bounds_meet_are_an_error() {
    let (out, input) = shifted();
    // No extent is one more than itself.
    input.dim(0).set_extent(input.dim(0).extent() + 1);
    let err = Pipeline::new(&out)
        .infer_input_bounds(&Inputs::new(), &[0], &[10])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("meet its constraints") && err.contains("`in`"),
        "{err}"
    );
}

#[test]
fn only_the_images_not_given_are_inferred() {
    let (a, b) = (image("a", 1), image("b", 1));
    let x = Var::new("x");
    let out = Func::new("out");
    out.define(x, a.at(x) + b.at(x - 3)).unwrap();
    let given = Inputs::new().image(&a, Buffer::<i32>::new(&[10]));
    let bounds = Pipeline::new(&out)
        .infer_input_bounds(&given, &[0], &[10])
        .unwrap();
    assert!(bounds.input(&a).is_none(), "{bounds:?}");
    let found = bounds.input(&b).expect("b is not given");
    assert_eq!(
        (found.mins.clone(), found.extents.clone()),
        (vec![-3], vec![10])
    );
    assert_eq!(
        (bounds.output_mins, bounds.output_extents),
        (vec![0], vec![10])
    );
}

#[test]
fn buffers_made_over_the_bounds_run_the_pipeline() {
    let (out, _) = diagonal_stencil();
    let value = |p: &[i64]| (p[0] * 31 + p[1] * 7) as i32;
    let pipeline = Pipeline::new(&out);
    let (mins, extents) = ([3, -2], [9, 6]);
    let inputs = pipeline
        .infer_input_buffers(Inputs::new(), &mins, &extents, |b| {
            Ok(Buffer::<i32>::from_fn(&b.mins, &b.extents, value).into())
        })
        .unwrap();
    let run = pipeline.realize_interp(&inputs, &mins, &extents).unwrap();
    let AnyBuffer::I32(result) = &run.buffers[0] else {
        panic!("out is i32");
    };
    result.for_each_coord(|p| {
        let (x, y) = (p[0], p[1]);
        assert_eq!(
            result.get(p),
            value(&[x - 1, y - 1]) + value(&[x + 1, y + 1]),
            "out{p:?}"
        );
    });
    // A buffer that does not cover the bounds is refused, naming the image.
    let err = pipeline
        .infer_input_buffers(Inputs::new(), &mins, &extents, |_| {
            Ok(Buffer::<i32>::new(&[2, 2]).into())
        })
        .unwrap_err()
        .to_string();
    assert!(err.contains("input in"), "{err}");
}
