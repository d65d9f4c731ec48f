//! Schedule mistakes: each comes back from lowering as `Error::Schedule`, naming the Func (and
//! the stage or loop) involved and, where there is a choice to make, listing the legal ones.

mod lower_common;

use lower_common::{check, schedule_error, TestInputs};
use tessera::error::ScheduleError;
use tessera::lang::schedule::TailStrategy;
use tessera::lower::LowerOptions;
use tessera::pipeline::Pipeline;
use tessera::prelude::*;

/// `g(x, y) = input(x, y) + 1`, `out(x, y) = g(x, y) + g(x + 1, y)`.
struct TwoStage {
    input: ImageParam,
    g: Func,
    out: Func,
    x: Var,
    y: Var,
}

fn two_stage() -> TwoStage {
    let input = ImageParam::new(Type::i32(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let g = Func::new("g");
    g.define((x, y), input.at((x, y)) + 1).unwrap();
    let out = Func::new("out");
    out.define((x, y), g.at((x, y)) + g.at((x + 1, y))).unwrap();
    TwoStage {
        input,
        g,
        out,
        x,
        y,
    }
}

fn assert_mentions(msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(msg.contains(p), "the message does not mention {p:?}: {msg}");
    }
}

#[test]
fn compute_at_a_loop_that_does_not_exist() {
    let t = two_stage();
    t.g.compute_at(&t.out, "z");
    let msg = schedule_error(&t.out);
    assert_mentions(
        &msg,
        &[
            "g.compute_at(out, z)",
            "compute_root()",
            "compute_at(out, y)",
            "compute_at(out, x)",
        ],
    );
}

#[test]
fn compute_at_a_loop_of_a_func_outside_the_pipeline() {
    let t = two_stage();
    let other = Func::new("other");
    other.define((t.x, t.y), t.x + t.y).unwrap();
    t.g.compute_at(&other, t.x);
    let msg = schedule_error(&t.out);
    assert_mentions(&msg, &["g", "other", "compute_root()"]);
}

#[test]
fn compute_at_a_loop_that_does_not_enclose_every_use() {
    // g is read by h and by out2; h is computed at root, so no loop encloses both uses:
    // g can only be computed at root.
    let t = two_stage();
    let h = Func::new("h");
    h.define((t.x, t.y), t.g.at((t.x, t.y)) * 2).unwrap();
    let out2 = Func::new("out2");
    out2.define((t.x, t.y), h.at((t.x, t.y)) + t.g.at((t.x, t.y)))
        .unwrap();
    h.compute_root();
    t.g.compute_at(&h, t.x);
    let msg = schedule_error(&out2);
    assert_mentions(
        &msg,
        &[
            "g.compute_at(h, x)",
            "does not enclose every use of g",
            "compute_root()",
        ],
    );
    let legal = msg.split("Legal locations for g:").nth(1).unwrap_or("");
    assert_eq!(legal.trim(), "compute_root()", "{msg}");
}

#[test]
fn compute_at_a_specific_stage_without_that_loop() {
    let input = ImageParam::new(Type::i32(), 1, "input");
    let x = Var::new("x");
    let g = Func::new("g");
    g.define(x, input.at(x)).unwrap();
    let f = Func::new("f");
    let r = RDom::named("r", [(0, 4)]);
    f.define(x, 0).unwrap();
    f.update(x, f.at(x) + g.at(x + r.x())).unwrap();
    g.compute_at(f.pure_stage(), "r.x");
    let msg = schedule_error(&f);
    assert_mentions(
        &msg,
        &["g.compute_at(f, r.x)", "no loop r.x", "compute_root()"],
    );
}

#[test]
fn store_inside_the_compute_level() {
    let t = two_stage();
    t.g.compute_at(&t.out, t.y).store_at(&t.out, t.x);
    let msg = schedule_error(&t.out);
    assert_mentions(&msg, &["g", "stored at out.x", "computed at out.y"]);
}

#[test]
fn store_outside_a_parallel_loop_compute_inside() {
    let t = two_stage();
    t.out.parallel(t.y);
    t.g.store_root().compute_at(&t.out, t.x);
    let msg = schedule_error(&t.out);
    assert_mentions(
        &msg,
        &["g", "parallel loop out, y", "store it inside that loop"],
    );
}

/// A Func computed inside a vectorized loop is no longer refused: as in Halide, each lane
/// computes its own points of `g` (in its own copy of `g`'s storage), and `out` holds the
/// values plain Rust computes. Vectors wider than the vectorizer takes still are refused.
#[test]
fn compute_inside_a_vectorized_loop() {
    let t = two_stage();
    t.out.vectorize(t.x, 4);
    t.g.compute_at(&t.out, "x_vi");
    let (w, h) = (10, 3);
    let pixel = |x: i64, y: i64| (x * 7 + y * 13 - 20) as i32;
    let input = Buffer::<i32>::from_fn(&[0, 0], &[w + 1, h], |p| pixel(p[0], p[1]));
    let inputs = TestInputs::new().image(&t.input, input);
    let run = check(&t.out, &inputs, &[0, 0], &[w, h]);
    let printed = run.lowered.stmt.to_string();
    assert!(!printed.contains("for (out.s0.x.x_vi"), "{printed}");
    let AnyBuffer::I32(out) = &run.realization.buffers[0] else {
        panic!("out is i32");
    };
    for y in 0..h {
        for x in 0..w {
            let want = (pixel(x, y) + 1) + (pixel(x + 1, y) + 1);
            assert_eq!(out.get(&[x, y]), want, "out({x}, {y})");
        }
    }

    let t = two_stage();
    t.out.vectorize(t.x, 64).vectorize(t.y, 32);
    t.g.compute_at(&t.out, "x_vi");
    let msg = schedule_error(&t.out);
    assert_mentions(
        &msg,
        &["cannot vectorize loop out.s0.x.x_vi", "2048 lanes", "1024"],
    );
}

#[test]
fn vectorize_or_unroll_a_loop_of_symbolic_extent() {
    let t = two_stage();
    t.out.vectorize_loop(t.x);
    let msg = schedule_error(&t.out);
    assert_mentions(
        &msg,
        &[
            "cannot vectorize loop out.s0.x",
            "not a constant",
            "vectorize(x, 8)",
        ],
    );

    let t = two_stage();
    t.g.compute_root().unroll_loop(t.y);
    let msg = schedule_error(&t.out);
    assert_mentions(&msg, &["cannot unroll loop g.s0.y", "not a constant"]);
}

/// `f(x) = x; f(r) = f(r - 1) + f(r)` over r in [1, 8): a scan, each step reading the last.
fn scan() -> (Func, RDom) {
    let x = Var::new("x");
    let f = Func::new("f");
    let r = RDom::named("r", [(1, 7), (0, 2)]);
    f.define(x, x).unwrap();
    f.update(r.x(), f.at(r.x() - 1) + f.at(r.x()) + r.y())
        .unwrap();
    (f, r)
}

#[test]
fn parallel_or_vectorized_scan() {
    let (f, r) = scan();
    f.update_stage(0).parallel(r.x());
    let msg = schedule_error(&f);
    assert_mentions(&msg, &["f.update(0).parallel(r.x)", "keep it serial"]);

    let (f, r) = scan();
    f.update_stage(0).vectorize(r.x(), 4);
    let msg = schedule_error(&f);
    assert_mentions(&msg, &["f.update(0)", "r.x", "keep it serial"]);
}

#[test]
fn histogram_reduction_loop_in_parallel() {
    let input = ImageParam::new(Type::u8(), 1, "input");
    let x = Var::new("x");
    let hist = Func::new("hist");
    let r = RDom::named("r", [(input.min(0), input.extent(0))]);
    hist.define(x, 0).unwrap();
    let bin = cast_to::<i32>(input.at(r.x()));
    hist.update(bin.clone(), hist.at(bin) + 1).unwrap();
    hist.update_stage(0).parallel(r.x());
    let msg = schedule_error(&hist);
    assert_mentions(
        &msg,
        &["hist.update(0).parallel(r.x)", "same point of hist"],
    );
}

#[test]
fn reorder_reduction_loops() {
    let (f, r) = scan();
    f.update_stage(0).reorder((r.y(), r.x()));
    let msg = schedule_error(&f);
    assert_mentions(
        &msg,
        &[
            "f.update(0).reorder(r.y, r.x)",
            "order of the reduction loops",
        ],
    );
}

/// Halide's `bad_rvar_order.cpp`: `f(r.x, r.y) += f(r.y, r.x)` reads points other
/// iterations write, so the order of `r.x` and `r.y` matters.
#[test]
fn reorder_reduction_loops_of_a_transposing_update() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let r = RDom::named("r", [(0, 10), (0, 10)]);
    let f = Func::new("f");
    f.define((x, y), x + y).unwrap();
    f.update((r.x(), r.y()), f.at((r.x(), r.y())) + f.at((r.y(), r.x())))
        .unwrap();
    f.update_stage(0).reorder((r.y(), r.x()));
    assert_mentions(
        &schedule_error(&f),
        &[
            "f.update(0).reorder(r.y, r.x)",
            "order of the reduction loops",
        ],
    );
}

#[test]
fn shift_inwards_or_round_up_on_an_update() {
    for tail in [TailStrategy::ShiftInwards, TailStrategy::RoundUp] {
        let x = Var::new("x");
        let f = Func::new("f");
        let r = RDom::named("r", [(0, 3)]);
        f.define(x, x).unwrap();
        f.update(x, f.at(x) + r.x()).unwrap();
        f.update_stage(0).split_with_tail(x, "xo", "xi", 4, tail);
        let msg = schedule_error(&f);
        assert_mentions(&msg, &["f.update(0).split(x, xo, xi, 4)", "GuardWithIf"]);
    }
}

#[test]
fn unknown_dimension_names() {
    let t = two_stage();
    t.out.split("z", "zo", "zi", 4);
    assert_mentions(
        &schedule_error(&t.out),
        &["out.split(z, zo, zi, 4)", "no loop z", "y, x"],
    );

    let t = two_stage();
    t.out.reorder(["x", "w"]);
    assert_mentions(&schedule_error(&t.out), &["out.reorder(x, w)", "no loop w"]);

    let t = two_stage();
    t.g.compute_root()
        .tile(t.x, "q", "xo", "qo", "xi", "qi", 4, 4);
    assert_mentions(
        &schedule_error(&t.out),
        &["g.tile(x, q, xo, qo, xi, qi, 4, 4)", "no loop q"],
    );

    let t = two_stage();
    t.out.parallel("v");
    assert_mentions(&schedule_error(&t.out), &["out.parallel(v)", "no loop v"]);
}

#[test]
fn fuse_reordering_reduction_loops() {
    // Fusing rx's inner loop with ry moves ry inside rx's outer loop: the order of an update
    // that is neither an exact reduction nor independent per iteration would change.
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, 0).unwrap();
    let r = RDom::named("r", [(0, 8), (0, 4)]);
    f.update(r.x(), f.at(r.x()) * 2 + r.y()).unwrap();
    f.update_stage(0)
        .split(r.x(), "rxo", "rxi", 2)
        .fuse("rxi", r.y(), "t");
    assert_mentions(
        &schedule_error(&f),
        &[
            "f.update(0).fuse(rxi, r.y, t)",
            "order of the reduction loops",
        ],
    );
}

#[test]
fn bound_and_reorder_storage_name_missing_dimensions() {
    let t = two_stage();
    t.g.compute_root().bound(Var::new("z"), 0, 8);
    assert_mentions(
        &schedule_error(&t.out),
        &["g.bound(z", "not a dimension of g", "x, y"],
    );

    let t = two_stage();
    t.g.compute_root().reorder_storage([t.y]);
    assert_mentions(&schedule_error(&t.out), &["g.reorder_storage(y)", "x, y"]);
}

#[test]
fn the_output_computed_at_a_loop() {
    let t = two_stage();
    let h = Func::new("h");
    h.define((t.x, t.y), t.x * t.y).unwrap();
    t.out.compute_at(&h, t.x);
    assert_mentions(
        &schedule_error(&t.out),
        &["out is the output", "computed at root", "h.x"],
    );
}

/// An explicit `compute_inline` of the output is refused (Halide cannot tell it from the
/// default and computes the output at root); a later `compute_root` takes it back.
#[test]
fn the_output_computed_inline() {
    let t = two_stage();
    t.out.compute_inline();
    let msg = schedule_error(&t.out);
    assert_mentions(
        &msg,
        &[
            "out.compute_inline()",
            "out is the output",
            "cannot be inlined",
        ],
    );
    match Pipeline::new(&t.out).lower(&LowerOptions::default()).err() {
        Some(Error::Schedule(ScheduleError {
            func, directive, ..
        })) => {
            assert_eq!(func.as_deref(), Some("out"));
            assert_eq!(directive.as_deref(), Some("compute_inline"));
        }
        other => panic!("expected a schedule error, got {other:?}"),
    }

    let t = two_stage();
    t.out.compute_inline().compute_root();
    let input = Buffer::<i32>::from_fn(&[0, 0], &[9, 4], |c| (c[0] * 10 + c[1]) as i32);
    let run = check(
        &t.out,
        &TestInputs::new().image(&t.input, input),
        &[0, 0],
        &[8, 4],
    );
    for y in 0..4 {
        for x in 0..8 {
            let g = |x: i64| (x * 10 + y) as i32 + 1;
            assert_eq!(
                run.i32_values(0).get(&[x, y]),
                g(x) + g(x + 1),
                "at ({x}, {y})"
            );
        }
    }
}

#[test]
fn bad_split_factors_and_names() {
    let t = two_stage();
    t.out.split(t.x, "xo", "xi", 0);
    assert_mentions(
        &schedule_error(&t.out),
        &["out.split(x, xo, xi, 0)", "positive"],
    );

    let t = two_stage();
    t.out.split(t.x, "xo", "xo", 4);
    assert_mentions(&schedule_error(&t.out), &["different names"]);

    let t = two_stage();
    t.out.split(t.x, "xo", "y", 4);
    assert_mentions(&schedule_error(&t.out), &["already a loop named y"]);
}

#[test]
fn bound_smaller_than_what_is_needed_fails_when_run() {
    let t = two_stage();
    t.g.compute_root().bound(t.x, 0, 4);
    let image = Buffer::<i32>::from_fn(&[0, 0], &[10, 10], |c| (c[0] + c[1]) as i32);
    let inputs = tessera::pipeline::Inputs::new().image(&t.input, image);
    let err = tessera::pipeline::Pipeline::new(&t.out)
        .realize_interp(&inputs, &[0, 0], &[6, 2])
        .unwrap_err()
        .to_string();
    assert_mentions(&err, &["g.bound(x, ..) gives [0, 3]", "[0, 6] is needed"]);
}

#[test]
fn an_exponentially_large_inlined_pyramid_is_refused() {
    // Each level reads four points of the one below: fully inlined, 4^16 copies of the input.
    let input = ImageParam::new(Type::f32(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let mut level = Func::new("level0");
    level.define((x, y), input.at((x, y))).unwrap();
    for j in 1..=16 {
        let next = Func::new(&format!("level{j}"));
        next.define(
            (x, y),
            level.at((x * 2, y)) + level.at((x * 2 + 1, y)) + level.at((x, y * 2))
                - level.at((x, y * 2 + 1)),
        )
        .unwrap();
        level = next;
    }
    let msg = schedule_error(&level);
    assert_mentions(
        &msg,
        &[
            "inlining level",
            "makes expressions of more than",
            "compute",
        ],
    );
}

#[test]
fn predicated_tails_halide_refuses() {
    // PredicateLoads on an update stores past its domain, as RoundUp would.
    let x = Var::new("x");
    let f = Func::new("f");
    let r = RDom::named("r", [(0, 3)]);
    f.define(x, x).unwrap();
    f.update(x, f.at(x) + r.x()).unwrap();
    f.update_stage(0)
        .split_with_tail(x, "xo", "xi", 4, TailStrategy::PredicateLoads);
    let msg = schedule_error(&f);
    assert_mentions(&msg, &["f.update(0).split(x, xo, xi, 4)", "PredicateLoads"]);

    // PredicateStores may not split a reduction variable (its loads past the end would read
    // points the update has not reached).
    let g = Func::new("g");
    g.define(x, 0).unwrap();
    g.update(r.x(), g.at(r.x()) + 1).unwrap();
    g.update_stage(0)
        .split_with_tail("r.x", "ro", "ri", 2, TailStrategy::PredicateStores);
    let msg = schedule_error(&g);
    assert_mentions(
        &msg,
        &[
            "g.update(0).split(r.x, ro, ri, 2)",
            "reduction variable r.x",
            "Predicate",
        ],
    );

    // The inner loop of a PredicateLoads or PredicateStores split cannot be split again.
    for tail in [TailStrategy::PredicateLoads, TailStrategy::PredicateStores] {
        let h = Func::new("h");
        h.define(x, x).unwrap();
        h.split_with_tail(x, "xo", "xi", 8, tail)
            .split("xi", "xio", "xii", 9);
        let msg = schedule_error(&h);
        assert_mentions(
            &msg,
            &["h.split(xi, xio, xii, 9)", "cannot split xi", "inner loop"],
        );
    }

    // PredicateLoads cannot split a loop made from the inner loop of an earlier split.
    let k = Func::new("k");
    k.define(x, x).unwrap();
    k.split(x, "xo", "xi", 2)
        .split_with_tail("xi", "xio", "xii", 4, TailStrategy::PredicateLoads);
    let msg = schedule_error(&k);
    assert_mentions(
        &msg,
        &["k.split(xi, xio, xii, 4)", "PredicateLoads cannot split xi"],
    );
}

/// The error lowering reports for `output`'s schedule, as the structured value.
fn structured_schedule_error(output: &Func) -> ScheduleError {
    match Pipeline::new(output).lower(&LowerOptions::default()) {
        Err(Error::Schedule(e)) => e,
        Err(other) => panic!("expected a schedule error, got {other}"),
        Ok(_) => panic!("expected a schedule error, but lowering succeeded"),
    }
}

#[test]
fn directive_errors_name_their_func_and_directive() {
    let split_unknown = two_stage();
    split_unknown.g.compute_root();
    split_unknown.out.split("z", "zo", "zi", 4);
    let bound_unknown = two_stage();
    bound_unknown.g.compute_root().bound(Var::new("z"), 0, 4);
    let fold_by_zero = two_stage();
    fold_by_zero
        .g
        .compute_root()
        .fold_storage(fold_by_zero.x, 0);
    let cases = [
        (
            &split_unknown.out,
            "out",
            "split",
            "out.split(z, zo, zi, 4)",
        ),
        (&bound_unknown.out, "g", "bound", "g.bound(z, ..)"),
        (
            &fold_by_zero.out,
            "g",
            "fold_storage",
            "g.fold_storage(x, 0)",
        ),
    ];
    for (output, func, directive, call) in cases {
        let e = structured_schedule_error(output);
        assert!(
            matches!(
                &e,
                ScheduleError { func: Some(f), directive: Some(d), .. } if f == func && d == directive
            ),
            "expected {func}.{directive}, got {e:?}"
        );
        assert!(e.message.starts_with(call), "{}", e.message);
        // The text is the message, as before the error had fields.
        assert_eq!(
            Error::Schedule(e.clone()).to_string(),
            format!("schedule error: {}", e.message)
        );
    }
}
