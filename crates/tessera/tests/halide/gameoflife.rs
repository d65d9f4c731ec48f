//! Halide's `test/correctness/gameoflife.cpp`: Conway's game of life on a 32 x 32 torus
//! (neighbours wrap with `%` of the input's width and height). One-step and two-step
//! pipelines (the latter a compute_root one-step feeding another) agree step for step when
//! the loop over generations is outside the pipeline; and a single pipeline whose update
//! runs 21 generations over an RDom, ping-ponging between two planes of a 3-D Func, ends on
//! generation 20 in the plane it outputs. Every board is also compared with a plain-Rust
//! game of life. Halide runs 10 outer iterations (20 generations); the outer-loop part runs 3
//! (6 generations) to keep the test fast, the reduction part all 20.

use crate::lower_common::{check, u8_image, TestInputs};
use tessera::prelude::*;

const N: i64 = 32;

fn u8_of(e: Expr) -> Expr {
    cast_to::<u8>(e)
}

/// `n` generations of life on the torus given by `input`'s bounds.
fn game_of_life(input: &ImageParam, n: usize) -> Func {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let previous = if n == 1 {
        let f = Func::new("in");
        f.define((x, y), input.at((x, y))).unwrap();
        f
    } else {
        let f = game_of_life(input, n - 1);
        f.compute_root();
        f
    };
    let (w, h) = (input.width(), input.height());
    let west = (x + w.clone() - 1) % w.clone();
    let east = (x + 1) % w;
    let north = (y + h.clone() - 1) % h.clone();
    let south = (y + 1) % h;
    let neighbours = previous.at((west.clone(), north.clone()))
        + previous.at((x, north.clone()))
        + previous.at((east.clone(), north))
        + previous.at((west.clone(), y))
        + previous.at((east.clone(), y))
        + previous.at((west, south.clone()))
        + previous.at((x, south.clone()))
        + previous.at((east, south));
    let alive = previous.at((x, y)).ne_(u8_of(Expr::from(0)));
    let output = Func::new(&format!("life{n}"));
    output
        .define(
            (x, y),
            select(
                neighbours.clone().eq_(3).or(alive.and(neighbours.eq_(2))),
                u8_of(Expr::from(1)),
                u8_of(Expr::from(0)),
            ),
        )
        .unwrap();
    output
}

/// One generation in plain Rust.
fn step(board: &Buffer<u8>) -> Buffer<u8> {
    Buffer::from_fn(&[0, 0], &[N, N], |p| {
        let mut count = 0;
        for dy in [N - 1, 0, 1] {
            for dx in [N - 1, 0, 1] {
                if (dx, dy) != (0, 0) {
                    count += board.get(&[(p[0] + dx) % N, (p[1] + dy) % N]);
                }
            }
        }
        let alive = board.get(p) != 0;
        u8::from(count == 3 || (alive && count == 2))
    })
}

fn run_on(f: &Func, input: &ImageParam, board: &Buffer<u8>) -> Buffer<u8> {
    let run = check(
        f,
        &TestInputs::new().image(input, board.clone()),
        &[0, 0],
        &[N, N],
    );
    match &run.realization.buffers[0] {
        AnyBuffer::U8(b) => b.clone(),
        _ => panic!("the board is u8"),
    }
}

fn initial_board() -> Buffer<u8> {
    u8_image(&[0, 0], &[N, N], 0, 1, 11)
}

fn assert_same(a: &Buffer<u8>, b: &Buffer<u8>, what: &str) {
    for yy in 0..N {
        for xx in 0..N {
            assert_eq!(a.get(&[xx, yy]), b.get(&[xx, yy]), "{what} at ({xx}, {yy})");
        }
    }
}

#[test]
fn one_and_two_step_pipelines_agree() {
    let input = ImageParam::new(Type::u8(), 2, "input");
    let one = game_of_life(&input, 1);
    let two = game_of_life(&input, 2);
    let (mut board1, mut board2) = (initial_board(), initial_board());
    let mut reference = initial_board();
    for i in 0..3 {
        board1 = run_on(&one, &input, &board1);
        board1 = run_on(&one, &input, &board1);
        board2 = run_on(&two, &input, &board2);
        reference = step(&step(&reference));
        assert_same(
            &board1,
            &board2,
            &format!("iteration {i}: one-step vs two-step"),
        );
        assert_same(
            &board1,
            &reference,
            &format!("iteration {i}: one-step vs Rust"),
        );
    }
}

#[test]
fn twenty_generations_in_one_reduction() {
    let input = ImageParam::new(Type::u8(), 2, "input");
    let (x, y, z) = (Var::new("x"), Var::new("y"), Var::new("z"));
    let life = Func::new("life");
    life.define((x, y, z), input.at((x, y))).unwrap();
    let (w, h) = (input.width(), input.height());
    let t = RDom::new([
        (Expr::from(0), w.clone()),
        (Expr::from(0), h.clone()),
        (Expr::from(0), Expr::from(21)),
    ]);
    let last = (t.z() + 1) % 2;
    let west = (t.x() + w.clone() - 1) % w.clone();
    let east = (t.x() + 1) % w;
    let north = (t.y() + h.clone() - 1) % h.clone();
    let south = (t.y() + 1) % h;
    let at = |a: Expr, b: Expr| life.at((a, b, last.clone()));
    let alive = at(t.x().into(), t.y().into()).ne_(u8_of(Expr::from(0)));
    let neighbours = at(west.clone(), north.clone())
        + at(t.x().into(), north.clone())
        + at(east.clone(), north)
        + at(west.clone(), t.y().into())
        + at(east.clone(), t.y().into())
        + at(west, south.clone())
        + at(t.x().into(), south.clone())
        + at(east, south);
    life.update(
        (t.x(), t.y(), t.z() % 2),
        select(
            neighbours.clone().eq_(3).or(alive.and(neighbours.eq_(2))),
            u8_of(Expr::from(1)),
            u8_of(Expr::from(0)),
        ),
    )
    .unwrap();
    life.compute_root();
    let output = Func::new("output");
    output.define((x, y), life.at((x, y, 1))).unwrap();
    let board = run_on(&output, &input, &initial_board());
    let mut reference = initial_board();
    for _ in 0..20 {
        reference = step(&reference);
    }
    assert_same(&board, &reference, "generation 20");
}
