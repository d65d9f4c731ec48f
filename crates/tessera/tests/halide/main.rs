//! Halide's own `test/correctness` suite (v21.0.0), ported: each module is one of Halide's
//! tests, named after its file, checking the values Halide's test checks with plain-Rust
//! loops and, where Halide counts calls or allocations, the interpreter's per-Func store
//! counts and allocation sizes against Halide's numbers. TESTING.md lists what is ported.

#[path = "../lower_common/mod.rs"]
mod lower_common;

mod bounds_inference;
mod bounds_inference_outer_split;
mod guard_with_if_input_bounds;
mod multi_pass_reduction;
mod reorder_rvars;
mod schedules;
mod sliding_window;
mod split_fuse_rvar;
mod storage_folding;
mod vectorized_reduction_bug;
