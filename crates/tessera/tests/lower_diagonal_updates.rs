//! Updates that write a pure Var at another position too (`g(x, x) = ..`, `g(x, x + 1) =
//! ..`) and read other points of their Func (Halide's reduction_chain and
//! stencil_chain_in_update_definitions), under schedules, against plain Rust and the
//! evaluator: the update's loop covers the points its write lands on inside the region
//! needed, and the points its reads need are computed by the earlier stages.

mod lower_common;

use lower_common::{check, Checked, TestInputs};
use tessera::prelude::*;

/// A pipeline of diagonal updates, its Funcs named so schedules can reach them.
struct Diagonals {
    x: Var,
    y: Var,
    /// Read by the first update (`g(x, x) = g(x, x - 1) + 2 * g(x, x + 1) + f(x)`).
    f: Func,
    g: Func,
    /// `out(x, y) = g(x, y) + g(x + 1, y - 1)`.
    out: Func,
}

fn diagonals() -> Diagonals {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define(x, x * x).unwrap();
    let g = Func::new("g");
    g.define((x, y), x * 10 + y).unwrap();
    g.update((x, x), g.at((x, x - 1)) + g.at((x, x + 1)) * 2 + f.at(x))
        .unwrap();
    g.update((y, y), g.at((y - 1, y)) * 3 - g.at((y + 1, y)))
        .unwrap();
    g.update((x.expr(), x + 1), g.at((x, x)) + 5).unwrap();
    let out = Func::new("out");
    out.define((x, y), g.at((x, y)) + g.at((x + 1, y - 1)))
        .unwrap();
    Diagonals { x, y, f, g, out }
}

/// g after `stage` of its definitions, at (x, y), in plain Rust.
fn g_reference(stage: usize, x: i64, y: i64) -> i64 {
    let previous = |x, y| g_reference(stage - 1, x, y);
    match stage {
        0 => x * 10 + y,
        1 if x == y => previous(x, x - 1) + previous(x, x + 1) * 2 + x * x,
        2 if x == y => previous(y - 1, y) * 3 - previous(y + 1, y),
        3 if y == x + 1 => previous(x, x) + 5,
        _ => previous(x, y),
    }
}

const MINS: [i64; 2] = [-3, 2];
const EXTENTS: [i64; 2] = [13, 9];

fn assert_matches_reference(run: &Checked) {
    let AnyBuffer::I32(values) = &run.realization.buffers[0] else {
        panic!("out is i32");
    };
    for y in MINS[1]..MINS[1] + EXTENTS[1] {
        for x in MINS[0]..MINS[0] + EXTENTS[0] {
            let want = g_reference(3, x, y) + g_reference(3, x + 1, y - 1);
            assert_eq!(values.get(&[x, y]) as i64, want, "out({x}, {y})");
        }
    }
}

#[test]
fn computed_at_root() {
    let p = diagonals();
    p.g.compute_root();
    assert_matches_reference(&check(&p.out, &TestInputs::new(), &MINS, &EXTENTS));
}

#[test]
fn computed_per_row_and_per_point_of_the_consumer() {
    for var in ["y", "x"] {
        let p = diagonals();
        p.g.compute_at(&p.out, if var == "y" { p.y } else { p.x });
        assert_matches_reference(&check(&p.out, &TestInputs::new(), &MINS, &EXTENTS));
    }
}

/// Stored once and computed per row of the consumer: the rows g needs overlap.
#[test]
fn stored_at_root_and_computed_per_row() {
    let p = diagonals();
    p.g.store_root().compute_at(&p.out, p.y);
    assert_matches_reference(&check(&p.out, &TestInputs::new(), &MINS, &EXTENTS));
}

/// A producer computed inside the diagonal update's loop, or at root: it is needed along the
/// diagonal only.
#[test]
fn with_a_producer_computed_in_the_update() {
    for inside in [true, false] {
        let p = diagonals();
        p.g.compute_root();
        if inside {
            p.f.compute_at(p.g.update_stage(0), p.x);
        } else {
            p.f.compute_root();
        }
        let run = check(&p.out, &TestInputs::new(), &MINS, &EXTENTS);
        assert_matches_reference(&run);
        // Along the diagonal of g's region only: out reads g at x in [-3, 10] and y in
        // [1, 10], and the last update reads g(x, x) for x in [0, 9], so the first update
        // computes (x, x) for x in [0, 10].
        assert_eq!(run.provides("f"), 11);
    }
}

/// Every iteration of a diagonal update writes its own point and reads only its own row
/// (or column), so its pure Var may be vectorized or parallel.
#[test]
fn vectorized_and_parallel_diagonal_updates() {
    for schedule in 0..4 {
        let p = diagonals();
        p.g.compute_root();
        match schedule {
            0 => drop(p.g.update_stage(0).vectorize(p.x, 4)),
            1 => drop(p.g.update_stage(1).parallel(p.y)),
            2 => drop(p.g.update_stage(2).vectorize(p.x, 8)),
            _ => drop(
                p.g.update_stage(0)
                    .split(p.x, "xo", "xi", 4)
                    .parallel("xo")
                    .vectorize("xi", 4),
            ),
        }
        assert_matches_reference(&check(&p.out, &TestInputs::new(), &MINS, &EXTENTS));
    }
}

/// The diagonal lands in g's region only where the region's dimensions overlap: the update
/// computes those points, not a whole dimension's worth (which would need storage beyond
/// what the consumer reads).
#[test]
fn the_update_covers_the_diagonal_inside_the_region() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let g = Func::new("g");
    g.define((x, y), x + y).unwrap();
    g.update((x, x), g.at((x, x - 1)) * 2).unwrap();
    let out = Func::new("out");
    out.define((x, y), g.at((x, y))).unwrap();
    g.compute_root();
    // Columns 0..40, rows 30..33: the diagonal crosses it at 30, 31 and 32.
    let run = check(&out, &TestInputs::new(), &[0, 30], &[40, 3]);
    let AnyBuffer::I32(values) = &run.realization.buffers[0] else {
        panic!("out is i32");
    };
    for yy in 30..33 {
        for xx in 0..40 {
            let want = if xx == yy { 2 * (2 * xx - 1) } else { xx + yy };
            assert_eq!(values.get(&[xx, yy]) as i64, want, "out({xx}, {yy})");
        }
    }
    // The pure definition's 40 x 4 points (row 29 is read) and the update's 3.
    assert_eq!(run.provides("g"), 40 * 4 + 3);
}

/// The output's own diagonal update covers the diagonal inside the buffer, which need not
/// be square.
#[test]
fn a_diagonal_update_of_the_output() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let out = Func::new("out");
    out.define((x, y), x * 10 + y).unwrap();
    out.update((x, x), out.at((x, x - 1)) + out.at((x, x + 1)))
        .unwrap();
    let (mins, extents) = ([2, 0], [6, 10]);
    let run = check(&out, &TestInputs::new(), &mins, &extents);
    let AnyBuffer::I32(values) = &run.realization.buffers[0] else {
        panic!("out is i32");
    };
    for yy in 0..10 {
        for xx in 2..8 {
            let want = if xx == yy {
                (xx * 10 + yy - 1) + (xx * 10 + yy + 1)
            } else {
                xx * 10 + yy
            };
            assert_eq!(values.get(&[xx, yy]) as i64, want, "out({xx}, {yy})");
        }
    }
}

/// A scan along a shifted diagonal (`g(x, x + r)`, r a reduction variable): its coordinate is
/// not the Var plus a constant, so the update loops over x's own dimension, its writes
/// landing where they may (storage covers them), and it reads points it wrote itself.
#[test]
fn a_scan_along_a_diagonal() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let r = RDom::named("r", [(0, 4)]);
    let g = Func::new("g");
    g.define((x, y), x - y).unwrap();
    g.update(
        (x.expr(), x + r.x()),
        g.at((x.expr(), x + r.x() - 1)) * 2 + 1,
    )
    .unwrap();
    let out = Func::new("out");
    out.define((x, y), g.at((x, y))).unwrap();
    for vectorized in [false, true] {
        g.compute_root();
        if vectorized {
            g.update_stage(0).vectorize(x, 4);
        }
        let (mins, extents) = ([-2, 0], [9, 7]);
        let run = check(&out, &TestInputs::new(), &mins, &extents);
        let AnyBuffer::I32(values) = &run.realization.buffers[0] else {
            panic!("out is i32");
        };
        for xx in -2..7i64 {
            // Column xx in plain Rust: rows xx - 1 .. xx + 3 around the scan.
            let mut column: Vec<i64> = (-10..20).map(|yy| xx - yy).collect();
            for rr in 0..4 {
                let at = (xx + rr + 10) as usize;
                column[at] = column[at - 1] * 2 + 1;
            }
            for yy in 0..7 {
                let want = column[(yy + 10) as usize];
                assert_eq!(values.get(&[xx, yy]) as i64, want, "out({xx}, {yy})");
            }
        }
    }
}
