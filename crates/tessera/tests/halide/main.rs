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
mod in_place;
mod inline_reduction;
mod input_image_bounds_check;
mod integer_powers;
mod interleave;
mod interleave_rgb;
mod interleave_x;
mod isnan;
mod iterate_over_circle;
mod lambda;
mod lazy_convolution;
mod left_shift_negative;
mod lerp;
mod likely;
mod logical;
mod lots_of_dimensions;
mod many_dimensions;
mod many_updates;
mod math;
mod median3x3;
mod min_extent;
mod r#mod;
mod mul_div_mod;
mod multi_pass_reduction;
mod multi_splits_with_diff_tail_strategies;
mod multi_way_select;
mod multiple_outputs;
mod mux;
mod nested_tail_strategies;
mod newtons_method;
mod oddly_sized_output;
mod parallel_nested;
mod parallel_reductions;
mod partial_application;
mod reduction_chain;
mod reduction_schedule;
mod reorder_rvars;
mod reorder_storage;
mod rfactor;
mod round;
mod scatter;
mod schedules;
mod shifted_image;
mod simplified_away_embedded_image;
mod skip_stages;
mod sliding_backwards;
mod sliding_over_guard_with_if;
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
