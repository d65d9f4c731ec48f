//! Halide's own `test/correctness` suite (v21.0.0), ported: each module is one of Halide's
//! tests, named after its file, checking the values Halide's test checks with plain-Rust
//! loops and, where Halide counts calls or allocations, the interpreter's per-Func store
//! counts and allocation sizes against Halide's numbers. TESTING.md lists what is ported.

#[path = "../lower_common/mod.rs"]
mod lower_common;
#[path = "../print_common/mod.rs"]
mod print_common;

mod call_graphs;

mod align_bounds;
mod argmax;
mod assertion_failure_in_parallel_for;
mod r#async;
mod async_copy_chain;
mod async_order;
mod atomic_tuples;
mod atomics;
mod autodiff;
mod autotune_bug;
mod autotune_bug_2;
mod autotune_bug_3;
mod autotune_bug_4;
mod autotune_bug_5;
mod bad_likely;
mod bit_counting;
mod bitwise_ops;
mod bool_compute_root;
mod bool_compute_root_vectorize;
mod bound_small_allocations;
mod boundary_conditions;
mod bounds;
mod bounds_inference;
mod bounds_inference_outer_split;
mod bounds_of_abs;
mod bounds_of_cast;
mod bounds_of_func;
mod bounds_of_monotonic_math;
mod bounds_of_multiply;
mod bounds_query;
mod cascaded_filters;
mod cast;
mod chunk_sharing;
mod code_explosion;
mod compare_vars;
mod compute_at_reordered_update_stage;
mod compute_inside_guard;
mod compute_outermost;
mod compute_with;
mod compute_with_in;
mod compute_with_inlined;
mod computed_index;
mod concat;
mod constant_expr;
mod constant_type;
mod constraints;
mod convolution;
mod convolution_multiple_kernels;
mod dead_realization_in_specialization;
mod deferred_loop_level;
mod deinterleave4;
mod dilate3x3;
mod div_by_zero;
mod div_mod;
mod dynamic_reduction_bounds;
mod early_out;
mod erf;
mod explicit_inline_reductions;
mod fast_trigonometric;
mod fibonacci;
mod fit_function;
mod float16_t;
mod float16_t_comparison;
mod float16_t_constants;
mod float16_t_image_type;
mod for_each_element;
mod force_onto_stack;
mod func_clone;
mod func_lifetime;
mod func_wrapper;
mod fuse;
mod fused_where_inner_extent_is_zero;
mod gameoflife;
mod gather;
mod guard_with_if_input_bounds;
mod half_native_interleave;
mod histogram;
mod histogram_equalize;
mod hoist_loop_invariant_if_statements;
mod image_wrapper;
mod implicit_args;
mod implicit_args_tests;
mod in_place;
mod inline_reduction;
mod input_image_bounds_check;
mod input_larger_than_two_gigs;
mod integer_powers;
mod interleave;
mod interleave_rgb;
mod interleave_x;
mod interval;
mod inverse;
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
mod memoize;
mod memoize_cloned;
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
mod output_larger_than_two_gigs;
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
mod predicated_store_load;
mod prefetch;
mod print;
mod print_loop_nest;
mod process_some_tiles;
mod random;
mod realize_larger_than_two_gigs;
mod realize_over_shifted_domain;
mod reduction_chain;
mod reduction_non_rectangular;
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
mod simplified_away_embedded_image;
mod skip_stages;
mod skip_stages_memoize;
mod sliding_backwards;
mod sliding_over_guard_with_if;
mod sliding_reduction;
mod sliding_window;
mod sort_exprs;
mod specialize;
mod split_by_non_factor;
mod split_fuse_rvar;
mod split_reuse_inner_name_bug;
mod stack_allocations;
mod stencil_chain_in_update_definitions;
mod storage_folding;
mod store_in;
mod stream_compaction;
mod strict_float;
mod strict_float_bounds;
mod strided_load;
mod transitive_bounds;
mod trim_no_ops;
mod truncated_pyramid;
mod tuple_partial_update;
mod tuple_reduction;
mod tuple_select;
mod tuple_undef;
mod tuple_update_ops;
mod tuple_vector_reduce;
mod two_vector_args;
mod undef;
mod uninitialized_read;
mod unique_func_image;
mod unroll_dynamic_loop;
mod unrolled_reduction;
mod unsafe_dedup_lets;
mod unsafe_promises;
mod unused_func;
mod update_chunk;
mod vector_bounds_inference;
mod vector_cast;
mod vector_math;
mod vector_print_bug;
mod vector_reductions;
mod vector_tile;
mod vectorize_guard_with_if;
mod vectorize_mixed_widths;
mod vectorize_nested;
mod vectorize_varying_allocation_size;
mod vectorized_initialization;
mod vectorized_load_from_vectorized_allocation;
mod vectorized_reduction_bug;
mod widening_reduction;

use lower_common::{check, Checked, TestInputs};
use tessera::lang::buffer::for_each_coord_in;
use tessera::prelude::*;

/// `output` realized over `[0, extents)` with no inputs, every run checked against the
/// evaluator.
fn realize(output: &Func, extents: &[i64]) -> Checked {
    let mins = vec![0; extents.len()];
    check(output, &TestInputs::new(), &mins, extents)
}

/// Each output's buffers from `pipeline` reading `inputs`, over `boxes` (one per output): compiled, into
/// buffers of the caller's as Halide's `realize({f_im, g_im})`, then on the interpreter,
/// whose buffers must be equal.
fn realize_outputs(
    inputs: &Inputs,
    pipeline: &Pipeline,
    boxes: &[(&[i64], &[i64])],
) -> Vec<AnyBuffer> {
    realize_outputs_counted(inputs, pipeline, boxes).0
}

/// `realize_outputs`, with what the interpreter counted (stores and allocations per Func).
fn realize_outputs_counted(
    inputs: &Inputs,
    pipeline: &Pipeline,
    boxes: &[(&[i64], &[i64])],
) -> (Vec<AnyBuffer>, tessera::InterpStats) {
    let mut buffers = Vec::new();
    for (output, (mins, extents)) in pipeline.outputs().iter().zip(boxes) {
        for ty in output.output_types() {
            buffers.push(AnyBuffer::with_mins(ty, mins, extents).unwrap());
        }
    }
    let compiled = pipeline.compile_jit(&Target::host()).unwrap();
    compiled.realize_into(inputs, &mut buffers).unwrap();
    let interpreted = pipeline.realize_interp_each(inputs, boxes).unwrap();
    for (b, (jit, interp)) in buffers.iter().zip(&interpreted.buffers).enumerate() {
        let mins: Vec<i64> = jit.dims().iter().map(|d| d.min).collect();
        let extents: Vec<i64> = jit.dims().iter().map(|d| d.extent).collect();
        for_each_coord_in(&mins, &extents, &mut |c| {
            assert_eq!(jit.get_value(c), interp.get_value(c), "buffer {b} at {c:?}")
        });
    }
    (buffers, interpreted.stats)
}

/// Every output of `pipeline` (each one 2-D i32) over `[0, n)²`, as `realize_outputs`.
fn realize_outputs_2d(inputs: &Inputs, pipeline: &Pipeline, n: i64) -> Vec<Buffer<i32>> {
    let extents = [n, n];
    let boxes: Vec<(&[i64], &[i64])> = (pipeline.outputs().iter())
        .map(|_| (&[0, 0][..], &extents[..]))
        .collect();
    let out = realize_outputs(inputs, pipeline, &boxes);
    (out.into_iter())
        .map(|b| b.into_typed::<i32>().expect("the outputs are i32"))
        .collect()
}

/// Asserts every point `(x, y)` of `out` is `expected(x, y)`.
fn assert_image_2d(out: &Buffer<i32>, expected: impl Fn(i64, i64) -> i64) {
    out.for_each_coord(|p| assert_eq!(i64::from(out.get(p)), expected(p[0], p[1]), "at {p:?}"));
}

/// Halide's `infer_input_bounds` check of a 1-D `f(x) = input(index(x))` (i32 input and
/// output) over `output` (min, extent): the input given covers exactly `[min, min +
/// extent)`, the region Halide infers, so Tessera must need no more; the values are checked
/// against `index` with plain Rust.
fn check_input_region(
    f: &Func,
    input: &ImageParam,
    inputs: TestInputs,
    output: (i64, i64),
    (min, extent): (i64, i64),
    index: impl Fn(i64) -> i64,
) {
    let value = |i: i64| (i * 3 + 1) as i32;
    let image = Buffer::<i32>::from_fn(&[min], &[extent], |c| value(c[0]));
    let run = check(f, &inputs.image(input, image), &[output.0], &[output.1]);
    let out = i32_values(&run);
    for x in output.0..output.0 + output.1 {
        assert_eq!(out.get(&[x]), value(index(x)), "{}: at {x}", f.name());
    }
}

/// Halide's `autotune_bug_2.cpp` and `autotune_bug_3.cpp`: `g(x) = f(x) + f(x + 1)` with
/// `f` stored at root, computed per x of g and split by 8, g bounded to and realized over
/// [0, 2).
fn realize_split_producer_stored_at_root(f: &Func) -> Checked {
    let x = f.args()[0];
    f.store_root();
    let g = Func::new("g");
    g.define(x, f.at(x) + f.at(x + 1)).unwrap();
    f.compute_at(&g, x);
    f.split(x, "xo", "xi", 8);
    g.bound(x, 0, 2);
    realize(&g, &[2])
}

/// The output of `run`, which is i32.
fn i32_values(run: &Checked) -> &Buffer<i32> {
    run.i32_values(0)
}

/// Value `index` of the output of `run`, which is i32.
fn i32_output(run: &Checked, index: usize) -> &Buffer<i32> {
    run.i32_values(index)
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

/// Every output of `run` over `[0, n)²`, as integers, against `want(x, y)` (one value per
/// output: the elements of a Tuple Func).
fn assert_outputs_2d(run: &Checked, n: i64, want: impl Fn(i64, i64) -> Vec<i64>) {
    for y in 0..n {
        for x in 0..n {
            let got: Vec<i64> = run
                .realization
                .buffers
                .iter()
                .map(|b| b.get_value(&[x, y]).as_f64() as i64)
                .collect();
            assert_eq!(got, want(x, y), "at ({x}, {y})");
        }
    }
}

/// The f32 output of `run`.
fn f32_output(run: &Checked) -> &Buffer<f32> {
    match &run.realization.buffers[0] {
        AnyBuffer::F32(out) => out,
        other => panic!("the output is f32, not {}", other.ty()),
    }
}

/// How many f32 values lie between `a` and `b` (0 for equal values; +0 and -0 are equal).
fn ulps_apart(a: f32, b: f32) -> i64 {
    let ordered = |v: f32| {
        let bits = i64::from(v.to_bits() as i32);
        if bits < 0 {
            i64::from(i32::MIN) - bits
        } else {
            bits
        }
    };
    (ordered(a) - ordered(b)).abs()
}
