//! Constraints on the buffers a pipeline is given (`ImageParam::dim`, `Func::output_buffer`):
//! a buffer breaking one is refused at run time with a message naming it, by native code and
//! the interpreter alike; constant constraints make the lowered loops' bounds and strides
//! constants; an interleaved input (x stride 3, channels adjacent), accepted once its x
//! stride is constrained to 3 or left free, is blurred as plain Rust blurs it.

use tessera::codegen::target::Target;
use tessera::ir::{Stmt, StmtKind};
use tessera::pipeline::{Inputs, Pipeline};
use tessera::prelude::*;

const W: i64 = 29;
const H: i64 = 5;

/// Runs `f` over `[0, extents)` natively (checked mode) and on the interpreter; both must
/// agree, and their result (or their error messages) is returned.
fn run_both(f: &Func, inputs: &Inputs, extents: &[i64]) -> Result<AnyBuffer, String> {
    let mins = vec![0; extents.len()];
    let pipeline = Pipeline::new(f);
    let native = pipeline
        .compile_jit(&Target::host().with_bounds_checks(true))
        .and_then(|c| c.realize(inputs, &mins, extents))
        .map(|mut b| b.remove(0))
        .map_err(|e| e.to_string());
    let interp = pipeline
        .realize_interp(inputs, &mins, extents)
        .map(|mut r| r.buffers.remove(0))
        .map_err(|e| e.to_string());
    match (native, interp) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a, b, "native code and the interpreter disagree");
            Ok(a)
        }
        (Err(a), Err(b)) => {
            assert_eq!(a, b, "native code and the interpreter fail differently");
            Err(a)
        }
        (a, b) => panic!("native: {a:?}\ninterpreter: {b:?}"),
    }
}

#[test]
fn an_input_breaking_its_constraint_is_refused_naming_it() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let input = ImageParam::new(Type::i32(), 2, "constrained_in");
    input.dim(1).set_min(0).set_stride(64);
    let f = Func::new("f");
    f.define((x, y), input.at((x, y)) + 1).unwrap();
    let good = Buffer::<i32>::from_fn(&[0, 0], &[64, 4], |c| (c[0] * 10 + c[1]) as i32);
    let out = run_both(&f, &Inputs::new().image(&input, good.clone()), &[8, 4]).unwrap();
    let AnyBuffer::I32(out) = out else {
        panic!("f is i32")
    };
    out.for_each_coord(|c| assert_eq!(out.get(c), good.get(c) + 1, "f{c:?}"));

    let narrow = Buffer::<i32>::from_fn(&[0, 0], &[32, 4], |_| 0);
    let message = run_both(&f, &Inputs::new().image(&input, narrow), &[8, 4]).unwrap_err();
    assert!(
        message.contains(
            "input `constrained_in` breaks a constraint: its stride in dimension 1 is 32, but it must be 64"
        ),
        "{message}"
    );
    let shifted = good.translated(&[0, 1]);
    let message = run_both(&f, &Inputs::new().image(&input, shifted), &[8, 4]).unwrap_err();
    assert!(
        message.contains(
            "input `constrained_in` breaks a constraint: its min in dimension 1 is 1, but it must be 0"
        ),
        "{message}"
    );
}

/// Every loop of `s`, as (min, extent) constants where they are.
fn loop_bounds(s: &Stmt) -> Vec<(Option<i128>, Option<i128>)> {
    let mut loops = Vec::new();
    let mut stack = vec![s.clone()];
    while let Some(s) = stack.pop() {
        if let StmtKind::For { min, extent, .. } = s.kind() {
            loops.push((min.as_int_const(), extent.as_int_const()));
        }
        s.for_each_child(|_| {}, |c| stack.push(c.clone()));
    }
    loops
}

#[test]
fn constant_output_bounds_give_constant_loops() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x * 7 - y).unwrap();
    f.output_buffer().dim(0).set_bounds(0, 16);
    f.output_buffer().dim(1).set_bounds(0, 4);
    let lowered = Pipeline::new(&f).lower(&Default::default()).unwrap();
    assert_eq!(
        loop_bounds(&lowered.stmt),
        [(Some(0), Some(4)), (Some(0), Some(16))],
        "{}",
        lowered.stmt
    );
    let AnyBuffer::I32(out) = run_both(&f, &Inputs::new(), &[16, 4]).unwrap() else {
        panic!("f is i32")
    };
    out.for_each_coord(|c| assert_eq!(out.get(c) as i64, c[0] * 7 - c[1], "f{c:?}"));
    let message = run_both(&f, &Inputs::new(), &[15, 4]).unwrap_err();
    assert!(
        message.contains(
            "output `f` breaks a constraint: its extent in dimension 0 is 15, but it must be 16"
        ),
        "{message}"
    );
}

/// A `W x H` RGB image with channels interleaved (x stride 3, y stride 3W, c stride 1).
fn interleaved_rgb() -> Buffer<u16> {
    let data = (0..W * H * 3).map(|i| ((i * 37) % 4096) as u16).collect();
    let dim = |extent, stride| Dim {
        min: 0,
        extent,
        stride,
    };
    Buffer::from_parts(data, vec![dim(W, 3), dim(H, 3 * W), dim(3, 1)]).unwrap()
}

/// A horizontal 3-tap box blur of each channel, vectorized along x.
fn blur(input: &ImageParam) -> Func {
    let (x, y, c) = (Var::new("x"), Var::new("y"), Var::new("c"));
    let f = Func::new("blur");
    f.define(
        (x, y, c),
        (input.at((x, y, c)) + input.at((x + 1, y, c)) + input.at((x + 2, y, c))) / 3,
    )
    .unwrap();
    f.vectorize(x, 8);
    f
}

fn check_blur(out: AnyBuffer, image: &Buffer<u16>) {
    let AnyBuffer::U16(out) = out else {
        panic!("the blur is u16")
    };
    out.for_each_coord(|p| {
        let at = |dx: i64| u32::from(image.get(&[p[0] + dx, p[1], p[2]]));
        let want = ((at(0) + at(1) + at(2)) / 3) as u16;
        assert_eq!(out.get(p), want, "blur{p:?}");
    });
}

#[test]
fn an_interleaved_input_with_a_constant_stride_is_blurred_with_stride_3_loads() {
    let input = ImageParam::new(Type::u16(), 3, "rgb");
    input.dim(0).set_stride(3);
    input.dim(2).set_stride(1);
    let f = blur(&input);
    let lowered = Pipeline::new(&f).lower_to_string().unwrap();
    // The loops (after the entry checks, which read the strides passed in).
    let loops = lowered
        .split("produce blur")
        .nth(1)
        .expect("blur is produced");
    assert!(loops.contains(", 3, 8)]"), "no stride-3 load:\n{lowered}");
    assert!(!loops.contains("rgb.stride.0"), "{lowered}");
    let image = interleaved_rgb();
    let inputs = Inputs::new().image(&input, image.clone());
    check_blur(run_both(&f, &inputs, &[W - 2, H, 3]).unwrap(), &image);
    // A planar image breaks the constraint.
    let planar = Buffer::<u16>::from_fn(&[0, 0, 0], &[W, H, 3], |_| 0);
    let message = run_both(&f, &Inputs::new().image(&input, planar), &[W - 2, H, 3]).unwrap_err();
    assert!(
        message.contains(
            "input `rgb` breaks a constraint: its stride in dimension 0 is 1, but it must be 3"
        ),
        "{message}"
    );
}

#[test]
fn an_input_of_any_stride_is_blurred_after_removing_the_dense_default() {
    let input = ImageParam::new(Type::u16(), 3, "any_rgb");
    // Dense in x by default: the interleaved image is refused.
    let image = interleaved_rgb();
    let inputs = Inputs::new().image(&input, image.clone());
    let message = run_both(&blur(&input), &inputs, &[W - 2, H, 3]).unwrap_err();
    assert!(
        message.contains(
            "input `any_rgb` must be dense in dimension 0 (stride 1), but its stride there is 3"
        ),
        "{message}"
    );
    input.dim(0).remove_stride_constraint();
    let f = blur(&input);
    check_blur(run_both(&f, &inputs, &[W - 2, H, 3]).unwrap(), &image);
    // The same code reads planar images.
    let planar = Buffer::<u16>::from_fn(&[0, 0, 0], &[W, H, 3], |p| {
        (p[0] * 5 + p[1] + p[2] * 100) as u16
    });
    let inputs = Inputs::new().image(&input, planar.clone());
    check_blur(run_both(&f, &inputs, &[W - 2, H, 3]).unwrap(), &planar);
}

#[test]
fn constraints_that_cannot_hold_are_lowering_errors_naming_the_buffer() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let input = ImageParam::new(Type::u8(), 2, "bad_in");
    let f = Func::new("f");
    f.define((x, y), input.at((x, y))).unwrap();
    let lower_error = |f: &Func| Pipeline::new(f).lower_to_string().unwrap_err().to_string();

    input.dim(1).set_extent(1.5f32);
    let message = lower_error(&f);
    assert!(
        message.contains("the constraint on the extent of dimension 1 of input `bad_in`")
            && message.contains("must be an integer"),
        "{message}"
    );
    input.dim(1).remove_bounds_constraints();
    input.dim(3).set_min(0);
    let message = lower_error(&f);
    assert!(
        message.contains("input `bad_in` has 2 dimensions, so it has no dimension 3"),
        "{message}"
    );
    let g = Func::new("g");
    g.define((x, y), x + y).unwrap();
    g.output_buffer().dim(0).set_min(x);
    let message = lower_error(&g);
    assert!(
        message.contains("the constraint on the min of dimension 0 of output `g`")
            && message.contains("may use only constants, Params and buffer bounds"),
        "{message}"
    );
}

#[test]
fn an_image_used_only_through_its_bounds_is_checked_against_its_constraints() {
    let input = ImageParam::new(Type::u8(), 1, "bounds_only");
    input.dim(0).set_bounds(0, 10);
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, undef::<u8>()).unwrap();
    let r = RDom::new([(input.min(0), input.extent(0))]);
    f.update(r.x(), cast(Type::u8(), 42)).unwrap();
    let fits = Inputs::new().image(&input, Buffer::<u8>::new(&[10]));
    let AnyBuffer::U8(out) = run_both(&f, &fits, &[10]).unwrap() else {
        panic!("f is u8")
    };
    out.for_each_coord(|c| assert_eq!(out.get(c), 42, "f{c:?}"));
    let longer = Inputs::new().image(&input, Buffer::<u8>::new(&[12]));
    let message = run_both(&f, &longer, &[10]).unwrap_err();
    assert!(
        message.contains("input `bounds_only` breaks a constraint: its extent in dimension 0 is 12, but it must be 10"),
        "{message}"
    );
}
