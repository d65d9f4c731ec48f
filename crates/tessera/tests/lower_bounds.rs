//! Bounds inference and placement against the evaluator (Halide's bounds_inference,
//! bounds_inference_chunk, bounds_inference_outer_split, compute_at_innermost,
//! compute_outermost, realize_over_shifted_domain, bound (and bound_extent), reorder_storage, tuple tests):
//! chains of ±1 stencils, regions through splits and nested compute_at, every placement from
//! innermost to outermost, boxes at negative and positive mins, explicit bounds, storage
//! orders and alignments, aligned bounds (`align_bounds`), up/downsampling and Tuple-valued Funcs. Allocation sizes show the regions inferred.

mod lower_common;

use lower_common::{check, u16_image, Checked, TestInputs};
use tessera::pipeline::{Inputs, Pipeline};
use tessera::prelude::*;

/// `f(x, y) = x + 2y`, `g(x, y) = f(x - 1, y) + f(x + 1, y)`, `h(x, y) = g(x, y - 1) + g(x, y + 1)`:
/// h(x, y) = 4x + 8y in closed form.
struct Chain {
    f: Func,
    g: Func,
    h: Func,
    x: Var,
    y: Var,
}

fn chain() -> Chain {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (f, g, h) = (Func::new("f"), Func::new("g"), Func::new("h"));
    f.define((x, y), x + y * 2).unwrap();
    g.define((x, y), f.at((x - 1, y)) + f.at((x + 1, y)))
        .unwrap();
    h.define((x, y), g.at((x, y - 1)) + g.at((x, y + 1)))
        .unwrap();
    Chain { f, g, h, x, y }
}

fn run_chain(c: &Chain, mins: [i64; 2], extents: [i64; 2]) -> Checked {
    let run = check(&c.h, &TestInputs::new(), &mins, &extents);
    let AnyBuffer::I32(out) = &run.realization.buffers[0] else {
        panic!("h is i32");
    };
    out.for_each_coord(|p| assert_eq!(out.get(p) as i64, 4 * p[0] + 8 * p[1], "at {p:?}"));
    run
}

#[test]
fn root_producers_cover_their_stencils() {
    let c = chain();
    c.f.compute_root();
    c.g.compute_root();
    let run = run_chain(&c, [0, 0], [10, 7]);
    assert_eq!(run.allocation("g"), 10 * 9);
    assert_eq!(run.allocation("f"), 12 * 9);
    assert_eq!(run.stores("f"), 12 * 9);
}

#[test]
fn shifted_domains() {
    for mins in [[-7, -3], [5, 100], [-1000, 37], [3, -20]] {
        let c = chain();
        c.f.compute_root();
        c.g.compute_at(&c.h, c.y);
        run_chain(&c, mins, [9, 4]);
    }
    // An input at shifted mins, read through a stencil.
    let input = ImageParam::new(Type::u16(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let out = Func::new("out");
    out.define((x, y), input.at((x - 1, y + 2)) * 2 + input.at((x, y)))
        .unwrap();
    out.vectorize(x, 4);
    let image = u16_image(&[-13, 40], &[12, 9], 4);
    check(
        &out,
        &TestInputs::new().image(&input, image),
        &[-12, 40],
        &[11, 7],
    );
}

#[test]
fn regions_through_splits_and_nested_compute_at() {
    // h in tiles of 4 × 3 (the last ones shifted inwards); g per tile; f per row of g.
    let c = chain();
    c.h.tile(c.x, c.y, "xo", "yo", "xi", "yi", 4, 3);
    c.g.compute_at(&c.h, "xo");
    c.f.compute_at(&c.g, c.y);
    let run = run_chain(&c, [-3, 2], [10, 7]);
    // 3 × 3 tiles; per tile g covers 4 × 5 and f, per row of g, 6 × 1.
    assert_eq!(run.allocations("g"), 9);
    assert_eq!(run.allocation("g"), 4 * 5);
    assert_eq!(run.allocations("f"), 9 * 5);
    assert_eq!(run.allocation("f"), 6);
    assert_eq!(run.stores("g"), 9 * 4 * 5);
}

#[test]
fn regions_through_an_outer_split() {
    // h's y split, and the outer loop split again: g is computed per outer-outer strip.
    let c = chain();
    c.h.split(c.y, "yo", "yi", 2).split("yo", "yoo", "yoi", 2);
    c.g.compute_at(&c.h, "yoo");
    c.f.compute_root();
    let run = run_chain(&c, [0, 0], [5, 8]);
    // 2 strips of 4 rows, each needing 6 rows of g.
    assert_eq!(run.allocations("g"), 2);
    assert_eq!(run.stores("g"), 2 * 6 * 5);
}

#[test]
fn placements_from_innermost_to_outermost() {
    let levels: [(&str, u64); 4] = [("root", 1), ("y", 6), ("x", 6 * 8), ("xi", 6 * 8)];
    for (level, allocations) in levels {
        let c = chain();
        c.h.split(c.x, c.x, "xi", 1);
        match level {
            "root" => {
                c.g.compute_root();
            }
            l => {
                c.g.compute_at(&c.h, l);
            }
        }
        c.f.compute_at(&c.g, c.x);
        let run = run_chain(&c, [1, 1], [8, 6]);
        assert_eq!(run.allocations("g"), allocations, "g at {level}");
    }
}

#[test]
fn compute_at_the_update_stage_of_a_consumer() {
    // g is read only by h's update; computed inside its loop over x.
    let (x, y) = (Var::new("x"), Var::new("y"));
    let g = Func::new("g");
    g.define((x, y), x * 3 - y).unwrap();
    let h = Func::new("h");
    let r = RDom::named("r", [(0, 3)]);
    h.define((x, y), x).unwrap();
    h.update((x, y), h.at((x, y)) + g.at((x + r.x(), y)))
        .unwrap();
    g.compute_at(h.update_stage(0), x);
    let run = check(&h, &TestInputs::new(), &[2, -2], &[7, 3]);
    assert_eq!(run.allocations("g"), 21);
    assert_eq!(run.allocation("g"), 3);
}

#[test]
fn explicit_bounds() {
    let c = chain();
    c.g.compute_root().bound(c.y, -1, 12);
    c.f.compute_root();
    let run = run_chain(&c, [0, 0], [10, 10]);
    assert_eq!(run.allocation("g"), 10 * 12);
    assert_eq!(run.stores("g"), 10 * 12);
    // A bound on the output is checked against the box realized.
    let c = chain();
    c.h.bound(c.x, 0, 8).vectorize(c.x, 4);
    run_chain(&c, [0, 3], [8, 2]);
    let err = Pipeline::new(&c.h)
        .realize_interp(&Inputs::new(), &[0, 3], &[12, 2])
        .unwrap_err()
        .to_string();
    assert!(err.contains("h.bound(x, ..)"), "{err}");
}

#[test]
fn bounded_extents() {
    // g computed per row of h needs 3 rows of g, at a min that moves with the row; a
    // bound_extent of 4 computes 4 rows from that min, in an allocation of constant size.
    let c = chain();
    c.g.compute_at(&c.h, c.y).bound_extent(c.y, 4);
    c.f.compute_root();
    let run = run_chain(&c, [0, 0], [10, 6]);
    assert_eq!(run.allocation("g"), 10 * 4);
    assert_eq!(run.allocations("g"), 6);
    assert_eq!(run.stores("g"), 6 * 10 * 4);
    // It replaces an earlier bound of the dimension, and is replaced by a later one.
    let c = chain();
    c.g.compute_root().bound(c.y, -1, 12).bound_extent(c.y, 9);
    c.f.compute_root();
    assert_eq!(run_chain(&c, [0, 3], [10, 7]).allocation("g"), 10 * 9);
    // Fewer points than the consumers need is an error at run time, naming the directive.
    let c = chain();
    c.g.compute_root().bound_extent(c.y, 2);
    let err = Pipeline::new(&c.h)
        .realize_interp(&Inputs::new(), &[0, 0], &[4, 4])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("g.bound_extent(y, ..)") && err.contains("is needed"),
        "{err}"
    );
    // A Var that is no dimension of the Func is refused when lowering.
    let c = chain();
    c.g.compute_root().bound_extent(Var::new("z"), 2);
    let err = Pipeline::new(&c.h)
        .lower_to_string()
        .unwrap_err()
        .to_string();
    assert!(err.contains("g.bound_extent(z, ..)"), "{err}");
}

#[test]
fn aligned_bounds() {
    // g's x region [1, 7] widens to [0, 7], [-3, 3] to [-4, 3]; y (5 rows) is not aligned.
    for min_x in [1, -3, 0] {
        let c = chain();
        c.g.compute_root().align_bounds(c.x, 4);
        let run = run_chain(&c, [min_x, 0], [7, 3]);
        assert_eq!(run.allocation("g"), 8 * 5, "output min x {min_x}");
    }
    // Aligned to 2 and unrolled by 2, an upsampling's parity select folds away (without the
    // alignment, `x % 2` stays).
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (f, up, out) = (Func::new("f"), Func::new("up"), Func::new("out"));
    f.define((x, y), x * 10 + y).unwrap();
    up.define(
        (x, y),
        select((x % 2).eq_(0), f.at((x / 2, y)), f.at((x / 2 + 1, y)) * 3),
    )
    .unwrap();
    out.define((x, y), up.at((x, y)) + 1).unwrap();
    up.compute_root()
        .align_bounds(x, 2)
        .split(x, "x", "xi", 2)
        .unroll("xi", 2);
    check(&out, &TestInputs::new(), &[3, -1], &[7, 2]);
    let lowered = Pipeline::new(&out).lower_to_string().unwrap();
    assert!(!lowered.contains("% 2"), "{lowered}");
    // The output's region is its buffer's, which must be aligned.
    out.align_bounds(x, 2);
    Pipeline::new(&out)
        .realize_interp(&Inputs::new(), &[0, 0], &[4, 2])
        .unwrap();
    let err = Pipeline::new(&out)
        .realize_interp(&Inputs::new(), &[3, -1], &[7, 2])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("out.align_bounds(x, 2, 0): the output buffer must start at 0 modulo 2"),
        "{err}"
    );
}

#[test]
fn storage_orders() {
    let c = chain();
    c.g.compute_root().reorder_storage([c.y, c.x]);
    c.f.compute_at(&c.g, c.y).reorder_storage([c.y, c.x]);
    run_chain(&c, [-2, 5], [7, 9]);
    let c = chain();
    c.g.compute_at(&c.h, c.y)
        .reorder_storage([c.y, c.x])
        .vectorize(c.x, 4);
    run_chain(&c, [0, 0], [9, 3]);
}

/// `align_storage` pads a dimension's storage extent to a multiple of the alignment, in any
/// storage order, for constant and run-time regions (the output's size), at any min; what is
/// computed stays the evaluator's.
#[test]
fn aligned_storage() {
    let round_up = |extent: i64, a: i64| (extent + a - 1) / a * a;
    for (mins, extents) in [([0, 0], [10, 7]), ([-3, 5], [17, 4]), ([1, -2], [16, 3])] {
        let c = chain();
        c.g.compute_root().align_storage(c.x, 8);
        c.f.compute_root()
            .reorder_storage([c.y, c.x])
            .align_storage(c.y, 3)
            .align_storage(c.x, 4);
        let run = run_chain(&c, mins, extents);
        // g covers h's box and a row either side; f a column either side of g's.
        let (w, h) = (extents[0], extents[1] + 2);
        assert_eq!(run.allocation("g"), (round_up(w, 8) * h) as u64);
        assert_eq!(
            run.allocation("f"),
            (round_up(w + 2, 4) * round_up(h, 3)) as u64
        );
    }
    // Inside a loop, vectorized, with an alignment of 1 (no padding) on the other dimension.
    let c = chain();
    c.g.compute_at(&c.h, c.y)
        .align_storage(c.x, 16)
        .align_storage(c.y, 1)
        .vectorize(c.x, 4);
    let run = run_chain(&c, [0, 0], [9, 3]);
    assert_eq!(run.allocation("g"), 16 * 3);
}

#[test]
fn down_and_up_sampling() {
    for schedule in 0..3 {
        let input = ImageParam::new(Type::u16(), 2, "input");
        let (x, y) = (Var::new("x"), Var::new("y"));
        let down = Func::new("down");
        down.define(
            (x, y),
            (input.at((x * 2, y * 2)) + input.at((x * 2 + 1, y * 2 + 1))) / 2,
        )
        .unwrap();
        let up = Func::new("up");
        up.define(
            (x, y),
            down.at((x / 2, y / 2)) + down.at(((x + 1) / 2, y / 2)),
        )
        .unwrap();
        match schedule {
            0 => {
                down.compute_root();
            }
            1 => {
                down.store_root().compute_at(&up, y);
            }
            _ => {
                up.tile(x, y, "xo", "yo", "xi", "yi", 4, 4)
                    .vectorize("xi", 2);
                down.compute_at(&up, "xo").vectorize(x, 2);
            }
        }
        let image = u16_image(&[-10, -10], &[30, 30], 6);
        let run = check(
            &up,
            &TestInputs::new().image(&input, image),
            &[-5, -3],
            &[13, 9],
        );
        if schedule == 1 {
            // Sliding along y computes each row of down once: rows -2..=2, columns -3..=4.
            assert_eq!(run.stores("down"), 5 * 8);
        }
    }
}

#[test]
fn shifted_in_points_of_narrow_levels_do_not_grow_the_pyramid() {
    // A chain of downsamplings, each level at root in vectors of 8: the coarse levels are
    // narrower than a vector, so their last vector shifts inwards past their region's min.
    // Those points are never used; each level computes (in whole vectors) only what the
    // region of the level above needs, not what its shifted-in points would read. Otherwise
    // the overreach of the coarsest level doubles at every level below it.
    const LEVELS: usize = 6;
    let input = ImageParam::new(Type::u16(), 1, "input");
    let x = Var::new("x");
    let clamped = repeat_edge(&input);
    let mut levels = vec![Func::new("level0")];
    levels[0].define(x, clamped.at(x)).unwrap();
    for l in 1..LEVELS {
        let finer = levels[l - 1].clone();
        let level = Func::new(&format!("level{l}"));
        level
            .define(
                x,
                (finer.at(2 * x - 1) + finer.at(2 * x) * 2 + finer.at(2 * x + 1)) / 4,
            )
            .unwrap();
        levels.push(level);
    }
    let out = Func::new("out");
    out.define(x, levels[LEVELS - 1].at(x)).unwrap();
    for level in &levels {
        level.compute_root().vectorize(x, 8);
    }
    let image = u16_image(&[0], &[40], 7);
    let (out_min, out_extent) = (0, 3);
    let run = check(
        &out,
        &TestInputs::new().image(&input, image),
        &[out_min],
        &[out_extent],
    );
    // Plain Rust: level l needs [2 lo - 1, 2 hi + 1] of what level l + 1 needs, and computes
    // it in whole vectors of 8 (a region narrower than 8 still takes one vector).
    let (mut lo, mut hi) = (out_min, out_min + out_extent - 1);
    for l in (0..LEVELS).rev() {
        let vectors = (hi - lo + 1 + 7) / 8;
        let name = format!("level{l}");
        assert_eq!(
            run.provides(&name),
            8 * vectors as u64,
            "{name} over [{lo}, {hi}]"
        );
        (lo, hi) = (2 * lo - 1, 2 * hi + 1);
    }
}

#[test]
fn a_func_read_by_several_consumers() {
    // f feeds g and h at different offsets; out reads both.
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x * x - y).unwrap();
    let g = Func::new("g");
    g.define((x, y), f.at((x - 2, y)) + f.at((x, y + 3)))
        .unwrap();
    let h = Func::new("h");
    h.define((x, y), f.at((x + 1, y - 1)) * 3).unwrap();
    let out = Func::new("out");
    out.define((x, y), g.at((x, y)) - h.at((x, y + 1))).unwrap();
    f.compute_at(&out, y);
    g.compute_at(&out, x);
    h.store_root().compute_at(&out, y);
    let run = check(&out, &TestInputs::new(), &[-4, -4], &[9, 6]);
    // Per row of out, f covers x in [-6, 5] and y in [y - 0 ... y + 3] (rows y, y+1-1, y+3).
    assert_eq!(run.allocation("f"), 12 * 4);
}

#[test]
fn tuple_valued_funcs() {
    for schedule in 0..4 {
        let input = ImageParam::new(Type::u16(), 2, "input");
        let (x, y) = (Var::new("x"), Var::new("y"));
        let pair = Func::new("pair");
        pair.define(
            (x, y),
            Tuple(vec![
                cast_to::<i32>(input.at((x, y))) - 100,
                cast_to::<f32>(input.at((x + 1, y))) * 0.25f32,
            ]),
        )
        .unwrap();
        let out = Func::new("out");
        out.define(
            (x, y),
            Tuple(vec![
                pair.value_at((x, y), 0) + pair.value_at((x, y + 1), 0),
                pair.value_at((x - 1, y), 1) * 2.0f32,
            ]),
        )
        .unwrap();
        match schedule {
            0 => {}
            1 => {
                pair.compute_root();
            }
            2 => {
                pair.store_root().compute_at(&out, y).vectorize(x, 4);
                out.vectorize(x, 4);
            }
            _ => {
                out.split(x, "xo", "xi", 3).parallel(y);
                pair.compute_at(&out, "xo");
            }
        }
        let image = u16_image(&[-2, -2], &[20, 12], 7);
        check(
            &out,
            &TestInputs::new().image(&input, image),
            &[-1, -1],
            &[15, 9],
        );
    }
}

/// `p(x, y) = input(x, y) + input(x + 1, y)`, a `g` reading p defined by `define_g`, and
/// `out(x, y) = 2 g(x, y) + g(x, y + 1)` with g computed per row of out and p placed by
/// `place_p`: out's 10 × 6 points from a 12 × 7 input, checked against the evaluator.
fn p_placed_in_g_per_row_of_out(
    define_g: impl FnOnce(&Func, &Func, Var, Var),
    place_p: impl FnOnce(&Func, &Func),
) -> Checked {
    let input = ImageParam::new(Type::u16(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let p = Func::new("p");
    p.define((x, y), input.at((x, y)) + input.at((x + 1, y)))
        .unwrap();
    let g = Func::new("g");
    define_g(&g, &p, x, y);
    let out = Func::new("out");
    out.define((x, y), g.at((x, y)) * 2 + g.at((x, y + 1)))
        .unwrap();
    g.compute_at(&out, y);
    place_p(&p, &g);
    let inputs = TestInputs::new().image(&input, u16_image(&[0, 0], &[12, 7], 5));
    check(&out, &inputs, &[0, 0], &[10, 6])
}

#[test]
fn computed_at_the_outermost_level_of_a_consumer_stage() {
    // `p` at `Var::outermost()` of g's update: inside g's production, after its pure stage,
    // outside the update's loops, once per production of g.
    let run = p_placed_in_g_per_row_of_out(
        |g, p, x, y| {
            g.define((x, y), x + y).unwrap();
            g.update((x, y), g.at((x, y)) + p.at((x, y)) + p.at((x + 1, y)))
                .unwrap();
        },
        |p, g| {
            p.compute_at(g.update_stage(0), Var::outermost());
        },
    );
    // Per row of out, two rows of g, so two rows of 11 points of p.
    assert_eq!(run.allocation("p"), 22);
    assert_eq!(run.stores("p"), 6 * 22);
}

#[test]
fn computed_at_the_outermost_level_of_a_single_stage_consumer_computed_per_row() {
    // `p` at `Var::outermost()` of g, which has no update: g's production is then p's
    // `produce p; consume p` pair alone, one stage whose region lets must come before it.
    let run = p_placed_in_g_per_row_of_out(
        |g, p, x, y| {
            g.define((x, y), p.at((x, y)) * 3 + p.at((x + 1, y)))
                .unwrap();
        },
        |p, g| {
            p.store_root().compute_at(g, Var::outermost());
        },
    );
    // Per row of out, two rows of g, so two rows of 11 points of p; stored at root, p
    // slides down them (each of the 7 rows computed once), its storage folded to the two
    // rows in use.
    assert_eq!(run.stores("p"), 7 * 11);
    assert_eq!(run.allocation("p"), 2 * 11);
}
