//! Halide's `test/correctness/bitwise_ops.cpp`: bitwise operators on a random u32 image —
//! reinterpreting as f32, xor/and/or/not, shifts by masked amounts (logical and arithmetic,
//! with the amount of another type, by negative amounts that shift the other way, and by
//! constants of either sign), `&` of an i8 with a cast constant — each against Rust's own
//! operators, unscheduled (as in Halide) and vectorized by 8 — then the types Halide's
//! operators give: a scalar combined with a vector takes its lanes, signedness is kept, and a
//! bitwise op's type does not depend on operand order.

use crate::lower_common::{check, seeded_rng, Checked, TestInputs};
use rand::Rng;
use tessera::prelude::*;

fn input_image() -> Buffer<u32> {
    let mut rng = seeded_rng("bitwise_ops", 256);
    Buffer::from_fn(&[0], &[256], |_| rng.random::<u32>())
}

/// Realizes `value` (a function of the input and x) over `[0, extent)`, unscheduled as in
/// Halide's test and vectorized by 8.
fn realize_with(
    value: impl Fn(&ImageParam, Var) -> Expr,
    extent: i64,
) -> (Vec<Checked>, Buffer<u32>) {
    let image = input_image();
    let runs = [false, true]
        .into_iter()
        .map(|vectorized| {
            let input = ImageParam::new(Type::u32(), 1, "input");
            let x = Var::new("x");
            let f = Func::new("f");
            f.define(x, value(&input, x)).unwrap();
            if vectorized {
                f.vectorize(x, 8);
            }
            check(
                &f,
                &TestInputs::new().image(&input, image.clone()),
                &[0],
                &[extent],
            )
        })
        .collect();
    (runs, image)
}

fn output<T: Scalar>(run: &Checked) -> Buffer<T>
where
    Buffer<T>: TryFrom<AnyBuffer, Error = Error>,
{
    run.realization.buffers[0].clone().try_into().unwrap()
}

/// Checks a u32-valued op of `input(x)` and `input(x + 1)` over 128 points.
fn check_u32(what: &str, value: impl Fn(Expr, Expr) -> Expr, reference: impl Fn(u32, u32) -> u32) {
    let (runs, image) = realize_with(|i, x| value(i.at(x), i.at(x + 1)), 128);
    for (run, x) in runs.iter().flat_map(|r| (0..128).map(move |x| (r, x))) {
        let out = output::<u32>(run);
        let (a, b) = (image.get(&[x]), image.get(&[x + 1]));
        assert_eq!(
            out.get(&[x]),
            reference(a, b),
            "{what} at {x}: a={a:#x} b={b:#x}"
        );
    }
}

/// Checks an i32-valued op of `input(x)` and `input(x + 1)` over 128 points.
fn check_i32(what: &str, value: impl Fn(Expr, Expr) -> Expr, reference: impl Fn(u32, u32) -> i32) {
    let (runs, image) = realize_with(|i, x| value(i.at(x), i.at(x + 1)), 128);
    for (run, x) in runs.iter().flat_map(|r| (0..128).map(move |x| (r, x))) {
        let out = output::<i32>(run);
        let (a, b) = (image.get(&[x]), image.get(&[x + 1]));
        assert_eq!(
            out.get(&[x]),
            reference(a, b),
            "{what} at {x}: a={a:#x} b={b:#x}"
        );
    }
}

#[test]
fn reinterpret_as_float() {
    let (runs, image) = realize_with(|i, x| reinterpret(Type::f32(), i.at(x)), 256);
    for (run, x) in runs.iter().flat_map(|r| (0..256).map(move |x| (r, x))) {
        let out = output::<f32>(run);
        let (got, want) = (out.get(&[x]), f32::from_bits(image.get(&[x])));
        // Like Halide, NaNs only have to stay NaNs.
        if want.is_nan() {
            assert!(got.is_nan(), "at {x}: {got} is not NaN");
        } else {
            assert_eq!(got.to_bits(), want.to_bits(), "at {x}");
        }
    }
}

#[test]
fn xor_and_or_not() {
    check_u32("xor", |a, b| a ^ b, |a, b| a ^ b);
    check_u32("and", |a, b| a & b, |a, b| a & b);
    check_u32("or", |a, b| a | b, |a, b| a | b);
    check_u32("not", |a, _| !a, |a, _| !a);
}

#[test]
fn logical_shifts_by_masked_amounts() {
    check_u32("shl", |a, b| a << (b & 0xf), |a, b| a << (b & 0xf));
    check_u32("shr", |a, b| a >> (b & 0xf), |a, b| a >> (b & 0xf));
}

#[test]
fn arithmetic_shifts() {
    check_i32(
        "signed >> unsigned amount",
        |a, b| reinterpret(Type::i32(), a) >> (reinterpret(Type::u32(), b) & 0x1f),
        |a, b| (a as i32) >> (b & 0x1f),
    );
    check_i32(
        "i32 >> min(31, u8)",
        |a, b| cast_to::<i32>(a) >> cast_to::<i32>(min(31, cast_to::<u8>(b))),
        |a, b| (a as i32) >> (b as u8).min(31),
    );
    check_i32(
        "i32 << masked",
        |a, b| cast_to::<i32>(a) << (cast_to::<i32>(b) & 0x1f),
        |a, b| (a as i32).wrapping_shl(b & 0x1f),
    );
    check_i32(
        "i32 >> i16 amount",
        |a, b| cast_to::<i32>(a) >> cast_to::<i16>(cast_to::<i32>(b) & 0x0f),
        |a, b| (a as i32) >> (b & 0x0f),
    );
}

#[test]
fn shifts_by_negative_amounts_go_the_other_way() {
    check_i32(
        "i32 << -masked",
        |a, b| cast_to::<i32>(a) << (-1 * (cast_to::<i32>(b) & 0x1f)),
        |a, b| (a as i32) >> (b & 0x1f),
    );
    check_i32(
        "i32 >> -masked",
        |a, b| cast_to::<i32>(a) >> (-1 * (cast_to::<i32>(b) & 0x1f)),
        |a, b| (a as i32).wrapping_shl(b & 0x1f),
    );
}

#[test]
fn shifts_by_constants() {
    check_i32(
        "<< 4",
        |a, _| cast_to::<i32>(a) << 4,
        |a, _| (a as i32).wrapping_shl(4),
    );
    check_i32(
        ">> 4",
        |a, _| cast_to::<i32>(a) >> 4,
        |a, _| (a as i32) >> 4,
    );
    check_i32(
        "<< -4",
        |a, _| cast_to::<i32>(a) << -4,
        |a, _| (a as i32) >> 4,
    );
    check_i32(
        ">> -4",
        |a, _| cast_to::<i32>(a) >> -4,
        |a, _| (a as i32).wrapping_shl(4),
    );
}

#[test]
fn and_of_an_i8_with_a_cast_constant() {
    let (runs, image) = realize_with(
        |i, x| cast_to::<i8>(i.at(x)) & cast_to::<i8>(Expr::from(0xf0)),
        128,
    );
    for (run, x) in runs.iter().flat_map(|r| (0..128).map(move |x| (r, x))) {
        let out = output::<i8>(run);
        let want = ((image.get(&[x]) as i8 as i32) & 0xf0) as i8;
        assert_eq!(out.get(&[x]), want, "at {x}");
    }
}

#[test]
fn types_of_bitwise_ops() {
    let v = cast(Type::u8(), Expr::from(42).broadcast_to(4));
    let xor = v.clone() ^ 3;
    assert_eq!(
        xor.ty(),
        Type::u8().with_lanes(4),
        "scalar ^ vector takes the lanes"
    );
    let and = v & 3;
    assert!(and.ty().is_uint(), "& keeps unsignedness");
    let (a, b) = (
        cast(Type::u8(), Expr::from(42)),
        cast(Type::u16(), Expr::from(199)),
    );
    assert_eq!(
        (a.clone() ^ b.clone()).ty(),
        (b ^ a).ty(),
        "^ is commutative in type"
    );
}
