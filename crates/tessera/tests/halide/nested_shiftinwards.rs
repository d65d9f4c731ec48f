//! Halide's `test/correctness/nested_shiftinwards.cpp`: outer splits by 1 (no-ops) reordered
//! inside, then a ShiftInwards split of the outer x loop by 16, vectorized, with parallel y
//! and c loops, over an output not a multiple of 16 wide. A bug once made the inner split
//! round up instead and read past the input; Halide checks only that no bounds assertion
//! fails. Here the values are checked too, against plain Rust (u16 arithmetic wraps).
//! Halide's 1024 x 1024 x 3 input is shrunk to 44 x 12 x 3 (a 42 x 10 x 3 output; the reads
//! at `(x ± y) % 10` need 10 rows).

use crate::lower_common::{check, seeded_rng, TestInputs};
use rand::Rng;
use tessera::prelude::*;

const W: i64 = 44;
const H: i64 = 12;

#[test]
fn a_shift_inwards_split_inside_no_op_splits() {
    let mut rng = seeded_rng("nested_shiftinwards", 1);
    let data = Buffer::<u16>::from_fn(&[0, 0, 0], &[W, H, 3], |_| rng.random::<u16>() & 0xfff);
    let input = ImageParam::new(Type::u16(), 3, "input");
    let (x, y, z, c) = (Var::new("x"), Var::new("y"), Var::new("z"), Var::new("c"));
    let f = Func::new("f");
    f.define((x, y, z, c), input.at((x, y, c)) - input.at((x, z, c)))
        .unwrap();
    let g = Func::new("g");
    g.define(
        (x, y, c),
        f.at((x, y, (x + y) % 10, c))
            + f.at((x, y + 1, (x * y) % 10, c))
            + f.at((x, y + 2, (x - y) % 10, c))
            + f.at((x + 1, y, x % 10, c))
            + f.at((x + 2, y, y % 10, c)),
    )
    .unwrap();
    g.compute_root()
        .split(x, "x_o", "x_i", 1)
        .split(y, "y_o", "y_i", 1)
        .split(c, "c_o", "c_i", 1)
        .reorder(["x_i", "y_i", "c_i", "x_o", "y_o", "c_o"])
        .split("x_o", "x_o_vo", "x_o_vi", 16)
        .vectorize_loop("x_o_vi")
        .parallel("c_o")
        .parallel("y_o");

    let run = check(
        &g,
        &TestInputs::new().image(&input, data.clone()),
        &[0, 0, 0],
        &[W - 2, H - 2, 3],
    );
    let AnyBuffer::U16(out) = &run.realization.buffers[0] else {
        panic!("g is u16");
    };
    let f_ref =
        |x: i64, y: i64, z: i64, c: i64| data.get(&[x, y, c]).wrapping_sub(data.get(&[x, z, c]));
    out.for_each_coord(|p| {
        let (x, y, c) = (p[0], p[1], p[2]);
        let expected = [
            f_ref(x, y, (x + y).rem_euclid(10), c),
            f_ref(x, y + 1, (x * y).rem_euclid(10), c),
            f_ref(x, y + 2, (x - y).rem_euclid(10), c),
            f_ref(x + 1, y, x.rem_euclid(10), c),
            f_ref(x + 2, y, y.rem_euclid(10), c),
        ]
        .into_iter()
        .fold(0u16, u16::wrapping_add);
        assert_eq!(out.get(p), expected, "g{p:?}");
    });
}
