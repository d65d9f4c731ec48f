//! Halide's `test/correctness/prefetch.cpp`: `Func::prefetch` places, in the loop named, a
//! prefetch of the producer's region the iteration `offset` ahead will read. Halide collects
//! the `prefetch` calls of the compiled module and checks their number and arguments (base,
//! offset, extent, stride: `f`, 0, 1, 16 — one cache line at element 0); here the `Prefetch`
//! statements of the lowered loop nest, and the values with plain Rust. Its second case
//! (a prefetch in one specialization, the other `specialize_fail`) is not ported: Tessera's
//! prefetch is per Func, and it has no `specialize_fail`. Added: each bound strategy over an
//! image whose region ahead leaves the buffer in the last rows (the interpreter and checked
//! native code fail a `Clamp` or `GuardWithIf` prefetch outside it), counting the cache
//! lines asked for, and the schedule errors.

use crate::lower_common::{check, schedule_error, walk_stmts, TestInputs};
use tessera::ir::{ExprKind, Stmt, StmtKind};
use tessera::prelude::*;

/// The `Prefetch` statements of `s`: buffer and index.
fn prefetches(s: &Stmt) -> Vec<(String, tessera::ir::Expr)> {
    let mut out = Vec::new();
    walk_stmts(s, &mut |s| {
        if let StmtKind::Prefetch { buffer, args, .. } = s.kind() {
            out.push((buffer.to_string(), args[0].clone()));
        }
    });
    out
}

/// `g(x) = f(0)` (or through `h`), checked over [0, 16) against plain Rust: every value is
/// f(0) = 0, plus `plus`.
fn check_g(g: &Func, plus: i32) -> tessera::ir::Stmt {
    let run = check(g, &TestInputs::new(), &[0], &[16]);
    let out = run.i32_values(0);
    for i in 0..16 {
        assert_eq!(out.get(&[i]), plus, "g({i})");
    }
    run.lowered.stmt.clone()
}

fn assert_one_line_of_f_at_0(s: &Stmt) {
    let found = prefetches(s);
    assert_eq!(found.len(), 1, "one prefetch, as Halide's:\n{s}");
    let (buffer, index) = &found[0];
    assert_eq!(buffer, "f", "{s}");
    assert!(
        matches!(index.kind(), ExprKind::IntImm(0)),
        "the element at index 0 of f, as Halide's offset 0: {index}\n{s}"
    );
}

#[test]
fn test1_a_prefetch_at_x() {
    let x = Var::new("x");
    let (f, g) = (Func::new("f"), Func::new("g"));
    f.define(x, x).unwrap();
    g.define(x, f.at(0)).unwrap();
    f.compute_root();
    g.prefetch(&f, x, x, 8, PrefetchBoundStrategy::GuardWithIf);
    assert_one_line_of_f_at_0(&check_g(&g, 0));
}

#[test]
fn test3_a_prefetch_at_an_outer_split_loop() {
    let (x, xo) = (Var::new("x"), Var::new("xo"));
    let (f, g, h) = (Func::new("f"), Func::new("g"), Func::new("h"));
    f.define(x, x).unwrap();
    h.define(x, f.at(x) + 1).unwrap();
    g.define(x, h.at(0)).unwrap();
    f.compute_root();
    g.split(x, xo, x, 32);
    h.compute_at(&g, xo);
    g.prefetch(&f, xo, xo, 1, PrefetchBoundStrategy::GuardWithIf);
    assert_one_line_of_f_at_0(&check_g(&g, 1));
}

#[test]
fn test4_no_prefetch_where_the_loop_nest_does_not_read_the_producer() {
    let x = Var::new("x");
    let (f, g, h) = (Func::new("f"), Func::new("g"), Func::new("h"));
    f.define(x, x).unwrap();
    h.define(x, f.at(x) + 1).unwrap();
    g.define(x, h.at(0)).unwrap();
    f.compute_root();
    h.compute_root();
    g.prefetch(&f, x, x, 1, PrefetchBoundStrategy::GuardWithIf);
    let s = check_g(&g, 1);
    assert!(prefetches(&s).is_empty(), "{s}");
}

const W: i64 = 40;
const H: i64 = 12;

/// `out(x, y) = in(x, y) + in(x + 1, y + 1)` over W x H, the input exactly (W + 1) x (H + 1),
/// with `in` prefetched at y two rows ahead. Returns the cache lines asked for, checked
/// against plain Rust.
fn stencil_prefetching(strategy: PrefetchBoundStrategy) -> (u64, Stmt) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let input = ImageParam::new(Type::i32(), 2, "in");
    let out = Func::new("out");
    out.define((x, y), input.at((x, y)) + input.at((x + 1, y + 1)))
        .unwrap();
    out.prefetch(&input, y, y, 2, strategy);
    let value = |c: &[i64]| (c[0] * 7 + c[1] * 13) as i32;
    let image = Buffer::<i32>::from_fn(&[0, 0], &[W + 1, H + 1], value);
    let run = check(
        &out,
        &TestInputs::new().image(&input, image),
        &[0, 0],
        &[W, H],
    );
    let result = run.i32_values(0);
    for yy in 0..H {
        for xx in 0..W {
            let expected = value(&[xx, yy]) + value(&[xx + 1, yy + 1]);
            assert_eq!(result.get(&[xx, yy]), expected, "out({xx}, {yy})");
        }
    }
    let lines = run
        .realization
        .stats
        .prefetches
        .get(&tessera::Symbol::new("in"))
        .copied()
        .unwrap_or(0);
    (lines, run.lowered.stmt.clone())
}

/// Rows of the input read two rows ahead of row y: y + 2 and y + 3, 41 i32 elements each
/// (3 lines of 16).
#[test]
fn each_bound_strategy_over_an_image() {
    let rows_in_image = |y: i64| [y + 2, y + 3].iter().filter(|&&r| r <= H).count() as u64;
    // Clamp: the rows inside the image, 3 lines each.
    let (lines, s) = stencil_prefetching(PrefetchBoundStrategy::Clamp);
    let clamped: u64 = (0..H).map(|y| 3 * rows_in_image(y)).sum();
    assert_eq!(lines, clamped, "{s}");
    // GuardWithIf: only the iterations whose whole region is inside, y + 3 <= H.
    let (lines, s) = stencil_prefetching(PrefetchBoundStrategy::GuardWithIf);
    let guarded: u64 = (0..H).filter(|y| y + 3 <= H).map(|_| 6).sum();
    assert_eq!(lines, guarded, "{s}");
    // NonFaulting: every iteration, outside the image too.
    let (lines, s) = stencil_prefetching(PrefetchBoundStrategy::NonFaulting);
    assert_eq!(lines, 6 * H as u64, "{s}");
    assert_eq!(prefetches(&s).len(), 1, "{s}");
}

#[test]
fn mistakes_are_schedule_errors_naming_the_func_and_loop() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let z = Var::new("z");
    let make = || {
        let (f, g, other) = (Func::new("f"), Func::new("g"), Func::new("other"));
        f.define((x, y), x + y).unwrap();
        other.define((x, y), x * y).unwrap();
        g.define((x, y), f.at((x, y)) * 2).unwrap();
        f.compute_root();
        (f, g, other)
    };
    let (f, g, _) = make();
    g.prefetch(&f, z, z, 1, PrefetchBoundStrategy::Clamp);
    let e = schedule_error(&g);
    assert!(
        e.contains("g.prefetch(f, z") && e.contains("g has no loop z"),
        "{e}"
    );
    let (_, g, other) = make();
    g.prefetch(&other, y, y, 1, PrefetchBoundStrategy::Clamp);
    let e = schedule_error(&g);
    assert!(e.contains("g does not read other"), "{e}");
    let (f, g, _) = make();
    g.prefetch(&f, y, x, 1, PrefetchBoundStrategy::Clamp);
    let e = schedule_error(&g);
    assert!(e.contains("x is not a loop of g at or outside y"), "{e}");
}
