//! `specialize`: alternative loop structures chosen at run time by conditions on Params and
//! buffer sizes. Every branch must compute what the definitions say (checked against the
//! evaluator and a plain-Rust loop, through the interpreter and the JIT), the branch taken
//! must be the first whose condition holds, and bad conditions are refused with the reason.

mod lower_common;

use lower_common::{check, schedule_error, u16_image, TestInputs};
use tessera::lang::schedule::TailStrategy;
use tessera::lower::LowerOptions;
use tessera::pipeline::Pipeline;
use tessera::prelude::*;

fn stencil() -> (ImageParam, Param<i32>, Func, Var, Var) {
    let (input, gain, _, out, x, y) = stencil_with_producer();
    (input, gain, out, x, y)
}

/// `stencil`, with its producer `blur_x` (computed at `out`'s `y`).
fn stencil_with_producer() -> (ImageParam, Param<i32>, Func, Func, Var, Var) {
    let input = ImageParam::new(Type::u16(), 2, "input");
    let gain = Param::<i32>::new("gain");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let blur_x = Func::new("blur_x");
    blur_x
        .define(
            (x, y),
            input.at((x, y)) + input.at((x + 1, y)) + input.at((x + 2, y)),
        )
        .unwrap();
    let out = Func::new("out");
    out.define(
        (x, y),
        (blur_x.at((x, y)) + blur_x.at((x, y + 1))) * cast_to::<u16>(gain.expr()),
    )
    .unwrap();
    blur_x.compute_at(&out, y);
    (input, gain, blur_x, out, x, y)
}

/// The same computation in plain Rust.
fn reference(image: &Buffer<u16>, gain: i32, width: i64, height: i64) -> Vec<u16> {
    let mut out = Vec::new();
    for y in 0..height {
        for x in 0..width {
            let bx = |yy: i64| (0..3).fold(0u16, |s, d| s.wrapping_add(image.get(&[x + d, yy])));
            out.push(bx(y).wrapping_add(bx(y + 1)).wrapping_mul(gain as u16));
        }
    }
    out
}

/// The output's width and height in the checks of `stencil`.
const WIDTH: i64 = 21;
const HEIGHT: i64 = 7;

/// The image `stencil` reads for a `WIDTH` x `HEIGHT` output: exactly what it needs.
fn stencil_image() -> Buffer<u16> {
    u16_image(&[0, 0], &[WIDTH + 2, HEIGHT + 1], 5)
}

/// `out` of `stencil` realized over `WIDTH` x `HEIGHT` with `gain` (through `check`),
/// compared with `reference`.
fn check_against_reference(
    input: &ImageParam,
    gain_param: &Param<i32>,
    gain: i32,
    out: &Func,
    image: &Buffer<u16>,
) -> lower_common::Checked {
    let inputs = TestInputs::new()
        .image(input, image.clone())
        .param(gain_param.bind(gain));
    let run = check(out, &inputs, &[0, 0], &[WIDTH, HEIGHT]);
    let AnyBuffer::U16(actual) = &run.realization.buffers[0] else {
        panic!("out is u16");
    };
    let expected = reference(image, gain, WIDTH, HEIGHT);
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            assert_eq!(
                actual.get(&[x, y]),
                expected[(y * WIDTH + x) as usize],
                "gain {gain} at ({x}, {y})"
            );
        }
    }
    run
}

#[test]
fn each_branch_computes_the_definitions() {
    let image = stencil_image();
    for gain in [0, 1, 3, 9] {
        let (input, gain_param, out, x, y) = stencil();
        // Wide vectors when gain > 4, narrow ones when gain > 1, scalar otherwise; the
        // second specialization also parallelizes.
        out.specialize(gain_param.expr().gt(4)).vectorize(x, 16);
        out.specialize(gain_param.expr().gt(1))
            .parallel(y)
            .vectorize(x, 4);
        let run = check_against_reference(&input, &gain_param, gain, &out, &image);
        // The produce of `out` branches on the conditions, in order.
        let text = run.lowered.stmt.to_string();
        let first = text.find("if (4 < gain)").expect(&text);
        let second = text.find("if (1 < gain)").expect(&text);
        assert!(first < second, "{text}");
    }
}

#[test]
fn specializing_on_the_same_condition_twice_gives_the_same_branch() {
    let (_, gain, out, x, _) = stencil();
    out.specialize(gain.expr().gt(4)).vectorize(x, 8);
    out.specialize(gain.expr().gt(4)).unroll(x, 2);
    let specs = out
        .function()
        .read()
        .pure
        .as_ref()
        .unwrap()
        .schedule
        .specializations
        .len();
    assert_eq!(specs, 1);
}

#[test]
fn updates_can_be_specialized_on_buffer_sizes() {
    let input = ImageParam::new(Type::i32(), 1, "input");
    let x = Var::new("x");
    let r = RDom::named("r", [(input.min(0), input.width())]);
    let total = Func::new("total");
    total.define(x, 0).unwrap();
    total
        .update(x, total.at(x) + input.at(r.x()) * (x + 1))
        .unwrap();
    total
        .update_stage(0)
        .specialize(input.width().ge(8))
        .split("r.x", "rxo", "rxi", 4)
        .unroll("rxi", 4);
    for n in [3, 8, 13] {
        let image = Buffer::<i32>::from_fn(&[0], &[n], |p| (p[0] * 7 - 11) as i32);
        let run = check(
            &total,
            &TestInputs::new().image(&input, image.clone()),
            &[0],
            &[4],
        );
        let AnyBuffer::I32(actual) = &run.realization.buffers[0] else {
            panic!("total is i32");
        };
        for xx in 0..4i64 {
            let sum: i32 = (0..n).map(|i| image.get(&[i]) * (xx as i32 + 1)).sum();
            assert_eq!(actual.get(&[xx]), sum, "width {n}, x {xx}");
        }
        // The split loops exist only in the specialized branch.
        let text = run.lowered.stmt.to_string();
        assert!(
            text.contains("total.s1.r.x.rxo") && text.contains("if ("),
            "{text}"
        );
    }
}

#[test]
fn conditions_that_vary_within_a_run_are_refused() {
    let (_, gain, out, x, _) = stencil();
    out.specialize(Expr::from(x).gt(3)).vectorize(x, 8);
    let msg = schedule_error(&out);
    assert!(
        msg.contains("out.specialize")
            && msg.contains("uses the variable x")
            && msg.contains("only Params"),
        "{msg}"
    );

    let (_, _, out, ..) = stencil();
    out.specialize(gain.expr() + 1);
    let msg = schedule_error(&out);
    assert!(msg.contains("scalar bool"), "{msg}");

    // blur_x is computed at out's y loop, which this specialization splits away.
    let (_, gain, out, _, y) = stencil();
    out.specialize(gain.expr().gt(1)).split(y, "yo", "yi", 2);
    let msg = schedule_error(&out);
    assert!(
        msg.contains("blur_x.compute_at(out, y) is not a legal location"),
        "{msg}"
    );
}

/// `f(x) = select(selector, x * 3, x * 17)`.
fn selecting_func(selector: &Param<bool>) -> (Func, Var) {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, select(selector.expr(), x * 3, x * 17)).unwrap();
    (f, x)
}

/// `f` of `selecting_func(selector)` checked over [0, 100) (against plain Rust) for every
/// value of `selector` and of another Param; its lowered statement.
fn check_every_choice(f: &Func, selector: &Param<bool>, other: &Param<bool>) -> String {
    for (s, o) in [(true, true), (true, false), (false, true), (false, false)] {
        let inputs = TestInputs::new()
            .param(selector.bind(s))
            .param(other.bind(o));
        let run = check(f, &inputs, &[0], &[100]);
        let AnyBuffer::I32(out) = &run.realization.buffers[0] else {
            panic!("f is i32");
        };
        for i in 0..100 {
            let want = if s { i * 3 } else { i * 17 } as i32;
            assert_eq!(out.get(&[i]), want, "selector {s}, other {o}, at {i}");
        }
    }
    let lowered = Pipeline::new(f).lower(&LowerOptions::default()).unwrap();
    lowered.stmt.to_string()
}

/// Halide's `specialize.cpp`, first case, with a Param for its condition on the output's
/// width: a specialization specialized again, and the default specialized on another
/// condition. Every combination computes the definition; the branch vectorized by 4 stores
/// whole vectors.
#[test]
fn specializations_nest() {
    let (wide, param) = (Param::<bool>::new("wide"), Param::<bool>::new("param"));
    let (f, x) = selecting_func(&param);
    f.specialize(wide.expr()).vectorize(x, 4);
    f.specialize(wide.expr()).specialize(param.expr());
    f.specialize(param.expr());
    let text = check_every_choice(&f, &param, &wide);
    // Four branches: (wide, param), (wide), (param), neither.
    assert_eq!(text.matches("if (").count(), 3, "{text}");
    assert!(
        text.contains("ramp("),
        "the wide branches are vectorized:\n{text}"
    );
}

/// A specialization's condition puts the Param it compares in a range, on both sides: in
/// the branch of `p < 0` a `select(p < 5, ..)` takes its true arm, and in the other branch
/// (`p >= 0`) a `select(p >= -2, ..)` does, so each branch reads one row or one column of the
/// image only, and a run is given just that (checked against plain Rust).
#[test]
fn a_branch_decides_the_comparisons_its_condition_implies() {
    let im = ImageParam::new(Type::i32(), 2, "im");
    let p = Param::<i32>::new("p");
    let x = Var::new("x");
    let f = Func::new("f");
    let column = select(p.expr().lt(5), im.at((0, x)), im.at((x, 0)));
    let row = select(p.expr().ge(-2), im.at((x, 0)), im.at((0, x)));
    f.define(x, select(p.expr().lt(0), column, row)).unwrap();
    f.specialize(p.expr().lt(0));
    for (value, extents) in [(-3, [1, 10]), (7, [10, 1])] {
        let image = Buffer::<i32>::from_fn(&[0, 0], &extents, |c| (c[0] * 3 + c[1] * 5) as i32);
        let inputs = TestInputs::new().image(&im, image).param(p.bind(value));
        let run = check(&f, &inputs, &[0], &[10]);
        let out = run.i32_values(0);
        for i in 0..10 {
            let want = if value < 0 { i * 5 } else { i * 3 };
            assert_eq!(out.get(&[i]) as i64, want, "p = {value}, at {i}");
        }
    }
}

/// A Func computed at a loop that the specializations of its consumer split differently is
/// computed inside each branch's loop of that name: here the outer loop of a `GuardWithIf`
/// split, of a `ShiftInwards` vectorization and the plain loop of the default, each over
/// just the points its iteration needs (a guarded tail reads no input past what the output
/// needs: the input given is exactly that). Checked against plain Rust.
#[test]
fn a_func_computed_at_a_loop_of_every_specialization() {
    let image = stencil_image();
    for gain in [0, 3, 9] {
        let (input, gain_param, blur_x, out, x, _) = stencil_with_producer();
        out.specialize(gain_param.expr().gt(4)).split_with_tail(
            x,
            x,
            "xi",
            8,
            TailStrategy::GuardWithIf,
        );
        out.specialize(gain_param.expr().gt(1)).vectorize(x, 4);
        blur_x.compute_at(&out, x);
        let run = check_against_reference(&input, &gain_param, gain, &out, &image);
        let text = run.lowered.stmt.to_string();
        assert_eq!(text.matches("produce blur_x").count(), 3, "{text}");
    }
}

/// A loop level must be a loop of every branch using the Func.
#[test]
fn a_loop_of_one_specialization_only_is_refused() {
    let (_, gain, blur_x, out, x, y) = stencil_with_producer();
    out.specialize(gain.expr().gt(4)).split(y, y, "yi", 2);
    blur_x.compute_at(&out, "yi");
    let msg = schedule_error(&out);
    assert!(
        msg.contains("does not enclose every use of blur_x"),
        "{msg}"
    );
    // Computed at x, a loop of both branches, it is accepted.
    blur_x.compute_at(&out, x);
    assert!(Pipeline::new(&out).lower(&LowerOptions::default()).is_ok());
}

/// A specialization that the conditions before it decide is dropped when it never holds,
/// and ends the chain when it always does: after `specialize(p)`, `p && q` never holds and
/// `!p` always does, so one `if` remains and no default branch.
#[test]
fn specializations_decided_by_earlier_ones() {
    let (p, q) = (Param::<bool>::new("p"), Param::<bool>::new("q"));
    let (f, x) = selecting_func(&p);
    f.specialize(p.expr()).vectorize(x, 4);
    f.specialize(p.expr() & q.expr()).unroll(x, 8);
    f.specialize(!p.expr()).unroll(x, 2);
    let text = check_every_choice(&f, &p, &q);
    assert_eq!(text.matches("if (").count(), 1, "{text}");
}
