//! Halide's `test/correctness/logical.cpp`: `&&`, `||` and `!` in vectorized selects over a
//! u8 image (`input(x, y) = y * 128 + x`, wrapped to u8): a compound condition; the same
//! with a common subexpression (let after CSE); a condition mixing vector (x) and scalar
//! (y) terms, vectorized by 128; a u8 compared with an i32 constant; and, for every pair of
//! unsigned widths n < w in {8, 16, 32}, a select whose n-bit condition chooses between
//! w-bit values, computed plainly and vectorized by 8 into a two-element Tuple whose
//! elements must agree. Every value is also checked against plain Rust. GPU and HVX
//! schedules are left out.

use crate::lower_common::{check, Checked, TestInputs};
use tessera::prelude::*;

const W: i64 = 128;
const H: i64 = 64;

fn input_value(x: i64, y: i64) -> u8 {
    (y * W + x) as u8
}

fn input_buffer() -> Buffer<u8> {
    Buffer::<u8>::from_fn(&[0, 0], &[W, H], |c| input_value(c[0], c[1]))
}

fn run(f: &Func, input: &ImageParam) -> Checked {
    check(
        f,
        &TestInputs::new().image(input, input_buffer()),
        &[0, 0],
        &[W, H],
    )
}

fn expect_u8(run: &Checked, reference: impl Fn(i64, i64) -> u8) {
    let AnyBuffer::U8(out) = &run.realization.buffers[0] else {
        panic!("the output is u8");
    };
    for y in 0..H {
        for x in 0..W {
            assert_eq!(out.get(&[x, y]), reference(x, y), "output({x}, {y})");
        }
    }
}

#[test]
fn a_compound_condition() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let input = ImageParam::new(Type::u8(), 2, "input");
    let v = input.at((x, y));
    let cond = (v.clone().gt(10).and(v.clone().lt(20))).or(v.clone().gt(40).and(!v.gt(50)));
    let f = Func::new("f");
    f.define((x, y), select(cond, cast_to::<u8>(255), cast_to::<u8>(0)))
        .unwrap();
    f.vectorize(x, 8);
    expect_u8(&run(&f, &input), |x, y| {
        let v = input_value(x, y);
        if (v > 10 && v < 20) || (v > 40 && v <= 50) {
            255
        } else {
            0
        }
    });
}

#[test]
fn a_condition_with_a_common_subexpression() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let input = ImageParam::new(Type::u8(), 2, "input");
    let common = input.at((x, y)).gt(10);
    let cond =
        (common.clone().and(input.at((x, y)).lt(20))).or(input.at((x, y)).gt(40).and(!common));
    let f = Func::new("f");
    f.define((x, y), select(cond, cast_to::<u8>(255), cast_to::<u8>(0)))
        .unwrap();
    f.vectorize(x, 8);
    expect_u8(&run(&f, &input), |x, y| {
        let v = input_value(x, y);
        let common = v > 10;
        if (common && v < 20) || (v > 40 && !common) {
            255
        } else {
            0
        }
    });
}

#[test]
fn a_condition_of_vector_and_scalar_terms() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let input = ImageParam::new(Type::u8(), 2, "input");
    let cond = x.lt(10).or(x.gt(20)).or(y.lt(10)).or(y.gt(20));
    let f = Func::new("f");
    f.define((x, y), select(cond, 0, input.at((x, y)))).unwrap();
    f.vectorize(x, 128);
    expect_u8(&run(&f, &input), |x, y| {
        if !(10..=20).contains(&x) || !(10..=20).contains(&y) {
            0
        } else {
            input_value(x, y)
        }
    });
}

#[test]
fn a_u8_compared_with_an_i32() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let input = ImageParam::new(Type::u8(), 2, "input");
    let ten = Expr::from(10);
    let f = Func::new("f");
    f.define(
        (x, y),
        select(
            input.at((x, y)).gt(ten),
            cast_to::<u8>(255),
            cast_to::<u8>(0),
        ),
    )
    .unwrap();
    f.vectorize(x, 8);
    expect_u8(&run(&f, &input), |x, y| {
        if input_value(x, y) > 10 {
            255
        } else {
            0
        }
    });
}

fn narrow_condition_wide_values(n: u8, w: u8) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (narrow, wide) = (Type::uint(n), Type::uint(w));
    let in_wide = Func::new("in_wide");
    in_wide.define((x, y), cast(wide, y + x * 3)).unwrap();
    in_wide.compute_root();
    let in_narrow = Func::new("in_narrow");
    in_narrow
        .define((x, y), cast(narrow, x * y + x - 17))
        .unwrap();
    in_narrow.compute_root();
    let f = Func::new("f");
    f.define(
        (x, y),
        select(
            in_narrow.at((x, y)).gt(10),
            in_wide.at((x, y * 2)),
            in_wide.at((x, y * 2 + 1)),
        ),
    )
    .unwrap();
    let plain = Func::new("plain");
    plain.define((x, y), f.at((x, y))).unwrap();
    let vectorized = Func::new("vectorized");
    vectorized.define((x, y), f.at((x, y))).unwrap();
    let out = Func::new("out");
    out.define(
        (x, y),
        Tuple(vec![
            cast_to::<u32>(plain.at((x, y))),
            cast_to::<u32>(vectorized.at((x, y))),
        ]),
    )
    .unwrap();
    plain.compute_root();
    vectorized.compute_root();
    vectorized.vectorize(x, 8);
    let run = check(&out, &TestInputs::new(), &[0, 0], &[W, H]);
    let mask = |v: i64, bits: u8| (v as u64) & (u64::MAX >> (64 - bits));
    for (i, b) in run.realization.buffers.iter().enumerate() {
        let AnyBuffer::U32(b) = b else {
            panic!("out is u32")
        };
        for yy in 0..H {
            for xx in 0..W {
                let c = mask(xx * yy + xx - 17, n);
                let yw = if c > 10 { yy * 2 } else { yy * 2 + 1 };
                let want = mask(yw + xx * 3, w) as u32;
                assert_eq!(b.get(&[xx, yy]), want, "out[{i}]({xx}, {yy}), u{n} -> u{w}");
            }
        }
    }
}

#[test]
fn narrow_conditions_choosing_wide_values() {
    for (n, w) in [(8, 16), (8, 32), (16, 32)] {
        narrow_condition_wide_values(n, w);
    }
}
