//! The definition-level evaluator on pure Funcs: stencils over shifted domains, 4-D Funcs,
//! Tuples (and `mux` of Tuples), Params, the types the language's coercions produce (with
//! `pow` of constant integer exponents and compound assignment), and every boundary condition
//! over several element types, all checked against plain Rust loops.

mod eval_common;

use eval_common::{points, random_buffer, seeded_rng};
use rand::rngs::SmallRng;
use rand::Rng;
use tessera::lang::operators::IntoOperand;
use tessera::prelude::*;

#[test]
fn stencil_on_a_shifted_domain() {
    let mut rng = seeded_rng("stencil_on_a_shifted_domain", 1);
    let input = ImageParam::new(Type::i32(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let blur_x = Func::new("blur_x");
    blur_x
        .define(
            (x, y),
            input.at((x - 1, y)) + 2 * input.at((x, y)) + input.at((x + 1, y)),
        )
        .unwrap();
    let out = Func::new("out");
    out.define(
        (x, y),
        (blur_x.at((x, y - 1)) + blur_x.at((x, y + 1))) / 4 - blur_x.at((x, y)) % 7,
    )
    .unwrap();

    let (in_mins, in_extents) = ([-7, 12], [20, 15]);
    let buf = random_buffer(&mut rng, &in_mins, &in_extents, |r| {
        r.random_range(-1000..1000)
    });
    // The output box needs the input one pixel beyond it in every direction.
    let (mins, extents) = ([-6, 13], [18, 13]);
    let result = Evaluator::new()
        .with_input(&input, buf.clone())
        .realize_as::<i32>(&out, &mins, &extents)
        .unwrap();
    assert_eq!(result.mins(), mins);
    assert_eq!(result.extents(), extents);
    let bx = |x: i64, y: i64| -> i32 {
        buf.get(&[x - 1, y]) + 2 * buf.get(&[x, y]) + buf.get(&[x + 1, y])
    };
    for p in points(&mins, &extents) {
        let (x, y) = (p[0], p[1]);
        let expected = (bx(x, y - 1) + bx(x, y + 1)).div_euclid(4) - bx(x, y).rem_euclid(7);
        assert_eq!(result.get(&p), expected, "at {p:?}");
    }
}

#[test]
fn four_dimensional_funcs() {
    let (x, y, z, w) = (Var::new("x"), Var::new("y"), Var::new("z"), Var::new("w"));
    let f = Func::new("f4");
    f.define((x, y, z, w), x + 10 * y + 100 * z + 1000 * w)
        .unwrap();
    let g = Func::new("g4");
    g.define(
        (x, y, z, w),
        f.at((x, y, z, w)) * f.at((w, z, y, x)) - f.at((x + 1, y - 2, z, w * 2)),
    )
    .unwrap();
    let (mins, extents) = ([-2, 3, -1, 0], [4, 3, 2, 3]);
    let out = Evaluator::new()
        .realize_as::<i32>(&g, &mins, &extents)
        .unwrap();
    let fr = |x: i64, y: i64, z: i64, w: i64| x + 10 * y + 100 * z + 1000 * w;
    for p in points(&mins, &extents) {
        let (x, y, z, w) = (p[0], p[1], p[2], p[3]);
        let expected = fr(x, y, z, w) * fr(w, z, y, x) - fr(x + 1, y - 2, z, w * 2);
        assert_eq!(out.get(&p) as i64, expected, "at {p:?}");
    }
}

#[test]
fn tuple_valued_funcs() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let pair = Func::new("pair");
    pair.define(
        (x, y),
        Tuple(vec![x * y, cast_to::<f32>(x) / 4.0f32, (x + y).gt(0)]),
    )
    .unwrap();
    let user = Func::new("user");
    user.define(
        (x, y),
        select(
            pair.value_at((x, y), 2),
            pair.value_at((y, x), 1),
            cast_to::<f32>(pair.at((x, y + 1))),
        ),
    )
    .unwrap();
    let (mins, extents) = ([-3, -2], [7, 5]);
    let mut ev = Evaluator::new();
    let outs = ev.realize(&pair, &mins, &extents).unwrap();
    assert_eq!(outs.len(), 3);
    let [AnyBuffer::I32(prod), AnyBuffer::F32(quarter), AnyBuffer::Bool(pos)] = &outs[..] else {
        panic!("unexpected buffer types: {outs:?}");
    };
    let used = ev.realize_as::<f32>(&user, &mins, &extents).unwrap();
    for p in points(&mins, &extents) {
        let (x, y) = (p[0] as i32, p[1] as i32);
        assert_eq!(prod.get(&p), x * y);
        assert_eq!(quarter.get(&p), x as f32 / 4.0);
        assert_eq!(pos.get(&p), x + y > 0);
        let expected = if x + y > 0 {
            y as f32 / 4.0
        } else {
            (x * (y + 1)) as f32
        };
        assert_eq!(used.get(&p), expected, "at {p:?}");
    }
    assert_eq!(
        ev.value_at(&pair, &[2, -5]).unwrap(),
        vec![Value::Int(-10), Value::F32(0.5), Value::Bool(false)]
    );
}

/// `mux_tuples` picks a whole Tuple by index (the last one past the end or for a negative
/// index), element by element, with each element's values coerced to one type.
#[test]
fn mux_of_tuples() {
    let (x, c) = (Var::new("x"), Var::new("c"));
    let picked = Func::new("picked");
    let tuples = vec![
        vec![x.expr(), Expr::from(1.5f32)],
        vec![x * 10, cast_to::<f32>(x)],
        vec![cast_to::<u8>(7), Expr::from(-2.0f32)],
    ];
    picked.define((x, c), Tuple(mux_tuples(c, tuples))).unwrap();
    let (mins, extents) = ([-2, -1], [5, 5]);
    let outs = Evaluator::new().realize(&picked, &mins, &extents).unwrap();
    let [AnyBuffer::I32(ints), AnyBuffer::F32(floats)] = &outs[..] else {
        panic!("unexpected buffer types: {outs:?}");
    };
    for p in points(&mins, &extents) {
        let (x, c) = (p[0] as i32, p[1]);
        let expected = match c {
            0 => (x, 1.5),
            1 => (x * 10, x as f32),
            _ => (7, -2.0),
        };
        assert_eq!((ints.get(&p), floats.get(&p)), expected, "at {p:?}");
    }
}

#[test]
fn params_of_several_types() {
    let (k, scale, flag) = (
        Param::<i32>::new("k"),
        Param::<f64>::new("scale"),
        Param::<bool>::new("flag"),
    );
    let offset = Param::<u8>::new("offset");
    let x = Var::new("x");
    let f = Func::new("scaled");
    f.define(
        x,
        select(
            flag.expr(),
            cast_to::<f64>(x * k.expr()) * scale.expr(),
            cast_to::<f64>(offset.expr() + 250),
        ),
    )
    .unwrap();
    for (kv, sv, fv) in [(3, 0.25, true), (-7, 1.5, true), (2, 2.0, false)] {
        let out = Evaluator::new()
            .with_param(k.bind(kv))
            .with_param(scale.bind(sv))
            .with_param(flag.bind(fv))
            .with_param(offset.bind(9))
            .realize_as::<f64>(&f, &[-4], &[9])
            .unwrap();
        for x in -4..5 {
            let expected = if fv {
                (x * kv) as f64 * sv
            } else {
                // u8 arithmetic wraps: 9 + 250 = 259 = 3 (mod 256).
                3.0
            };
            assert_eq!(out.get(&[x as i64]), expected, "k={kv} scale={sv} x={x}");
        }
    }
}

/// One Func per coercion rule, each compared with the same arithmetic written in Rust.
#[test]
fn types_produced_by_coercion() {
    let mut rng = seeded_rng("types_produced_by_coercion", 2);
    let a = ImageParam::new(Type::u8(), 1, "a");
    let b = ImageParam::new(Type::i8(), 1, "b");
    let c = ImageParam::new(Type::u16(), 1, "c");
    let d = ImageParam::new(Type::i32(), 1, "d");
    let e = ImageParam::new(Type::f32(), 1, "e");
    let n = 64;
    let ab = random_buffer(&mut rng, &[0], &[n], |r| r.random::<u8>());
    let bb = random_buffer(&mut rng, &[0], &[n], |r| r.random::<i8>());
    let cb = random_buffer(&mut rng, &[0], &[n], |r| r.random::<u16>());
    let mut db = random_buffer(&mut rng, &[0], &[n], |r| r.random_range(-100_000..100_000));
    db.set(&[0], i32::MIN);
    db.set(&[1], -7);
    let mut eb = random_buffer(&mut rng, &[0], &[n], |r| r.random_range(-400.0f32..400.0));
    eb.set(&[0], f32::NAN);
    eb.set(&[1], 1e20);
    eb.set(&[2], -3.7);
    let x = Var::new("x");
    let (av, bv, cv, dv, ev_) = (a.at(x), b.at(x), c.at(x), d.at(x), e.at(x));

    let cases: Vec<(&str, Expr, Type)> = vec![
        ("u8 + literal wraps in u8", &av + 250, Type::u8()),
        ("u8 + u16 is u16", &av + &cv, Type::u16()),
        ("i8 + u8 is i8", &bv + &av, Type::i8()),
        ("u8 * float literal is f32", &av * 0.5f32, Type::f32()),
        ("i32 / negative is Euclidean", &dv / -3, Type::i32()),
        ("i32 % negative is never negative", &dv % -3, Type::i32()),
        ("division by zero is zero", &dv / (&dv - &dv), Type::i32()),
        ("f32 to u8 saturates", cast_to::<u8>(&ev_), Type::u8()),
        ("f32 to i32 truncates", cast_to::<i32>(&ev_), Type::i32()),
        ("i8 * literal wraps", &bv * 3, Type::i8()),
        ("u8 - u16 wraps in u16", &av - &cv, Type::u16()),
        ("f64 literal makes f32 of int", &dv + 0.25, Type::f32()),
        ("abs of i8 is u8", abs(&bv), Type::u8()),
        ("u8 cubed wraps in u8", pow(&av, 3), Type::u8()),
        ("i32 to the -1 divides", pow(&dv, -1), Type::i32()),
        (
            "f32 squared is a product",
            pow(&ev_, Expr::i32(2)),
            Type::f32(),
        ),
        (
            "u8 += f32 keeps u8",
            {
                let mut sum = av.clone();
                sum += &ev_ * 0.5f32;
                sum
            },
            Type::u8(),
        ),
    ];
    let mut ev = Evaluator::new()
        .with_input(&a, ab.clone())
        .with_input(&b, bb.clone())
        .with_input(&c, cb.clone())
        .with_input(&d, db.clone())
        .with_input(&e, eb.clone());
    for (i, (what, expr, ty)) in cases.into_iter().enumerate() {
        let f = Func::new(&format!("coercion{i}"));
        f.define(x, expr).unwrap();
        assert_eq!(f.output_type(), Some(ty), "{what}");
        let out = &ev.realize(&f, &[0], &[n]).unwrap()[0];
        for x in 0..n {
            let i = [x];
            let (a, b, c, d, e) = (ab.get(&i), bb.get(&i), cb.get(&i), db.get(&i), eb.get(&i));
            let expected = match what {
                "u8 + literal wraps in u8" => Value::UInt(a.wrapping_add(250) as u64),
                "u8 + u16 is u16" => Value::UInt((a as u16).wrapping_add(c) as u64),
                "i8 + u8 is i8" => Value::Int(b.wrapping_add(a as i8) as i64),
                "u8 * float literal is f32" => Value::F32(a as f32 * 0.5),
                "i32 / negative is Euclidean" => Value::Int(d.div_euclid(-3) as i64),
                "i32 % negative is never negative" => Value::Int(d.rem_euclid(-3) as i64),
                "division by zero is zero" => Value::Int(0),
                // Rust's float-to-int `as` also truncates and saturates, with NaN -> 0.
                "f32 to u8 saturates" => Value::UInt(e as u8 as u64),
                "f32 to i32 truncates" => Value::Int(e as i32 as i64),
                "i8 * literal wraps" => Value::Int(b.wrapping_mul(3) as i64),
                "u8 - u16 wraps in u16" => Value::UInt((a as u16).wrapping_sub(c) as u64),
                "f64 literal makes f32 of int" => Value::F32(d as f32 + 0.25),
                "abs of i8 is u8" => Value::UInt(b.unsigned_abs() as u64),
                "u8 cubed wraps in u8" => Value::UInt(a.wrapping_pow(3) as u64),
                "i32 to the -1 divides" => {
                    Value::Int(if d == 0 { 0 } else { 1i32.div_euclid(d) } as i64)
                }
                "f32 squared is a product" => Value::F32(e * e),
                "u8 += f32 keeps u8" => Value::UInt(a.wrapping_add((e * 0.5) as u8) as u64),
                other => unreachable!("{other}"),
            };
            assert!(
                out.get_value(&i).bits_eq(expected),
                "{what} at x={x}: got {:?}, expected {expected:?}",
                out.get_value(&i)
            );
        }
    }
}

#[test]
fn a_long_chain_of_funcs() {
    // Each stage calls the previous one: the evaluator recurses once per stage.
    let x = Var::new("x");
    let mut prev = Func::new("chain0");
    prev.define(x, x).unwrap();
    for i in 1..200 {
        let f = Func::new(&format!("chain{i}"));
        f.define(x, prev.at(x - 1) + prev.at(x + 1) % 5).unwrap();
        prev = f;
    }
    let out = Evaluator::new()
        .realize_as::<i32>(&prev, &[0], &[3])
        .unwrap();
    let mut row: Vec<i64> = (-300..303).collect();
    for _ in 1..200 {
        row = (1..row.len() - 1)
            .map(|i| row[i - 1] + row[i + 1].rem_euclid(5))
            .collect();
        row.insert(0, 0);
        row.push(0);
    }
    // After 199 stages, `row[i]` holds the value at x = i - 300 for the valid middle part.
    for x in 0..3 {
        assert_eq!(out.get(&[x]) as i64, row[(x + 300) as usize], "x={x}");
    }
}

// ---- boundary conditions --------------------------------------------------------------------

/// The source coordinate each boundary condition reads for `x`, written independently of
/// the library's formulas.
fn repeat_edge_ref(x: i64, min: i64, extent: i64) -> i64 {
    x.clamp(min, min + extent - 1)
}
fn repeat_image_ref(x: i64, min: i64, extent: i64) -> i64 {
    min + (x - min).rem_euclid(extent)
}
fn mirror_image_ref(x: i64, min: i64, extent: i64) -> i64 {
    let t = (x - min).rem_euclid(2 * extent);
    min + if t < extent { t } else { 2 * extent - 1 - t }
}
fn mirror_interior_ref(x: i64, min: i64, extent: i64) -> i64 {
    if extent == 1 {
        return min;
    }
    let period = 2 * (extent - 1);
    let t = (x - min).rem_euclid(period);
    min + if t < extent { t } else { period - t }
}

#[test]
fn boundary_reference_is_halides() {
    // abcd|dcba and abcd|cba, as Halide documents them.
    let mirrored: Vec<i64> = (4..12).map(|x| mirror_image_ref(x, 0, 4)).collect();
    assert_eq!(mirrored, [3, 2, 1, 0, 0, 1, 2, 3]);
    let interior: Vec<i64> = (4..10).map(|x| mirror_interior_ref(x, 0, 4)).collect();
    assert_eq!(interior, [2, 1, 0, 1, 2, 3]);
    let before: Vec<i64> = (-4..0).map(|x| mirror_interior_ref(x, 0, 4)).collect();
    assert_eq!(before, [2, 3, 2, 1]);
}

type CoordRef = fn(i64, i64, i64) -> i64;

/// Every boundary condition of a 2-D image of `T`, on several image boxes, over a box much
/// larger than the image and at far-away points.
fn check_boundaries<T: Scalar>(
    name: &str,
    gen: impl Fn(&mut SmallRng) -> T + Copy,
    exterior: impl IntoOperand + Clone,
    exterior_value: T,
) where
    Buffer<T>: Into<AnyBuffer>,
{
    let mut rng = seeded_rng(name, 3);
    let input = ImageParam::new(T::TYPE, 2, &format!("{name}_input"));
    let remapping: [(&str, Func, CoordRef); 4] = [
        ("repeat_edge", repeat_edge(&input), repeat_edge_ref),
        ("repeat_image", repeat_image(&input), repeat_image_ref),
        ("mirror_image", mirror_image(&input), mirror_image_ref),
        (
            "mirror_interior",
            mirror_interior(&input),
            mirror_interior_ref,
        ),
    ];
    let constant = constant_exterior(&input, exterior).unwrap();
    for (mins, extents) in [([-2, 3], [5, 1]), ([0, 0], [1, 4]), ([7, -9], [2, 3])] {
        let buf = random_buffer(&mut rng, &mins, &extents, gen);
        let mut ev = Evaluator::new().with_input(&input, buf.clone());
        let (box_mins, box_extents) = ([-30, -25], [61, 50]);
        let mut probes = points(&box_mins, &box_extents);
        probes.extend([
            vec![1_000_003, -777_777],
            vec![-1_000_003, 777_777],
            vec![123_456_789, 5],
        ]);
        for (what, f, reference) in &remapping {
            assert_eq!(f.dimensions(), 2);
            assert!(f.name().as_str().starts_with(&format!("{name}_input$")));
            let out = ev.realize_as::<T>(f, &box_mins, &box_extents).unwrap();
            for p in &probes {
                let src = [
                    reference(p[0], mins[0], extents[0]),
                    reference(p[1], mins[1], extents[1]),
                ];
                let got = if out.contains(p) {
                    out.get(p)
                } else {
                    T::from_value(ev.value_at(f, p).unwrap()[0])
                };
                assert_eq!(
                    got,
                    buf.get(&src),
                    "{what} of {name} image {mins:?}+{extents:?} at {p:?}"
                );
            }
        }
        let out = ev
            .realize_as::<T>(&constant, &box_mins, &box_extents)
            .unwrap();
        for p in &probes {
            let expected = if buf.contains(p) {
                buf.get(p)
            } else {
                exterior_value
            };
            let got = if out.contains(p) {
                out.get(p)
            } else {
                T::from_value(ev.value_at(&constant, p).unwrap()[0])
            };
            assert_eq!(got, expected, "constant_exterior of {name} at {p:?}");
        }
    }
}

#[test]
fn boundary_conditions_on_u8() {
    check_boundaries("u8", |r| r.random::<u8>(), 7, 7u8);
}

#[test]
fn boundary_conditions_on_i16() {
    check_boundaries("i16", |r| r.random::<i16>(), -300, -300i16);
}

#[test]
fn boundary_conditions_on_f32() {
    check_boundaries("f32", |r| r.random_range(-1.0f32..1.0), 2.5f32, 2.5f32);
}

#[test]
fn boundary_conditions_on_f64_with_an_expression_value() {
    let edge = Param::<f64>::new("edge");
    let input = ImageParam::new(Type::f64(), 1, "signal");
    let f = constant_exterior(&input, edge.expr()).unwrap();
    let buf = Buffer::from_fn(&[-1], &[3], |p| p[0] as f64 * 1.5);
    let out = Evaluator::new()
        .with_input(&input, buf)
        .with_param(edge.bind(-9.0))
        .realize_as::<f64>(&f, &[-4], &[9])
        .unwrap();
    let expected = [-9.0, -9.0, -9.0, -1.5, 0.0, 1.5, -9.0, -9.0, -9.0];
    assert_eq!(out.data(), expected);
}

#[test]
fn boundary_conditions_on_funcs_with_partial_bounds() {
    // A 3-D Tuple-valued Func bounded in x and y only: c passes through unchanged.
    let (x, y, c) = (Var::new("x"), Var::new("y"), Var::new("c"));
    let src = Func::new("src");
    src.define(
        (x, y, c),
        Tuple(vec![x + 100 * y + 10_000 * c, cast_to::<f32>(x - y)]),
    )
    .unwrap();
    let bounds = [
        (Expr::from(-1), Expr::from(4)),
        (Expr::from(2), Expr::from(3)),
    ];
    let conditions: [(&str, Func, CoordRef); 4] = [
        (
            "repeat_edge",
            repeat_edge_with_bounds(&src, &bounds).unwrap(),
            repeat_edge_ref,
        ),
        (
            "repeat_image",
            repeat_image_with_bounds(&src, &bounds).unwrap(),
            repeat_image_ref,
        ),
        (
            "mirror_image",
            mirror_image_with_bounds(&src, &bounds).unwrap(),
            mirror_image_ref,
        ),
        (
            "mirror_interior",
            mirror_interior_with_bounds(&src, &bounds).unwrap(),
            mirror_interior_ref,
        ),
    ];
    let (mins, extents) = ([-12, -10, -3], [25, 21, 6]);
    let mut ev = Evaluator::new();
    for (what, f, reference) in &conditions {
        assert!(f.name().as_str().starts_with(&format!("src${what}")));
        let outs = ev.realize(f, &mins, &extents).unwrap();
        let [AnyBuffer::I32(first), AnyBuffer::F32(second)] = &outs[..] else {
            panic!("{what}: unexpected buffers {outs:?}");
        };
        for p in points(&mins, &extents) {
            let sx = reference(p[0], -1, 4) as i32;
            let sy = reference(p[1], 2, 3) as i32;
            let c = p[2] as i32;
            assert_eq!(first.get(&p), sx + 100 * sy + 10_000 * c, "{what} at {p:?}");
            assert_eq!(second.get(&p), (sx - sy) as f32, "{what} at {p:?}");
        }
    }
    let constant = constant_exterior_with_bounds(&src, 0, &bounds[..1]).unwrap();
    let outs = ev.realize(&constant, &mins, &extents).unwrap();
    let [AnyBuffer::I32(first), AnyBuffer::F32(second)] = &outs[..] else {
        panic!("unexpected buffers {outs:?}");
    };
    for p in points(&mins, &extents) {
        let inside = (-1..3).contains(&p[0]);
        let (x, y, c) = (p[0] as i32, p[1] as i32, p[2] as i32);
        let (e0, e1) = if inside {
            (x + 100 * y + 10_000 * c, (x - y) as f32)
        } else {
            (0, 0.0)
        };
        assert_eq!((first.get(&p), second.get(&p)), (e0, e1), "at {p:?}");
    }
}

#[test]
fn boundary_bounds_may_be_params_and_other_integer_types() {
    let (lo, n) = (Param::<i16>::new("lo"), Param::<u8>::new("n"));
    let x = Var::new("x");
    let src = Func::new("ramp");
    src.define(x, x * x).unwrap();
    let f = mirror_image_with_bounds(&src, &[(lo.expr(), n.expr())]).unwrap();
    let out = Evaluator::new()
        .with_param(lo.bind(-3))
        .with_param(n.bind(5))
        .realize_as::<i32>(&f, &[-40], &[80])
        .unwrap();
    for x in -40..40 {
        let s = mirror_image_ref(x, -3, 5);
        assert_eq!(out.get(&[x]) as i64, s * s, "x={x}");
    }
}

#[test]
fn boundary_condition_mistakes_are_errors() {
    let x = Var::new("x");
    let src = Func::new("line");
    src.define(x, x).unwrap();
    let too_many = [
        (Expr::from(0), Expr::from(4)),
        (Expr::from(0), Expr::from(4)),
    ];
    let err = repeat_edge_with_bounds(&src, &too_many).unwrap_err();
    assert!(err.to_string().contains("line"), "{err}");
    let float_bounds = [(Expr::from(0.5f32), Expr::from(4))];
    let err = mirror_image_with_bounds(&src, &float_bounds).unwrap_err();
    assert!(err.to_string().contains("integer"), "{err}");
    let undefined = Func::new("nothing_yet");
    let err = repeat_image_with_bounds(&undefined, &[]).unwrap_err();
    assert!(err.to_string().contains("nothing_yet"), "{err}");

    let input = ImageParam::new(Type::u8(), 2, "img");
    let err = constant_exterior(&input, 300).unwrap_err();
    assert!(err.to_string().contains("300"), "{err}");
    let err = constant_exterior(&input, 0.5f32).unwrap_err();
    assert!(err.to_string().contains("img"), "{err}");
    let err = constant_exterior(&input, Expr::from(1) + 1).unwrap_err();
    assert!(
        err.to_string().contains("i32") && err.to_string().contains("u8"),
        "{err}"
    );
}

#[test]
fn outputs_too_large_for_memory_are_errors() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("too_large");
    f.define((x, y), cast(Type::f64(), x + y)).unwrap();
    let e = Evaluator::new()
        .realize_as::<f64>(&f, &[0, 0], &[1 << 20, 1 << 20])
        .expect_err("8 TiB")
        .to_string();
    assert!(
        e.contains("needs 8796093022208 bytes") && e.contains("one buffer may hold"),
        "{e}"
    );
}
