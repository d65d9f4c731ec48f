//! Every operator, cast and intrinsic on every type, native against the interpreter bit for
//! bit: edge values (0, ±1, extremes, NaN, ±∞, −0.0) in every combination plus seeded random
//! values, as scalars and as vectors of 8, 16 and 3 lanes (the odd count exercises LLVM's
//! legalization); constant divisors and shift amounts take the fast paths.

mod llvm_common;

use llvm_common::*;
use tessera::codegen::Target;
use tessera::eval::value::Value;
use tessera::ir::{BinaryOp, Expr, Intrinsic, Stmt, Type, TypeCode, UnaryOp};

const LANES: [u16; 4] = [1, 8, 16, 3];
const RANDOM: usize = 32;

fn binary_ops(ty: Type) -> Vec<BinaryOp> {
    use BinaryOp::*;
    let all = [
        Add, Sub, Mul, Div, Mod, Min, Max, Eq, Ne, Lt, Le, Gt, Ge, And, Or, BitAnd, BitOr, BitXor,
        Shl, Shr,
    ];
    all.into_iter()
        .filter(|op| match ty.code {
            TypeCode::Bool => true,
            TypeCode::Float => !matches!(op, And | Or | BitAnd | BitOr | BitXor | Shl | Shr),
            _ => !op.is_logical(),
        })
        .collect()
}

fn run(ops: Vec<Operation>, seed: u64) {
    let (mut rng, _) = seeded_rng(seed);
    for lanes in LANES {
        elementwise_case(&ops, lanes, &mut rng, RANDOM).check();
    }
}

#[test]
fn binary_operators_on_every_type() {
    for ty in Type::ALL_SCALARS {
        let ops = binary_ops(ty)
            .into_iter()
            .map(|op| Operation {
                name: format!("{op:?}"),
                args: vec![ty, ty],
                result: if op.is_comparison() {
                    Type::bool_()
                } else {
                    ty
                },
                build: Box::new(move |a: &[Expr]| Expr::binary(op, a[0].clone(), a[1].clone())),
            })
            .collect();
        run(ops, 1);
    }
}

#[test]
fn unary_operators_and_casts_between_every_pair_of_types() {
    for from in Type::ALL_SCALARS {
        let mut ops: Vec<Operation> = [UnaryOp::Neg, UnaryOp::Not, UnaryOp::BitNot]
            .into_iter()
            .filter(|op| match op {
                UnaryOp::Neg => true,
                UnaryOp::Not => from.is_bool(),
                UnaryOp::BitNot => !from.is_float(),
            })
            .map(|op| Operation {
                name: format!("{op:?}"),
                args: vec![from],
                result: from,
                build: Box::new(move |a: &[Expr]| Expr::unary(op, a[0].clone())),
            })
            .collect();
        for to in Type::ALL_SCALARS {
            ops.push(Operation {
                name: format!("cast_{to}"),
                args: vec![from],
                result: to,
                build: Box::new(move |a: &[Expr]| {
                    Expr::cast(to.with_lanes(a[0].ty().lanes), a[0].clone())
                }),
            });
            ops.push(Operation {
                name: format!("saturating_cast_{to}"),
                args: vec![from],
                result: to,
                build: Box::new(move |a: &[Expr]| {
                    Expr::intrinsic(
                        to.with_lanes(a[0].ty().lanes),
                        Intrinsic::SaturatingCast,
                        vec![a[0].clone()],
                    )
                }),
            });
        }
        run(ops, 2);
    }
}

fn intrinsic_op(op: Intrinsic, args: Vec<Type>, result: Type) -> Operation {
    Operation {
        name: op.name().to_string(),
        args,
        result,
        build: Box::new(move |a: &[Expr]| {
            Expr::intrinsic(result.with_lanes(a[0].ty().lanes), op, a.to_vec())
        }),
    }
}

#[test]
fn intrinsics_on_every_type() {
    use Intrinsic::*;
    for ty in Type::ALL_SCALARS {
        let mut ops = Vec::new();
        if ty.is_float() {
            for op in [
                Sqrt, Exp, Log, Floor, Ceil, Round, Trunc, Sin, Cos, Tan, Asin, Acos, Atan, Sinh,
                Cosh, Tanh, Abs,
            ] {
                ops.push(intrinsic_op(op, vec![ty], ty));
            }
            for op in [Pow, Atan2, Hypot, Absd] {
                ops.push(intrinsic_op(op, vec![ty, ty], ty));
            }
            ops.push(intrinsic_op(Lerp, vec![ty, ty, ty], ty));
        }
        if ty.is_int_or_uint() {
            let unsigned = ty.with_code(TypeCode::UInt);
            ops.push(intrinsic_op(Abs, vec![ty], unsigned));
            ops.push(intrinsic_op(Absd, vec![ty, ty], unsigned));
            ops.push(intrinsic_op(Lerp, vec![ty, ty, Type::f32()], ty));
            ops.push(Operation {
                name: "lerp_f64".into(),
                ..intrinsic_op(Lerp, vec![ty, ty, Type::f64()], ty)
            });
            // Fixed-point weights narrower than, as wide as and wider than the operands.
            for weight in [Type::u8(), Type::u16(), Type::u32(), Type::u64()] {
                ops.push(Operation {
                    name: format!("lerp_{weight}"),
                    ..intrinsic_op(Lerp, vec![ty, ty, weight], ty)
                });
            }
            ops.push(intrinsic_op(CountTrailingZeros, vec![ty], ty));
            // eval::value counts the bits of negative narrow signed values sign-extended to
            // 64 bits; `bit_counts_of_narrow_signed_values` checks those against Rust.
            if ty.is_uint() || ty.bits == 64 {
                ops.push(intrinsic_op(PopCount, vec![ty], ty));
                ops.push(intrinsic_op(CountLeadingZeros, vec![ty], ty));
            }
        }
        if !ty.is_bool() {
            for op in [IsNan, IsInf, IsFinite] {
                ops.push(intrinsic_op(op, vec![ty], Type::bool_()));
            }
            ops.push(intrinsic_op(Likely, vec![ty], ty));
            for to in Type::ALL_SCALARS
                .into_iter()
                .filter(|t| t.bits == ty.bits && !t.is_bool())
            {
                ops.push(Operation {
                    name: format!("reinterpret_{to}"),
                    ..intrinsic_op(Reinterpret, vec![ty], to)
                });
            }
        }
        run(ops, 3);
    }
}

#[test]
fn division_modulo_and_shifts_by_constants() {
    for ty in Type::ALL_SCALARS.into_iter().filter(|t| t.is_int_or_uint()) {
        let mut constants: Vec<i128> = vec![
            0,
            1,
            2,
            3,
            4,
            5,
            7,
            8,
            16,
            100,
            ty.int_max(),
            ty.int_max() - 1,
        ];
        if ty.is_int() {
            constants.extend([-1, -2, -3, -4, -7, -8, ty.int_min(), ty.int_min() + 1]);
        }
        let mut ops = Vec::new();
        for c in constants {
            let k = Expr::make_const(ty, c as i64);
            for op in [BinaryOp::Div, BinaryOp::Mod, BinaryOp::Shl, BinaryOp::Shr] {
                let k = k.clone();
                ops.push(Operation {
                    name: format!("{op:?}_{c}"),
                    args: vec![ty],
                    result: ty,
                    build: Box::new(move |a: &[Expr]| {
                        let lanes = a[0].ty().lanes;
                        Expr::binary(op, a[0].clone(), k.clone().broadcast_to(lanes))
                    }),
                });
            }
        }
        run(ops, 4);
    }
}

#[test]
fn division_by_vectors_with_constant_zero_lanes() {
    // `a / select(c, ramp(2, -2), 1)`: a constant arm with a zero lane (and -1 lanes) behind a
    // select, which LLVM's simplifier once folded to poison for every lane.
    let (mut rng, _) = seeded_rng(7);
    for ty in Type::ALL_SCALARS.into_iter().filter(|t| t.is_int_or_uint()) {
        let ops: Vec<Operation> = [BinaryOp::Div, BinaryOp::Mod]
            .into_iter()
            .map(|op| Operation {
                name: format!("{op:?}"),
                args: vec![ty, Type::bool_()],
                result: ty,
                build: Box::new(move |a: &[Expr]| {
                    let lanes = a[0].ty().lanes;
                    let divisor = Expr::select(
                        a[1].clone(),
                        Expr::ramp(Expr::make_const(ty, 2), Expr::make_const(ty, -1), lanes),
                        Expr::make_const(ty, 1).broadcast_to(lanes),
                    );
                    Expr::binary(op, a[0].clone(), divisor)
                }),
            })
            .collect();
        for lanes in [8, 16, 3] {
            elementwise_case(&ops, lanes, &mut rng, RANDOM).check();
        }
    }
}

#[test]
fn euclidean_division_edge_cases() {
    let t = Type::i32();
    let (mut rng, _) = seeded_rng(5);
    let ops: Vec<Operation> = [BinaryOp::Div, BinaryOp::Mod]
        .into_iter()
        .map(|op| Operation {
            name: format!("{op:?}"),
            args: vec![t, t],
            result: t,
            build: Box::new(move |a: &[Expr]| Expr::binary(op, a[0].clone(), a[1].clone())),
        })
        .collect();
    let case = elementwise_case(&ops, 8, &mut rng, 0);
    let expected = case.jit().expect("runs");
    // Spot values, independent of the interpreter: -7 / 2 = -4, -7 % 2 = 1, 7 / -2 = -3,
    // -7 / -2 = 4, x / 0 = 0, INT_MIN / -1 wraps.
    let pairs = argument_tuples(&mut rng, &[t, t], 0);
    for (i, p) in pairs.iter().enumerate() {
        let (Value::Int(x), Value::Int(y)) = (p[0], p[1]) else {
            unreachable!()
        };
        let (q, r) = if y == 0 {
            (0, 0)
        } else {
            ((x.div_euclid(y)) as i32 as i64, x.rem_euclid(y))
        };
        assert_eq!(
            expected[0].get_flat(i as i64),
            Some(Value::Int(q)),
            "{x} / {y}"
        );
        assert_eq!(
            expected[1].get_flat(i as i64),
            Some(Value::Int(r)),
            "{x} % {y}"
        );
    }
    case.check();
}

#[test]
fn bit_counts_of_narrow_signed_values() {
    let (mut rng, _) = seeded_rng(6);
    for ty in [Type::i8(), Type::i16(), Type::i32()] {
        let ops: Vec<Operation> = [Intrinsic::PopCount, Intrinsic::CountLeadingZeros]
            .into_iter()
            .map(|op| intrinsic_op(op, vec![ty], ty))
            .collect();
        let case = elementwise_case(&ops, 8, &mut rng, RANDOM);
        let got = case.jit().expect("runs");
        for (k, count) in [|b: u64| b.count_ones(), |b: u64| b.leading_zeros()]
            .into_iter()
            .enumerate()
        {
            for i in 0..got[k].dims()[0].extent {
                let Some(Value::Int(x)) = case.images[k].1.get_flat(i) else {
                    unreachable!()
                };
                let bits = (x as u64) & (u64::MAX >> (64 - ty.bits));
                let padding = if k == 1 { 64 - ty.bits as i64 } else { 0 };
                let expected = count(bits) as i64 - padding;
                assert_eq!(
                    got[k].get_flat(i),
                    Some(Value::Int(expected)),
                    "{} of {x} in {ty}",
                    ops[k].name
                );
            }
        }
    }
}

#[test]
fn float_to_integer_casts_at_the_integer_limits() {
    // Where a float→int conversion saturates: each integer type's minimum, maximum and
    // maximum + 1 and their float neighbours (the largest float below 2^31 truncates to less
    // than i32's maximum), NaN and values that truncate to 0, in f32 and f64, scalar and in
    // vectors, natively and on the baseline x86-64 target (no AVX).
    let ints = Type::ALL_SCALARS.into_iter().filter(|t| t.is_int_or_uint());
    let limits: Vec<f64> = ints
        .clone()
        .flat_map(|t| {
            [
                t.int_min() as f64,
                t.int_max() as f64,
                (t.int_max() + 1) as f64,
            ]
        })
        .chain([f64::NAN, 0.99, -0.99, -0.0])
        .collect();
    for from in [Type::f32(), Type::f64()] {
        let mut values: Vec<Value> = Vec::new();
        for &v in &limits {
            let v = float(from, v);
            let neighbours = match v {
                Value::F32(f) => [v, Value::F32(f.next_up()), Value::F32(f.next_down())],
                _ => {
                    let f = v.as_f64();
                    [v, Value::F64(f.next_up()), Value::F64(f.next_down())]
                }
            };
            values.extend(neighbours);
        }
        // A whole number of vectors of every width below.
        while !values.len().is_multiple_of(48) {
            values.push(values[0]);
        }
        for lanes in LANES {
            let index = if lanes == 1 {
                var("x")
            } else {
                Expr::ramp(mul(var("x"), int(lanes as i32)), int(1), lanes)
            };
            let arg = load(from.with_lanes(lanes), "arg", index.clone());
            let mut case = Case::new(Stmt::empty()).image("arg", buffer_of(from, &values));
            let mut body = Vec::new();
            for to in ints.clone() {
                let name = format!("to_{to}");
                let zeros = vec![Value::zero(to); values.len()];
                case = case.output(&name, buffer_of(to, &zeros));
                let cast = Expr::cast(to.with_lanes(lanes), arg.clone());
                let count = int(values.len() as i32 / i32::from(lanes));
                body.push(serial(
                    "x",
                    int(0),
                    count,
                    store(&name, index.clone(), cast),
                ));
            }
            case.stmt = Stmt::block(body);
            case.check();
            case.check_on(&Target::x86_64_baseline());
        }
    }
}
