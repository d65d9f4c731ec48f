//! Halide's own `test/correctness` suite (v21.0.0), ported: each module is one of Halide's
//! tests, named after its file, checking the values Halide's test checks with plain-Rust
//! loops and, where Halide counts calls or allocations, the interpreter's per-Func store
//! counts and allocation sizes against Halide's numbers. TESTING.md lists what is ported.

#[path = "../lower_common/mod.rs"]
mod lower_common;

mod argmax;
mod bit_counting;
mod bitwise_ops;
mod bool_compute_root;
mod bool_compute_root_vectorize;
mod boundary_conditions;
mod bounds;
mod bounds_inference;
mod bounds_inference_outer_split;
mod cascaded_filters;
mod cast;
mod chunk_sharing;
mod compute_outermost;
mod computed_index;
mod constant_expr;
mod constant_type;
mod convolution;
mod deferred_loop_level;
mod dilate3x3;
mod div_mod;
mod early_out;
mod fibonacci;
mod func_lifetime;
mod func_wrapper;
mod fuse;
mod gameoflife;
mod gather;
mod guard_with_if_input_bounds;
mod histogram;
mod implicit_args;
mod implicit_args_tests;
mod in_place;
mod inline_reduction;
mod input_image_bounds_check;
mod integer_powers;
mod interleave;
mod interleave_rgb;
mod interleave_x;
mod interval;
mod isnan;
mod issue_3926;
mod iterate_over_circle;
mod lambda;
mod lazy_convolution;
mod left_shift_negative;
mod legal_race_condition;
mod lerp;
mod let_in_rdom_bound;
mod likely;
mod logical;
mod lots_of_dimensions;
mod lots_of_loop_invariants;
mod many_dimensions;
mod many_updates;
mod math;
mod median3x3;
mod min_extent;
mod r#mod;
mod mul_div_mod;
mod multi_output_pipeline_with_bad_sizes;
mod multi_pass_reduction;
mod multi_splits_with_diff_tail_strategies;
mod multi_way_select;
mod multipass_constraints;
mod multiple_outputs;
mod mux;
mod named_updates;
mod nested_shiftinwards;
mod nested_tail_strategies;
mod newtons_method;
mod non_vector_aligned_embeded_buffer;
mod obscure_image_references;
mod oddly_sized_output;
mod out_constraint;
mod parallel;
mod parallel_alloc;
mod parallel_nested;
mod parallel_nested_1;
mod parallel_reductions;
mod parallel_rvar;
mod param;
mod param_map;
mod parameter_constraints;
mod partial_application;
mod partial_realization;
mod partition_loops;
mod partition_loops_bug;
mod partition_max_filter;
mod popc_clz_ctz_bounds;
mod random;
mod realize_over_shifted_domain;
mod reduction_chain;
mod reduction_schedule;
mod reorder_rvars;
mod reorder_storage;
mod require;
mod reschedule;
mod rfactor;
mod round;
mod saturating_casts;
mod scatter;
mod schedules;
mod shadowed_bound;
mod shared_self_references;
mod shifted_image;
mod sliding_backwards;
mod sliding_window;
mod specialize;
mod split_by_non_factor;
mod split_fuse_rvar;
mod storage_folding;
mod tuple_reduction;
mod undef;
mod unrolled_reduction;
mod vector_bounds_inference;
mod vectorize_guard_with_if;
mod vectorize_nested;
mod vectorized_reduction_bug;

use lower_common::{check, Checked, TestInputs};
use tessera::prelude::*;

/// `output` realized over `[0, extents)` with no inputs, every run checked against the
/// evaluator.
fn realize(output: &Func, extents: &[i64]) -> Checked {
    let mins = vec![0; extents.len()];
    check(output, &TestInputs::new(), &mins, extents)
}

/// The output of `run`, which is i32.
fn i32_values(run: &Checked) -> &Buffer<i32> {
    match &run.realization.buffers[0] {
        AnyBuffer::I32(b) => b,
        _ => panic!("the output is i32"),
    }
}

/// Value `index` of the output of `run`, which is i32.
fn i32_output(run: &Checked, index: usize) -> &Buffer<i32> {
    match &run.realization.buffers[index] {
        AnyBuffer::I32(b) => b,
        other => panic!("output {index} is {}, not i32", other.ty()),
    }
}

/// Asserts every point `p` of the i32 output value `index` of `run` is `expected(p)`.
fn assert_i32_output(run: &Checked, index: usize, expected: impl Fn(&[i64]) -> i64) {
    let out = i32_output(run, index);
    out.for_each_coord(|p| {
        assert_eq!(i64::from(out.get(p)), expected(p), "value {index} at {p:?}")
    });
}

/// A 3 x 3 max filter of `input` (2-D): `max_x`, the max of three horizontal neighbours,
/// then the output `name`, the max of three vertical neighbours of it.
fn max_filter_3x3(input: &Func, name: &str) -> Func {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let max3 = |f: &Func, a: (Expr, Expr), b: (Expr, Expr), c: (Expr, Expr)| {
        max(max(f.at(a), f.at(b)), f.at(c))
    };
    let max_x = Func::new("max_x");
    max_x
        .define(
            (x, y),
            max3(
                input,
                (x - 1, y.expr()),
                (x.expr(), y.expr()),
                (x + 1, y.expr()),
            ),
        )
        .unwrap();
    let out = Func::new(name);
    out.define(
        (x, y),
        max3(
            &max_x,
            (x.expr(), y - 1),
            (x.expr(), y.expr()),
            (x.expr(), y + 1),
        ),
    )
    .unwrap();
    out
}
