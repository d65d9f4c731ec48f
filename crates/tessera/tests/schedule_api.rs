//! The scheduling API's conventions, each checked against a plain Rust loop: stages numbered
//! as Halide's `f.update(i)` everywhere (`update_stage`, `compute_at` of a stage), directive
//! arguments taken as Vars, RVars or names in any mix (lists as arrays, Vecs or tuples), the
//! split family giving back Vars, and named inline reductions scheduled like any Func.

use tessera::prelude::*;

fn assert_error<T: std::fmt::Debug>(result: Result<T>, words: &[&str]) {
    let message = result.expect_err("expected an error").to_string();
    for w in words {
        assert!(message.contains(w), "{message:?} does not mention {w:?}");
    }
}

/// `square(x) = x * x`; `acc(x) = x`, update 0 `acc(x) += square(x)`, update 1 `acc(x) *= 2`.
fn two_updates() -> (Func, Func, Var) {
    let x = Var::new("x");
    let square = Func::new("square");
    square.define(x, x * x).unwrap();
    let acc = Func::new("acc");
    acc.define(x, x).unwrap();
    acc.update(x, acc.at(x) + square.at(x)).unwrap();
    acc.update(x, acc.at(x) * 2).unwrap();
    (square, acc, x)
}

fn assert_two_updates_result(out: &Buffer<i32>) {
    for xx in 0..out.extents()[0] {
        assert_eq!(out.get(&[xx]), ((xx + xx * xx) * 2) as i32, "at {xx}");
    }
}

#[test]
fn update_stage_and_compute_at_a_stage_number_updates_alike() {
    let (square, acc, x) = two_updates();
    // Loop xi exists only in update 0's loops, so the placement resolves only if both
    // directives mean the same stage by update_stage(0).
    acc.update_stage(0).split(x, "xo", "xi", 4);
    square.compute_at(acc.update_stage(0), "xi");
    let nest = Pipeline::new(&acc).loop_nest().unwrap();
    let xi_loop = nest.find("acc.s1.x.xi").expect("update 0 is split");
    let square_produced = nest.find("square").expect("square is computed");
    assert!(
        square_produced > xi_loop,
        "square inside acc.update(0)'s xi:\n{nest}"
    );
    assert_two_updates_result(&acc.realize::<i32>(&[13]).unwrap());
}

#[test]
#[allow(deprecated)]
fn compute_at_stage_keeps_its_old_numbering() {
    let (square, acc, x) = two_updates();
    acc.update_stage(0).split(x, "xo", "xi", 4);
    square.compute_at_stage(&acc, 1, "xi");
    assert_two_updates_result(&acc.realize::<i32>(&[13]).unwrap());
}

#[test]
fn a_directive_on_an_update_that_does_not_exist_names_the_func_and_its_updates() {
    let (_, acc, x) = two_updates();
    acc.update_stage(2).vectorize(x, 4);
    assert_error(
        acc.realize::<i32>(&[8]),
        &[
            "acc.update(2).vectorize(x, 4)",
            "acc has no update(2)",
            "2 update definitions, update(0) to update(1)",
        ],
    );
}

#[test]
fn compute_at_an_update_that_does_not_exist_names_both_funcs() {
    let (square, acc, x) = two_updates();
    square.compute_at(acc.update_stage(5), x);
    assert_error(
        acc.realize::<i32>(&[8]),
        &[
            "square.compute_at(acc, x)",
            "acc has no update(5)",
            "2 update",
        ],
    );
}

#[test]
fn directives_take_vars_rvars_and_names_and_splits_give_back_vars() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let r = RDom::named("r", [(0, 5)]);
    let f = Func::new("f");
    f.define((x, y), x * 7 + y * 3).unwrap();
    let g = Func::new("g");
    g.define(x, 0).unwrap();
    g.update(x, g.at(x) + f.at((x, r.x()))).unwrap();

    let (yo, yi) = f.split_vars(y, "yo", "yi", 2);
    f.compute_root()
        .reorder([yi, x, yo])
        .parallel(yo)
        .bound("y", 0, 5)
        .reorder_storage([y, x]);
    // A tuple mixes an RVar and a name, as Halide's `reorder(x, r.x)` mixes Var and RVar.
    g.update_stage(0).reorder((x, r.x())).vectorize(x, 4);
    // The spelling of earlier releases still compiles.
    #[allow(clippy::needless_borrows_for_generic_args)]
    g.reorder(&["x".into()]);

    let out = g.realize::<i32>(&[9]).unwrap();
    for xx in 0..9i64 {
        let expected: i64 = (0..5).map(|ry| xx * 7 + ry * 3).sum();
        assert_eq!(i64::from(out.get(&[xx])), expected, "at {xx}");
    }
    let nest = Pipeline::new(&g).loop_nest().unwrap();
    let (outer, inner) = (nest.find("f.s0.y.yo").unwrap(), nest.find("f.s0.y.yi"));
    assert!(inner.is_some_and(|i| i > outer), "yi inside yo:\n{nest}");
}

/// `src(x) = (x * 37) % 101`, the window maximum `out(x) = max over r in [0, 5) of
/// src(x + r)`, its reduction Func named `window_max`.
fn window_maximum() -> (Func, Func, Var) {
    let x = Var::new("x");
    let src = Func::new("src");
    src.define(x, (x * 37) % 101).unwrap();
    let r = RDom::named("r", [(0, 5)]);
    let (window, window_max) = maximum_named(src.at(x + r.x()), "window_max");
    let out = Func::new("out");
    out.define(x, window + 1).unwrap();
    (out, window_max, x)
}

fn assert_window_maximum(out: &Buffer<i32>) {
    for xx in 0..out.extents()[0] {
        let expected = (0..5).map(|r| ((xx + r) * 37) % 101).max().unwrap() + 1;
        assert_eq!(i64::from(out.get(&[xx])), expected, "at {xx}");
    }
}

#[test]
fn a_named_inline_reduction_computed_at_a_vectorized_consumer() {
    let (out, window_max, x) = window_maximum();
    assert_eq!(window_max.name().as_str(), "window_max");
    assert_eq!(window_max.update_count(), 1);
    out.vectorize(x, 8);
    window_max.compute_at(&out, x).vectorize(x, 8);
    window_max.update_stage(0).vectorize(x, 8);
    let nest = Pipeline::new(&out).loop_nest().unwrap();
    // Vectorizing splits off loop x_vi, which becomes vector code: the nest keeps only the
    // outer loop x of each stage.
    assert!(
        nest.contains("for (window_max.s1.x.x,") && !nest.contains("x_vi"),
        "window_max's update is vectorized:\n{nest}"
    );
    assert_window_maximum(&out.realize::<i32>(&[37]).unwrap());
}

#[test]
fn a_named_inline_reduction_left_unscheduled_under_a_vectorized_consumer() {
    let (out, _, x) = window_maximum();
    out.vectorize(x, 8);
    assert_window_maximum(&out.realize::<i32>(&[37]).unwrap());
}

#[test]
fn a_named_inline_reduction_without_a_reduction_variable_is_an_error_naming_it() {
    let x = Var::new("x");
    let (value, func) = sum_named(x * 2, "total");
    assert!(!func.is_defined());
    let out = Func::new("uses_total");
    assert_error(
        out.define(x, value),
        &["uses_total", "sum", "reduction variable"],
    );
}
