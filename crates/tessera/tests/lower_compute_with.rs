//! `compute_with`: two Funcs computed at the same loop level share their loops down to the
//! fused one. Results equal the evaluator (on the interpreter before and after flattening,
//! and natively) for Funcs with the same and with different regions, computed at root and
//! inside a consumer's loop, vectorized or not, fused down to vectorized or unrolled loops,
//! fused below producers computed in the Funcs' outer loops, with a producer computed at the
//! group's loops for both Funcs (once per iteration of the fused loop, over the union of
//! what the Funcs running there read: its store count against a plain loop over the fused
//! iterations; with different footprints and bounds, vectorized, unrolled and specialized
//! stages), specialized, with two stages of one Func each fused with a
//! different Func (values against plain loops), and for random pairs under random schedules
//! (re-run one with `TESSERA_SEED`); the fused loop nest holds both Funcs' stores; mistakes
//! (stages with no order among them included) come back as schedule errors naming the Funcs
//! and stages.

mod lower_common;

use lower_common::{check, schedule_error, u16_image, TestInputs};
use tessera::ir::{Stmt, StmtKind};
use tessera::prelude::*;

/// `f(x, y) = in(x, y) * 3 + in(x + 1, y)`, `g(x, y) = in(x, y) - in(x, y + 1)`, and
/// `out(x, y) = f(x + df, y) + g(x + dg, y) + g(x, y + 1)`.
struct Pair {
    input: ImageParam,
    f: Func,
    g: Func,
    out: Func,
}

fn pair(df: i32, dg: i32) -> Pair {
    let input = ImageParam::new(Type::u16(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (f, g) = (Func::new("f"), Func::new("g"));
    f.define((x, y), input.at((x, y)) * 3 + input.at((x + 1, y)))
        .unwrap();
    g.define((x, y), input.at((x, y)) - input.at((x, y + 1)))
        .unwrap();
    let out = Func::new("out");
    out.define(
        (x, y),
        f.at((x + df, y)) + g.at((x + dg, y)) + g.at((x, y + 1)),
    )
    .unwrap();
    Pair { input, f, g, out }
}

fn run(p: &Pair, extents: [i64; 2]) -> lower_common::Checked {
    let image = u16_image(&[-3, -2], &[extents[0] + 12, extents[1] + 8], 7);
    check(
        &p.out,
        &TestInputs::new().image(&p.input, image),
        &[0, 0],
        &extents,
    )
}

/// The loops in `s` that store to `func` somewhere inside them, by name.
fn loops_storing(s: &Stmt, func: &str, loops: &mut Vec<String>) -> bool {
    let mut stores = false;
    s.for_each_child(|_| {}, |c| stores |= loops_storing(c, func, loops));
    match s.kind() {
        StmtKind::Store { buffer, .. } if buffer.as_str() == func => true,
        StmtKind::For { name, .. } if stores => {
            loops.push(name.to_string());
            true
        }
        _ => stores,
    }
}

fn stored_in(s: &Stmt, func: &str) -> Vec<String> {
    let mut loops = Vec::new();
    loops_storing(s, func, &mut loops);
    loops
}

#[test]
fn funcs_at_root_share_their_loops() {
    for vectorized in [false, true] {
        let p = pair(0, 0);
        for h in [&p.f, &p.g] {
            h.compute_root();
            if vectorized {
                h.vectorize("x", 8);
            }
        }
        p.f.compute_with(&p.g, "x");
        let run = run(&p, [29, 7]);
        // Both store inside the same outer loops (the first produced one's), the second
        // Func's own outer loops are gone.
        let (f_loops, g_loops) = (
            stored_in(&run.lowered.stmt, "f"),
            stored_in(&run.lowered.stmt, "g"),
        );
        assert!(
            f_loops.iter().any(|l| l == "f.s0.y") && g_loops.iter().any(|l| l == "f.s0.y"),
            "{f_loops:?} {g_loops:?}\n{}",
            run.lowered.stmt
        );
        assert!(
            !g_loops.iter().any(|l| l == "g.s0.y"),
            "{}",
            run.lowered.stmt
        );
    }
}

#[test]
fn funcs_with_different_regions_are_guarded_by_their_own() {
    // f is needed over x in [-2, w - 3], g over [3, w + 2]: the fused x loop covers both.
    for (df, dg) in [(-2, 3), (4, -1)] {
        let p = pair(df, dg);
        let y = Var::new("y");
        p.out.split(y, "yo", "yi", 4).parallel("yo");
        for h in [&p.f, &p.g] {
            h.compute_at(&p.out, "yi").vectorize("x", 4);
        }
        p.g.compute_with(&p.f, "x");
        let run = run(&p, [23, 9]);
        assert!(
            stored_in(&run.lowered.stmt, "g")
                .iter()
                .any(|l| l.starts_with("f.s0.x")),
            "{}",
            run.lowered.stmt
        );
    }
}

#[test]
fn vectorized_and_unrolled_loops_fuse_when_their_bounds_match() {
    // Different regions (guarded outer loops), the same inner loops of 8 or 4 lanes.
    for unrolled in [false, true] {
        let p = pair(-2, 3);
        for h in [&p.f, &p.g] {
            h.compute_root();
            if unrolled {
                h.split("x", "xo", "xi", 4).unroll_loop("xi");
            } else {
                h.split("x", "xo", "xi", 8).vectorize_loop("xi");
            }
        }
        p.g.compute_with(&p.f, "xi");
        let run = run(&p, [29, 7]);
        assert!(
            stored_in(&run.lowered.stmt, "g")
                .iter()
                .any(|l| l == "f.s0.x.xo"),
            "{}",
            run.lowered.stmt
        );
    }
}

#[test]
fn producers_computed_in_an_outer_fused_loop_run_under_their_funcs_guards() {
    // f reads a producer computed per row of f, g one computed per row of g; fused at x,
    // with different rows and columns: each producer runs in the fused y loop only on its
    // Func's rows (an input read past them would be out of bounds).
    let input = ImageParam::new(Type::u16(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (pf, pg) = (Func::new("pf"), Func::new("pg"));
    pf.define((x, y), input.at((x, y)) + input.at((x, y + 1)))
        .unwrap();
    pg.define((x, y), input.at((x + 1, y)) * 2).unwrap();
    let (f, g) = (Func::new("f"), Func::new("g"));
    f.define((x, y), pf.at((x, y)) + pf.at((x + 1, y))).unwrap();
    g.define((x, y), pg.at((x, y)) - pg.at((x + 2, y))).unwrap();
    let out = Func::new("out");
    out.define((x, y), f.at((x - 2, y + 3)) + g.at((x + 1, y - 1)))
        .unwrap();
    f.compute_root();
    g.compute_root();
    pf.compute_at(&f, y);
    pg.compute_at(&g, y);
    g.compute_with(&f, x);
    // Exactly the rows and columns out needs: 20 x 9 from (-2, 3) and from (1, -1).
    let image = u16_image(&[-2, -1], &[26, 14], 3);
    let run = check(
        &out,
        &TestInputs::new().image(&input, image),
        &[0, 0],
        &[20, 9],
    );
    assert_eq!(run.stores("pf"), 21 * 9);
    assert_eq!(run.stores("pg"), 22 * 9);
}

/// `p = in(x, y) + in(x + 1, y + 1)` read by `f` (at x and x + 2) and by `g` (at x - 1, one
/// row down), with `out = f(x - 2, y + 3) + g(x + 1, y - 1)`; f and g at root, g computed
/// with f at x. `q`, read by g alone, is `in(x, y) * 2`.
fn shared_producer() -> (ImageParam, [Func; 5]) {
    let input = ImageParam::new(Type::u16(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (p, q) = (Func::new("p"), Func::new("q"));
    p.define((x, y), input.at((x, y)) + input.at((x + 1, y + 1)))
        .unwrap();
    q.define((x, y), input.at((x, y)) * 2).unwrap();
    let (f, g) = (Func::new("f"), Func::new("g"));
    f.define((x, y), p.at((x, y)) + p.at((x + 2, y))).unwrap();
    g.define((x, y), p.at((x - 1, y + 1)) * 3 + q.at((x, y)))
        .unwrap();
    let out = Func::new("out");
    out.define((x, y), f.at((x - 2, y + 3)) + g.at((x + 1, y - 1)))
        .unwrap();
    f.compute_root();
    g.compute_root();
    g.compute_with(&f, x);
    (input, [p, q, f, g, out])
}

fn run_shared(input: &ImageParam, out: &Func) -> lower_common::Checked {
    let image = u16_image(&[-3, -2], &[30, 20], 11);
    check(
        out,
        &TestInputs::new().image(input, image),
        &[0, 0],
        &[20, 9],
    )
}

/// A stage reading a producer `p` computed at the fused loops: the points it computes (`x`
/// in `xs`, `y` in `ys`, both inclusive), each reading `p` at `x + dx`, `y + dy` for `dx` in
/// `dxs` and `dy` in `dys`.
struct Reader {
    xs: (i64, i64),
    ys: (i64, i64),
    dxs: (i64, i64),
    dys: (i64, i64),
}

/// The points of `p` computed when it is computed once per iteration of the fused loops (per
/// row of the fused y loop, or with `per_point` per point of the fused y and x loops) over
/// the box holding what the readers running in that iteration read.
fn union_points(readers: &[Reader], per_point: bool) -> u64 {
    let span = |of: &dyn Fn(&Reader) -> (i64, i64)| {
        let lo = readers.iter().map(|r| of(r).0).min().unwrap();
        let hi = readers.iter().map(|r| of(r).1).max().unwrap();
        lo..=hi
    };
    let inside = |v: i64, (lo, hi): (i64, i64)| lo <= v && v <= hi;
    let mut points = 0;
    for y in span(&|r| r.ys) {
        let columns: Vec<Option<i64>> = if per_point {
            span(&|r| r.xs).map(Some).collect()
        } else {
            vec![None]
        };
        for x in columns {
            // Each running reader's box, as (x min, x max, y min, y max).
            let boxes: Vec<(i64, i64, i64, i64)> = readers
                .iter()
                .filter(|r| inside(y, r.ys) && x.is_none_or(|x| inside(x, r.xs)))
                .map(|r| {
                    let (x0, x1) = x.map_or(r.xs, |x| (x, x));
                    (x0 + r.dxs.0, x1 + r.dxs.1, y + r.dys.0, y + r.dys.1)
                })
                .collect();
            if boxes.is_empty() {
                continue;
            }
            let x0 = boxes.iter().map(|b| b.0).min().unwrap();
            let x1 = boxes.iter().map(|b| b.1).max().unwrap();
            let y0 = boxes.iter().map(|b| b.2).min().unwrap();
            let y1 = boxes.iter().map(|b| b.3).max().unwrap();
            points += ((x1 - x0 + 1) * (y1 - y0 + 1)) as u64;
        }
    }
    points
}

/// The readers of `p` in `shared_producer`: f at x and x + 2 over x in [-2, 17], y in [3,
/// 11]; g at x - 1, one row down, over x in [1, 20], y in [-1, 7].
const SHARED_READERS: [Reader; 2] = [
    Reader {
        xs: (-2, 17),
        ys: (3, 11),
        dxs: (0, 2),
        dys: (0, 0),
    },
    Reader {
        xs: (1, 20),
        ys: (-1, 7),
        dxs: (-1, -1),
        dys: (1, 1),
    },
];

#[test]
fn producers_computed_at_a_fused_groups_loops_are_computed_once_for_the_group() {
    // At the outermost level of the fused stage, which the group shares: p is computed once,
    // where the group is, over the union of what f and g read (x in [-2, 19], y in [0, 11]).
    let (input, [p, _, f, _, out]) = shared_producer();
    p.compute_at(&f, Var::outermost());
    let run = run_shared(&input, &out);
    assert_eq!(run.stores("p"), 22 * 12);

    // At the innermost fused loop: computed once per point of it, over the box holding what
    // f and g read there (each only where it runs).
    let (input, [p, _, f, _, out]) = shared_producer();
    p.compute_at(&f, "x");
    let run = run_shared(&input, &out);
    assert_eq!(run.stores("p"), union_points(&SHARED_READERS, true));

    // At an outer fused loop, by the one member that uses it: in that member's loop.
    let (input, [_, q, f, _, out]) = shared_producer();
    q.compute_at(&f, "y");
    let run = run_shared(&input, &out);
    assert_eq!(run.stores("q"), 20 * 9);

    // At an outer fused loop, by both: once per row, before the fused x loop.
    let (input, [p, _, f, _, out]) = shared_producer();
    p.compute_at(&f, "y");
    let run = run_shared(&input, &out);
    assert_eq!(run.stores("p"), union_points(&SHARED_READERS, false));
    // Stored outside a fused loop whose stages' iterations differ: its storage would be
    // sized for f's alone.
    let (_, [p, _, f, _, out]) = shared_producer();
    p.store_at(&f, "y").compute_at(&f, "x");
    let msg = schedule_error(&out);
    assert!(
        msg.contains("p is computed inside the fused loops") && msg.contains("store p inside"),
        "{msg}"
    );
}

/// `p(x, y) = in(x, y) + in(x + 1, y + 1)`, read by `f` at three columns of a row and by `g`
/// one row down, `out(x, y) = f(x, y) + g(x + dg, y - 1)`; f and g at root.
fn footprints(dg: i32) -> (ImageParam, [Func; 4]) {
    let input = ImageParam::new(Type::u16(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let p = Func::new("p");
    p.define((x, y), input.at((x, y)) + input.at((x + 1, y + 1)))
        .unwrap();
    let (f, g) = (Func::new("f"), Func::new("g"));
    f.define(
        (x, y),
        p.at((x - 1, y)) + p.at((x, y)) * 2 + p.at((x + 1, y)),
    )
    .unwrap();
    g.define((x, y), p.at((x, y + 1)) * 3).unwrap();
    let out = Func::new("out");
    out.define((x, y), f.at((x, y)) + g.at((x + dg, y - 1)))
        .unwrap();
    f.compute_root();
    g.compute_root();
    (input, [p, f, g, out])
}

/// The readers of `p` in `footprints(dg, ..)` over a `w` x `h` output.
fn footprint_readers(dg: i64, w: i64, h: i64) -> [Reader; 2] {
    [
        Reader {
            xs: (0, w - 1),
            ys: (0, h - 1),
            dxs: (-1, 1),
            dys: (0, 0),
        },
        Reader {
            xs: (dg, w - 1 + dg),
            ys: (-1, h - 2),
            dxs: (0, 0),
            dys: (1, 1),
        },
    ]
}

fn run_footprints(input: &ImageParam, out: &Func, w: i64, h: i64) -> lower_common::Checked {
    let image = u16_image(&[-4, -2], &[w + 10, h + 6], 5);
    // Values against the evaluator, on the interpreter and natively.
    check(
        out,
        &TestInputs::new().image(input, image),
        &[0, 0],
        &[w, h],
    )
}

#[test]
fn a_producer_shared_by_fused_stages_covers_both_footprints_once() {
    // Computed per row of the fused y loop (f reads three columns of its row, g one column
    // of the next row; their rows and columns differ): each row over the union of what the
    // stages running in it read.
    for (dg, fused, at) in [(2, "y", "y"), (-3, "x", "y"), (2, "x", "x")] {
        let (input, [p, f, g, out]) = footprints(dg as i32);
        g.compute_with(&f, fused);
        p.compute_at(&f, at);
        let run = run_footprints(&input, &out, 23, 7);
        let per_point = at == "x";
        assert_eq!(
            run.stores("p"),
            union_points(&footprint_readers(dg, 23, 7), per_point),
            "g at x + {dg}, fused at {fused}, p computed at {at}"
        );
    }
}

#[test]
fn a_producer_shared_by_vectorized_unrolled_and_specialized_fused_stages() {
    // Fused down to vectorized x (the stages' columns the same), p computed per row.
    let (input, [p, f, g, out]) = footprints(0);
    for h in [&f, &g] {
        h.split("x", "xo", "xi", 8).vectorize_loop("xi");
    }
    g.compute_with(&f, "xi");
    p.compute_at(&f, "y");
    let run = run_footprints(&input, &out, 32, 6);
    assert_eq!(
        run.stores("p"),
        union_points(&footprint_readers(0, 32, 6), false)
    );
    // p vectorized itself, f's and g's rows unrolled by two and fused there.
    let (input, [p, f, g, out]) = footprints(0);
    p.vectorize("x", 4);
    for h in [&f, &g] {
        h.split("y", "yo", "yi", 2).unroll_loop("yi");
    }
    g.compute_with(&f, "yi");
    p.compute_at(&f, "yi");
    // Its vectors shift inwards within its region, which may be empty where neither stage
    // runs: the input must cover a vector's width to the left of what they read.
    let image = u16_image(&[-8, -2], &[35, 14], 5);
    check(
        &out,
        &TestInputs::new().image(&input, image),
        &[0, 0],
        &[21, 8],
    );
    // f specialized: p computed once per row in each specialization.
    for wide in [true, false] {
        let (input, [p, f, g, out]) = footprints(1);
        g.compute_with(&f, "y");
        p.compute_at(&f, "y");
        let wide_p = Param::<bool>::new("wide");
        f.specialize(wide_p.expr()).vectorize("x", 4);
        let image = u16_image(&[-4, -2], &[31, 14], 9);
        let inputs = TestInputs::new()
            .image(&input, image)
            .param(wide_p.bind(wide));
        let run = check(&out, &inputs, &[0, 0], &[19, 8]);
        assert_eq!(
            run.stores("p"),
            union_points(&footprint_readers(1, 19, 8), false),
            "wide: {wide}"
        );
    }
}

#[test]
fn specialized_funcs_fuse_in_each_specialization() {
    // f specialized on one Param, g on another: each of the four combinations runs its own
    // nests, with the fused loops shared.
    for (tile, wide) in [(true, true), (true, false), (false, true), (false, false)] {
        let p = pair(-2, 3);
        let (tile_p, wide_p) = (Param::<bool>::new("tile"), Param::<bool>::new("wide"));
        p.f.compute_root()
            .specialize(tile_p.expr())
            .split("x", "xo", "xi", 4);
        p.g.compute_root()
            .specialize(wide_p.expr())
            .vectorize("x", 8);
        p.g.compute_with(&p.f, "y");
        let image = u16_image(&[-3, -2], &[41, 17], 7);
        let inputs = TestInputs::new()
            .image(&p.input, image)
            .param(tile_p.bind(tile))
            .param(wide_p.bind(wide));
        let run = check(&p.out, &inputs, &[0, 0], &[29, 9]);
        assert!(
            stored_in(&run.lowered.stmt, "g")
                .iter()
                .any(|l| l == "f.s0.y"),
            "{}",
            run.lowered.stmt
        );
    }
    // A specialization may not change the fused loops.
    let p = pair(0, 0);
    let par = Param::<bool>::new("par");
    p.f.compute_root().specialize(par.expr()).parallel("y");
    p.g.compute_root();
    p.g.compute_with(&p.f, "y");
    let msg = schedule_error(&p.out);
    assert!(msg.contains("must be of one kind"), "{msg}");
    let p = pair(0, 0);
    p.f.compute_root()
        .specialize(par.expr())
        .fuse("x", "y", "t");
    p.g.compute_root();
    p.g.compute_with(&p.f, "y");
    let msg = schedule_error(&p.out);
    assert!(msg.contains("not at the top"), "{msg}");
}

#[test]
fn sliding_windows_fuse_row_by_row() {
    // Both stored per strip and computed per row (harris's Ix and Iy), fused at x.
    let p = pair(0, 1);
    p.out
        .split(Var::new("y"), "yo", "yi", 8)
        .parallel("yo")
        .vectorize("x", 8);
    for h in [&p.f, &p.g] {
        h.store_at(&p.out, "yo")
            .compute_at(&p.out, "yi")
            .vectorize("x", 8);
    }
    p.f.compute_with(&p.g, "x");
    let run = run(&p, [40, 21]);
    // g is computed once per point of each strip although fused (3 strips of 8 rows need 9
    // rows of g, each 6 vectors of 8): the window still slides, in two rows of storage.
    assert_eq!(run.stores("g"), 3 * 9 * 48);
    assert_eq!(run.allocation("g"), 41 * 2);
}

#[test]
fn mistakes_name_both_funcs() {
    let p = pair(0, 0);
    p.f.compute_root();
    p.g.compute_at(&p.out, "y");
    p.f.compute_with(&p.g, "x");
    let msg = schedule_error(&p.out);
    assert!(
        msg.contains("f.compute_with(g, x)") && msg.contains("same loop level"),
        "{msg}"
    );

    let p = pair(0, 0);
    p.f.compute_root();
    p.g.compute_root();
    p.f.compute_with(&p.g, "z");
    let msg = schedule_error(&p.out);
    assert!(msg.contains("there is no loop z"), "{msg}");

    let p = pair(0, 0);
    p.f.compute_root().parallel("y");
    p.g.compute_root();
    p.f.compute_with(&p.g, "y");
    let msg = schedule_error(&p.out);
    assert!(
        msg.contains("differ") && msg.contains("parallel for f.s0.y"),
        "{msg}"
    );

    let p = pair(0, 0);
    p.f.compute_root().vectorize("x", 4);
    p.g.compute_root().vectorize("x", 8);
    p.f.compute_with(&p.g, "x_vi");
    let msg = schedule_error(&p.out);
    assert!(
        msg.contains("vectorized for but cover different iterations"),
        "{msg}"
    );

    // A Func that uses the other cannot be computed with it.
    let input = ImageParam::new(Type::u16(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (a, b, out) = (Func::new("a"), Func::new("b"), Func::new("out"));
    a.define((x, y), input.at((x, y)) + 1).unwrap();
    b.define((x, y), a.at((x, y)) * 2).unwrap();
    out.define((x, y), a.at((x, y)) + b.at((x, y))).unwrap();
    a.compute_root();
    b.compute_root();
    b.compute_with(&a, "x");
    let msg = schedule_error(&out);
    assert!(msg.contains("b uses a"), "{msg}");

    let p = pair(0, 0);
    p.f.compute_root();
    p.f.compute_with(&p.f, "x");
    let msg = schedule_error(&p.out);
    assert!(msg.contains("cannot be computed with itself"), "{msg}");
}

/// `f(x, y) = 3 in(x, y)` updated by `+= in(x + 1, y)`, `g(x, y) = in(x, y) - in(x, y + 1)`,
/// `h(x, y) = 5 in(x + 2, y)`, and `out(x, y) = f(x, y) + g(x + 1, y) + h(x, y + 1)` (so each
/// Func covers its own region), all computed at root, over an i32 input.
fn stages_of_f_and_two_others() -> (ImageParam, Func, Func, Func, Func) {
    let input = ImageParam::new(Type::i32(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let [f, g, h, out] = ["f", "g", "h", "out"].map(Func::new);
    f.define((x, y), input.at((x, y)) * 3).unwrap();
    f.update((x, y), f.at((x, y)) + input.at((x + 1, y)))
        .unwrap();
    g.define((x, y), input.at((x, y)) - input.at((x, y + 1)))
        .unwrap();
    h.define((x, y), input.at((x + 2, y)) * 5).unwrap();
    out.define((x, y), f.at((x, y)) + g.at((x + 1, y)) + h.at((x, y + 1)))
        .unwrap();
    for func in [&f, &g, &h] {
        func.compute_root();
    }
    (input, f, g, h, out)
}

#[test]
fn two_stages_of_one_func_each_join_a_different_func() {
    let (input, f, g, h, out) = stages_of_f_and_two_others();
    // Halide's per-stage compute_with: f's pure stage shares g's rows, its update h's rows
    // and columns.
    f.compute_with(&g, "y");
    f.update_stage(0).compute_with(&h.pure_stage(), "x");
    let (w, ht) = (23_i64, 9_i64);
    let pixel = |x: i64, y: i64| ((7 * x + 13 * y) % 31 - 9) as i32;
    let image = Buffer::<i32>::from_fn(&[0, 0], &[w + 3, ht + 2], |p| pixel(p[0], p[1]));
    let run = check(
        &out,
        &TestInputs::new().image(&input, image),
        &[0, 0],
        &[w, ht],
    );
    let values = run.i32_values(0);
    for y in 0..ht {
        for x in 0..w {
            let f = pixel(x, y) * 3 + pixel(x + 1, y);
            let g = pixel(x + 1, y) - pixel(x + 1, y + 1);
            let h = pixel(x + 2, y + 1) * 5;
            assert_eq!(values.get(&[x, y]), f + g + h, "at ({x}, {y})");
        }
    }
    // f stores in a loop of g's nest and in one of h's; g and h share none.
    let stmt = &run.lowered.stmt;
    let [f_loops, g_loops, h_loops] = ["f", "g", "h"].map(|func| stored_in(stmt, func));
    let shared = |a: &[String], b: &[String]| a.iter().any(|l| b.contains(l));
    assert!(shared(&f_loops, &g_loops), "{stmt}");
    assert!(shared(&f_loops, &h_loops), "{stmt}");
    assert!(!shared(&g_loops, &h_loops), "{stmt}");
}

#[test]
fn stage_groups_without_an_order_are_refused_by_name() {
    // f's update fused deeper into g than f's pure stage would run before it in each row.
    let (_, f, g, _, out) = stages_of_f_and_two_others();
    f.compute_with(&g, "y");
    f.update_stage(0).compute_with(&g.pure_stage(), "x");
    let msg = schedule_error(&out);
    assert!(
        msg.contains("f.update(0).compute_with(g, x)")
            && msg.contains("deeper into g than the earlier f"),
        "{msg}"
    );

    // f's update joins g's pure stage and g's update f's pure stage: each Func's pure stage
    // would have to come before the other's.
    let (input, f, g, _, _) = stages_of_f_and_two_others();
    let (x, y) = (Var::new("x"), Var::new("y"));
    g.update((x, y), g.at((x, y)) * 2).unwrap();
    let out2 = Func::new("out2");
    out2.define((x, y), f.at((x, y)) + g.at((x, y)) + input.at((x, y)))
        .unwrap();
    f.update_stage(0).compute_with(&g.pure_stage(), "y");
    g.update_stage(0).compute_with(&f.pure_stage(), "y");
    let msg = schedule_error(&out2);
    assert!(
        msg.contains("no order") && msg.contains("f.update(0)") && msg.contains("g.update(0)"),
        "{msg}"
    );

    // A stage computed with a stage that is itself computed with another.
    let (_, f, g, h, out) = stages_of_f_and_two_others();
    f.compute_with(&g, "y");
    g.compute_with(&h, "y");
    let msg = schedule_error(&out);
    assert!(
        msg.contains("f.compute_with(g, y)") && msg.contains("g is itself computed with h"),
        "{msg}"
    );
}

/// Random sibling pairs under random schedules: stencils with random offsets and element
/// types read the input; the consumer reads both at random offsets; both are computed at
/// root, per row of the output, or per row of a strip with storage for the strip (a sliding
/// window), with random splits and vector widths of their own inner loops, and fused at y or
/// at x or at `Var::outermost()`; below root, each may have an update definition, and
/// either stage of each is fused. Every case must equal the evaluator.
#[test]
fn random_pairs_under_random_schedules_match_the_evaluator() {
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    let seed = tessera::testing::test_seed("compute_with fuzz", 20_251_125);
    for case in 0..60u64 {
        let mut rng = SmallRng::seed_from_u64(seed + case);
        let input = ImageParam::new(Type::u16(), 2, "input");
        let (x, y) = (Var::new("x"), Var::new("y"));
        let mut offset = || rng.random_range(-2..=2);
        let (f, g) = (Func::new("f"), Func::new("g"));
        let (a, b, c, d) = (offset(), offset(), offset(), offset());
        f.define((x, y), input.at((x + a, y)) * 3 + input.at((x, y + b)))
            .unwrap();
        g.define(
            (x, y),
            cast_to::<i32>(input.at((x + c, y + d))) - cast_to::<i32>(input.at((x, y))),
        )
        .unwrap();
        let out = Func::new("out");
        let (fx, gx, gy) = (offset(), offset(), offset());
        out.define(
            (x, y),
            cast_to::<i32>(f.at((x + fx, y))) + g.at((x + gx, y + gy)) + g.at((x, y)),
        )
        .unwrap();
        let level = rng.random_range(0..3);
        // Below root, and not in a sliding window, each Func may have an update, and the
        // stage fused is either of its stages.
        let mut stage_of = |h: &Func, e: i32| {
            if level == 2 || rng.random_bool(0.5) {
                return 0;
            }
            h.update((x, y), h.at((x, y)) * 2 + input.at((x + e, y)))
                .unwrap();
            if rng.random_bool(0.5) {
                1
            } else {
                0
            }
        };
        let (f_stage, g_stage) = (stage_of(&f, a), stage_of(&g, c));
        let fuse_x = rng.random_bool(0.5) && level == 0;
        let mut log = format!("case {} (TESSERA_SEED={}): offsets {a} {b} {c} {d} / {fx} {gx} {gy}, level {level}, fused at {}", seed + case, seed + case, if fuse_x { "x" } else { "y" });
        match level {
            0 => {
                f.compute_root();
                g.compute_root();
            }
            1 => {
                f.compute_at(&out, "y");
                g.compute_at(&out, "y");
            }
            _ => {
                out.split(y, "yo", "yi", 4).parallel("yo");
                for h in [&f, &g] {
                    h.store_at(&out, "yo").compute_at(&out, "yi");
                }
            }
        }
        // The loops each Func keeps inside the fused ones.
        let inner = rng.random_range(0..3);
        let width = [2, 4, 8][rng.random_range(0..3)];
        for h in [&f, &g] {
            match inner {
                0 => {}
                1 => {
                    h.vectorize("x", width);
                }
                _ => {
                    h.split("x", "xo", "xi", width);
                }
            }
        }
        let var = if rng.random_range(0..6) == 0 {
            Var::outermost()
        } else if fuse_x && (inner == 0 || f_stage + g_stage == 2) {
            x
        } else {
            y
        };
        let ((first, first_stage), (second, second_stage)) = if rng.random_bool(0.5) {
            ((&f, f_stage), (&g, g_stage))
        } else {
            ((&g, g_stage), (&f, f_stage))
        };
        let stage = |h: &Func, k: usize| match k {
            0 => h.pure_stage(),
            _ => h.update_stage(k - 1),
        };
        stage(first, first_stage).compute_with(&stage(second, second_stage), var);
        log += &format!(
            ", inner {inner} width {width}, {}.s{first_stage}.compute_with({}.s{second_stage}, {})",
            first.name(),
            second.name(),
            var.name()
        );
        let (w, h) = (rng.random_range(9..30), rng.random_range(4..14));
        let image = u16_image(&[-4, -4], &[w + 8, h + 8], seed + case);
        lower_common::try_check(
            &out,
            &TestInputs::new().image(&input, image),
            &[0, 0],
            &[w, h],
        )
        .unwrap_or_else(|e| panic!("{log}: {e}"));
    }
}
