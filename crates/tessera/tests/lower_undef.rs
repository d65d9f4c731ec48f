//! Halide's implicit definitions and `undef`, on the evaluator, the interpreter and native
//! code (`lower_common::check`), against plain Rust loops: compound updates (`update_add`,
//! `update_sub`, `update_mul`, `update_div`) of Funcs with no pure definition, which start
//! from the operator's identity; `undef` inside expressions, which makes the whole value
//! undef, or — through a select's arm — the store conditional on the select's condition;
//! pure definitions leaving a Tuple element undef for updates to write.

mod lower_common;

use lower_common::{check, u8_image, TestInputs};
use tessera::prelude::*;

#[test]
fn a_histogram_with_no_pure_definition_starts_from_zero() {
    let input = ImageParam::new(Type::u8(), 2, "input");
    let image = u8_image(&[0, 0], &[23, 17], 0, 255, 7);
    let r = RDom::new([(0, 23), (0, 17)]);
    let hist = Func::new("hist");
    // hist(input(r) / 16) += 1: the bin is a computed coordinate, so the pure Var is fresh.
    let bin = cast(Type::i32(), input.at((r.x(), r.y())) / 16);
    hist.update_add(bin, 1).unwrap();
    assert_eq!(hist.dimensions(), 1);
    let out = Func::new("out");
    let x = Var::new("x");
    out.define(x, hist.at(x) * 3).unwrap();
    hist.compute_root();
    out.vectorize(x, 4);
    let run = check(
        &out,
        &TestInputs::new().image(&input, image.clone()),
        &[0],
        &[16],
    );
    let mut reference = [0i32; 16];
    for v in image.data() {
        reference[usize::from(*v / 16)] += 1;
    }
    for (bin, count) in reference.iter().enumerate() {
        assert_eq!(run.i32_values(0).get(&[bin as i64]), 3 * count, "bin {bin}");
    }
}

#[test]
fn compound_updates_from_each_identity() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let r = RDom::new([(1, 4)]);
    // Minus from 0, times and divided by from 1; over a float Func too.
    let down = Func::new("down");
    down.update_sub((x, y), x * r.x() + y).unwrap();
    let product = Func::new("product");
    product
        .update_mul(
            (x, y),
            Tuple(vec![x + r.x(), cast(Type::f32(), y) + 0.5f32]),
        )
        .unwrap();
    let halved = Func::new("halved");
    halved.update_div((x, y), 2).unwrap();
    halved.update_add((x, y), x - y).unwrap();
    let all = Func::new("all");
    all.define(
        (x, y),
        Tuple(vec![
            down.at((x, y)) + product.value_at((x, y), 0) + halved.at((x, y)),
            product.value_at((x, y), 1),
        ]),
    )
    .unwrap();
    down.compute_root();
    product.compute_at(&all, y);
    halved.compute_at(&all, x);
    let run = check(&all, &TestInputs::new(), &[-3, 2], &[9, 5]);
    let AnyBuffer::F32(floats) = &run.realization.buffers[1] else {
        panic!("element 1 is f32")
    };
    for yy in 2..7i32 {
        for xx in -3..6i32 {
            let (mut d, mut p, mut f) = (0i32, 1i32, 1f32);
            for rx in 1..5 {
                d -= xx * rx + yy;
                p *= xx + rx;
                f *= yy as f32 + 0.5;
            }
            // 1 / 2 is 0 in Euclidean division, then x - y is added.
            let h = xx - yy;
            let at = [i64::from(xx), i64::from(yy)];
            assert_eq!(run.i32_values(0).get(&at), d + p + h, "at {at:?}");
            assert_eq!(floats.get(&at), f, "at {at:?}");
        }
    }
}

#[test]
fn a_refused_compound_update_leaves_the_func_undefined() {
    let x = Var::new("x");
    let f = Func::new("mixed");
    let err = f
        .update_add(x, Expr::from(1) + 1.5f32 + Expr::from(true))
        .unwrap_err();
    // The pure definition 0 was given before the update was refused, and taken back.
    assert!(err.to_string().contains("the update of mixed"), "{err}");
    assert!(!f.is_defined());
    // A plain update of a Func with no pure definition stays refused, as in Halide.
    let g = Func::new("plain");
    let err = g.update(x, 1).unwrap_err();
    assert!(err.to_string().contains("no pure definition"), "{err}");
}

#[test]
fn undef_inside_a_sum_stores_only_where_the_select_chooses_a_value() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), Tuple(vec![x + y, x * y])).unwrap();
    // f[0] += select(x % 3 == 0, y, undef) * 2; f[1] is undef + 1, so never stored.
    let old = |i| f.value_at((x, y), i);
    f.update(
        (x, y),
        Tuple(vec![
            old(0) + select((x % 3).eq_(0), y.expr(), undef::<i32>()) * 2,
            old(1) + undef::<i32>() + 1,
        ]),
    )
    .unwrap();
    // A scatter whose coordinate is undef for the later iterations: g(min(select(r < 3,
    // 2r, undef), 5)) += r stores for r in 0..3 only.
    let r = RDom::new([(0, 8)]);
    let g = Func::new("g");
    let at = min(select(r.x().lt(3), 2 * r.x(), undef::<i32>()), 5);
    g.update_add(at, r.x() + 1).unwrap();
    let out = Func::new("out");
    out.define(
        (x, y),
        Tuple(vec![f.value_at((x, y), 0) + g.at(x), f.value_at((x, y), 1)]),
    )
    .unwrap();
    f.compute_root().update_stage(0).vectorize(x, 4);
    g.compute_root();
    let run = check(&out, &TestInputs::new(), &[0, 0], &[12, 5]);
    for yy in 0..5i32 {
        for xx in 0..12i32 {
            let scattered = if xx % 2 == 0 && xx < 6 { xx / 2 + 1 } else { 0 };
            let first = xx + yy + if xx % 3 == 0 { 2 * yy } else { 0 };
            let at = [i64::from(xx), i64::from(yy)];
            assert_eq!(run.i32_values(0).get(&at), first + scattered, "at {at:?}");
            assert_eq!(run.i32_values(1).get(&at), xx * yy, "at {at:?}");
        }
    }
}

#[test]
fn an_intermediate_pure_definition_leaving_an_element_for_its_updates() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("pair");
    f.define((x, y), Tuple(vec![x * 3 + y, undef::<i32>()]))
        .unwrap();
    // Element 1 is written by the first update, element 0 left as it was.
    f.update(
        (x, y),
        Tuple(vec![undef::<i32>(), f.value_at((x, y), 0) - 7]),
    )
    .unwrap();
    f.update(
        (x, y),
        Tuple(vec![
            f.value_at((x, y), 0) * 2,
            f.value_at((x, y), 1) + undef::<i32>(),
        ]),
    )
    .unwrap();
    let out = Func::new("out");
    out.define((x, y), f.value_at((x, y), 0) + 100 * f.value_at((x, y), 1))
        .unwrap();
    f.compute_at(&out, y).vectorize(x, 4);
    f.update_stage(0).vectorize(x, 4);
    out.parallel(y);
    let run = check(&out, &TestInputs::new(), &[-2, 1], &[11, 6]);
    for yy in 1..7i32 {
        for xx in -2..9i32 {
            let first = xx * 3 + yy;
            let want = first * 2 + 100 * (first - 7);
            let at = [i64::from(xx), i64::from(yy)];
            assert_eq!(run.i32_values(0).get(&at), want, "at {at:?}");
        }
    }
}
