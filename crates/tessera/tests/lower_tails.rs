//! Splits whose factor does not divide the extent (Halide's split_by_non_factor,
//! nested_tail_strategies, multi_splits_with_diff_tail_strategies, vectorize_guard_with_if):
//! every tail strategy, alone and nested, on the output, on a producer computed at root and
//! inside `compute_at`, and on vectorized and unrolled loops. Each schedule equals the
//! evaluator, and computes exactly the points its tail strategy promises — counted by a
//! plain-Rust enumeration of the split loops.

mod lower_common;

use lower_common::{check, u16_image, TestInputs};
use tessera::lang::schedule::TailStrategy;
use tessera::prelude::*;

const TAILS: [TailStrategy; 4] = [
    TailStrategy::Auto,
    TailStrategy::GuardWithIf,
    TailStrategy::ShiftInwards,
    TailStrategy::RoundUp,
];

/// One split of a dimension for `offsets`: which loop it splits (the original dimension is
/// loop 0; each split appends its outer and then its inner loop), by what, with what tail.
#[derive(Clone, Copy, Debug)]
struct SplitSpec {
    loop_index: usize,
    factor: i64,
    tail: TailStrategy,
}

/// The offsets (from the region's min) a pure stage computes for a dimension of extent
/// `extent` split as `splits` say, with multiplicity, in plain Rust: each split's outer loop
/// runs `ceil(extent / factor)` times; the inner loop `factor` times; the split variable is
/// `outer * factor + inner`, moved back to `extent - factor` for ShiftInwards and skipped past
/// `extent` for GuardWithIf, Predicate and PredicateStores, whose stores are guarded (Auto is
/// ShiftInwards in a pure definition, but RoundUp on a loop made from the outer loop of a
/// shifted split by at least its factor; PredicateLoads stores whole pieces, as RoundUp).
fn offsets(extent: i64, splits: &[SplitSpec]) -> Vec<i64> {
    // Loop extents; a split loop becomes derived from its outer and inner loops.
    let mut extents = vec![extent];
    let mut children: Vec<Option<(usize, usize, SplitSpec)>> = vec![None];
    // For each loop made from the outer loop of a shifted split: that split's factor.
    let mut shifted_by: Vec<Option<i64>> = vec![None];
    for s in splits {
        let e = extents[s.loop_index];
        let (outer, inner) = (extents.len(), extents.len() + 1);
        extents.push((e + s.factor - 1) / s.factor);
        extents.push(s.factor);
        children.push(None);
        children.push(None);
        let covering = shifted_by[s.loop_index];
        let tail = match s.tail {
            TailStrategy::Auto if covering.is_some_and(|f| f >= s.factor) => TailStrategy::RoundUp,
            t => t,
        };
        let shifts = matches!(tail, TailStrategy::ShiftInwards | TailStrategy::Auto);
        shifted_by.push(covering.or(shifts.then_some(s.factor)));
        shifted_by.push(covering);
        children[s.loop_index] = Some((outer, inner, SplitSpec { tail, ..*s }));
    }
    let leaves: Vec<usize> = (0..extents.len())
        .filter(|&i| children[i].is_none())
        .collect();
    // The value of loop `i` given the leaf loops' values; None when a guard skips it.
    fn value(
        i: usize,
        leaf_values: &[(usize, i64)],
        extents: &[i64],
        children: &[Option<(usize, usize, SplitSpec)>],
    ) -> Option<i64> {
        match children[i] {
            None => leaf_values.iter().find(|(l, _)| *l == i).map(|(_, v)| *v),
            Some((outer, inner, s)) => {
                let o = value(outer, leaf_values, extents, children)?;
                let n = value(inner, leaf_values, extents, children)?;
                let base = match s.tail {
                    TailStrategy::ShiftInwards | TailStrategy::Auto => {
                        (o * s.factor).min(extents[i] - s.factor)
                    }
                    _ => o * s.factor,
                };
                let v = base + n;
                let guarded = matches!(
                    s.tail,
                    TailStrategy::GuardWithIf
                        | TailStrategy::Predicate
                        | TailStrategy::PredicateStores
                );
                (!guarded || v < extents[i]).then_some(v)
            }
        }
    }
    let mut out = Vec::new();
    let total: i64 = leaves.iter().map(|&l| extents[l]).product();
    for mut k in 0..total {
        let mut leaf_values = Vec::new();
        for &l in &leaves {
            leaf_values.push((l, k % extents[l]));
            k /= extents[l];
        }
        if let Some(v) = value(0, &leaf_values, &extents, &children) {
            out.push(v);
        }
    }
    out
}

fn one_split(factor: i64, tail: TailStrategy) -> Vec<SplitSpec> {
    vec![SplitSpec {
        loop_index: 0,
        factor,
        tail,
    }]
}

/// Applies `splits` to dimension `dim` of `f`'s pure stage, naming loops `<dim>_<index>`.
fn apply_splits(f: &Func, dim: &str, splits: &[SplitSpec]) {
    let mut next = 1;
    for s in splits {
        let name = |i: usize| {
            if i == 0 {
                dim.to_string()
            } else {
                format!("{dim}_{i}")
            }
        };
        f.split_with_tail(
            name(s.loop_index).as_str(),
            name(next).as_str(),
            name(next + 1).as_str(),
            s.factor as i32,
            s.tail,
        );
        next += 2;
    }
}

/// `producer(x, y) = input(x, y) * 3 + y`, `out(x, y) = producer(x, y) + producer(x + 1, y)`:
/// out over `[-3, -3 + W) × [2, 2 + H)`, reading an input of exactly the size the algorithm
/// needs (so a schedule that reads past it fails).
struct Chain {
    input: ImageParam,
    producer: Func,
    out: Func,
    x: Var,
    y: Var,
}

const MINS: [i64; 2] = [-3, 2];
const W: i64 = 13;
const H: i64 = 5;

fn chain() -> Chain {
    let input = ImageParam::new(Type::u16(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let producer = Func::new("producer");
    producer
        .define((x, y), input.at((x, y)) * 3 + cast_to::<u16>(y))
        .unwrap();
    let out = Func::new("out");
    out.define((x, y), producer.at((x, y)) + producer.at((x + 1, y)))
        .unwrap();
    Chain {
        input,
        producer,
        out,
        x,
        y,
    }
}

fn run_chain(c: &Chain, input_extra: i64) -> lower_common::Checked {
    let image = u16_image(&MINS, &[W + 1 + input_extra, H], 5);
    check(
        &c.out,
        &TestInputs::new().image(&c.input, image),
        &MINS,
        &[W, H],
    )
}

#[test]
fn enumeration_of_split_loops() {
    let sorted = |mut v: Vec<i64>| {
        v.sort_unstable();
        v
    };
    let shift = one_split(4, TailStrategy::ShiftInwards);
    assert_eq!(sorted(offsets(6, &shift)), vec![0, 1, 2, 2, 3, 3, 4, 5]);
    assert_eq!(
        offsets(6, &one_split(4, TailStrategy::GuardWithIf)).len(),
        6
    );
    assert_eq!(
        sorted(offsets(6, &one_split(4, TailStrategy::RoundUp))),
        (0..8).collect::<Vec<_>>()
    );
    let guard_then_round_up = [
        SplitSpec {
            loop_index: 0,
            factor: 4,
            tail: TailStrategy::GuardWithIf,
        },
        SplitSpec {
            loop_index: 2,
            factor: 3,
            tail: TailStrategy::RoundUp,
        },
    ];
    assert_eq!(
        sorted(offsets(6, &guard_then_round_up)),
        vec![0, 1, 2, 3, 4, 4, 5, 5]
    );
    // An Auto split of the outer loop of a shifted split by 4 rounds up (by 3 <= 4): its
    // extra pieces start where the shifted split's last one does.
    let auto_on_outer = |second: TailStrategy| {
        let splits = [
            SplitSpec {
                loop_index: 0,
                factor: 4,
                tail: TailStrategy::Auto,
            },
            SplitSpec {
                loop_index: 1,
                factor: 3,
                tail: second,
            },
        ];
        sorted(offsets(14, &splits))
    };
    let pieces = |starts: &[i64]| sorted(starts.iter().flat_map(|s| *s..s + 4).collect());
    assert_eq!(
        auto_on_outer(TailStrategy::Auto),
        pieces(&[0, 4, 8, 10, 10, 10])
    );
    assert_eq!(
        auto_on_outer(TailStrategy::RoundUp),
        pieces(&[0, 4, 8, 10, 10, 10])
    );
    assert_eq!(
        auto_on_outer(TailStrategy::ShiftInwards),
        pieces(&[0, 4, 8, 4, 8, 10])
    );
}

#[test]
fn every_tail_on_the_output() {
    for tail in TAILS {
        if tail == TailStrategy::RoundUp {
            continue; // it would write past the output buffer, which image checks refuse
        }
        let c = chain();
        c.producer.compute_root();
        c.out.split_with_tail(c.x, "xo", "xi", 4, tail);
        let run = run_chain(&c, 0);
        let per_row = offsets(W, &one_split(4, tail)).len() as u64;
        assert_eq!(run.stores("out"), per_row * H as u64, "{tail:?}");
    }
}

#[test]
fn round_up_on_the_output_computes_past_it_into_a_bigger_buffer() {
    // As Halide: realizing a 13-wide output whose loop rounds up to whole pieces of 4
    // computes 16 columns into a bigger buffer and returns the 13 asked for (the harness
    // compares them with the evaluator, on the interpreter and the JIT).
    let c = chain();
    c.out
        .split_with_tail(c.x, "xo", "xi", 4, TailStrategy::RoundUp);
    let image = u16_image(&MINS, &[W + 4, H], 5);
    let run = check(
        &c.out,
        &TestInputs::new().image(&c.input, image.clone()),
        &MINS,
        &[W, H],
    );
    assert_eq!(run.realization.buffers[0].dims()[0].extent, W);
    // Into a buffer the caller gives, which cannot grow, it is refused as before: the
    // message names the split, and the tail strategy that would fit.
    let compiled = tessera::pipeline::Pipeline::new(&c.out)
        .compile_jit(&tessera::codegen::target::Target::host())
        .unwrap();
    let mut outputs = vec![AnyBuffer::with_mins(Type::u16(), &MINS, &[W, H]).unwrap()];
    let err = compiled
        .realize_into(
            &tessera::pipeline::Inputs::new().image(&c.input, image),
            &mut outputs,
        )
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("output `out` is 13 wide in dimension 0")
            && err.contains("out.split(x, xo, xi, 4)")
            && err.contains("multiple of 4")
            && err.contains("GuardWithIf"),
        "{err}"
    );
}

#[test]
fn every_tail_on_a_root_producer() {
    for tail in TAILS {
        let c = chain();
        c.producer
            .compute_root()
            .split_with_tail(c.x, "xo", "xi", 4, tail);
        // The producer's region is W + 1 wide; RoundUp computes up to 3 points past it (and
        // reads as far into the input).
        let run = run_chain(&c, 3);
        let per_row = offsets(W + 1, &one_split(4, tail));
        assert_eq!(
            run.stores("producer"),
            per_row.len() as u64 * H as u64,
            "{tail:?}"
        );
        let span = per_row.iter().max().unwrap() - per_row.iter().min().unwrap() + 1;
        assert_eq!(run.allocation("producer"), (span * H) as u64, "{tail:?}");
    }
}

#[test]
fn guard_with_if_reads_no_more_input_than_the_algorithm() {
    // With an input of exactly the needed size, a guarded split must not ask for more, on
    // the output, on a producer, and on an update's reduction loop.
    let c = chain();
    c.out
        .split_with_tail(c.x, "xo", "xi", 4, TailStrategy::GuardWithIf);
    c.producer.compute_at(&c.out, c.y).split_with_tail(
        c.x,
        "xo",
        "xi",
        5,
        TailStrategy::GuardWithIf,
    );
    run_chain(&c, 0);

    let input = ImageParam::new(Type::u16(), 1, "input");
    let x = Var::new("x");
    let total = Func::new("total");
    let r = RDom::named("r", [(input.min(0), input.extent(0))]);
    total.define(x, cast_to::<u16>(Expr::from(0))).unwrap();
    total
        .update(x, total.at(x) + input.at(r.x()) * cast_to::<u16>(x + 1))
        .unwrap();
    total
        .update_stage(0)
        .split_with_tail("r.x", "ro", "ri", 4, TailStrategy::GuardWithIf);
    let image = u16_image(&[-2], &[11], 9);
    check(&total, &TestInputs::new().image(&input, image), &[0], &[3]);
}

#[test]
fn nested_tails_on_a_root_producer() {
    for outer in TAILS {
        for inner in TAILS {
            for (second_on, what) in [(2, "inner"), (1, "outer")] {
                let splits = vec![
                    SplitSpec {
                        loop_index: 0,
                        factor: 4,
                        tail: outer,
                    },
                    SplitSpec {
                        loop_index: second_on,
                        factor: 3,
                        tail: inner,
                    },
                ];
                let c = chain();
                c.producer.compute_root();
                apply_splits(&c.producer, "x", &splits);
                let run = run_chain(&c, 40);
                let per_row = offsets(W + 1, &splits).len() as u64;
                assert_eq!(
                    run.stores("producer"),
                    per_row * H as u64,
                    "{outer:?} then {inner:?} on the {what} loop"
                );
            }
        }
    }
}

#[test]
fn nested_tails_inside_compute_at() {
    for outer in TAILS {
        for inner in TAILS {
            let splits = vec![
                SplitSpec {
                    loop_index: 0,
                    factor: 5,
                    tail: outer,
                },
                SplitSpec {
                    loop_index: 2,
                    factor: 2,
                    tail: inner,
                },
            ];
            let c = chain();
            // Computed per row of out, whose columns are split too.
            c.out.split(c.x, "xo", "xi", 4);
            c.producer.compute_at(&c.out, c.y);
            apply_splits(&c.producer, "x", &splits);
            let run = run_chain(&c, 40);
            let per_row = offsets(W + 1, &splits).len() as u64;
            assert_eq!(
                run.stores("producer"),
                per_row * H as u64,
                "{outer:?} then {inner:?}"
            );
            assert_eq!(run.allocations("producer"), H as u64);
        }
    }
}

#[test]
fn producer_computed_per_tile_of_a_split_consumer() {
    // The producer is computed per 4-wide tile of out, which needs 5 of its columns. Of the 4
    // tiles of 13 columns, the last one shifts inwards (ShiftInwards: 4 full tiles) or stops
    // at the edge (GuardWithIf: it computes 1 column of out, needing 2 of the producer).
    for (tail, per_row) in [
        (TailStrategy::ShiftInwards, 4 * 5),
        (TailStrategy::GuardWithIf, 3 * 5 + 2),
    ] {
        let c = chain();
        c.out.split_with_tail(c.x, "xo", "xi", 4, tail);
        c.producer.compute_at(&c.out, "xo");
        let run = run_chain(&c, 0);
        assert_eq!(run.allocations("producer"), 4 * H as u64, "{tail:?}");
        assert_eq!(run.stores("producer"), per_row * H as u64, "{tail:?}");
    }
}

#[test]
fn vectorized_tails() {
    for tail in [TailStrategy::GuardWithIf, TailStrategy::ShiftInwards] {
        for width in [3, 4, 8] {
            let c = chain();
            c.out
                .split_with_tail(c.x, c.x, "xv", width, tail)
                .vectorize_loop("xv");
            c.producer
                .compute_root()
                .split_with_tail(c.x, c.x, "xv", width, tail)
                .vectorize_loop("xv");
            let run = run_chain(&c, 0);
            let out_row = offsets(W, &one_split(width as i64, tail)).len() as u64;
            let producer_row = offsets(W + 1, &one_split(width as i64, tail)).len() as u64;
            assert_eq!(run.stores("out"), out_row * H as u64, "{tail:?} {width}");
            assert_eq!(
                run.stores("producer"),
                producer_row * H as u64,
                "{tail:?} {width}"
            );
        }
    }
}

#[test]
fn unrolled_tails() {
    for tail in [TailStrategy::GuardWithIf, TailStrategy::ShiftInwards] {
        let c = chain();
        c.out
            .split_with_tail(c.x, c.x, "xu", 3, tail)
            .unroll_loop("xu");
        c.producer.compute_at(&c.out, c.y).unroll(c.x, 2);
        let run = run_chain(&c, 0);
        let out_row = offsets(W, &one_split(3, tail)).len() as u64;
        assert_eq!(run.stores("out"), out_row * H as u64, "{tail:?}");
    }
}

#[test]
fn tails_on_both_dimensions_of_a_tile() {
    for tail in [
        TailStrategy::GuardWithIf,
        TailStrategy::ShiftInwards,
        TailStrategy::Auto,
    ] {
        let c = chain();
        c.out
            .split_with_tail(c.x, "xo", "xi", 4, tail)
            .split_with_tail(c.y, "yo", "yi", 2, tail)
            .reorder(["xi", "yi", "xo", "yo"]);
        c.producer.compute_at(&c.out, "xo");
        let run = run_chain(&c, 0);
        let points = offsets(W, &one_split(4, tail)).len() * offsets(H, &one_split(2, tail)).len();
        assert_eq!(run.stores("out"), points as u64, "{tail:?}");
    }
}

#[test]
fn nested_guards_keep_the_output_inside_its_buffer() {
    // The guards test the split variables, not x itself: the region analysis must narrow
    // through the lets that rebuild x from them.
    let c = chain();
    c.out
        .split(c.x, "xo", "xi", 3)
        .split_with_tail("xi", "xio", "xii", 2, TailStrategy::GuardWithIf)
        .split_with_tail("xii", "a", "b", 6, TailStrategy::GuardWithIf);
    c.producer.compute_root();
    let run = run_chain(&c, 0);
    assert_eq!(run.stores("out"), (5 * 3 * H) as u64);
}

#[test]
fn guarded_iterations_past_the_end_compute_nothing() {
    // The outer loop of a guarded split, rounded up: its last iterations are entirely past
    // the end, so the producer computed in them has an empty region (and allocation).
    let c = chain();
    c.out
        .split_with_tail(c.x, "xo", "xi", 4, TailStrategy::GuardWithIf)
        .split_with_tail("xo", "xoo", "xoi", 3, TailStrategy::RoundUp);
    c.producer.compute_at(&c.out, "xoi");
    let run = run_chain(&c, 0);
    // 4 tiles of out per row rounded up to 6; the producer needs 5, 5, 5 and 2 columns.
    assert_eq!(run.allocations("producer"), 6 * H as u64);
    assert_eq!(run.stores("producer"), 17 * H as u64);
}

#[test]
fn a_histogram_scattering_past_the_output_is_cropped() {
    // The output asks for bins [0, 100); the update writes any bin in [0, 255]: computed
    // into a buffer of 256 bins, the first 100 returned.
    let input = ImageParam::new(Type::u8(), 1, "values");
    let (x, r) = (Var::new("x"), RDom::named("r", [(0, 64)]));
    let hist = Func::new("hist");
    hist.define(x, 0).unwrap();
    let bin = cast_to::<i32>(input.at(r.x()));
    hist.update(bin.clone(), hist.at(bin) + 1).unwrap();
    let values = Buffer::<u8>::from_fn(&[0], &[64], |c| (c[0] * 37 % 256) as u8);
    let run = check(
        &hist,
        &TestInputs::new().image(&input, values.clone()),
        &[0],
        &[100],
    );
    let AnyBuffer::I32(out) = &run.realization.buffers[0] else {
        panic!("hist is i32");
    };
    for b in 0..100i64 {
        let want = (0..64).filter(|&i| values.get(&[i]) as i64 == b).count() as i32;
        assert_eq!(out.get(&[b]), want, "bin {b}");
    }
}

#[test]
fn a_vector_or_tile_wider_than_the_output_is_computed_and_cropped() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("narrow");
    f.define((x, y), x * 3 + y).unwrap();
    f.vectorize(x, 8);
    let run = check(&f, &TestInputs::new(), &[0, 0], &[5, 3]);
    assert_eq!(run.realization.buffers[0].dims()[0].extent, 5);
    let g = Func::new("narrow_tile");
    g.define((x, y), x - y * 2).unwrap();
    g.tile(x, y, "xo", "yo", "xi", "yi", 4, 16);
    let run = check(&g, &TestInputs::new(), &[0, 0], &[8, 3]);
    assert_eq!(run.realization.buffers[0].dims()[1].extent, 3);
}

const PREDICATED: [TailStrategy; 3] = [
    TailStrategy::Predicate,
    TailStrategy::PredicateLoads,
    TailStrategy::PredicateStores,
];

/// How many points past the end of its region a split by `factor` with `tail` reads, on the
/// output (which a PredicateLoads split computes over whole pieces: realized into a bigger
/// buffer, its region is that buffer's) or not.
fn reads_past_the_end(tail: TailStrategy, factor: i64, on_output: bool) -> i64 {
    match tail {
        TailStrategy::PredicateStores => factor - 1,
        TailStrategy::PredicateLoads if on_output => factor - 1,
        _ => 0,
    }
}

#[test]
fn predicated_tails_on_the_output() {
    // Predicate and PredicateStores store exactly the output; PredicateLoads stores whole
    // pieces, computed into a bigger buffer and cropped (so it reads what that buffer
    // needs). Predicate reads nothing past the end.
    for tail in PREDICATED {
        for vectorized in [false, true] {
            let c = chain();
            c.producer.compute_root();
            c.out.split_with_tail(c.x, "xo", "xi", 4, tail);
            if vectorized {
                c.out.vectorize_loop("xi");
            }
            let run = run_chain(&c, reads_past_the_end(tail, 4, true));
            let per_row = offsets(W, &one_split(4, tail)).len() as u64;
            assert_eq!(
                run.stores("out"),
                per_row * H as u64,
                "{tail:?}, vectorized {vectorized}"
            );
        }
    }
}

#[test]
fn predicated_tails_on_a_root_producer() {
    for tail in PREDICATED {
        for vectorized in [false, true] {
            let c = chain();
            c.producer
                .compute_root()
                .split_with_tail(c.x, "xo", "xi", 4, tail);
            if vectorized {
                c.producer.vectorize_loop("xi");
            }
            let run = run_chain(&c, reads_past_the_end(tail, 4, false));
            let per_row = offsets(W + 1, &one_split(4, tail));
            let what = format!("{tail:?}, vectorized {vectorized}");
            assert_eq!(
                run.stores("producer"),
                per_row.len() as u64 * H as u64,
                "{what}"
            );
            let span = per_row.iter().max().unwrap() - per_row.iter().min().unwrap() + 1;
            assert_eq!(run.allocation("producer"), (span * H) as u64, "{what}");
        }
    }
}

#[test]
fn predicated_vector_tails_match_a_plain_loop() {
    // f(x) = in(x) * 2 + x vectorized by 8 over every size from 1 (less than a vector) to
    // 20, checked against a plain loop (and, by `check`, the evaluator, the interpreter and
    // bounds-checked native code). The input is exactly as big as the tail strategy reads:
    // whole vectors for PredicateStores and (on the output) PredicateLoads.
    for tail in PREDICATED {
        for n in 1..=20i64 {
            let input = ImageParam::new(Type::i32(), 1, "in");
            let x = Var::new("x");
            let f = Func::new("f");
            f.define(x, input.at(x) * 2 + x).unwrap();
            f.vectorize_with_tail(x, 8, tail);
            let read = n + reads_past_the_end(tail, 8, true).min((8 - n % 8) % 8);
            let data = Buffer::<i32>::from_fn(&[0], &[read], |c| (c[0] * 7 % 11) as i32 - 5);
            let run = check(
                &f,
                &TestInputs::new().image(&input, data.clone()),
                &[0],
                &[n],
            );
            let AnyBuffer::I32(out) = &run.realization.buffers[0] else {
                panic!("f is i32");
            };
            for i in 0..n {
                let want = data.get(&[i]) * 2 + i as i32;
                assert_eq!(out.get(&[i]), want, "{tail:?}, {n} points: f({i})");
            }
        }
    }
}

#[test]
fn predicate_on_an_update() {
    // Predicate guards an update like GuardWithIf, on its reduction loop as on a pure loop,
    // vectorized; PredicateStores may split an update's pure loop.
    for (tail, on_rvar) in [
        (TailStrategy::Predicate, true),
        (TailStrategy::Predicate, false),
        (TailStrategy::PredicateStores, false),
    ] {
        let input = ImageParam::new(Type::i32(), 1, "in");
        let x = Var::new("x");
        let f = Func::new("f");
        let r = RDom::named("r", [(0, 19)]);
        f.define(x, x).unwrap();
        if on_rvar {
            f.update(r.x(), input.at(r.x()) * 3 + 1).unwrap();
            f.update_stage(0).vectorize_with_tail("r.x", 8, tail);
        } else {
            f.update(x, f.at(x) + input.at(x)).unwrap();
            f.update_stage(0).vectorize_with_tail(x, 8, tail);
        }
        let data = Buffer::<i32>::from_fn(&[0], &[24], |c| c[0] as i32 * 5 - 9);
        let run = check(
            &f,
            &TestInputs::new().image(&input, data.clone()),
            &[0],
            &[19],
        );
        let AnyBuffer::I32(out) = &run.realization.buffers[0] else {
            panic!("f is i32");
        };
        for i in 0..19i64 {
            let v = data.get(&[i]);
            let want = if on_rvar { v * 3 + 1 } else { i as i32 + v };
            assert_eq!(
                out.get(&[i]),
                want,
                "{tail:?} on the RVar {on_rvar}: f({i})"
            );
        }
    }
}

/// Output sizes and split factors for the guarded-tile cases below: sizes that are mostly
/// not multiples of the factors, from a seeded generator (`TESSERA_SEED`).
fn guarded_cases(what: &str, default_seed: u64) -> Vec<(i64, i64, i64)> {
    use rand::{Rng, SeedableRng};
    let (seed, cases) = lower_common::fuzz_seeds(what, default_seed, 8);
    (seed..seed + cases)
        .map(|s| {
            let mut rng = rand::rngs::SmallRng::seed_from_u64(s);
            let outer = rng.random_range(2..=24);
            let inner = rng.random_range(1..=outer + 3);
            let size = rng.random_range(1..=5 * outer);
            (size, outer, inner)
        })
        .collect()
}

#[test]
fn a_root_producer_of_guarded_tiles_is_allocated_what_they_read() {
    // in -> f -> g, g split GuardWithIf, f computed per tile of g and split GuardWithIf
    // itself: the last tile and f's last piece in it stop at g's end, so `in` holds exactly
    // g's points, whatever the factors (the tail's narrowing and f's region both come from
    // g's tile, whose ends cancel only when correlated).
    for (size, outer, inner) in guarded_cases("guarded tiles", 7100) {
        let x = Var::new("x");
        let input = Func::new("in");
        input.define(x, x * 3 + 1).unwrap();
        input.compute_root();
        let f = Func::new("f");
        f.define(x, input.at(x) - 2).unwrap();
        let g = Func::new("g");
        g.define(x, f.at(x) * 2).unwrap();
        g.split_with_tail(x, "xo", "xi", outer as i32, TailStrategy::GuardWithIf);
        f.compute_at(&g, "xo").split_with_tail(
            x,
            "xo",
            "xi",
            inner as i32,
            TailStrategy::GuardWithIf,
        );
        let run = check(&g, &TestInputs::new(), &[0], &[size]);
        let AnyBuffer::I32(out) = &run.realization.buffers[0] else {
            panic!("g is i32");
        };
        for i in 0..size {
            let want = ((i * 3 + 1) - 2) * 2;
            assert_eq!(
                out.get(&[i]) as i64,
                want,
                "{size} by {outer}, {inner}: g({i})"
            );
        }
        assert_eq!(
            run.allocation("in"),
            size as u64,
            "{size} split by {outer} then {inner}"
        );
    }
}

#[test]
fn a_producer_folds_over_the_rows_of_a_guarded_strip() {
    // A 3-row stencil over `expensive`, stored per strip of a GuardWithIf row split and
    // computed per row, folds to 4 rows: the window of the strip's last rows is shorter,
    // but never more than 3 rows, and only moves down.
    for (height, strip, width) in guarded_cases("guarded folds", 7200) {
        let (x, y) = (Var::new("x"), Var::new("y"));
        let expensive = Func::new("expensive");
        expensive.define((x, y), x * 3 + y * 5).unwrap();
        let dst = Func::new("dst");
        dst.define(
            (x, y),
            expensive.at((x, y - 1)) + expensive.at((x, y)) * 2 + expensive.at((x, y + 1)),
        )
        .unwrap();
        dst.split_with_tail(y, "yo", "yi", strip as i32, TailStrategy::GuardWithIf);
        expensive
            .compute_at(&dst, "yi")
            .store_at(&dst, "yo")
            .fold_storage(y, 4);
        let run = check(&dst, &TestInputs::new(), &[0, 0], &[width, height]);
        let AnyBuffer::I32(out) = &run.realization.buffers[0] else {
            panic!("dst is i32");
        };
        let e = |x: i64, y: i64| x * 3 + y * 5;
        for yy in 0..height {
            for xx in 0..width {
                let want = e(xx, yy - 1) + e(xx, yy) * 2 + e(xx, yy + 1);
                assert_eq!(
                    out.get(&[xx, yy]) as i64,
                    want,
                    "{width}x{height} by {strip}"
                );
            }
        }
        assert_eq!(run.allocation("expensive"), 4 * width as u64);
    }
}
