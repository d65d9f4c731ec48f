//! Loop partitioning: loops reading through boundary conditions get a steady state whose
//! vector loads index the input without clamps or selects (so they can be dense), while the
//! results stay exactly the evaluator's, for images smaller than, equal to and larger than
//! the stencil's footprint.

mod lower_common;

use lower_common::{check, u16_image, TestInputs};
use tessera::ir::visit::visit_stmt_exprs;
use tessera::ir::{BinaryOp, CallKind, ExprKind, Stmt};
use tessera::lang::schedule::TailStrategy;
use tessera::prelude::*;

/// Whether some load from `buffer` in `s` has a vector index free of min, max, select and
/// `likely`, and whether some load still has a clamp (the prologue or epilogue).
fn load_shapes(s: &Stmt, buffer: &str) -> (bool, bool) {
    let (mut clean, mut clamped) = (false, false);
    visit_stmt_exprs(s, &mut |e| {
        if let ExprKind::Load {
            buffer: b, index, ..
        } = e.kind()
        {
            if b.as_str() == buffer && index.ty().is_vector() {
                let mut has_clamp = false;
                tessera::ir::visit::visit_exprs(index, &mut |n| {
                    has_clamp |= matches!(
                        n.kind(),
                        ExprKind::Binary(BinaryOp::Min | BinaryOp::Max, ..)
                            | ExprKind::Select(..)
                            | ExprKind::Call {
                                kind: CallKind::Intrinsic(_),
                                ..
                            }
                    );
                    true
                });
                if has_clamp {
                    clamped = true;
                } else {
                    clean = true;
                }
            }
        }
        true
    });
    (clean, clamped)
}

fn stencil(make: fn(&ImageParam) -> Func) -> (ImageParam, Func) {
    let input = ImageParam::new(Type::u16(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let bc = make(&input);
    let out = Func::new("out");
    out.define(
        (x, y),
        bc.at((x - 2, y - 1)) + bc.at((x, y)) * 2 + bc.at((x + 3, y + 1)),
    )
    .unwrap();
    out.vectorize(x, 8);
    (input, out)
}

#[test]
fn clamped_reads_become_clean_vector_loads_in_the_steady_state() {
    type Condition = (&'static str, fn(&ImageParam) -> Func);
    let conditions: [Condition; 3] = [
        ("repeat_edge", repeat_edge),
        ("mirror_image", mirror_image),
        ("repeat_image", repeat_image),
    ];
    for (name, make) in conditions {
        // Inputs narrower than the footprint, about as wide, and much wider.
        for (width, height) in [(3, 2), (9, 4), (40, 12)] {
            let (input, out) = stencil(make);
            let image = u16_image(&[1, -2], &[width, height], width as u64);
            let run = check(
                &out,
                &TestInputs::new().image(&input, image),
                &[-5, -4],
                &[37, 11],
            );
            let (clean, clamped) = load_shapes(&run.lowered.stmt, "input");
            assert!(
                clean,
                "{name}: no clamp-free vector load of input\n{}",
                run.lowered.stmt
            );
            assert!(
                clamped,
                "{name}: the borders lost their clamps\n{}",
                run.lowered.stmt
            );
        }
    }
}

#[test]
fn constant_exterior_selects_vanish_in_the_steady_state() {
    let input = ImageParam::new(Type::u16(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let bc = constant_exterior(&input, 7).unwrap();
    let out = Func::new("out");
    out.define((x, y), bc.at((x - 1, y)) + bc.at((x + 1, y - 1)))
        .unwrap();
    out.split(y, "yo", "yi", 4).parallel("yo").vectorize(x, 16);
    let image = u16_image(&[0, 0], &[50, 9], 3);
    let run = check(
        &out,
        &TestInputs::new().image(&input, image),
        &[-3, -2],
        &[64, 13],
    );
    let (clean, clamped) = load_shapes(&run.lowered.stmt, "input");
    assert!(clean && clamped, "{}", run.lowered.stmt);
}

/// How many `select`s the stores of `s` compute.
fn selects(s: &Stmt) -> usize {
    let mut n = 0;
    visit_stmt_exprs(s, &mut |e| {
        n += usize::from(matches!(e.kind(), ExprKind::Select(..)));
        true
    });
    n
}

#[test]
fn a_likely_select_condition_over_both_dimensions_vanishes_in_the_steady_columns() {
    // A relaxation step keeps the edge of its grid: `select(likely(interior), smoothed, u)`.
    // Vectorized, the row half of the condition is a broadcast; in the interior columns of
    // the interior rows the select is gone, elsewhere it stays.
    let input = ImageParam::new(Type::i32(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (xe, ye) = (Expr::from(x), Expr::from(y));
    let interior = xe.clone().ge(1)
        & xe.le(input.extent(0) - 2)
        & ye.clone().ge(1)
        & ye.le(input.extent(1) - 2);
    let clamped = repeat_edge(&input);
    let smoothed = clamped.at((x - 1, y)) + clamped.at((x + 1, y)) + clamped.at((x, y + 1));
    let out = Func::new("out");
    out.define(
        (x, y),
        select(likely(interior), smoothed, clamped.at((x, y))),
    )
    .unwrap();
    out.vectorize(x, 8);
    let image = Buffer::<i32>::from_fn(&[0, 0], &[37, 9], |p| (p[0] * 7 + p[1] * 13) as i32);
    let run = check(
        &out,
        &TestInputs::new().image(&input, image),
        &[0, 0],
        &[37, 9],
    );
    let mut columns = Vec::new();
    loops_named(&run.lowered.stmt, "out.s0.x.x", &mut columns);
    let steady = columns.iter().filter(|l| selects(l) == 0).count();
    assert!(
        steady >= 1,
        "no column loop without a select\n{}",
        run.lowered.stmt
    );
    assert!(steady < columns.len(), "{}", run.lowered.stmt);
}

/// The loops named `name` in `s`, in program order.
fn loops_named(s: &Stmt, name: &str, out: &mut Vec<Stmt>) {
    if let tessera::ir::StmtKind::For { name: n, .. } = s.kind() {
        if n.as_str() == name {
            out.push(s.clone());
        }
    }
    s.for_each_child(|_| {}, |c| loops_named(c, name, out));
}

/// Whether some load from `buffer` in `s` is a dense vector load (a ramp of stride 1).
fn has_dense_load(s: &Stmt, buffer: &str) -> bool {
    let mut found = false;
    visit_stmt_exprs(s, &mut |e| {
        if let ExprKind::Load {
            buffer: b, index, ..
        } = e.kind()
        {
            found |= b.as_str() == buffer
                && matches!(index.kind(), ExprKind::Ramp(_, stride) if stride.as_int_const() == Some(1));
        }
        true
    });
    found
}

#[test]
fn rows_outside_the_image_still_read_their_columns_densely() {
    // The y loop's prologue covers rows above the image (clamped to its first row); the
    // vectorized x loop inside it is still partitioned, so those rows' interior columns are
    // dense loads.
    let (input, out) = stencil(repeat_edge);
    let image = u16_image(&[0, 0], &[48, 6], 5);
    let run = check(
        &out,
        &TestInputs::new().image(&input, image),
        &[-3, -4],
        &[40, 14],
    );
    let mut rows = Vec::new();
    loops_named(&run.lowered.stmt, "out.s0.y", &mut rows);
    assert_eq!(
        rows.len(),
        3,
        "prologue, steady, epilogue\n{}",
        run.lowered.stmt
    );
    for (part, rows) in ["prologue", "steady state", "epilogue"].iter().zip(&rows) {
        assert!(
            has_dense_load(rows, "input"),
            "the {part} of the y loop has no dense load of input\n{}",
            run.lowered.stmt
        );
    }
}

#[test]
fn scalar_rows_outside_the_image_stay_whole() {
    // Without vectors there are no gathers to save: as in Halide, only the steady rows'
    // x loop is partitioned, so the body has five copies (not nine).
    let input = ImageParam::new(Type::u16(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let bc = repeat_edge(&input);
    let out = Func::new("out");
    out.define((x, y), bc.at((x - 2, y - 1)) + bc.at((x + 3, y + 1)))
        .unwrap();
    let image = u16_image(&[0, 0], &[48, 6], 7);
    let run = check(
        &out,
        &TestInputs::new().image(&input, image),
        &[-3, -4],
        &[40, 14],
    );
    let mut rows = Vec::new();
    loops_named(&run.lowered.stmt, "out.s0.y", &mut rows);
    assert_eq!(rows.len(), 3, "{}", run.lowered.stmt);
    let columns_in = |part: &Stmt| {
        let mut found = Vec::new();
        loops_named(part, "out.s0.x", &mut found);
        found.len()
    };
    let columns: Vec<usize> = rows.iter().map(columns_in).collect();
    assert_eq!(columns, [1, 3, 1], "{}", run.lowered.stmt);
}

#[test]
fn shift_inwards_partitions_only_the_innermost_loop() {
    // Both splits shift their last iteration inwards; only the innermost loop (the vector
    // loop over x) is split into its steady iterations and the last one.
    let input = ImageParam::new(Type::u16(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let out = Func::new("out");
    out.define((x, y), input.at((x, y)) * 3 + input.at((x + 1, y)))
        .unwrap();
    out.split(y, "yo", "yi", 4).parallel("yo").vectorize(x, 8);
    let image = u16_image(&[0, 0], &[31, 10], 9);
    let run = check(
        &out,
        &TestInputs::new().image(&input, image),
        &[0, 0],
        &[30, 10],
    );
    let count = |name: &str| {
        let mut found = Vec::new();
        loops_named(&run.lowered.stmt, name, &mut found);
        found.len()
    };
    assert_eq!(count("out.s0.y.yo"), 1, "{}", run.lowered.stmt);
    assert_eq!(count("out.s0.y.yi"), 1, "{}", run.lowered.stmt);
    assert_eq!(count("out.s0.x.x"), 2, "{}", run.lowered.stmt);
}

/// How many `if`s and predicated stores `s` holds: the guards of split tails.
fn guard_count(s: &Stmt) -> usize {
    let own = match s.kind() {
        tessera::ir::StmtKind::IfThenElse { .. } => 1,
        tessera::ir::StmtKind::Store {
            predicate: Some(_), ..
        } => 1,
        _ => 0,
    };
    let mut inside = 0;
    s.for_each_child(|_| {}, |c| inside += guard_count(c));
    own + inside
}

/// The guard counts of the loops named `name`, in program order.
fn guards_per_loop(s: &Stmt, name: &str) -> Vec<usize> {
    let mut loops = Vec::new();
    loops_named(s, name, &mut loops);
    loops.iter().map(guard_count).collect()
}

#[test]
fn guarded_tails_leave_the_steady_state_unguarded() {
    // An update over an RDom split with GuardWithIf (the default for updates), its inner loop
    // unrolled or vectorized: only the iterations past the RDom's end need the guard.
    for vectorized in [false, true] {
        let input = ImageParam::new(Type::u16(), 1, "input");
        let (x, r) = (Var::new("x"), RDom::named("r", [(0, input.width())]));
        let f = Func::new("f");
        f.define(x, Expr::make_const(Type::u16(), 0)).unwrap();
        f.update(r.x(), input.at(r.x()) * 3 + 1).unwrap();
        let stage = f.update_stage(0);
        stage.split("r.x", "rxo", "rxi", 8);
        if vectorized {
            stage.vectorize("rxi", 8);
        } else {
            stage.unroll_loop("rxi");
        }
        let image = u16_image(&[0], &[45], 11);
        let run = check(&f, &TestInputs::new().image(&input, image), &[0], &[45]);
        assert_eq!(
            guards_per_loop(&run.lowered.stmt, "f.s1.r.x.rxo"),
            [0, if vectorized { 1 } else { 8 }],
            "vectorized {vectorized}: the steady loop is unguarded, the tail guarded\n{}",
            run.lowered.stmt
        );
    }
}

#[test]
fn factored_reduction_tails_leave_the_steady_state_unguarded() {
    // A histogram factored over an x split that need not divide the width: the points past
    // the end are skipped, but only outside the steady loop.
    let input = ImageParam::new(Type::u8(), 2, "input");
    let lane = Var::new("lane");
    let hist = lower_common::histogram(&input);
    hist.update_stage(0).split("r.x", "rxo", "rxi", 4);
    let partial = hist
        .update_stage(0)
        .rfactor(&[("rxi".into(), lane)])
        .unwrap();
    partial.compute_root();
    partial
        .update_stage(0)
        .reorder((lane, "rxo", "r.y"))
        .unroll_loop(lane);
    let image = lower_common::u8_image(&[1, 0], &[23, 5], 0, 255, 3);
    let run = check(&hist, &TestInputs::new().image(&input, image), &[0], &[256]);
    assert_eq!(
        guards_per_loop(&run.lowered.stmt, "hist_intm.s1.rxo"),
        [0, 4],
        "{}",
        run.lowered.stmt
    );
}

/// How many predicated loads and stores `s` holds.
fn masks(s: &Stmt) -> usize {
    let mut n = 0;
    lower_common::walk_stmts(s, &mut |s| {
        n += matches!(
            s.kind(),
            tessera::ir::StmtKind::Store {
                predicate: Some(_),
                ..
            }
        ) as usize;
    });
    visit_stmt_exprs(s, &mut |e| {
        n += matches!(
            e.kind(),
            ExprKind::Load {
                predicate: Some(_),
                ..
            }
        ) as usize;
        true
    });
    n
}

#[test]
fn predicated_vector_tails_leave_the_steady_state_unmasked() {
    // out(x) = input(x) * 3 over 45 points, vectorized by 8: the steady loop loads and stores
    // whole vectors; the tail masks its load and store (Predicate, GuardWithIf), its load only
    // (PredicateLoads: one store of a select) or its store only (PredicateStores).
    use tessera::lang::schedule::TailStrategy;
    for (tail, tail_masks) in [
        (TailStrategy::GuardWithIf, 2),
        (TailStrategy::Predicate, 2),
        (TailStrategy::PredicateLoads, 1),
        (TailStrategy::PredicateStores, 1),
    ] {
        let input = ImageParam::new(Type::u16(), 1, "input");
        let x = Var::new("x");
        let out = Func::new("out");
        out.define(x, input.at(x) * 3).unwrap();
        out.vectorize_with_tail(x, 8, tail);
        let image = u16_image(&[0], &[48], 11);
        let run = check(&out, &TestInputs::new().image(&input, image), &[0], &[45]);
        let mut loops = Vec::new();
        loops_named(&run.lowered.stmt, "out.s0.x.x", &mut loops);
        assert_eq!(
            loops.iter().map(masks).collect::<Vec<_>>(),
            [0, tail_masks],
            "{tail:?}: the steady loop is unmasked, the tail masked\n{}",
            run.lowered.stmt
        );
    }
}

/// A level of `input` repeated at its edges over `[0, extent)`, as a pyramid clamps its
/// levels: the lower bound is the constant 0, so the simplifier writes the steady state's
/// condition `0 <= min(x, extent - 1)` with a negation (`-min(x, extent - 1) <= 0`).
fn level_clamped_at_zero(input: &ImageParam) -> Func {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let level = Func::new("level");
    level.define((x, y), input.at((x, y))).unwrap();
    let bounds = [0, 1].map(|d| (Expr::i32(0), input.extent(d)));
    repeat_edge_with_bounds(&level, &bounds).unwrap()
}

/// Asserts that the steady state of the loop `name` inside the steady state of the row loop
/// around it (the middle of 3 x 3 copies) reads `buffer` with clamp-free vector loads only.
fn assert_steady_state_clean(s: &Stmt, name: &str, buffer: &str) {
    let mut loops = Vec::new();
    loops_named(s, name, &mut loops);
    assert_eq!(loops.len(), 9, "{name}: 3 x 3 parts expected\n{s}");
    assert_eq!(
        load_shapes(&loops[4], buffer),
        (true, false),
        "{name}: the steady state still clamps its loads of {buffer}\n{s}"
    );
}

#[test]
fn downsampling_reads_of_a_level_clamped_at_zero_are_clean_in_the_steady_state() {
    let input = ImageParam::new(Type::u16(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let bc = level_clamped_at_zero(&input);
    let down = Func::new("down");
    let tap = |k: i32| bc.at((2 * x + k, y));
    down.define((x, y), tap(-2) + tap(-1) * 2 + tap(0) + tap(1) + tap(2))
        .unwrap();
    down.vectorize(x, 8);
    let image = u16_image(&[0, 0], &[80, 6], 11);
    let run = check(
        &down,
        &TestInputs::new().image(&input, image),
        &[0, -1],
        &[40, 8],
    );
    assert_steady_state_clean(&run.lowered.stmt, "down.s0.x.x", "input");
}

#[test]
fn upsampling_reads_at_half_a_column_pair_are_clean_in_the_steady_state() {
    // Aligned to column pairs and unrolled by two, each lane reads `x / 2` of a vector base
    // `min + 2 * 8 * v (+ 1)`: the steady state's bounds divide that base by 2.
    let input = ImageParam::new(Type::u16(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let bc = level_clamped_at_zero(&input);
    let (ux, out) = (Func::new("ux"), Func::new("out"));
    let tap = |k: i32| bc.at((x / 2 + k, y));
    ux.define((x, y), tap(-1) + tap(0) * 2 + tap(1)).unwrap();
    out.define((x, y), ux.at((x, y)) + 1).unwrap();
    ux.compute_root()
        .align_bounds(x, 2)
        .split_with_tail("x", "x", "x_pair", 2, TailStrategy::RoundUp)
        .unroll_loop("x_pair")
        .vectorize_with_tail("x", 8, TailStrategy::RoundUp);
    let image = u16_image(&[0, 0], &[40, 6], 12);
    let run = check(
        &out,
        &TestInputs::new().image(&input, image),
        &[0, 0],
        &[80, 12],
    );
    assert_steady_state_clean(&run.lowered.stmt, "ux.s0.x.x.x", "input");
}

/// The expression nodes of `s`, as a tree.
fn tree_nodes(s: &Stmt) -> usize {
    let mut n = 0;
    visit_stmt_exprs(s, &mut |_| {
        n += 1;
        true
    });
    n
}

/// A chain of `length` stencils, all computed inside the output's tiles and vectorized with
/// guarded tails (the shape of a sampled automatic schedule of stencil_chain).
fn tiled_chain(length: usize) -> (ImageParam, Func) {
    let input = ImageParam::new(Type::u16(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let mut chain = vec![repeat_edge(&input)];
    for i in 0..length {
        let prev = &chain[chain.len() - 1];
        let f = Func::new(&format!("stage_{i}"));
        f.define(
            (x, y),
            prev.at((x - 1, y))
                + prev.at((x + 1, y)) * 2
                + prev.at((x, y - 1))
                + prev.at((x, y + 1)),
        )
        .unwrap();
        chain.push(f);
    }
    let out = chain.pop().unwrap();
    out.split_with_tail(x, "xo", "xi", 32, TailStrategy::GuardWithIf);
    out.split_with_tail(y, "yo", "yi", 8, TailStrategy::GuardWithIf);
    out.reorder(["xi", "yi", "xo", "yo"]);
    out.vectorize("xi", 8);
    for f in &chain[1..] {
        f.compute_at(&out, "xo");
        f.split_with_tail(x, "xv", "xvi", 8, TailStrategy::GuardWithIf);
        f.vectorize("xvi", 8);
    }
    (input, out)
}

/// Each Func's bounds are written in terms of its consumer's, min and max both, so the tail
/// guards' conditions with the lets expanded have some 2^length nodes: lowering a 17-Func
/// chain took minutes and gigabytes. Conditions too big are left unsolved, so the statement
/// grows in proportion to the chain (and the results stay the evaluator's).
#[test]
fn a_long_chain_computed_in_tiles_lowers_in_proportion_to_its_length() {
    let mut sizes = Vec::new();
    for length in [6, 24] {
        let (input, out) = tiled_chain(length);
        let image = u16_image(&[3, -1], &[41, 13], 7);
        let run = check(
            &out,
            &TestInputs::new().image(&input, image),
            &[-3, 2],
            &[70, 19],
        );
        sizes.push(tree_nodes(&run.lowered.stmt));
    }
    assert!(sizes[1] < 8 * sizes[0], "statement sizes {sizes:?}");
}
