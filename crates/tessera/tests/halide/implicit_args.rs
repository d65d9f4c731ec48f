//! Halide's `test/correctness/implicit_args.cpp`: Funcs defined with Halide's implicit
//! arguments (`_`, here `Var::placeholder()`), which stand for as many leading or trailing pure
//! dimensions as the images and Funcs they are passed to need — a 4-D Func from a 3-D and a
//! 2-D image, a 2-D Func reading it at fixed leading coordinates, and three transpositions of
//! a 4-D image that encodes its coordinates in its bytes. Each is checked in the implicit form
//! Halide writes and in the explicit form Halide's test says it is equivalent to.

use crate::lower_common::{check, Checked, TestInputs};
use tessera::prelude::*;

fn values(run: &Checked) -> &Buffer<i32> {
    match &run.realization.buffers[0] {
        AnyBuffer::I32(b) => b,
        _ => panic!("i32 output"),
    }
}

fn im1_image() -> Buffer<i32> {
    Buffer::from_fn(&[0, 0, 0], &[10, 10, 10], |p| (p[0] * p[1] * p[2]) as i32)
}

fn im2_image() -> Buffer<i32> {
    Buffer::from_fn(&[0, 0], &[10, 10], |p| (p[0] + p[1]) as i32)
}

/// `(x << 24) | (y << 16) | (z << 8) | w`: every transposition of unequal coordinates changes
/// the value.
fn code(x: i64, y: i64, z: i64, w: i64) -> i32 {
    ((x << 24) | (y << 16) | (z << 8) | w) as i32
}

fn im3_image() -> Buffer<i32> {
    Buffer::from_fn(&[0, 0, 0, 0], &[10, 10, 10, 10], |p| {
        code(p[0], p[1], p[2], p[3])
    })
}

/// `f(x, _) = im1 + im2(x, _) + im2` (4-D: `f(x, i, j, k) = im1(i, j, k) + im2(x, i) +
/// im2(i, j)`) and `g(_) = f(2, 2, _) + im2(1, _)`, written with placeholders or, if
/// `implicit` is false, with the explicit Vars Halide's test says they stand for.
fn four_dimensional(implicit: bool) {
    let im1 = ImageParam::new(Type::i32(), 3, "im1");
    let im2 = ImageParam::new(Type::i32(), 2, "im2");
    assert_eq!(im1.dimensions(), 3);
    assert_eq!(im2_image().get(&[4, 6]), 10);
    let (x, i, j, k) = (Var::new("x"), Var::new("i"), Var::new("j"), Var::new("k"));
    let all = Var::placeholder();
    let f = Func::new("f");
    if implicit {
        f.define((x, all), im1.at(all) + im2.at((x, all)) + im2.at(all))
    } else {
        f.define(
            (x, i, j, k),
            im1.at((i, j, k)) + im2.at((x, i)) + im2.at((i, j)),
        )
    }
    .unwrap();
    assert_eq!(f.dimensions(), 4);
    let inputs = TestInputs::new()
        .image(&im1, im1_image())
        .image(&im2, im2_image());
    let run = check(&f, &inputs, &[0; 4], &[2; 4]);
    let out = values(&run);
    for kk in 0..2 {
        for jj in 0..2 {
            for ii in 0..2 {
                for xx in 0..2 {
                    let correct = ii * jj * kk + xx + ii + ii + jj;
                    assert_eq!(
                        out.get(&[xx, ii, jj, kk]) as i64,
                        correct,
                        "f({xx}, {ii}, {jj}, {kk})"
                    );
                }
            }
        }
    }

    let g = Func::new("g");
    if implicit {
        g.define(all, f.at((2, 2, all)) + im2.at((1, all)))
    } else {
        g.define((i, j), f.at((2, 2, i, j)) + im2.at((1, i)))
    }
    .unwrap();
    f.compute_root();
    assert_eq!(g.dimensions(), 2);
    let run = check(&g, &inputs, &[0, 0], &[10, 10]);
    let out = values(&run);
    for jj in 0..10 {
        for ii in 0..10 {
            let correct = 2 * ii * jj + 2 + 2 + 2 + ii + 1 + ii;
            assert_eq!(out.get(&[ii, jj]) as i64, correct, "g({ii}, {jj})");
        }
    }
}

#[test]
fn a_four_dimensional_func_from_images_and_a_func_of_it() {
    four_dimensional(false);
}

#[test]
fn implicit_arguments() {
    four_dimensional(true);
}

fn check_transpose(
    define: impl Fn(&Func, &ImageParam, [Var; 4]),
    reference: fn(i64, i64, i64, i64) -> i32,
) {
    let im3 = ImageParam::new(Type::i32(), 4, "im3");
    let vars = [Var::new("a"), Var::new("b"), Var::new("x"), Var::new("y")];
    let f = Func::new("transposed");
    define(&f, &im3, vars);
    let run = check(
        &f,
        &TestInputs::new().image(&im3, im3_image()),
        &[0; 4],
        &[10; 4],
    );
    let out = values(&run);
    for i in 0..10 {
        for j in 0..10 {
            for k in 0..10 {
                for l in 0..10 {
                    assert_eq!(
                        out.get(&[i, j, k, l]),
                        reference(i, j, k, l),
                        "at ({i}, {j}, {k}, {l})"
                    );
                }
            }
        }
    }
}

#[test]
fn transposing_the_last_two_dimensions() {
    let reference = |i, j, k, l| code(i, j, l, k);
    // transpose_last_two(_, x, y) = im3(_, y, x)
    check_transpose(
        |f, im3, [_, _, x, y]| {
            let all = Var::placeholder();
            f.define((all, x, y), im3.at((all, y, x))).unwrap()
        },
        reference,
    );
    check_transpose(
        |f, im3, [a, b, x, y]| f.define((a, b, x, y), im3.at((a, b, y, x))).unwrap(),
        reference,
    );
}

#[test]
fn hairy_transpositions() {
    let reference = |i, j, k, l| code(l, i, j, k).wrapping_add(code(l, k, i, j));
    // hairy_transpose(_, x, y) = im3(y, _, x) + im3(y, x, _)
    check_transpose(
        |f, im3, [_, _, x, y]| {
            let all = Var::placeholder();
            f.define((all, x, y), im3.at((y, all, x)) + im3.at((y, x, all)))
                .unwrap()
        },
        reference,
    );
    check_transpose(
        |f, im3, [a, b, x, y]| {
            f.define((a, b, x, y), im3.at((y, a, b, x)) + im3.at((y, x, a, b)))
                .unwrap()
        },
        reference,
    );
    let reference = |i, j, k, l| code(i, j, k, l).wrapping_add(code(l, l, i, j));
    // hairy_transpose2(_, x) = im3(_, x) + im3(x, x, _)
    check_transpose(
        |f, im3, [_, _, _, x]| {
            let all = Var::placeholder();
            f.define((all, x), im3.at((all, x)) + im3.at((x, x, all)))
                .unwrap()
        },
        reference,
    );
    check_transpose(
        |f, im3, [a, b, c, x]| {
            f.define((a, b, c, x), im3.at((a, b, c, x)) + im3.at((x, x, a, b)))
                .unwrap()
        },
        reference,
    );
}
