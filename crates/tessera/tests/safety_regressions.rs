//! Regression tests for wrong answers and hangs found by trying Tessera as a new user would:
//! the bounds of a Func with several update stages, a directive on a stage that does not
//! exist, and two Funcs or inputs that share a name. Each case is checked against the
//! evaluator or a plain-Rust loop.

mod lower_common;

use std::sync::mpsc;
use std::time::Duration;

use lower_common::{check, TestInputs};
use tessera::codegen::target::Target;
use tessera::lower::LowerOptions;
use tessera::pipeline::{Inputs, Pipeline};
use tessera::prelude::*;

/// A summed-area table of a W x H image of ones, by two scans (along x then y, or y then x),
/// read by an output tiled 2 x 2; `sat` computed at the tiles or at its default placement.
fn summed_area_table(x_first: bool, at_tiles: bool) {
    let (w, h) = (6i64, 5i64);
    let input = ImageParam::new(Type::i32(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let sat = Func::new("sat");
    sat.define((x, y), input.at((x, y))).unwrap();
    let rx = RDom::named("rx", [(1, w as i32 - 1)]);
    let ry = RDom::named("ry", [(1, h as i32 - 1)]);
    let scan_x = |sat: &Func| {
        sat.update((rx.x(), y), sat.at((rx.x(), y)) + sat.at((rx.x() - 1, y)))
            .unwrap();
    };
    let scan_y = |sat: &Func| {
        sat.update((x, ry.x()), sat.at((x, ry.x())) + sat.at((x, ry.x() - 1)))
            .unwrap();
    };
    if x_first {
        scan_x(&sat);
        scan_y(&sat);
    } else {
        scan_y(&sat);
        scan_x(&sat);
    }
    let out = Func::new("out");
    out.define((x, y), sat.at((x, y))).unwrap();
    out.tile(x, y, "xo", "yo", "xi", "yi", 2, 2);
    if at_tiles {
        sat.compute_at(&out, "xo");
    }
    let ones = Buffer::<i32>::from_fn(&[0, 0], &[w, h], |_| 1);
    let inputs = TestInputs::new().image(&input, ones);
    let run = check(&out, &inputs, &[0, 0], &[w, h]);
    let AnyBuffer::I32(values) = &run.realization.buffers[0] else {
        panic!("out is i32");
    };
    // The plain-Rust answer: the number of ones at or before (x, y) in both coordinates.
    for yy in 0..h {
        for xx in 0..w {
            assert_eq!(
                values.get(&[xx, yy]) as i64,
                (xx + 1) * (yy + 1),
                "at ({xx}, {yy})"
            );
        }
    }
}

#[test]
fn summed_area_table_scans_x_then_y_at_tiles() {
    summed_area_table(true, true);
}

#[test]
fn summed_area_table_scans_x_then_y_default_placement() {
    summed_area_table(true, false);
}

#[test]
fn summed_area_table_scans_y_then_x_at_tiles() {
    summed_area_table(false, true);
}

#[test]
fn summed_area_table_scans_y_then_x_default_placement() {
    summed_area_table(false, false);
}

/// Runs `f` on another thread and fails if it does not return within a few seconds.
fn returns_promptly<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(f());
    });
    receive
        .recv_timeout(Duration::from_secs(20))
        .unwrap_or_else(|_| panic!("{what} did not return"))
}

#[test]
fn directive_on_an_undefined_func_is_an_error_not_a_hang() {
    let message = returns_promptly("vectorize of an undefined Func", || {
        let f = Func::new("undefined_f");
        f.vectorize(Var::new("x"), 8);
        match Pipeline::new(&f).lower(&LowerOptions::default()) {
            Err(e) => e.to_string(),
            Ok(_) => "lowered".to_string(),
        }
    });
    assert!(message.contains("undefined_f"), "{message}");
}

#[test]
fn directive_on_a_missing_update_stage_is_an_error_not_a_hang() {
    let message = returns_promptly("parallel of a missing update", || {
        let x = Var::new("x");
        let f = Func::new("one_stage");
        f.define(x, 1).unwrap();
        f.update_stage(2).parallel(x);
        match Pipeline::new(&f).lower(&LowerOptions::default()) {
            Err(e) => e.to_string(),
            Ok(_) => "lowered".to_string(),
        }
    });
    assert!(
        message.contains("one_stage") && message.contains("no update(2)"),
        "{message}"
    );
}

/// `add(a, b)` as a helper that makes a fresh Func named "add" on every call.
fn add(a: Expr, b: Expr) -> Func {
    let x = Var::new("x");
    let f = Func::new("add");
    f.define(x, a + b).unwrap();
    f
}

#[test]
fn two_funcs_with_one_name_are_kept_apart() {
    let x = Var::new("x");
    let first = add(Expr::from(x), Expr::from(1000));
    let second = add(Expr::from(x), Expr::from(65));
    let out = Func::new("out");
    out.define(x, first.at(x) + second.at(x) - x).unwrap();
    for at_root in [false, true] {
        if at_root {
            first.compute_root();
            second.compute_root();
        }
        let run = check(&out, &TestInputs::new(), &[0], &[4]);
        let AnyBuffer::I32(values) = &run.realization.buffers[0] else {
            panic!("out is i32");
        };
        for i in 0..4 {
            assert_eq!(values.get(&[i]) as i64, 1065 + i);
        }
    }
    // The first keeps the name it was given; the second gets the first free one.
    assert_eq!(first.name().as_str(), "add");
    assert_ne!(second.name().as_str(), "add");
    let printed = Pipeline::new(&out).lower_to_string().unwrap();
    assert!(printed.contains(second.name().as_str()), "{printed}");
}

#[test]
fn two_images_with_one_name_are_refused() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let a = ImageParam::new(Type::i32(), 2, "img");
    let b = ImageParam::new(Type::i32(), 2, "img");
    let out = Func::new("out");
    out.define((x, y), a.at((x, y)) + b.at((x, y))).unwrap();
    let message = match Pipeline::new(&out).compile_jit(&Target::host()) {
        Err(e) => e.to_string(),
        Ok(compiled) => {
            let inputs = Inputs::new()
                .image(&a, Buffer::<i32>::from_fn(&[0, 0], &[2, 2], |_| 7))
                .image(&b, Buffer::<i32>::from_fn(&[0, 0], &[2, 2], |_| 2100));
            match compiled.realize(&inputs, &[0, 0], &[2, 2]) {
                Err(e) => e.to_string(),
                Ok(out) => panic!("two images named img were merged: {out:?}"),
            }
        }
    };
    assert!(
        message.contains("img") && message.contains("two"),
        "{message}"
    );
}

#[test]
fn two_params_with_one_name_are_refused() {
    let x = Var::new("x");
    let a = Param::<i32>::new("k");
    let b = Param::<i32>::new("k");
    let out = Func::new("out");
    out.define(x, a.expr() * 1000 + b.expr()).unwrap();
    let compiled = Pipeline::new(&out).compile_jit(&Target::host()).unwrap();
    let inputs = Inputs::new().param(a.bind(1)).param(b.bind(65));
    let message = compiled
        .realize(&inputs, &[0], &[2])
        .expect_err("two Params named k were merged")
        .to_string();
    assert!(message.contains("k"), "{message}");
}

/// The lowering error for the pipeline computing `out` (panics if it lowers).
fn lowering_error(out: &Func) -> String {
    match Pipeline::new(out).lower(&LowerOptions::default()) {
        Err(e) => e.to_string(),
        Ok(l) => panic!("{} lowered:\n{}", out.name(), l.stmt),
    }
}

#[test]
fn a_scatter_at_data_dependent_coordinates_is_refused() {
    let idx = ImageParam::new(Type::i32(), 1, "idx");
    let (x, r) = (Var::new("x"), RDom::named("r", [(0, 100)]));
    let hist = Func::new("hist");
    hist.define(x, 0).unwrap();
    hist.update(idx.at(r.x()), hist.at(idx.at(r.x())) + 1)
        .unwrap();
    hist.compute_root();
    let out = Func::new("out");
    out.define(x, hist.at(x)).unwrap();
    let message = lowering_error(&out);
    assert!(
        message.contains("hist") && message.contains("idx(") && message.contains("clamp"),
        "{message}"
    );
}

#[test]
fn a_gather_at_data_dependent_coordinates_is_refused() {
    let idx = ImageParam::new(Type::i32(), 1, "idx");
    let x = Var::new("x");
    let g = Func::new("g");
    g.define(x, x * 2).unwrap();
    g.compute_root();
    let h = Func::new("h");
    h.define(x, g.at(idx.at(x))).unwrap();
    let message = lowering_error(&h);
    assert!(
        message.contains("g(idx(") && message.contains("in h") && message.contains("clamp"),
        "{message}"
    );
}

/// The same gather clamped to a range is bounded by it, and computes what the evaluator
/// computes.
#[test]
fn a_clamped_gather_is_accepted() {
    let idx = ImageParam::new(Type::i32(), 1, "idx");
    let x = Var::new("x");
    let g = Func::new("g");
    g.define(x, x * 2).unwrap();
    g.compute_root();
    let h = Func::new("h");
    h.define(x, g.at(clamp(idx.at(x), 0, 99))).unwrap();
    let data = Buffer::<i32>::from_fn(&[0], &[16], |c| ((c[0] * 7919 - 50_000) % 300) as i32);
    check(&h, &TestInputs::new().image(&idx, data), &[0], &[16]);
}

/// The run-time error the interpreter and the JIT give for `out` over `extents` (panics if
/// either succeeds); they must say the same thing.
fn run_error(out: &Func, inputs: &Inputs, extents: &[i64]) -> String {
    let mins = vec![0; extents.len()];
    let lowered = Pipeline::new(out).lower(&LowerOptions::default()).unwrap();
    let interp = tessera::pipeline::run_interp(&lowered, &lowered.stmt, inputs, &mins, extents, 0)
        .map(|_| ())
        .expect_err("the interpreter ran")
        .to_string();
    let compiled = Pipeline::new(out).compile_jit(&Target::host()).unwrap();
    let jit = compiled
        .realize(inputs, &mins, extents)
        .map(|_| ())
        .expect_err("the compiled pipeline ran")
        .to_string();
    assert_eq!(interp, jit);
    jit
}

/// Coordinates past 32 bits: g's region would be [0, 1024 * 2^22] in each dimension, whose
/// extent wrapped to 1 and let 1025 x 1025 points be written into one.
#[test]
fn a_region_past_32_bits_is_an_error_not_a_wrapped_allocation() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let g = Func::new("g");
    g.define((x, y), x + y).unwrap();
    g.compute_root();
    let f = Func::new("f");
    f.define((x, y), g.at((x * 4_194_304, y * 4_194_304)))
        .unwrap();
    let message = run_error(&f, &Inputs::new(), &[1025, 1025]);
    assert!(
        message.contains("g") && message.contains("32-bit"),
        "{message}"
    );
    // Storage of more than 2^31 - 1 elements is refused too (2 x 2 outputs need 4194305^2).
    let message = run_error(&f, &Inputs::new(), &[2, 2]);
    assert!(
        message.contains("storage of g needs 4194305 x 4194305 elements"),
        "{message}"
    );
    // A size that fits still runs.
    let compiled = Pipeline::new(&f).compile_jit(&Target::host()).unwrap();
    let out = compiled.realize(&Inputs::new(), &[0, 0], &[2, 1]).unwrap();
    assert_eq!(out[0].get_value(&[1, 0]), Value::Int(4_194_304));
}

/// A clamp to the whole 32-bit range bounds nothing: g's extent (2^32) wrapped to 0 and the
/// gather read at data-controlled offsets.
#[test]
fn a_clamp_to_the_whole_32_bit_range_is_an_error_not_a_wrapped_allocation() {
    let idx = ImageParam::new(Type::i32(), 1, "idx");
    let (lo, hi) = (Param::<i32>::new("lo"), Param::<i32>::new("hi"));
    let x = Var::new("x");
    let g = Func::new("g");
    g.define(x, x * 2).unwrap();
    g.compute_root();
    let h = Func::new("h");
    h.define(x, g.at(clamp(idx.at(x), lo.expr(), hi.expr())))
        .unwrap();
    let data = Buffer::<i32>::from_fn(&[0], &[8], |c| {
        [-2_000_000_000, 5, 2_000_000_000][c[0] as usize % 3]
    });
    let inputs = Inputs::new()
        .image(&idx, data.clone())
        .param(lo.bind(i32::MIN))
        .param(hi.bind(i32::MAX));
    let message = run_error(&h, &inputs, &[8]);
    assert!(
        message.contains("g") && message.contains("32-bit"),
        "{message}"
    );
    // A narrow clamp runs, and agrees with the evaluator.
    let narrow = TestInputs::new()
        .image(&idx, data)
        .param(lo.bind(-10))
        .param(hi.bind(10));
    check(&h, &narrow, &[0], &[8]);
}

/// Generated code indexes buffers with 32-bit integers: a buffer whose coordinates pass
/// 2^31 - 1 is refused before anything runs (its last coordinate would wrap).
#[test]
fn a_buffer_past_32_bit_coordinates_is_refused() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, x).unwrap();
    let compiled = Pipeline::new(&f).compile_jit(&Target::host()).unwrap();
    let near_the_end = i32::MAX as i64 - 1;
    let mut outputs = vec![AnyBuffer::with_mins(Type::i32(), &[near_the_end], &[4]).unwrap()];
    let message = compiled
        .realize_into(&Inputs::new(), &mut outputs)
        .unwrap_err()
        .to_string();
    assert!(message.contains("f") && message.contains("32"), "{message}");
}

/// `select` evaluates both of its values in native code (as in Halide), so what either
/// reads must be in bounds wherever the select runs, not only where its condition picks
/// that value: both the input checks and the storage of a Func read by one side cover the
/// whole range. (Bounds inference once narrowed each side to its condition, and the JIT
/// read `im(10..99)` from a 10-element image.) The Func computes only the points whose
/// values are used (`lower_select_regions.rs`); its storage still holds every point read.
#[test]
fn what_either_side_of_a_select_reads_is_in_bounds_everywhere() {
    let im = ImageParam::new(Type::f32(), 1, "im");
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, select(x.lt(10), im.at(x), 0.0f32)).unwrap();
    let small = Buffer::<f32>::from_fn(&[0], &[10], |c| c[0] as f32);
    let compiled = Pipeline::new(&f).compile_jit(&Target::host()).unwrap();
    let message = compiled
        .realize(&Inputs::new().image(&im, small), &[0], &[100])
        .expect_err("a 10-element image read at 0..99")
        .to_string();
    assert!(
        message.contains("im") && message.contains("99"),
        "{message}"
    );
    let image = Buffer::<f32>::from_fn(&[0], &[100], |c| c[0] as f32 * 2.0);
    let run = check(&f, &TestInputs::new().image(&im, image), &[0], &[100]);
    let AnyBuffer::F32(out) = &run.realization.buffers[0] else {
        panic!("f is f32");
    };
    for i in 0..100 {
        let want = if i < 10 { i as f32 * 2.0 } else { 0.0 };
        assert_eq!(out.get(&[i]), want, "at {i}");
    }

    let g = Func::new("g");
    g.define(x, x * 3).unwrap();
    g.compute_root();
    let h = Func::new("h");
    h.define(x, select(x.lt(10), g.at(x), -1)).unwrap();
    let run = check(&h, &TestInputs::new(), &[0], &[100]);
    assert!(
        run.allocation("g") >= 100,
        "g's storage covers what the select reads"
    );
    assert_eq!(run.provides("g"), 10, "g computes what the select uses");
}

/// Two inline reductions of one kind in one pipeline (a local variance from two `sum`s):
/// renaming the second `sum$` relinked its self-reading update while holding its own lock,
/// and lowering and the evaluator hung. (Found porting Halide's `inline_reduction.cpp`.)
#[test]
fn two_inline_reductions_of_one_kind_do_not_hang() {
    let run = returns_promptly("lowering two sums", || {
        let (x, y) = (Var::new("x"), Var::new("y"));
        let input = Func::new("input");
        input.define((x, y), x * 3 + y).unwrap();
        let r = RDom::new([(-1, 3)]);
        let v = input.at((x + r.x(), y));
        let f = Func::new("sums");
        f.define((x, y), sum(v.clone()) * 100 + sum(v.clone() * v))
            .unwrap();
        check(&f, &TestInputs::new(), &[0, 0], &[6, 4])
    });
    let AnyBuffer::I32(out) = &run.realization.buffers[0] else {
        panic!("sums is i32");
    };
    for yy in 0..4i64 {
        for xx in 0..6i64 {
            let taps: Vec<i64> = (-1..=1).map(|d| (xx + d) * 3 + yy).collect();
            let want = taps.iter().sum::<i64>() * 100 + taps.iter().map(|t| t * t).sum::<i64>();
            assert_eq!(out.get(&[xx, yy]) as i64, want, "at ({xx}, {yy})");
        }
    }
}

/// A value built by repeating `e = e * e + y` 25 times is a tree of 2^25 nodes, and the 100th
/// term of a Fibonacci sequence of sums one of about 2^69 (found porting Halide's `likely.cpp`,
/// whose lowering did not finish in minutes, and `code_explosion.cpp`, whose definition never
/// finished; then both were refused). Built as shared graphs they are small: `define`
/// computes their repeated parts once, by lets, and every backend computes promptly what
/// plain Rust does.
#[test]
fn an_exponentially_large_shared_definition_is_computed_promptly() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let mut squares = Expr::from(y);
    for _ in 1..25 {
        squares = squares.clone() * squares + y;
    }
    let mut fibonacci = vec![Expr::from(x), Expr::from(y)];
    for i in 2..100 {
        let next = fibonacci[i - 1].clone() + fibonacci[i - 2].clone();
        fibonacci.push(next);
    }
    let squares_at = |y: i32| (1..25).fold(y, |s, _| s.wrapping_mul(s).wrapping_add(y));
    let fibonacci_at = |x: i32, y: i32| {
        let (mut a, mut b) = (x, y);
        for _ in 2..100 {
            (a, b) = (b, a.wrapping_add(b));
        }
        b
    };
    for (name, value) in [
        ("squares", select(Expr::from(x).lt(squares), 1, 0)),
        ("fibonacci", fibonacci[99].clone()),
    ] {
        let out = returns_promptly("defining and computing a huge shared value", move || {
            let g = Func::new(name);
            g.define((x, y), value).unwrap();
            let run = check(&g, &TestInputs::new(), &[-3, -2], &[7, 5]);
            let AnyBuffer::I32(out) = &run.realization.buffers[0] else {
                panic!("{name} is i32");
            };
            out.clone()
        });
        for yy in -2..3i32 {
            for xx in -3..4i32 {
                let want = match name {
                    "squares" => i32::from(xx < squares_at(yy)),
                    _ => fibonacci_at(xx, yy),
                };
                assert_eq!(out.get(&[xx.into(), yy.into()]), want, "{name}({xx}, {yy})");
            }
        }
    }
}

/// A definition too large even with its repeated parts shared (a balanced sum of 2^19
/// distinct terms) is refused by `define` promptly, naming the Func.
#[test]
fn a_definition_too_large_even_shared_is_refused_promptly() {
    let x = Var::new("x");
    let message = returns_promptly("defining a huge value", move || {
        let mut terms: Vec<Expr> = (0..1 << 19).map(|i| Expr::from(x) + i).collect();
        while terms.len() > 1 {
            terms = terms
                .chunks(2)
                .map(|p| p[0].clone() + p[1].clone())
                .collect();
        }
        Func::new("huge")
            .define(x, terms.pop().unwrap())
            .expect_err("a definition past the size limit")
            .to_string()
    });
    assert!(
        message.contains("huge") && message.contains("nodes"),
        "{message}"
    );
}

/// The output buffers of a Tuple Func realized into buffers of different boxes: refused
/// (the values are computed over the first buffer's box; a larger second buffer kept stale
/// values outside it). Found by porting Halide's `multi_output_pipeline_with_bad_sizes`.
#[test]
fn tuple_outputs_over_different_boxes_are_refused() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, Tuple(vec![x.expr(), x * 2])).unwrap();
    let compiled = Pipeline::new(&f).compile_jit(&Target::host()).unwrap();
    for (first, second) in [((0, 10), (0, 11)), ((0, 10), (1, 10)), ((0, 10), (-1, 11))] {
        let mut outputs = vec![
            AnyBuffer::from(Buffer::<i32>::with_mins(&[first.0], &[first.1])),
            AnyBuffer::from(Buffer::<i32>::with_mins(&[second.0], &[second.1])),
        ];
        let err = compiled
            .realize_into(&Inputs::new(), &mut outputs)
            .expect_err("outputs over different boxes");
        assert!(
            err.to_string()
                .contains("the outputs of a Tuple are realized over one box"),
            "{err}"
        );
    }
}

/// A parameter offset past 32 bits: g's region ends at `x + p` for the output's last x, which
/// wraps for `p` near `i32::MAX`. The check of g's bounds stops the run with an error naming
/// g (the interpreter and the JIT alike); a small offset runs and agrees with the evaluator.
#[test]
fn a_region_wrapped_by_a_parameter_is_a_run_time_error_naming_the_func() {
    let p = Param::<i32>::new("p");
    let x = Var::new("x");
    let g = Func::new("g");
    g.define(x, x * 3).unwrap();
    g.compute_root();
    let f = Func::new("f");
    f.define(x, g.at(x + p.expr())).unwrap();
    let inputs = Inputs::new().param(p.bind(i32::MAX - 3));
    let message = run_error(&f, &inputs, &[8]);
    assert!(
        message.contains("the bounds of g overflow 32-bit integers"),
        "{message}"
    );
    check(&f, &TestInputs::new().param(p.bind(5)), &[0], &[8]);
}
