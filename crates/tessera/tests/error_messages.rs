//! Errors people can act on: one test per mistake, each asserting that the message names
//! what the user wrote (the Func, the input or parameter, the directive as called) and, where
//! there is one, the way out. Complements `lang_errors.rs` (definitions, bindings) and
//! `schedule_errors.rs` (placements, loop kinds) with the rest of the scheduling language,
//! inputs and outputs, and run-time failures of compiled code.

use tessera::codegen::target::Target;
use tessera::lang::schedule::TailStrategy;
use tessera::lower::LowerOptions;
use tessera::pipeline::{Inputs, Pipeline};
use tessera::prelude::*;

/// The error lowering reports for the pipeline computing `out`.
fn lowering_error(out: &Func) -> String {
    match Pipeline::new(out).lower(&LowerOptions::default()) {
        Err(e) => e.to_string(),
        Ok(l) => panic!("{} lowered:\n{}", out.name(), l.stmt),
    }
}

/// The error of compiling `out` and running it over `extents` (mins 0) with `inputs`.
fn run_error(out: &Func, inputs: &Inputs, extents: &[i64]) -> String {
    let mins = vec![0; extents.len()];
    let compiled = match Pipeline::new(out).compile_jit(&Target::host()) {
        Ok(c) => c,
        Err(e) => return e.to_string(),
    };
    match compiled.realize(inputs, &mins, extents) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("{} ran", out.name()),
    }
}

/// The error of running `out` into output buffers over `extents` (mins 0) that the caller
/// gives (which, unlike `realize`'s, cannot grow to what the schedule computes).
fn run_into_error(out: &Func, extents: &[i64]) -> String {
    let mins = vec![0; extents.len()];
    let compiled = Pipeline::new(out).compile_jit(&Target::host()).unwrap();
    let mut outputs = vec![AnyBuffer::with_mins(Type::i32(), &mins, extents).unwrap()];
    match compiled.realize_into(&Inputs::new(), &mut outputs) {
        Err(e) => e.to_string(),
        Ok(()) => panic!("{} ran", out.name()),
    }
}

/// Asserts that `message` contains every one of `words`.
fn says(message: &str, words: &[&str]) {
    for w in words {
        assert!(message.contains(w), "{message:?} does not mention {w:?}");
    }
}

fn vars() -> (Var, Var) {
    (Var::new("x"), Var::new("y"))
}

/// `name(x, y) = x + y`.
fn pure_2d(name: &str) -> Func {
    let (x, y) = vars();
    let f = Func::new(name);
    f.define((x, y), x + y).unwrap();
    f
}

/// `consumer(x, y) = producer(x, y) + producer(x + 1, y)`, with the producer returned too.
fn producer_consumer(producer: &str, consumer: &str) -> (Func, Func) {
    let (x, y) = vars();
    let p = pure_2d(producer);
    let c = Func::new(consumer);
    c.define((x, y), p.at((x, y)) + p.at((x + 1, y))).unwrap();
    (p, c)
}

/// `name(x) = 0; name(r) += r` over `r` in [0, 10).
fn with_update(name: &str) -> (Func, RDom) {
    let x = Var::new("x");
    let r = RDom::named("r", [(0, 10)]);
    let f = Func::new(name);
    f.define(x, 0).unwrap();
    f.update(r.x(), f.at(r.x()) + r.x()).unwrap();
    (f, r)
}

// ---- loop-structure directives, reported as written -----------------------------------------

#[test]
fn vectorize_of_a_dimension_the_func_does_not_have() {
    let f = pure_2d("vec_missing");
    f.vectorize(Var::new("z"), 8);
    says(
        &lowering_error(&f),
        &["vec_missing.vectorize(z, 8)", "no loop z", "y, x"],
    );
}

#[test]
fn unroll_by_zero() {
    let f = pure_2d("unroll_zero");
    f.unroll(Var::new("y"), 0);
    says(
        &lowering_error(&f),
        &["unroll_zero.unroll(y, 0)", "positive"],
    );
}

#[test]
fn unroll_by_a_negative_factor() {
    let f = pure_2d("unroll_negative");
    f.unroll(Var::new("x"), -4);
    says(
        &lowering_error(&f),
        &["unroll_negative.unroll(x, -4)", "positive, not -4"],
    );
}

#[test]
fn tile_of_a_missing_dimension() {
    let f = pure_2d("tile_missing");
    f.tile(Var::new("x"), Var::new("w"), "xo", "wo", "xi", "wi", 4, 4);
    says(
        &lowering_error(&f),
        &["tile_missing.tile(x, w, xo, wo, xi, wi, 4, 4)", "no loop w"],
    );
}

#[test]
fn tile_reusing_a_loop_name() {
    let f = pure_2d("tile_clash");
    f.tile(Var::new("x"), Var::new("y"), "xo", "yo", "xi", "xi", 4, 4);
    says(
        &lowering_error(&f),
        &[
            "tile_clash.tile(x, y, xo, yo, xi, xi, 4, 4)",
            "already a loop named xi",
        ],
    );
}

#[test]
fn split_into_one_name_twice() {
    let f = pure_2d("split_same");
    f.split(Var::new("x"), "xx", "xx", 4);
    says(
        &lowering_error(&f),
        &["split_same.split(x, xx, xx, 4)", "different names"],
    );
}

#[test]
fn split_by_a_float_factor() {
    let f = pure_2d("split_float");
    f.split(Var::new("x"), "xo", "xi", Expr::f32(2.5));
    says(
        &lowering_error(&f),
        &["split_float.split(x, xo, xi", "must be an integer"],
    );
}

#[test]
fn fuse_into_an_existing_name() {
    let f = pure_2d("fuse_clash");
    f.split(Var::new("x"), "xo", "xi", 4).fuse("xi", "xo", "y");
    says(
        &lowering_error(&f),
        &["fuse_clash.fuse(xi, xo, y)", "already a loop named y"],
    );
}

#[test]
fn reorder_listing_a_loop_twice() {
    let f = pure_2d("reorder_twice");
    f.reorder(["x", "x"]);
    says(
        &lowering_error(&f),
        &["reorder_twice.reorder(x, x)", "listed twice"],
    );
}

#[test]
fn parallel_of_a_missing_loop() {
    let f = pure_2d("parallel_missing");
    f.parallel("yo");
    says(
        &lowering_error(&f),
        &["parallel_missing.parallel(yo)", "no loop yo"],
    );
}

#[test]
fn serial_of_a_missing_loop() {
    let f = pure_2d("serial_missing");
    f.serial("q");
    says(
        &lowering_error(&f),
        &["serial_missing.serial(q)", "no loop q"],
    );
}

#[test]
fn vectorize_loop_of_a_missing_loop() {
    let f = pure_2d("vecloop_missing");
    f.vectorize_loop("xi");
    says(
        &lowering_error(&f),
        &["vecloop_missing.vectorize(xi)", "no loop xi"],
    );
}

#[test]
fn unroll_loop_of_a_missing_loop() {
    let f = pure_2d("unrollloop_missing");
    f.unroll_loop("yi");
    says(
        &lowering_error(&f),
        &["unrollloop_missing.unroll(yi)", "no loop yi"],
    );
}

#[test]
fn a_directive_on_an_update_that_does_not_exist() {
    let (f, _) = with_update("one_update");
    f.update_stage(3).parallel(Var::new("x"));
    says(
        &lowering_error(&f),
        &["one_update has no update(3)", "1 update definition"],
    );
}

#[test]
fn round_up_on_an_update_loop() {
    let (f, r) = with_update("roundup_update");
    f.update_stage(0)
        .split_with_tail(r.x(), "ro", "ri", 4, TailStrategy::RoundUp);
    says(
        &lowering_error(&f),
        &["roundup_update.update(0).split(r", "RoundUp", "GuardWithIf"],
    );
}

#[test]
fn vectorize_of_a_scan_loop() {
    let x = Var::new("x");
    let r = RDom::named("r", [(1, 15)]);
    let f = Func::new("scan_vec");
    f.define(x, x).unwrap();
    f.update(r.x(), f.at(r.x()) + f.at(r.x() - 1)).unwrap();
    f.update_stage(0).vectorize(r.x(), 4);
    says(
        &lowering_error(&f),
        &["scan_vec.update(0).vectorize(r", "scan_vec"],
    );
}

// ---- placements ------------------------------------------------------------------------------

#[test]
fn compute_with_itself() {
    let f = pure_2d("with_self");
    f.compute_with(&f, Var::new("x"));
    says(
        &lowering_error(&f),
        &["with_self.compute_with(with_self, x)", "itself"],
    );
}

#[test]
fn fold_storage_of_a_missing_dimension() {
    let (p, c) = producer_consumer("fold_missing", "fold_consumer");
    p.fold_storage(Var::new("z"), 4);
    says(
        &lowering_error(&c),
        &["fold_missing.fold_storage(z, 4)", "x, y"],
    );
}

#[test]
fn fold_storage_by_zero() {
    let (p, c) = producer_consumer("fold_zero", "fold_zero_consumer");
    p.fold_storage(Var::new("y"), 0);
    says(
        &lowering_error(&c),
        &["fold_zero.fold_storage(y, 0)", "positive"],
    );
}

#[test]
fn align_storage_of_a_missing_dimension_or_by_zero() {
    let (p, c) = producer_consumer("align_missing", "align_consumer");
    p.align_storage(Var::new("z"), 8);
    says(
        &lowering_error(&c),
        &["align_missing.align_storage(z, 8)", "x, y"],
    );
    let (p, c) = producer_consumer("align_zero", "align_zero_consumer");
    p.align_storage(Var::new("x"), 0);
    says(
        &lowering_error(&c),
        &["align_zero.align_storage(x, 0)", "positive"],
    );
}

#[test]
fn fold_storage_smaller_than_the_window() {
    let (x, y) = vars();
    let p = pure_2d("fold_small");
    let c = Func::new("fold_small_consumer");
    c.define((x, y), p.at((x, y)) + p.at((x, y + 2))).unwrap();
    p.store_root().compute_at(&c, y).fold_storage(y, 2);
    says(&lowering_error(&c), &["fold_small", "fold_storage"]);
}

#[test]
fn bound_of_a_missing_dimension() {
    let f = pure_2d("bound_missing");
    f.bound(Var::new("c"), 0, 3);
    says(&lowering_error(&f), &["bound_missing.bound(c, ..)", "x, y"]);
}

#[test]
fn bound_with_float_bounds() {
    let f = pure_2d("bound_float");
    f.bound(Var::new("x"), Expr::f32(0.0), 4);
    says(&lowering_error(&f), &["bound_float.bound(x", "integers"]);
}

#[test]
fn reorder_storage_of_a_missing_dimension() {
    let (p, c) = producer_consumer("storage_missing", "storage_consumer");
    p.compute_root()
        .reorder_storage([Var::new("y"), Var::new("w")]);
    says(&lowering_error(&c), &["storage_missing", "w"]);
}

#[test]
fn hoist_storage_out_of_a_parallel_loop() {
    let (p, c) = producer_consumer("hoist_par", "hoist_par_consumer");
    let (x, y) = vars();
    c.split(y, "yo", "yi", 4).parallel("yo");
    p.compute_at(&c, "yi").hoist_storage_root();
    let _ = x;
    says(&lowering_error(&c), &["hoist_par", "parallel"]);
}

#[test]
fn store_at_a_func_outside_the_pipeline() {
    let (p, c) = producer_consumer("store_stranger", "store_stranger_consumer");
    let stranger = pure_2d("stranger");
    p.store_at(&stranger, Var::new("y"))
        .compute_at(&c, Var::new("y"));
    says(&lowering_error(&c), &["store_stranger", "stranger"]);
}

#[test]
fn compute_at_a_loop_of_the_func_itself() {
    let (p, c) = producer_consumer("at_self", "at_self_consumer");
    p.compute_at(&p, Var::new("y"));
    says(&lowering_error(&c), &["at_self"]);
}

#[test]
fn in_of_a_func_that_does_not_call_it() {
    let (p, _) = producer_consumer("not_called", "calls_it");
    let other = pure_2d("does_not_call");
    let _ = p.in_(&other);
    says(
        &lowering_error(&p),
        &["not_called.in_(does_not_call)", "does not call"],
    );
}

#[test]
fn nested_specialization_on_a_pure_var() {
    let k = Param::<i32>::new("spec_k");
    let f = pure_2d("spec_nested");
    f.specialize(k.expr().gt(0))
        .specialize(Var::new("x").expr().gt(1));
    says(
        &lowering_error(&f),
        &["spec_nested.specialization(0).specialize", "variable x"],
    );
}

#[test]
fn specialization_on_a_pure_var() {
    let f = pure_2d("spec_var");
    f.specialize(Var::new("x").expr().gt(0));
    says(&lowering_error(&f), &["spec_var", "specialize"]);
}

#[test]
fn rfactor_of_a_pure_definition() {
    let f = pure_2d("rf_pure");
    let e = f
        .pure_stage()
        .rfactor(&[("x".into(), Var::new("u"))])
        .unwrap_err();
    says(&e.to_string(), &["rf_pure", "rfactor"]);
}

#[test]
fn rfactor_of_a_float_sum() {
    let x = Var::new("x");
    let r = RDom::named("r", [(0, 16)]);
    let f = Func::new("rf_float");
    f.define(x, 0.0f32).unwrap();
    f.update(x, f.at(x) + cast_to::<f32>(r.x())).unwrap();
    let e = f
        .update_stage(0)
        .rfactor(&[(r.x().into(), Var::new("u"))])
        .unwrap_err();
    says(&e.to_string(), &["rf_float", "float"]);
}

// ---- definitions -----------------------------------------------------------------------------

#[test]
fn a_recursive_pure_definition() {
    let x = Var::new("x");
    let f = Func::new("recursive");
    let e = f.define(x, f.at(x) + 1).unwrap_err().to_string();
    says(&e, &["recursive calls recursive itself", "update"]);
}

#[test]
fn mutual_recursion_through_an_update() {
    let x = Var::new("x");
    let (a, b) = (Func::new("ping"), Func::new("pong"));
    a.define(x, x).unwrap();
    b.define(x, a.at(x)).unwrap();
    a.update(x, b.at(x) + 1).unwrap();
    says(
        &lowering_error(&b),
        &["pong calls ping, which calls pong", "cycle"],
    );
}

#[test]
fn a_tuple_of_no_values() {
    let x = Var::new("x");
    let f = Func::new("no_values");
    let e = f.define(x, Tuple(vec![])).unwrap_err().to_string();
    says(&e, &["no_values", "no values"]);
}

#[test]
fn an_update_with_a_float_coordinate() {
    let x = Var::new("x");
    let f = Func::new("float_update");
    f.define(x, 0).unwrap();
    let e = f.update(cast_to::<f32>(x), 1).unwrap_err().to_string();
    says(&e, &["float_update"]);
}

#[test]
fn a_vector_valued_definition() {
    let x = Var::new("x");
    let f = Func::new("vector_value");
    let v = Expr::i32(1).broadcast_to(4);
    let e = f.define(x, v).unwrap_err().to_string();
    says(&e, &["vector_value", "vector"]);
}

// ---- data-dependent coordinates --------------------------------------------------------------

#[test]
fn a_gather_at_an_unclamped_data_dependent_coordinate() {
    let idx = ImageParam::new(Type::i32(), 1, "gather_idx");
    let x = Var::new("x");
    let g = Func::new("gathered");
    g.define(x, x).unwrap();
    g.compute_root();
    let h = Func::new("gatherer");
    h.define(x, g.at(idx.at(x))).unwrap();
    says(
        &lowering_error(&h),
        &["gathered(gather_idx(", "in gatherer", "clamp"],
    );
}

#[test]
fn a_scatter_at_an_unclamped_data_dependent_coordinate() {
    let idx = ImageParam::new(Type::i32(), 1, "scatter_idx");
    let (x, r) = (Var::new("x"), RDom::named("r", [(0, 8)]));
    let hist = Func::new("scattered");
    hist.define(x, 0).unwrap();
    hist.update(idx.at(r.x()), hist.at(idx.at(r.x())) + 1)
        .unwrap();
    hist.compute_root();
    let out = Func::new("scatter_out");
    out.define(x, hist.at(x)).unwrap();
    says(
        &lowering_error(&out),
        &["scattered", "scatter_idx(", "clamp"],
    );
}

#[test]
fn an_input_read_at_an_unclamped_data_dependent_coordinate() {
    let idx = ImageParam::new(Type::i32(), 1, "lookup_idx");
    let table = ImageParam::new(Type::u8(), 1, "lookup_table");
    let x = Var::new("x");
    let f = Func::new("looked_up");
    f.define(x, table.at(idx.at(x))).unwrap();
    says(&lowering_error(&f), &["lookup_table", "unbounded", "clamp"]);
}

// ---- inputs and outputs ----------------------------------------------------------------------

#[test]
fn two_images_of_one_name() {
    let (x, y) = vars();
    let a = ImageParam::new(Type::u8(), 2, "twin");
    let b = ImageParam::new(Type::u8(), 2, "twin");
    let f = Func::new("reads_twins");
    f.define((x, y), a.at((x, y)) + b.at((x, y))).unwrap();
    let inputs = Inputs::new()
        .image(&a, Buffer::<u8>::new(&[2, 2]))
        .image(&b, Buffer::<u8>::new(&[2, 2]));
    says(
        &run_error(&f, &inputs, &[2, 2]),
        &["two different images", "twin"],
    );
}

#[test]
fn two_params_of_one_name() {
    let x = Var::new("x");
    let (a, b) = (Param::<i32>::new("gain"), Param::<i32>::new("gain"));
    let f = Func::new("reads_gains");
    f.define(x, a.expr() + b.expr()).unwrap();
    let inputs = Inputs::new().param(a.bind(1)).param(b.bind(2));
    says(
        &run_error(&f, &inputs, &[2]),
        &["two different parameters", "gain"],
    );
}

#[test]
fn an_input_smaller_than_the_stencil_reads() {
    let x = Var::new("x");
    let input = ImageParam::new(Type::u16(), 1, "narrow_in");
    let f = Func::new("stencil3");
    f.define(x, input.at(x) + input.at(x + 2)).unwrap();
    let inputs = Inputs::new().image(&input, Buffer::<u16>::new(&[8]));
    says(
        &run_error(&f, &inputs, &[8]),
        &["input `narrow_in`", "dimension 0", "[0, 9]", "[0, 7]"],
    );
}

#[test]
fn an_input_that_is_not_dense_in_x() {
    let x = Var::new("x");
    let input = ImageParam::new(Type::u8(), 2, "strided_in");
    let f = Func::new("reads_strided");
    f.define((x, Var::new("y")), input.at((x, Var::new("y"))))
        .unwrap();
    let data = vec![0u8; 32];
    let dims = vec![
        Dim {
            min: 0,
            extent: 4,
            stride: 2,
        },
        Dim {
            min: 0,
            extent: 4,
            stride: 8,
        },
    ];
    let buffer = Buffer::from_parts(data, dims).unwrap();
    let inputs = Inputs::new().image(&input, buffer);
    says(
        &run_error(&f, &inputs, &[4, 4]),
        &["strided_in", "stride 1"],
    );
}

#[test]
fn an_image_bound_with_the_wrong_element_type() {
    let x = Var::new("x");
    let input = ImageParam::new(Type::u8(), 1, "typed_in");
    let f = Func::new("reads_typed");
    f.define(x, input.at(x)).unwrap();
    let inputs = Inputs::new().image(&input, Buffer::<f32>::new(&[4]));
    says(&run_error(&f, &inputs, &[4]), &["typed_in", "u8", "f32"]);
}

#[test]
fn a_missing_image() {
    let x = Var::new("x");
    let input = ImageParam::new(Type::u8(), 1, "forgotten_in");
    let f = Func::new("reads_forgotten");
    f.define(x, input.at(x)).unwrap();
    says(
        &run_error(&f, &Inputs::new(), &[4]),
        &["forgotten_in", "no buffer was given"],
    );
}

#[test]
fn a_missing_image_whose_bounds_alone_are_used() {
    let x = Var::new("x");
    let input = ImageParam::new(Type::u8(), 1, "bounds_in");
    let f = Func::new("uses_bounds");
    f.define(x, select(x.lt(input.min(0)), 0, 1)).unwrap();
    says(
        &run_error(&f, &Inputs::new(), &[4]),
        &["bounds_in", "no buffer was given"],
    );
}

#[test]
fn a_missing_param() {
    let x = Var::new("x");
    let k = Param::<f32>::new("forgotten_k");
    let f = Func::new("reads_k");
    f.define(x, k.expr()).unwrap();
    says(
        &run_error(&f, &Inputs::new(), &[4]),
        &["forgotten_k", "no value was given"],
    );
}

#[test]
fn a_param_bound_with_another_type() {
    let x = Var::new("x");
    let k = Param::<f32>::new("typed_k");
    let f = Func::new("reads_typed_k");
    f.define(x, k.expr()).unwrap();
    let inputs = Inputs::new().param(Param::<i32>::new("typed_k").bind(3));
    says(&run_error(&f, &inputs, &[4]), &["typed_k", "f32", "i32"]);
}

#[test]
fn an_output_narrower_than_a_vector() {
    let f = pure_2d("narrow_vec");
    f.vectorize(Var::new("x"), 8);
    says(
        &run_into_error(&f, &[5, 3]),
        &[
            "output `narrow_vec` is 5 wide",
            "narrow_vec.vectorize(x, 8)",
            "GuardWithIf",
        ],
    );
}

#[test]
fn an_output_narrower_than_a_tile() {
    let f = pure_2d("narrow_tile");
    f.tile(Var::new("x"), Var::new("y"), "xo", "yo", "xi", "yi", 4, 16);
    says(
        &run_into_error(&f, &[8, 3]),
        &[
            "output `narrow_tile` is 3 wide in dimension 1",
            "narrow_tile.tile(",
            "GuardWithIf",
        ],
    );
}

#[test]
fn a_round_up_split_of_an_output_that_is_not_a_multiple() {
    let f = pure_2d("round_up_out");
    f.split_with_tail(Var::new("x"), "xo", "xi", 4, TailStrategy::RoundUp);
    says(
        &run_into_error(&f, &[10, 2]),
        &[
            "output `round_up_out` is 10 wide",
            "multiple of 4",
            "GuardWithIf",
        ],
    );
}

#[test]
fn a_vector_wider_than_the_output_reading_an_input() {
    let x = Var::new("x");
    let input = ImageParam::new(Type::u8(), 1, "vec_in");
    let f = Func::new("vec_reader");
    f.define(x, input.at(x)).unwrap();
    f.vectorize(x, 16);
    let inputs = Inputs::new().image(&input, Buffer::<u8>::new(&[6]));
    // The output's width is what is wrong, not the input's bounds.
    says(
        &run_error(&f, &inputs, &[6]),
        &[
            "output `vec_reader` is 6 wide",
            "vec_reader.vectorize(x, 16)",
        ],
    );
}

#[test]
fn realize_with_a_negative_extent() {
    let f = pure_2d("negative_out");
    says(
        &run_error(&f, &Inputs::new(), &[4, -1]),
        &["negative_out", "-1"],
    );
}

#[test]
fn realize_with_too_few_extents() {
    let f = pure_2d("three_by");
    says(
        &run_error(&f, &Inputs::new(), &[4]),
        &["three_by", "2 dimensions"],
    );
}

#[test]
fn an_explicit_bound_smaller_than_the_output() {
    let f = pure_2d("bounded_out");
    f.bound(Var::new("x"), 0, 4);
    says(
        &run_error(&f, &Inputs::new(), &[8, 2]),
        &["bounded_out.bound(x, ..)", "is needed"],
    );
}

#[test]
fn a_region_past_32_bits() {
    let (x, y) = vars();
    let g = pure_2d("huge_region");
    g.compute_root();
    let f = Func::new("huge_reader");
    f.define((x, y), g.at((x * 1_000_000, y))).unwrap();
    says(
        &run_error(&f, &Inputs::new(), &[4000, 1]),
        &["huge_region", "32-bit"],
    );
}

#[test]
fn storage_past_the_allocation_limit() {
    let (x, y) = vars();
    let g = pure_2d("huge_storage");
    g.compute_root();
    let f = Func::new("huge_storage_reader");
    f.define((x, y), g.at((x * 65_536, y * 65_536))).unwrap();
    says(
        &run_error(&f, &Inputs::new(), &[16, 16]),
        &["storage of huge_storage", "2^31 - 1"],
    );
}

#[test]
fn aligned_storage_past_the_allocation_limit() {
    // 1.5e9 elements, padded to 2^31 by the alignment: one past the limit, and past i32.
    let x = Var::new("x");
    let g = Func::new("huge_aligned");
    g.define(x, x).unwrap();
    g.compute_root().align_storage(x, 1 << 30);
    let f = Func::new("huge_aligned_reader");
    f.define(x, g.at(x * 100_000_000)).unwrap();
    says(
        &run_error(&f, &Inputs::new(), &[16]),
        &["storage of huge_aligned", "2147483648", "2^31 - 1"],
    );
}

#[test]
fn the_evaluator_refuses_a_box_of_the_wrong_dimensionality() {
    let f = pure_2d("eval_box");
    let e = Evaluator::new()
        .realize(&f, &[0], &[4])
        .unwrap_err()
        .to_string();
    says(&e, &["eval_box", "2"]);
}

/// A Param outside its declared range fails the run naming it, before anything is computed
/// (bounds inference relied on the range); an empty range is refused when declared.
#[test]
fn a_param_outside_its_range_is_named() {
    let mut k = Param::<i32>::new("k");
    assert!(k
        .set_range(5, 1)
        .unwrap_err()
        .to_string()
        .contains("parameter k: the range [5, 1] is empty"));
    k.set_range(1, 4).unwrap();
    let x = Var::new("x");
    let table = Func::new("table");
    table.define(x, x * 3).unwrap();
    table.compute_root();
    let out = Func::new("out");
    out.define(x, table.at(x / k.expr())).unwrap();
    let inputs = Inputs::new().param(k.bind(0));
    let error = run_error(&out, &inputs, &[16]);
    assert!(
        error.contains("parameter k is 0, outside its range [1, 4]"),
        "{error}"
    );
    // Inside the range, the values are those of plain Rust.
    let compiled = Pipeline::new(&out).compile_jit(&Target::host()).unwrap();
    for kv in 1..=4 {
        let got = compiled
            .realize(&Inputs::new().param(k.bind(kv)), &[0], &[16])
            .unwrap();
        let AnyBuffer::I32(got) = &got[0] else {
            panic!("out is i32")
        };
        (0..16).for_each(|i| assert_eq!(got.get(&[i]), (i as i32 / kv) * 3, "k = {kv}"));
    }
}

/// A failed `require` carries its message, with the values computed where it failed.
#[test]
fn a_failed_requirement_carries_its_message() {
    let limit = Param::<i32>::new("limit");
    let x = Var::new("x");
    let out = Func::new("out");
    out.define(
        x,
        require(
            x.expr().lt(limit.expr()),
            x * 2,
            &[
                "x must stay below".into(),
                limit.expr().into(),
                "but is".into(),
                x.expr().into(),
            ],
        ),
    )
    .unwrap();
    let inputs = Inputs::new().param(limit.bind(5));
    let error = run_error(&out, &inputs, &[8]);
    assert!(
        error.contains("requirement failed: x must stay below 5 but is 5"),
        "{error}"
    );
}
